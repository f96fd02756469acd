"""Turn order, agent cycles and the end of the game: TV-B1..B9 of RULINGS Part 2, rules 4-3,
4.5-5, 6-1..6-6, R-03, R-04, R-28, R-29.

Games are played through real rounds with a passive policy (everyone passes, packs one card,
lets every crate through, never collects) unless a test scripts something else.
"""

from __future__ import annotations

import numpy as np
import pytest

from borders_sim.rules import state as st
from borders_sim.rules.cards import MR_SECRET_WAREHOUSE, NUM_CARD_TYPES
from tests.scenario import (assert_consistent, legal_strings, make_game, passive, play_until,
                            set_counts)

PLAYER_COUNTS = list(range(3, 9))
CYCLE = {3: 3, 4: 4, 5: 5, 6: 3, 7: 7, 8: 4}          # 6-3
MIDDLE = {3: 3, 4: 3, 5: 4, 6: 4, 7: 5, 8: 6}          # 3.2-2


def play_to_round(game, r, policy=passive):
    play_until(game, lambda g: g.round >= r, policy)


def record_rounds(game, rounds):
    """insp and order of rounds 1..rounds (playing passively)."""
    insp, order = [], []
    n = game.num_players
    for r in range(1, rounds + 1):
        play_to_round(game, r)
        assert game.round == r and not game.is_terminal
        s = game.state[0]
        insp.append(tuple(int(x) for x in s["insp"] if x >= 0))
        order.append([int(x) for x in s["order"][:n]])
    return insp, order


def empty_draw_pile(game):
    """Move the whole draw pile onto the discard pile (cards stay conserved)."""
    s = game.state[0]
    k = int(s["draw_len"])
    s["discard"] += np.bincount(s["draw"][:k], minlength=NUM_CARD_TYPES).astype(s["discard"].dtype)
    s["draw_len"] = 0


# --- TV-B1, B4, B9, 4.5-5, 6-2, 6-3, R-28 -----------------------------------------------------------
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_tv_b1_b4_b9_cycle_length_from_real_rounds(n):
    """TV-B1 (6-3, R-28): badges return to their round-1 seats after L = 3,4,5,3,7,4 rounds;
    each player is inspector once per cycle (twice in 7p) (6-2, TV-B9);
    TV-B4 (7.2-8): nobody is inspector in two consecutive rounds; 4.5-5 badge steps 1 / 2."""
    L = CYCLE[n]
    g = make_game(n, seed=n)
    insp, _ = record_rounds(g, 2 * L + 1)
    assert insp[0] == ((0,) if n <= 5 else (0, 1))
    first_return = next(r for r in range(1, len(insp)) if insp[r] == insp[0])
    assert first_return == L                        # round L+1 starts cycle 2
    assert insp[L:2 * L] == insp[:L]                # periodic
    step = 1 if n <= 5 else 2
    for a, b in zip(insp, insp[1:]):
        assert b == tuple((x + step) % n for x in a)   # 4.5-5
        assert not set(a) & set(b)                     # TV-B4
    counts = np.bincount([p for r in insp[:L] for p in r], minlength=n)
    times = 2 if n == 7 else 1
    assert list(counts) == [times] * n
    assert L * len(insp[0]) == {3: 3, 4: 4, 5: 5, 6: 6, 7: 14, 8: 8}[n]  # TV-B9
    if n >= 6:
        assert all(r[1] == (r[0] + 1) % n for r in insp)                 # 3.4-4


def test_tv_b2_7p_schedule():
    """TV-B2: 7p (A,B) r1 (0,1), r2 (2,3), r3 (4,5), r4 (6,0), r5 (1,2), r6 (3,4), r7 (5,6),
    r8 (0,1)."""
    insp, _ = record_rounds(make_game(7, seed=1), 8)
    assert insp == [(0, 1), (2, 3), (4, 5), (6, 0), (1, 2), (3, 4), (5, 6), (0, 1)]


def test_tv_b3_8p_schedule():
    """TV-B3, 4.5-5: 8p, everybody is inspector once every 4 rounds."""
    insp, _ = record_rounds(make_game(8, seed=1), 5)
    assert insp == [(0, 1), (2, 3), (4, 5), (6, 7), (0, 1)]


# --- TV-B7, B8, 4-3, R-03, R-04: round order ---------------------------------------------------------
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_4_3_round_order_every_round(n):
    """4-3, R-04: round order starts at A+1 (one inspector) or B+1 (two), goes once around."""
    insp, order = record_rounds(make_game(n, seed=2), CYCLE[n] + 1)
    for i, o in zip(insp, order):
        start = (i[-1] + 1) % n
        assert o == [(start + k) % n for k in range(n)]
        assert o[-len(i):] == list(i)   # smugglers first, then A, then B


def _phase_sequence(game, phase_name):
    """Seats asked in ``phase_name`` during the current round (skip_forced=False games)."""
    seq = []
    r = game.round
    while game.round == r and not game.is_terminal:
        if game.phase == phase_name:
            seq.append(game.current_player)
        game.step(passive(game))
    return seq


def test_tv_b7_round_order_5p_agent_at_seat_2():
    """TV-B7: N=5, agent at seat 2 -> 3,4,0,1,2; market and announcement skip the agent,
    collection ends with it (4-3, R-04)."""
    g = make_game(5, seed=4, skip_forced=False)
    play_to_round(g, 3)
    assert list(g.state[0]["insp"]) == [2, -1]
    assert list(g.state[0]["order"][:5]) == [3, 4, 0, 1, 2]
    h = g.copy()
    assert _phase_sequence(g, "market") == [3, 4, 0, 1]
    assert _phase_sequence(h.copy(), "announce") == [3, 4, 0, 1]
    assert _phase_sequence(h, "collect") == [3, 4, 0, 1, 2]


def test_tv_b8_round_order_8p_a2_b3():
    """TV-B8, R-04: N=8, A=2, B=3 -> 4,5,6,7,0,1 (smugglers), then 2 (A), then 3 (B)."""
    g = make_game(8, seed=4, skip_forced=False)
    play_to_round(g, 2)
    assert list(g.state[0]["insp"]) == [2, 3]
    assert list(g.state[0]["order"][:8]) == [4, 5, 6, 7, 0, 1, 2, 3]
    h = g.copy()
    assert _phase_sequence(g, "market") == [4, 5, 6, 7, 0, 1]
    assert _phase_sequence(h.copy(), "announce") == [4, 5, 6, 7, 0, 1]
    assert _phase_sequence(h, "collect") == [4, 5, 6, 7, 0, 1, 2, 3]


# --- TV-B5, 6-1, 6-4, 6-5: end of game after the last main resource -----------------------------------
def _rig_last_main_resource(game, collector):
    """Leave only the Secret Warehouse in the middle (the others held by other seats, at most
    one each) and give ``collector`` 5 beer face down, so it can collect the last one."""
    s = game.state[0]
    n = game.num_players
    k = MIDDLE[n]
    s["main_middle"][:] = 0
    s["main_held"][:] = 0
    s["main_middle"][MR_SECRET_WAREHOUSE] = 1
    others = [m for m in range(12) if m != MR_SECRET_WAREHOUSE][: k - 1]
    holders = [p for p in range(n) if p != collector]
    for m, p in zip(others, holders):
        s["main_held"][p, m] = 1
    set_counts(game, "wh_down", collector, {"beer": 5})
    assert_consistent(game)


def _collector_policy(r_trigger):
    def policy(g):
        legal = legal_strings(g)
        if g.round == r_trigger and "collect secret warehouse" in legal:
            return "collect secret warehouse"
        return passive(g)
    return policy


@pytest.mark.parametrize("n,r,end", [(5, 7, 10), (6, 3, 3), (7, 8, 14), (4, 4, 4), (8, 5, 8),
                                     (3, 1, 3), (4, 5, 8)])
def test_tv_b5_game_ends_after_L_ceil_r_over_L(n, r, end):
    """TV-B5, 6-1, 6-4, 6-5: the last main resource collected in round r -> the game ends after
    round L*ceil(r/L) (the rest of the cycle is played: last shipments)."""
    g = make_game(n, seed=10 + n)
    play_to_round(g, r)
    collector = int(g.state[0]["order"][0])
    _rig_last_main_resource(g, collector)
    policy = _collector_policy(r)
    play_until(g, lambda x: x.round > r, policy)
    s = g.state[0]
    assert s["main_held"][collector, MR_SECRET_WAREHOUSE] == 1
    assert s["main_middle"].sum() == 0
    assert s["trigger_round"] == r
    assert s["end_reason"] == st.END_MAIN_RESOURCES
    if end == r:
        assert g.is_terminal and g.round == r
    else:
        play_until(g, lambda x: x.round >= end)
        assert not g.is_terminal and g.round == end      # round `end` is still played
        play_until(g, lambda x: False)
        assert g.is_terminal and g.round == end
    assert s["end_round"] == end
    assert s["runouts"] == 0
    assert_consistent(g)


@pytest.mark.parametrize("n,r", [(4, 2), (7, 3), (6, 3)])
def test_6_4_trigger_round_field_set_by_hand(n, r):
    """6-4: with ``trigger_round`` set to r the end-of-game check ends the game after round
    L*ceil(r/L), and not earlier."""
    L = CYCLE[n]
    end = L * -(-r // L)
    g = make_game(n, seed=5)
    play_to_round(g, r)
    g.state[0]["trigger_round"] = r
    g.state[0]["end_reason"] = st.END_MAIN_RESOURCES
    play_until(g, lambda x: False)
    assert g.is_terminal and g.round == end and g.state[0]["end_round"] == end


def test_6_1_no_end_while_main_resources_remain():
    """6-1, 6-6: with main resources in the middle and no second run-out the game goes on."""
    g = make_game(4, seed=6)
    play_to_round(g, 13)
    s = g.state[0]
    assert not g.is_terminal and s["trigger_round"] == 0 and s["end_reason"] == st.END_NONE


# --- TV-B6, 6-6, R-29, R-30: the fallback rule -------------------------------------------------------
def _market_discard_one(round_no):
    """Passive, except that the first smuggler of ``round_no`` discards one card in the market
    (so a draw is needed)."""
    state = {"done": False}

    def policy(g):
        if g.round == round_no and g.phase == "market" and not state["done"]:
            state["done"] = True
            return next(a for a in legal_strings(g) if a.startswith("discard "))
        return passive(g)
    return policy


def test_tv_b6_fallback_second_runout_in_round_9_ends_after_12():
    """TV-B6, 6-6, R-29: N=4, the draw pile runs out the second time during round 9 with main
    resources still in the middle -> the game ends after round 12 (end_reason fallback)."""
    g = make_game(4, seed=8)
    play_to_round(g, 3)
    empty_draw_pile(g)
    play_until(g, lambda x: x.round > 3, _market_discard_one(3))
    s = g.state[0]
    assert s["runouts"] == 1 and s["trigger_round"] == 0 and s["end_reason"] == st.END_NONE
    assert s["draw_len"] > 0          # the discard pile was reshuffled into a new pile
    play_to_round(g, 9)
    empty_draw_pile(g)
    play_until(g, lambda x: x.phase == "pack" or x.round > 9, _market_discard_one(9))
    assert g.round == 9
    assert s["runouts"] == 2 and s["trigger_round"] == 9 and s["end_reason"] == st.END_FALLBACK
    assert s["main_middle"].sum() == MIDDLE[4]
    assert s["draw_len"] > 0          # reshuffled again so play continues to the cycle's end
    play_until(g, lambda x: x.round >= 12)
    assert not g.is_terminal
    play_until(g, lambda x: False)
    assert g.is_terminal and g.round == 12 and s["end_round"] == 12
    assert s["end_reason"] == st.END_FALLBACK
    assert_consistent(g)


def test_r_29_runout_at_refill_counts():
    """R-29, R-30, 4.5-6: a run-out during the end-of-round refill also counts and reshuffles.
    The refill comes after this round's end-of-game check (4.5-3 before 4.5-4), so the engine
    books a second run-out there on the next round (trigger_round = r+1); in 3p rounds 2 and 3
    share a cycle, so the game ends after round 3 either way."""
    g = make_game(3, seed=9, skip_forced=False)
    s = g.state[0]
    play_to_round(g, 2)
    s["runouts"] = 1
    # the refill at the end of round 2 needs cards (every smuggler packed one)
    play_until(g, lambda x: x.phase == "collect")
    assert g.round == 2
    empty_draw_pile(g)
    play_until(g, lambda x: x.round > 2)
    assert s["runouts"] == 2 and s["end_reason"] == st.END_FALLBACK
    assert s["trigger_round"] == 3
    assert all(s["hand"][p].sum() == 6 for p in range(3))
    play_until(g, lambda x: False)
    assert g.is_terminal and g.round == 3


def test_r_29_both_piles_empty_draw_fails_once():
    """R-29: with both piles empty a draw fails, the hand stays short, and the failed attempt
    counts as one run-out. (The pile cards are simply removed here: conservation is not the
    point of this check.)"""
    g = make_game(4, seed=12, skip_forced=False)
    play_until(g, lambda x: x.phase == "market")
    s = g.state[0]
    p = g.current_player
    g.step(next(a for a in legal_strings(g) if a.startswith("discard ")))
    s["draw_len"] = 0
    s["discard"][:] = 0
    before = int(s["runouts"])
    g.step("end market")
    assert s["runouts"] == before + 1
    assert s["hand"][p].sum() == 5
    assert s["phase"] == st.PH_MARKET and g.current_player != p
