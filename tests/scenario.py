"""Helpers to script positions for rule tests while keeping every card accounted for.

Cards given to a hand, crate or warehouse are taken from the draw pile (or the discard pile),
and cards taken away are put back on the draw pile, so :func:`invariants.check` stays clean.
"""

from __future__ import annotations

import numpy as np

from borders_sim import Game, GameConfig
from borders_sim.rules import engine
from borders_sim.rules import state as st
from borders_sim.rules.cards import CARD_KEYS, FIRST_ACTION
from borders_sim.rules.invariants import check

KEY = {k: i for i, k in enumerate(CARD_KEYS)}


def card(name: str) -> int:
    return KEY[name]


def make_game(num_players: int = 4, seed: int = 0, **flags) -> Game:
    return Game(GameConfig(num_players=num_players, **flags), seed=seed)


def _take_from_piles(s, t: int) -> None:
    """Remove one card of type t from the draw pile (else the discard pile)."""
    n = int(s["draw_len"])
    idx = np.flatnonzero(s["draw"][:n] == t)
    if len(idx):
        i = idx[-1]
        s["draw"][i:n - 1] = s["draw"][i + 1:n].copy()
        s["draw_len"] = n - 1
    elif s["discard"][t] > 0:
        s["discard"][t] -= 1
    else:
        raise ValueError(f"no {CARD_KEYS[t]} left in the piles")


def _return_to_draw(s, t: int) -> None:
    n = int(s["draw_len"])
    s["draw"][n] = t
    s["draw_len"] = n + 1


def set_counts(game: Game, field: str, p: int, cards: dict) -> None:
    """Set ``state[field][p]`` (hand, crate, wh_up, wh_down) to exactly ``cards`` {key: count},
    balancing against the piles. For ``hand`` action cards are made active this round."""
    s = game.state[0]
    row = s[field][p]
    want = np.zeros_like(row)
    for k, v in cards.items():
        want[card(k)] = v
    for t in range(len(row)):
        while row[t] > want[t]:
            row[t] -= 1
            _return_to_draw(s, t)
        while row[t] < want[t]:
            _take_from_piles(s, t)
            row[t] += 1
    if field == "hand":
        s["hand_later"][p] = 0
    if field == "crate":
        s["crate_size"][p] = int(row.sum())


def set_gold(game: Game, p: int, gold: int) -> None:
    """Set a player's gold, booking the difference as a bank flow so gold stays conserved."""
    s = game.state[0]
    diff = gold - int(s["gold"][p])
    s["gold"][p] = gold
    if diff > 0:
        s["bank_out"] += diff
    else:
        s["bank_in"] += -diff


def play(game: Game, *actions: str) -> None:
    """Apply readable actions in order; each must be legal."""
    for a in actions:
        game.step(a)


def legal_strings(game: Game) -> list[str]:
    return [game.action_to_string(a) for a in game.legal_actions()]


def reseek(game: Game) -> None:
    """After editing the state by hand, let the engine find the next decision again."""
    engine.advance(game.state[0], game._mask)


def assert_consistent(game: Game) -> None:
    problems = check(game.state[0])
    assert not problems, problems


def phase(game: Game) -> int:
    return int(game.state[0]["phase"])


__all__ = ["KEY", "card", "make_game", "set_counts", "set_gold", "play", "legal_strings",
           "reseek", "assert_consistent", "phase", "st", "FIRST_ACTION"]
