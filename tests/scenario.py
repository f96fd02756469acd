"""Helpers to script positions for rule tests while keeping every card accounted for.

Cards given to a hand, crate or warehouse are taken from the draw pile (or the discard pile),
and cards taken away are put back on the draw pile, so :func:`invariants.check` stays clean.
"""

from __future__ import annotations

import numpy as np
import pytest

from borders_sim import Game, GameConfig
from borders_sim.rules import engine
from borders_sim.rules import state as st
from borders_sim.rules.cards import CARD_CLASS, CARD_KEYS, CLASS_LEGAL, FIRST_ACTION
from borders_sim.game.invariants import check

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
    relist(game)


def set_gold(game: Game, p: int, gold: int) -> None:
    """Set a player's gold, booking the difference as a bank flow so gold stays conserved."""
    s = game.state[0]
    diff = gold - int(s["gold"][p])
    s["gold"][p] = gold
    if diff > 0:
        s["bank_out"] += diff
    else:
        s["bank_in"] += -diff
    relist(game)


def play(game: Game, *actions: str) -> None:
    """Apply readable actions in order; each must be legal."""
    for a in actions:
        game.step(a)


def legal_strings(game: Game) -> list[str]:
    relist(game)  # tests may have edited the state by hand
    return [game.action_to_string(a) for a in game.legal_actions()]


def reseek(game: Game) -> None:
    """After editing the state by hand, let the engine find the next decision again."""
    game._call(engine.OP_ADVANCE, 0, "reseek")


def relist(game: Game) -> None:
    """After editing the state by hand, recompute the legal mask of its decision, without the
    checks of ``Game.refresh``: rule tests build positions (gold booked to the bank, history
    counters, a pile arranged, a decision not yet sought) that no game reaches, to test one
    rule on them."""
    game._call(engine.OP_LIST, 0, "relist")


def assert_consistent(game: Game) -> None:
    problems = check(game.state[0])
    assert not problems, problems


def phase(game: Game) -> int:
    return int(game.state[0]["phase"])


def S(game: Game):
    return game.state[0]


def gold(game: Game):
    return game.state[0]["gold"].astype(int).copy()


def inspectors(game: Game) -> list[int]:
    return [int(p) for p in game.state[0]["insp"] if p >= 0]


def put_on_top(game: Game, types) -> None:
    """Arrange the draw pile so that the next draws are ``types`` in order (swaps only)."""
    s = game.state[0]
    k = int(s["draw_len"])
    for i, t in enumerate(types):
        pos = k - 1 - i
        j = int(np.flatnonzero(s["draw"][:pos + 1] == t)[-1])
        s["draw"][j], s["draw"][pos] = s["draw"][pos], s["draw"][j]
    relist(game)


# --- playing through phases -------------------------------------------------------------------
PASSIVE = ("window pass", "end market", "close", "bounty done", "offer done", "pass",
           "refuse demand", "stay out", "no reaction", "no lawyer", "no fund", "skip collect")


def passive(game: Game) -> str:
    """Everyone passes, packs one card, lets every crate through, never collects."""
    legal = legal_strings(game)
    for a in PASSIVE:
        if a in legal:
            return a
    return legal[0]


def play_until(game: Game, done, policy=passive, max_steps: int = 20000) -> None:
    """Step ``policy`` until ``done(game)`` or the game ends; fail after ``max_steps`` steps."""
    for _ in range(max_steps):
        if game.is_terminal or done(game):
            return
        game.step(policy(game))
    raise AssertionError("step budget exhausted")


# --- the border check (test_negotiation, test_settlement) --------------------------------------
ONE_AND_TWO = pytest.mark.parametrize("n", [4, 6], ids=["1insp", "2insp"])


def set_warehouse(game: Game, p: int, cards: dict) -> None:
    """Warehouse of seat p: legal cards face up, the rest face down (4.4-A1)."""
    up = {k: v for k, v in cards.items() if CARD_CLASS[KEY[k]] == CLASS_LEGAL}
    down = {k: v for k, v in cards.items() if CARD_CLASS[KEY[k]] != CLASS_LEGAL}
    set_counts(game, "wh_up", p, up)
    set_counts(game, "wh_down", p, down)


def at_check(n=4, crates=None, announce=None, hands=None, gold=None, wh=None, seed=0, **flags):
    """A game in round 1 at the crate choice (P-5.1) with the given crates and announcements.

    Every hand is emptied unless given in ``hands`` (so no stray action card interferes; cards
    given are active this round); smugglers without a crate in ``crates`` get one sugar.
    ``announce`` defaults to coffee. ``action_cards`` defaults to False; other flags (e.g.
    ``bounties``) default as in :class:`GameConfig`.
    """
    flags.setdefault("action_cards", False)
    game = make_game(n, seed, **flags)
    s = game.state[0]
    while game.phase == "action window":
        game.step("pass")
    while game.phase == "market":
        game.step("end market")
    assert game.phase == "pack"
    crates = dict(crates or {})
    for p in range(n):
        set_counts(game, "hand", p, (hands or {}).get(p, {}))
        if s["crate_status"][p] == st.CRATE_PACKING:
            set_counts(game, "crate", p, crates.get(p, {"sugar": 1}))
            s["crate_status"][p] = st.CRATE_CLOSED
    for p, cards in (wh or {}).items():
        set_warehouse(game, p, cards)
    for p, amount in (gold or {}).items():
        set_gold(game, p, amount)
    reseek(game)
    while game.phase == "announce":
        game.step("announce " + (announce or {}).get(game.current_player, "coffee"))
    assert_consistent(game)
    return game


def finish_bounties(game: Game) -> None:
    while game.phase == "bounty":
        game.step("bounty done")


def assert_mask_is_the_accepted_set(game: Game) -> None:
    """Every masked action is accepted (and keeps the invariants), every other one is refused
    with IllegalActionError and changes nothing (P-0.1)."""
    from borders_sim import IllegalActionError, NUM_ACTIONS
    mask = game.legal_mask()
    before = game.state.tobytes()
    for a in range(NUM_ACTIONS):
        trial = game.copy()
        if mask[a]:
            trial.step(a)
            assert_consistent(trial)
        else:
            with pytest.raises(IllegalActionError):
                trial.step(a)
            assert trial.state.tobytes() == before
    assert game.state.tobytes() == before


__all__ = ["KEY", "card", "make_game", "set_counts", "set_gold", "play", "legal_strings",
           "reseek", "assert_consistent", "phase", "st", "FIRST_ACTION", "S", "gold", "inspectors",
           "put_on_top", "PASSIVE", "passive", "play_until", "ONE_AND_TWO", "set_warehouse",
           "at_check", "finish_bounties", "assert_mask_is_the_accepted_set"]
