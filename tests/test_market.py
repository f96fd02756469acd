"""Market (P-2, §4.1), lazy reshuffle (R-30, 4.5-6), packing (P-3, §4.2, R-23) and the
announcement (P-4, §4.3, R-24) of RULINGS.

Positions are scripted with ``tests/scenario.py``; games use ``skip_forced=False`` so that every
decision is seen.
"""

from __future__ import annotations

import numpy as np
import pytest

from borders_sim.rules import state as st
from borders_sim.rules.cards import CARD_KEYS, FIRST_ACTION, NUM_CARD_TYPES
from tests.scenario import (assert_consistent, inspectors, legal_strings, make_game, passive,
                            play_until, reseek, set_counts)

PLAYER_COUNTS = list(range(3, 9))
ANNOUNCE_ALL = ["announce sugar", "announce coffee", "announce tobacco", "announce fish"]


def to_phase(game, name):
    play_until(game, lambda g: g.phase == name)
    assert game.phase == name


def reset_hands(game, base=None):
    """Give every player a plain goods hand (all action cards go back to the piles), then
    restart the action window so that it is sought again with the new hands."""
    base = base or {"sugar": 3, "coffee": 3}
    for p in range(game.num_players):
        set_counts(game, "hand", p, base)
    s = game.state[0]
    s["phase"] = st.PH_WINDOW
    s["pos"] = 0
    s["window_passes"] = 0
    reseek(game)


def new(n=4, seed=0, **flags):
    flags.setdefault("skip_forced", False)
    g = make_game(n, seed=seed, **flags)
    reset_hands(g)
    return g


# --- P-2, 4.1-2, 4.1-3: the market ------------------------------------------------------------------
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_p2_market_smugglers_only_in_round_order(n):
    """P-2, 4.1-2, 4.1-3, 4-3: only smugglers take a market turn, in round order; inspectors
    neither discard nor draw."""
    g = new(n, seed=n)
    s = g.state[0]
    for p in inspectors(g):
        set_counts(g, "hand", p, {"sugar": 2})        # short hands: inspectors would draw
    to_phase(g, "market")
    smugglers = [int(p) for p in s["order"][:n] if p not in inspectors(g)]
    seen = []
    while g.phase == "market":
        p = g.current_player
        seen.append(p)
        g.step("discard coffee")
        g.step("end market")
        assert s["hand"][p].sum() == 6
    assert seen == smugglers
    for p in inspectors(g):
        assert s["hand"][p].sum() == 2 and s["hand"][p, 0] == 2
    assert s["discard"][1] == len(smugglers)
    assert_consistent(g)


@pytest.mark.parametrize("n", [3, 6])
def test_4_1_2_discard_up_to_5_face_up_then_draw_to_6(n):
    """4.1-2, 4.1-4, P-2: discard 0-5 cards of any kind (action cards too) face up onto the open
    discard pile, then draw from the top of the draw pile until holding 6."""
    g = new(n, seed=1)
    s = g.state[0]
    to_phase(g, "market")
    p = g.current_player
    set_counts(g, "hand", p, {"sugar": 2, "beer": 1, "chocolate": 1, "lawyer": 1, "robbery": 1})
    assert set(legal_strings(g)) == {"discard sugar", "discard beer", "discard chocolate",
                                     "discard lawyer", "discard robbery", "end market"}
    k = int(s["draw_len"])
    top5 = [int(t) for t in s["draw"][k - 5:k][::-1]]
    before = s["discard"].copy()
    for a in ("discard sugar", "discard lawyer", "discard beer", "discard robbery",
              "discard sugar"):
        g.step(a)
    assert legal_strings(g) == ["end market"]            # at most 5 discards
    assert s["hand"][p].sum() == 1
    diff = s["discard"] - before
    assert {CARD_KEYS[t]: int(diff[t]) for t in np.flatnonzero(diff)} == \
        {"sugar": 2, "lawyer": 1, "beer": 1, "robbery": 1}
    g.step("end market")
    assert s["hand"][p].sum() == 6
    assert s["draw_len"] == k - 5
    want = np.bincount(top5 + [8], minlength=NUM_CARD_TYPES)       # chocolate kept
    assert np.array_equal(s["hand"][p], want)
    assert_consistent(g)


def test_4_1_2_zero_discards_draws_nothing():
    """4.1-2: discarding 0 cards is allowed; a full hand draws nothing."""
    g = new(4, seed=2)
    s = g.state[0]
    to_phase(g, "market")
    p = g.current_player
    hand, k = s["hand"][p].copy(), int(s["draw_len"])
    g.step("end market")
    assert np.array_equal(s["hand"][p], hand) and s["draw_len"] == k


# --- R-30, 4.5-6: lazy reshuffle -----------------------------------------------------------------------
def test_r_30_lazy_reshuffle_when_draw_pile_empty():
    """R-30, R-29, 4.5-6: the discard pile is reshuffled only when a draw is needed and the draw
    pile is empty; the event counts as a run-out; the drawer still ends with 6."""
    g = new(4, seed=3)
    s = g.state[0]
    to_phase(g, "market")
    k = int(s["draw_len"])
    s["discard"] += np.bincount(s["draw"][:k], minlength=NUM_CARD_TYPES).astype(np.int32)
    s["draw_len"] = 0
    pile = int(s["discard"].sum())
    first = g.current_player
    g.step("end market")                       # no draw needed: no reshuffle yet
    assert s["runouts"] == 0 and s["draw_len"] == 0 and s["discard"].sum() == pile
    second = g.current_player
    assert second != first
    g.step("discard sugar")
    g.step("discard coffee")
    g.step("end market")
    assert s["runouts"] == 1
    assert s["hand"][second].sum() == 6
    assert s["discard"].sum() == 0 and s["draw_len"] == pile + 2 - 2
    assert s["trigger_round"] == 0             # a first run-out does not end the game
    assert_consistent(g)


# --- P-3, §4.2: packing ---------------------------------------------------------------------------------
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_p3_pack_goods_only_close_needs_a_card(n):
    """P-3, 4.2-1..3, 7.1-4: only goods cards can be packed (no action cards, 4.2-2); close is
    legal only once the crate holds a card."""
    g = new(n, seed=4)
    s = g.state[0]
    to_phase(g, "pack")
    p = g.current_player
    assert p not in inspectors(g)
    set_counts(g, "hand", p, {"sugar": 1, "beer": 1, "chocolate": 1, "lawyer": 1, "route": 1,
                              "robbery": 1})
    assert set(legal_strings(g)) == {"pack sugar", "pack beer", "pack chocolate"}
    g.step("pack beer")
    assert set(legal_strings(g)) == {"pack sugar", "pack chocolate", "close"}
    g.step("pack sugar")
    g.step("close")
    assert s["crate_size"][p] == 2 and s["crate_status"][p] == st.CRATE_CLOSED
    assert s["crate"][p, 4] == 1 and s["crate"][p, 0] == 1
    assert s["hand"][p, FIRST_ACTION:].sum() == 3
    assert g.current_player != p
    assert_consistent(g)


@pytest.mark.parametrize("n", [3, 5, 8])
def test_p3_auto_close_at_five(n):
    """P-3, 4.2-1: at most 5 cards; the crate closes automatically at 5."""
    g = new(n, seed=5)
    s = g.state[0]
    to_phase(g, "pack")
    p = g.current_player
    set_counts(g, "hand", p, {"sugar": 4, "fish": 2})
    for a in ("pack sugar", "pack fish", "pack sugar", "pack sugar", "pack fish"):
        assert g.current_player == p
        g.step(a)
    assert s["crate_size"][p] == 5 and s["crate_status"][p] == st.CRATE_CLOSED
    assert g.current_player != p
    assert s["hand"][p].sum() == 1
    assert_consistent(g)


@pytest.mark.parametrize("hand", [{"lawyer": 1, "robbery": 1}, {}])
def test_r_23_smuggler_without_goods_sits_out(hand):
    """R-23, P-3: a smuggler with no goods cards packs nothing, skips the announcement and the
    check this round."""
    g = new(4, seed=6)
    s = g.state[0]
    to_phase(g, "pack")
    p = g.current_player
    set_counts(g, "hand", p, hand)
    reseek(g)
    assert g.current_player != p
    assert s["crate_status"][p] == st.CRATE_SITTING_OUT and s["crate_size"][p] == 0
    while g.phase == "pack":
        g.step(passive(g))
    seq = []
    while g.phase == "announce":
        seq.append(g.current_player)
        g.step("announce coffee")
    assert p not in seq and len(seq) == 2
    assert g.phase == "choose crate"
    assert f"inspect p{p}" not in legal_strings(g)
    assert s["announced"][p] == -1
    assert_consistent(g)


def test_p3_inspectors_do_not_pack():
    """4-2, P-3: inspectors do not pack a crate."""
    g = new(7, seed=7)
    s = g.state[0]
    to_phase(g, "pack")
    seq = []
    while g.phase == "pack":
        seq.append(g.current_player)
        g.step(passive(g))
    assert not set(seq) & set(inspectors(g))
    assert all(s["crate_status"][p] == st.CRATE_NONE for p in inspectors(g))
    # P-3: in round order, each smuggler packs then closes (one card then close here)
    smugglers = [int(p) for p in s["order"][:7] if p not in inspectors(g)]
    assert seq == [p for p in smugglers for _ in range(2)]


# --- P-4, §4.3, R-24: announcement -------------------------------------------------------------------------
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_p4_announce_four_legal_types_count_filled_in(n):
    """P-4, 4.3-1..3, R-24: exactly the four legal types can be announced (tobacco too, even in
    3p by default); the type may be a lie; the count is the true crate size, filled in."""
    g = new(n, seed=8)
    s = g.state[0]
    to_phase(g, "pack")
    p = g.current_player
    set_counts(g, "hand", p, {"beer": 2, "whisky": 1, "sugar": 3})
    for a in ("pack beer", "pack whisky", "pack beer", "close"):
        g.step(a)
    to_phase(g, "announce")
    assert g.current_player == int(s["order"][0])
    while g.current_player != p:
        g.step("announce sugar")
    assert legal_strings(g) == ANNOUNCE_ALL
    g.step("announce tobacco")          # a lie (R-24: always false with 3 players)
    assert s["announced"][p] == 2 and s["crate_size"][p] == 3
    assert s["crate_status"][p] == st.CRATE_ANNOUNCED
    assert_consistent(g)


def test_r_24_no_tobacco_announcement_3p_with_flag():
    """R-24 variant allow_tobacco_announce_3p=False: tobacco cannot be announced with 3 players
    (the flag has no effect with 4+)."""
    g = new(3, seed=9, allow_tobacco_announce_3p=False)
    to_phase(g, "announce")
    assert legal_strings(g) == ["announce sugar", "announce coffee", "announce fish"]
    g4 = new(4, seed=9, allow_tobacco_announce_3p=False)
    to_phase(g4, "announce")
    assert legal_strings(g4) == ANNOUNCE_ALL


@pytest.mark.parametrize("n", [4, 8])
def test_p4_announcement_in_round_order(n):
    """4.3-1, 4-3: smugglers announce in round order."""
    g = new(n, seed=10)
    s = g.state[0]
    to_phase(g, "announce")
    seq = []
    while g.phase == "announce":
        seq.append(g.current_player)
        g.step("announce fish")
    assert seq == [int(p) for p in s["order"][:n] if p not in inspectors(g)]
