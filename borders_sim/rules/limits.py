"""Hard bounds on the length of a game (P-0.4).

**Rounds.** In every round either a card leaves the draw pile or the pile runs out: a smuggler
who packs holds fewer than 6 cards at the refill (4.5-4), and smugglers who pack nothing hold
only action cards, which cannot fill every smuggler's hand (22 action cards at most against
6 x 2..6 smuggler slots) unless the piles are empty (a run-out, R-29). So the first run-out
comes within ``D + 1`` rounds of the start (``D`` cards in the deck), the second within
``D + 1`` more, and the fallback rule (6-6) ends the game at most ``2 L`` rounds later (the
cycle in progress, or the next one for a run-out during the last refill of a cycle):
``max_rounds = 2 (D + 1) + 2 L``.

**Decisions per round.** Each kind of decision is bounded by the cards that exist (``D``) or by
the protocol's budget (``haggle_rounds`` exchanges, P-5.3), giving :func:`max_game_length`.
These are proofs of termination, far above real lengths (a few hundred to a few thousand
decisions); the tests check every game against them.
"""

from __future__ import annotations

from .cards import COPIES, CYCLE_LENGTH, FIRST_ACTION, MAX_CRATE, MAX_MARKET_DISCARDS, \
    NIGHT_RAID, ROBBERY, deck_tier
from .config import GameConfig


def deck_size(config: GameConfig) -> int:
    copies = COPIES[deck_tier(config.num_players)]
    return int(copies.sum() if config.action_cards else copies[:FIRST_ACTION].sum())


def max_rounds(config: GameConfig) -> int:
    return 2 * (deck_size(config) + 1) + 2 * int(CYCLE_LENGTH[config.num_players])


def max_decisions_per_round(config: GameConfig) -> int:
    n = config.num_players
    smugglers = n - config.num_inspectors
    d = deck_size(config)
    tier = deck_tier(n)
    plays = int(COPIES[tier, NIGHT_RAID] + COPIES[tier, ROBBERY]) if config.action_cards else 0
    window = plays * (1 + 2 * n) + n
    market = smugglers * (MAX_MARKET_DISCARDS + 1) + plays
    pack = smugglers * (MAX_CRATE + 1)
    announce = smugglers
    bounty = (smugglers - 1) * (4 + d)
    offer_turn = 2 * (1 + d + MAX_CRATE + 2) + 1
    exchanges = config.haggle_rounds * (offer_turn + 2 + 2)
    lawyer_picks = smugglers * d if config.lawyer_goods == "player_choice" else 0  # R-17d
    keep_or_open = 0 if config.accept_commits else config.num_inspectors  # P-5.3(b')
    per_crate = 1 + bounty + exchanges + 4 + smugglers + lawyer_picks + keep_or_open
    return window + market + pack + announce + smugglers * per_crate + n


def max_game_length(config: GameConfig) -> int:
    """An upper bound on the decisions of any game with this config (P-0.4)."""
    return max_rounds(config) * max_decisions_per_round(config)
