"""The action window (P-1, 4.1-1, R-01, R-02), Night Raid (NR-1..NR-3, R-20, R-21), Robbery
(RB-1, RB-2, R-01) and action cards drawn in the market (R-19).

Hands are scripted with ``tests/scenario.py``; games use ``skip_forced=False`` so every decision
is seen. After editing hands the window is restarted from the beginning of round order.
"""

from __future__ import annotations

import pytest

from borders_sim.rules import state as st
from borders_sim.rules.cards import (FIRST_ACTION, LAWYER, NIGHT_RAID, ROBBERY,
                                     SECRET_ROUTE)
from borders_sim.rules.rng import seed_words
from tests.scenario import (assert_consistent, card, inspectors, legal_strings, make_game,
                            passive, play_until, put_on_top, reseek, set_counts, set_gold)

PLAYER_COUNTS = list(range(3, 9))


def restart_window(game):
    s = game.state[0]
    s["phase"], s["pos"], s["window_passes"] = st.PH_WINDOW, 0, 0
    reseek(game)


def scripted(n, hands, seed=0, later=None, **flags):
    """Round 1 of an n-player game with the given hands ({seat: {key: count}}; seats not named
    get 3 sugar + 3 coffee) and the action window restarted. ``later`` {seat: [types]} marks
    action cards as waiting (deferred)."""
    flags.setdefault("skip_forced", False)
    g = make_game(n, seed=seed, **flags)
    for p in range(n):   # first strip every hand so that all action cards are in the piles
        set_counts(g, "hand", p, {})
    for p in range(n):
        set_counts(g, "hand", p, hands.get(p, {"sugar": 3, "coffee": 3}))
    for p, types in (later or {}).items():
        for t in types:
            g.state[0]["hand_later"][p, t - FIRST_ACTION] += 1
    restart_window(g)
    assert_consistent(g)
    return g


def hand(game, p):
    return game.state[0]["hand"][p]


def active(game, p, t):
    s = game.state[0]
    return int(s["hand"][p, t] - s["hand_later"][p, t - FIRST_ACTION])


# --- NR-2, R-21: Night Raid ---------------------------------------------------------------------------
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_nr_2_r_21_raid_every_opponent_then_discard_one_at_a_time(n):
    """NR-2: one random card from every opponent, inspectors included; R-21(f), P-1: the raider
    then discards one card at a time (any card in hand) until 6 remain; 7.1-3: the Night Raid
    goes to the discard pile."""
    g = scripted(n, {}, seed=n)
    s = g.state[0]
    raider = int(s["order"][0])                          # a smuggler
    set_counts(g, "hand", raider, {"raid": 1, "fish": 5})
    restart_window(g)
    assert g.current_player == raider
    assert set(legal_strings(g)) == {"raid", "window pass"}
    before = s["hand"][:n].copy()
    discard_before = s["discard"].copy()
    g.step("raid")
    lost = before - s["hand"][:n]
    for q in range(n):
        if q != raider:
            assert lost[q].sum() == 1 and s["hand"][q].sum() == 5
    stolen = lost[[q for q in range(n) if q != raider]].sum(axis=0)
    assert (stolen[[0, 1]].sum() == n - 1) and stolen.sum() == n - 1
    assert s["hand"][raider, NIGHT_RAID] == 0
    assert s["discard"][NIGHT_RAID] == discard_before[NIGHT_RAID] + 1
    assert s["hand"][raider].sum() == 5 + n - 1
    decisions = 0
    while g.phase == "raid discard":
        assert g.current_player == raider
        legal = legal_strings(g)
        assert set(legal) == {f"discard {k}" for k, t in (("sugar", 0), ("coffee", 1),
                                                          ("fish", 3)) if s["hand"][raider, t]}
        g.step("discard fish" if "discard fish" in legal else legal[0])
        decisions += 1
    assert decisions == n - 2
    assert s["hand"][raider].sum() == 6
    assert s["discard"].sum() == discard_before.sum() + 1 + n - 2   # face up (R-21, NR-2)
    assert g.phase != "raid discard"
    assert_consistent(g)


def test_r_21_e_opponent_with_empty_hand_is_skipped():
    """R-21(e): an opponent with no cards is skipped by the Night Raid."""
    g = scripted(5, {1: {"raid": 1, "fish": 2}, 2: {}, 3: {"beer": 1}, 4: {}, 0: {"gun": 1}})
    s = g.state[0]
    g.step("raid")
    assert s["hand"][1].sum() == 4
    assert s["hand"][1, card("beer")] == 1 and s["hand"][1, card("gun")] == 1
    assert s["hand"][[0, 2, 3, 4]].sum() == 0
    assert_consistent(g)


@pytest.mark.parametrize("n", [3, 4, 6, 8])
def test_nr_3_raided_smugglers_refill_in_market_inspectors_at_round_end(n):
    """NR-3, R-21(b): raided smugglers draw back to 6 in their own market turn; raided
    inspectors stay short until the end-of-round refill. NR-1, 7.2-4: an inspector may raid."""
    raider = 0                                           # inspector A in round 1
    g = scripted(n, {raider: {"raid": 1, "fish": 5}}, seed=20 + n)
    s = g.state[0]
    while g.current_player != raider:
        g.step("window pass")
    g.step("raid")
    while g.phase == "raid discard":
        g.step(legal_strings(g)[-1])
    victims_insp = [p for p in inspectors(g) if p != raider]
    play_until(g, lambda x: x.phase == "market")
    while g.phase == "market":
        p = g.current_player
        assert s["hand"][p].sum() == 5
        g.step("end market")
        assert s["hand"][p].sum() == 6
    for p in victims_insp:
        assert s["hand"][p].sum() == 5
    play_until(g, lambda x: x.phase == "collect")
    for p in victims_insp:
        assert s["hand"][p].sum() == 5                   # still short after the check
    play_until(g, lambda x: x.round == 2)
    assert all(s["hand"][p].sum() == 6 for p in range(n))
    assert_consistent(g)


def test_r_20_stolen_card_active_for_smuggler_thief_and_r_02_reuse():
    """R-20, 7.2-6: cards taken by a smuggler's Night Raid are active at once (even one the
    inspector victim held deferred); R-02: a stolen Robbery is usable in the same window."""
    n = 4
    g = scripted(n, {1: {"raid": 1, "fish": 3}, 2: {"robbery": 1}, 3: {"lawyer": 1},
                     0: {"route": 1}}, later={0: [SECRET_ROUTE]})
    s = g.state[0]
    assert g.current_player == 1
    g.step("raid")
    assert g.phase == "action window"                    # 6 cards: nothing to discard
    for t in (SECRET_ROUTE, ROBBERY, LAWYER):
        assert s["hand"][1, t] == 1 and active(g, 1, t) == 1
    assert s["hand"][[0, 2, 3]].sum() == 0
    assert g.current_player == 1                         # everyone else passed automatically
    assert "rob p0" in legal_strings(g)
    g.step("rob p2")
    assert s["hand"][1, ROBBERY] == 0
    play_until(g, lambda x: x.phase == "market")
    assert active(g, 1, LAWYER) == 1 and active(g, 1, SECRET_ROUTE) == 1
    assert_consistent(g)


def test_r_20_inspector_thief_defers_1_3_4_6_keeps_2_5_active():
    """R-20, 7.2-3: an inspector who steals #1/#3/#4/#6 keeps them waiting for the next round
    (not expired at round end); a stolen #5 is active and usable in the window now (R-02)."""
    n = 4
    g = scripted(n, {0: {"raid": 1, "fish": 3}, 1: {"route": 1}, 2: {"robbery": 1},
                     3: {"lawyer": 1}})
    s = g.state[0]
    while g.current_player != 0:
        g.step("window pass")
    g.step("raid")
    assert s["hand_later"][0, SECRET_ROUTE - FIRST_ACTION] == 1
    assert s["hand_later"][0, LAWYER - FIRST_ACTION] == 1
    assert active(g, 0, ROBBERY) == 1
    assert g.current_player == 0 and "rob p1" in legal_strings(g)
    g.step("window pass")
    assert g.phase == "market"
    discard_rb = int(s["discard"][ROBBERY])
    play_until(g, lambda x: x.round == 2)
    assert s["discard"][ROBBERY] == discard_rb + 1       # unused active #5 expired
    assert s["hand"][0, SECRET_ROUTE] >= 1 and s["hand"][0, LAWYER] >= 1
    assert active(g, 0, SECRET_ROUTE) == s["hand"][0, SECRET_ROUTE]   # smuggler in round 2
    assert active(g, 0, LAWYER) == s["hand"][0, LAWYER]
    assert_consistent(g)


# --- RB-2, R-01: Robbery ----------------------------------------------------------------------------
def test_rb_2_robbery_pays_d6_or_all_gold():
    """RB-2: the target pays the d6 roll in gold (every face occurs), or all their gold if less;
    any other seat, inspectors included, can be targeted; the card is discarded."""
    g = scripted(4, {1: {"robbery": 1, "sugar": 5}})
    s = g.state[0]
    assert g.current_player == 1
    assert {a for a in legal_strings(g) if a.startswith("rob ")} == {"rob p0", "rob p2",
                                                                      "rob p3"}
    rolls = set()
    for seed in range(80):
        h = g.copy()
        h.state[0]["rng"] = seed_words(1000 + seed)
        h.step("rob p2")
        paid = int(s["gold"][2] - h.state[0]["gold"][2])
        assert h.state[0]["gold"][1] == s["gold"][1] + paid
        assert h.state[0]["hand"][1, ROBBERY] == 0
        assert h.state[0]["discard"][ROBBERY] == s["discard"][ROBBERY] + 1
        rolls.add(paid)
    assert rolls == {1, 2, 3, 4, 5, 6}
    set_gold(g, 0, 2)
    capped = set()
    for seed in range(40):
        h = g.copy()
        h.state[0]["rng"] = seed_words(2000 + seed)
        h.step("rob p0")                                  # the inspector
        capped.add(int(2 - h.state[0]["gold"][0]))
        assert h.state[0]["gold"][0] >= 0
        assert_consistent(h)
    assert capped == {1, 2}


def test_r_01_robbery_window_only_by_default():
    """R-01: by default Robbery is played only in the action window, not in the market."""
    g = scripted(4, {1: {"robbery": 1, "sugar": 5}})
    g.step("window pass")
    assert g.phase == "market" and g.current_player == 1
    assert not any(a.startswith("rob") for a in legal_strings(g))
    assert active(g, 1, ROBBERY) == 1


def test_r_01_robbery_own_turn_variant():
    """R-01 flag robbery_timing=own_turn: a smuggler robs at the start of their own market turn
    (not in the window, not after discarding); an inspector robs in the window."""
    g = scripted(4, {1: {"robbery": 2, "sugar": 4}, 0: {"robbery": 1, "sugar": 5},
                     3: {"robbery": 1, "sugar": 5}}, robbery_timing="own_turn")
    s = g.state[0]
    asked = []
    while g.phase == "action window":
        asked.append(g.current_player)
        g.step("window pass")
    assert asked == [0]                                  # only the inspector
    assert g.current_player == 1
    legal = legal_strings(g)
    assert {"rob p0", "rob p2", "rob p3"} <= set(legal)
    gold = int(s["gold"][1])
    g.step("rob p0")
    assert s["gold"][1] > gold
    assert "rob p2" in legal_strings(g)                  # a second copy, still before discards
    g.step("discard sugar")
    assert not any(a.startswith("rob") for a in legal_strings(g))
    g.step("end market")
    play_until(g, lambda x: x.phase != "market" or x.current_player == 3)
    assert g.current_player == 3 and "rob p1" in legal_strings(g)


def test_r_01_inspector_window_rob_own_turn_variant():
    """R-01 own_turn: the inspector's Robbery is offered in the action window."""
    g = scripted(4, {0: {"robbery": 1, "sugar": 5}}, robbery_timing="own_turn")
    assert g.phase == "action window" and g.current_player == 0
    assert {"rob p1", "rob p2", "rob p3", "window pass"} == set(legal_strings(g))


# --- the window loops ---------------------------------------------------------------------------
def test_r_02_window_loops_until_everyone_passes_in_a_row():
    """R-02, P-1: the window goes round in round order; after any play it continues until every
    player has passed in a row (a player who passed before is asked again); players with
    nothing to play pass automatically."""
    g = scripted(4, {1: {"robbery": 2, "sugar": 4}, 3: {"robbery": 1, "sugar": 5}})
    asked = []

    def do(a):
        asked.append((g.current_player, a))
        g.step(a)
    do("rob p2")          # p1
    do("window pass")     # p3 (p2 and p0 have nothing)
    do("rob p0")          # p1 again: a second copy
    do("window pass")     # p3 asked again after p1's play
    assert g.phase == "market"                          # p1 has nothing left: auto-pass
    assert asked == [(1, "rob p2"), (3, "window pass"), (1, "rob p0"), (3, "window pass")]


def test_r_02_window_ends_after_n_passes():
    """R-02: with nobody playing the window ends after one round of passes."""
    g = scripted(5, {1: {"robbery": 1, "sugar": 5}, 4: {"raid": 1, "sugar": 5}})
    asked = []
    while g.phase == "action window":
        asked.append(g.current_player)
        g.step("window pass")
    assert asked == [1, 4]
    assert g.phase == "market"


# --- cards drawn in the market --------------------------------------------------------------------
def _draw_route_raid_robbery_in_market(**flags):
    """p1 discards 3 cards in the round-1 market and draws Secret Route, Night Raid, Robbery."""
    g = scripted(4, {}, haggling="none", **flags)
    assert g.phase == "market" and g.current_player == 1
    for _ in range(3):
        g.step("discard sugar")
    put_on_top(g, [SECRET_ROUTE, NIGHT_RAID, ROBBERY])
    g.step("end market")
    return g


def test_r_19_market_draws_active_nr_rb_unusable():
    """R-19, 7.2-1: cards drawn in the market are active this round: a Secret Route is offered
    when the crate is opened; a Night Raid or Robbery drawn then can no longer be played (its
    window has closed) and expires at the end of the round (7.2-5)."""
    g = _draw_route_raid_robbery_in_market()
    s = g.state[0]
    for t in (SECRET_ROUTE, NIGHT_RAID, ROBBERY):
        assert s["hand"][1, t] == 1 and active(g, 1, t) == 1
    nr, rb = int(s["discard"][NIGHT_RAID]), int(s["discard"][ROBBERY])
    seen_react = []

    def policy(x):
        legal = legal_strings(x)
        assert "raid" not in legal and not any(a.startswith("rob ") for a in legal)
        if x.phase == "choose crate" and "inspect p1" in legal:
            return "inspect p1"
        if x.phase == "respond" and int(s["cur"]) == 1:
            return "open"
        if x.phase == "react":
            seen_react.append(set(legal))
            return "no reaction"
        return passive(x)
    play_until(g, lambda x: x.round == 2, policy)
    assert seen_react == [{"play route", "no reaction"}]
    assert s["discard"][NIGHT_RAID] == nr + 1 and s["discard"][ROBBERY] == rb + 1
    assert_consistent(g)


def test_r_19_rollover_flag_keeps_market_nr_rb_for_the_next_round():
    """R-19's flag ``midround_2_5_rollover``: a Night Raid or Robbery drawn in the market waits
    for the next round (not discarded at 7.2-5) and can be played in that round's window; other
    cards drawn then stay active this round."""
    g = _draw_route_raid_robbery_in_market(midround_2_5_rollover=True)
    s = g.state[0]
    assert active(g, 1, SECRET_ROUTE) == 1
    assert active(g, 1, NIGHT_RAID) == 0 and active(g, 1, ROBBERY) == 0
    nr, rb = int(s["discard"][NIGHT_RAID]), int(s["discard"][ROBBERY])
    play_until(g, lambda x: x.round == 2)
    assert s["discard"][NIGHT_RAID] == nr and s["discard"][ROBBERY] == rb
    assert s["hand"][1, NIGHT_RAID] == 1 and s["hand"][1, ROBBERY] == 1
    assert active(g, 1, NIGHT_RAID) == 1 and active(g, 1, ROBBERY) == 1
    assert g.phase == "action window"
    assert_consistent(g)
