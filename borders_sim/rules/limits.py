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

The bounds are functions of a state's ``cfg`` array (:func:`rounds_limit`,
:func:`decisions_per_round_limit`, :func:`game_length_limit`) that numba compiles into the
kernels calling them (``register_jitable``), so the kernels guard against runaway games with the
same numbers (:func:`borders_sim.rules.engine.advance`); the functions of a :class:`GameConfig`
below run the same code as plain Python (no compilation at import, where the engine takes its
constants from them), on the ``cfg`` array widened to int64 as numba widens its fields.
"""

from __future__ import annotations

import numpy as np
from numba.extending import register_jitable

from .cards import (COPIES, CYCLE_LENGTH, FIRST_ACTION, MAX_CRATE, MAX_MARKET_DISCARDS,
                    NIGHT_RAID, NUM_CARD_TYPES, ROBBERY, deck_tier)
from .config import GameConfig
from .state import (CFG_ACCEPT_HOLDS, CFG_ACTION_CARDS, CFG_HAGGLE_ROUNDS, CFG_LAWYER_CHOICE,
                    CFG_NUM_INSPECTORS,
                    CFG_NUM_PLAYERS)


@register_jitable
def deck_size_of(cfg):
    """Cards in the deck of the game configured by ``cfg`` (§3.1, action cards with the flag)."""
    tier = deck_tier(cfg[CFG_NUM_PLAYERS])
    kinds = NUM_CARD_TYPES if cfg[CFG_ACTION_CARDS] != 0 else FIRST_ACTION
    d = 0
    for t in range(kinds):
        d += COPIES[tier, t]
    return d


@register_jitable
def rounds_limit(cfg):
    """``max_rounds``: no game with this ``cfg`` plays more rounds (module docstring)."""
    return 2 * (deck_size_of(cfg) + 1) + 2 * CYCLE_LENGTH[cfg[CFG_NUM_PLAYERS]]


@register_jitable
def decisions_per_round_limit(cfg):
    """An upper bound on the decisions of one round with this ``cfg``."""
    n = cfg[CFG_NUM_PLAYERS]
    smugglers = n - cfg[CFG_NUM_INSPECTORS]
    d = deck_size_of(cfg)
    tier = deck_tier(n)
    plays = COPIES[tier, NIGHT_RAID] + COPIES[tier, ROBBERY] if cfg[CFG_ACTION_CARDS] != 0 else 0
    window = plays * (1 + 2 * n) + n
    market = smugglers * (MAX_MARKET_DISCARDS + 1) + plays
    pack = smugglers * (MAX_CRATE + 1)
    announce = smugglers
    bounty = (smugglers - 1) * (4 + d)
    offer_turn = 2 * (1 + d + MAX_CRATE + 2) + 1
    exchanges = cfg[CFG_HAGGLE_ROUNDS] * (offer_turn + 2 + 2)
    lawyer_picks = smugglers * d if cfg[CFG_LAWYER_CHOICE] != 0 else 0  # R-17d
    keep_or_open = cfg[CFG_NUM_INSPECTORS] if cfg[CFG_ACCEPT_HOLDS] != 0 else 0  # P-5.3(b')
    per_crate = 1 + bounty + exchanges + 4 + smugglers + lawyer_picks + keep_or_open
    return window + market + pack + announce + smugglers * per_crate + n


@register_jitable
def game_length_limit(cfg):
    """``max_game_length``: an upper bound on the decisions of any game with this ``cfg``."""
    return rounds_limit(cfg) * decisions_per_round_limit(cfg)


def _cfg(config: GameConfig) -> np.ndarray:
    """The ``cfg`` array of ``config`` as int64 (numba computes with the int32 fields widened)."""
    return config.pack()[0].astype(np.int64)


def deck_size(config: GameConfig) -> int:
    return int(deck_size_of(_cfg(config)))


def max_rounds(config: GameConfig) -> int:
    return int(rounds_limit(_cfg(config)))


def max_decisions_per_round(config: GameConfig) -> int:
    return int(decisions_per_round_limit(_cfg(config)))


def max_game_length(config: GameConfig) -> int:
    """An upper bound on the decisions of any game with this config (P-0.4)."""
    return int(game_length_limit(_cfg(config)))
