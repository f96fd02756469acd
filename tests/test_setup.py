"""Setup (§3) and the TV-A test vectors of RULINGS Part 2: deck by player count, main resources,
gold, starting hands, first inspectors; starting-hand action cards (3.3-2, 7.2-2, 7.2-3, R-22).

Expected numbers are written out here from RULINGS (not read from ``cards.py``), so a wrong
table entry in the engine fails these tests.
"""

from __future__ import annotations

import numpy as np
import pytest

from borders_sim import GameConfig
from borders_sim.rules.cards import (FALSE_BOTTOM, FIRST_ACTION, LAWYER, MAIN_NAMES, NIGHT_RAID,
                                     ROBBERY, SECRET_ROUTE, SYNDICATE_FUND)
from borders_sim.game.invariants import card_totals, check
from borders_sim.rules.setup import new_state
from tests.scenario import legal_strings, make_game

PLAYER_COUNTS = list(range(3, 9))

# RULINGS 1.0 / §12: copies 3p / 4-5p / 6-8p, card ids 0..19 in cards.py order.
COPIES_TEXT = {
    "sugar": (51, 51, 77), "coffee": (39, 39, 58), "tobacco": (0, 39, 58), "fish": (26, 26, 38),
    "beer": (19, 24, 35), "rum": (17, 22, 34), "whisky": (10, 13, 19), "gun": (5, 5, 8),
    "chocolate": (4, 4, 5), "molasses": (2, 2, 3), "colombian": (2, 2, 3), "havana": (0, 2, 3),
    "cuban": (0, 1, 2), "oysters": (2, 2, 3),
    "route": (1, 2, 3), "raid": (1, 1, 2), "bottom": (2, 3, 4), "fund": (1, 2, 3),
    "robbery": (3, 4, 6), "lawyer": (2, 3, 4),
}
KEYS = list(COPIES_TEXT)
TIER = {3: 0, 4: 1, 5: 1, 6: 2, 7: 2, 8: 2}
DECK_SIZE = {3: 187, 4: 247, 5: 247, 6: 368, 7: 368, 8: 368}
GOODS_DECK = {3: 177, 4: 232, 5: 232, 6: 346, 7: 346, 8: 346}
MIDDLE = {3: 3, 4: 3, 5: 4, 6: 4, 7: 5, 8: 6}
DRAW_AFTER_DEAL = {3: 169, 4: 223, 5: 217, 6: 332, 7: 326, 8: 320}
GOLD_TOTAL = {3: 153, 4: 203, 5: 253, 6: 306, 7: 356, 8: 406}
CORN, COAL = MAIN_NAMES.index("corn"), MAIN_NAMES.index("coal")
DEFERRED = (SECRET_ROUTE, FALSE_BOTTOM, SYNDICATE_FUND, LAWYER)   # #1, #3, #4, #6
INSPECTOR_USABLE = (NIGHT_RAID, ROBBERY)                          # #2, #5


def fresh(n, seed=0, **flags):
    """State record right after setup (no decision sought yet)."""
    return new_state(GameConfig(num_players=n, **flags), seed)[0]


def expected_copies(n):
    return np.array([COPIES_TEXT[k][TIER[n]] for k in KEYS])


# --- TV-A1..A3, §3.1: deck sizes --------------------------------------------------------------
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_tv_a1_a3_deck_size_with_action_cards(n):
    """TV-A1..A3, 3.1-1..3: 187 / 247 / 368 cards, all in draw pile + hands after setup."""
    s = fresh(n)
    totals = card_totals(s)
    assert totals.sum() == DECK_SIZE[n]
    assert s["draw_len"] + s["hand"][:n].sum() == DECK_SIZE[n]
    assert totals[FIRST_ACTION:].sum() == {187: 10, 247: 15, 368: 22}[DECK_SIZE[n]]
    assert not check(s)


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_tv_a1_a3_goods_only_deck_without_action_cards(n):
    """TV-A1..A3 with the action_cards=False variant (P-7): 177 / 232 / 346 goods, no action."""
    s = fresh(n, action_cards=False)
    totals = card_totals(s)
    assert totals.sum() == GOODS_DECK[n]
    assert totals[FIRST_ACTION:].sum() == 0
    assert s["draw_len"] == GOODS_DECK[n] - 6 * n
    assert not check(s)


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_tv_a5_a7_a14_copies_per_type(n):
    """TV-A5/A7/A14, §3.1, §12.1..§12.5: the copies of every one of the 20 card types."""
    s = fresh(n, seed=n)
    assert list(card_totals(s)) == list(expected_copies(n))


def test_tv_a4_a5_deck_marks_cumulative():
    """TV-A4/A5: ● = 187, ●● = 60, ●●● = 121 cards; copies never decrease 3p -> 4-5p -> 6-8p."""
    tiers = [np.array([COPIES_TEXT[k][i] for k in KEYS]) for i in range(3)]
    assert [tiers[0].sum(), (tiers[1] - tiers[0]).sum(), (tiers[2] - tiers[1]).sum()] == [187, 60, 121]
    assert ((tiers[1] - tiers[0]) >= 0).all() and ((tiers[2] - tiers[1]) >= 0).all()
    # A14 per-mark examples: sugar 51/0/26, tobacco 0/39/19, beer 19/5/11, robbery 3/1/2, NR 1/0/1
    marks = {k: (COPIES_TEXT[k][0], COPIES_TEXT[k][1] - COPIES_TEXT[k][0],
                 COPIES_TEXT[k][2] - COPIES_TEXT[k][1]) for k in KEYS}
    assert marks["sugar"] == (51, 0, 26) and marks["tobacco"] == (0, 39, 19)
    assert marks["beer"] == (19, 5, 11) and marks["robbery"] == (3, 1, 2)
    assert marks["raid"] == (1, 0, 1)


@pytest.mark.parametrize("seed", range(5))
def test_tv_a6_3p_deck_has_no_tobacco_havana_cuban(seed):
    """TV-A6, 3.1-1: the 3-player deck holds 0 Tobacco, 0 Havana, 0 Cuban cigars."""
    s = fresh(3, seed=seed)
    totals = card_totals(s)
    for k in ("tobacco", "havana", "cuban"):
        assert totals[KEYS.index(k)] == 0
    assert (s["hand"][:3, [2, 11, 12]] == 0).all()


# --- TV-A9/A10, §3.2: main resources -------------------------------------------------------------
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_tv_a10_main_resources_in_middle(n):
    """TV-A10, 3.2-2: K(N) = 3,3,4,4,5,6 main resources face up in the middle, none held."""
    for seed in range(20):
        s = fresh(n, seed=seed)
        assert s["main_middle"].sum() == MIDDLE[n]
        assert s["main_held"].sum() == 0


def test_tv_a9_3p_never_corn_or_coal():
    """TV-A9, 3.2-1: with 3 players Corn and Coal are removed (10 candidates remain)."""
    seen = np.zeros(12, dtype=int)
    for seed in range(300):
        seen += fresh(3, seed=seed)["main_middle"]
    assert seen[CORN] == 0 and seen[COAL] == 0
    assert (np.delete(seen, [CORN, COAL]) > 0).all()  # the other 10 all occur


def test_tv_a9_corn_and_coal_possible_with_4_plus():
    """TV-A9, 3.2-1: all 12 main resources can be drawn with 4+ players (the draw is random)."""
    seen = np.zeros(12, dtype=int)
    for seed in range(200):
        seen += fresh(4, seed=seed)["main_middle"]
    assert (seen > 0).all()


# --- TV-A11, 3.3-1: dealing ----------------------------------------------------------------------
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_tv_a11_draw_pile_after_dealing(n):
    """TV-A11, 3.3-1: 6 secret cards each; draw pile 169,223,217,332,326,320; discard empty."""
    s = fresh(n, seed=3)
    assert list(s["hand"][:n].sum(axis=1)) == [6] * n
    assert s["draw_len"] == DRAW_AFTER_DEAL[n]
    assert s["discard"].sum() == 0
    assert s["hand"][n:].sum() == 0


# --- TV-A12/A13, 3.3-1, §3.4: gold and inspectors -------------------------------------------------
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_tv_a12_a13_gold_and_first_inspectors(n):
    """TV-A12: everyone 50 gold, each round-1 inspector 53; totals 153..406.
    TV-A13, 3.4-1/2: A = seat 0; B = seat 1 with 6-8 players (none with 3-5)."""
    s = fresh(n)
    expected_insp = [0, 1] if n >= 6 else [0, -1]
    assert list(s["insp"]) == expected_insp
    gold = list(s["gold"][:n])
    assert gold == [53 if p in expected_insp else 50 for p in range(n)]
    assert sum(gold) == GOLD_TOTAL[n]
    assert s["bank_out"] == 3 * (2 if n >= 6 else 1)
    assert s["round"] == 1


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_3_4_2_random_first_inspector_seeded(n):
    """3.4-2, P-7 first_inspector=random: seeded and reproducible; B = A+1 (3.4-4); +3 gold to them."""
    firsts = set()
    for seed in range(60):
        a = fresh(n, seed=seed, first_inspector="random")
        b = fresh(n, seed=seed, first_inspector="random")
        assert list(a["insp"]) == list(b["insp"])
        assert np.array_equal(a["hand"], b["hand"]) and np.array_equal(a["draw"], b["draw"])
        A = int(a["insp"][0])
        firsts.add(A)
        insp = [A] if n <= 5 else [A, (A + 1) % n]
        if n >= 6:
            assert a["insp"][1] == (A + 1) % n
        else:
            assert a["insp"][1] == -1
        assert list(a["gold"][:n]) == [53 if p in insp else 50 for p in range(n)]
        assert list(a["order"][:n]) == [(insp[-1] + 1 + i) % n for i in range(n)]
    assert firsts == set(range(n))


def test_setup_reproducible_same_seed_game_api():
    """P-0.2 / 3.4-2: the same config and seed give the same game through the Game API."""
    g1 = make_game(5, seed=11, first_inspector="random")
    g2 = make_game(5, seed=11, first_inspector="random")
    assert np.array_equal(g1.state, g2.state)


# --- 3.3-2, 7.2-2, 7.2-3, R-22: action cards in the starting hand ---------------------------------
def _find_seed(n, want):
    """First seed whose setup satisfies ``want(state)``."""
    for seed in range(2000):
        s = fresh(n, seed=seed)
        if want(s):
            return seed, s
    raise AssertionError("no seed found")


def _inspectors(s, n):
    return [int(p) for p in s["insp"] if p >= 0]


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_7_2_2_starting_hand_action_cards_active_in_round_1_for_smugglers(n):
    """3.3-2, 7.2-2, R-22: a smuggler keeps a starting-hand action card; it is active in
    round 1 (no card waits past round 1 for a smuggler)."""
    def want(s):
        return any(s["hand"][p, FIRST_ACTION:].sum() > 0 for p in range(n)
                   if p not in _inspectors(s, n))
    _seed, s = _find_seed(n, want)
    for p in range(n):
        if p not in _inspectors(s, n):
            assert (s["hand_later"][p] == 0).all()


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_7_2_3_inspector_starting_hand_1_3_4_6_deferred(n):
    """7.2-3: a round-1 inspector's starting-hand #1/#3/#4/#6 do not become active in round 1."""
    def want(s):
        return any(s["hand"][p, t] > 0 for p in _inspectors(s, n) for t in DEFERRED)
    _seed, s = _find_seed(n, want)
    for p in _inspectors(s, n):
        for t in DEFERRED:
            assert s["hand_later"][p, t - FIRST_ACTION] == s["hand"][p, t]


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_7_2_4_inspector_starting_hand_2_5_active(n):
    """7.2-3/7.2-4: a round-1 inspector's Night Raid (#2) or Robbery (#5) is active in round 1,
    and the window offers it to the inspector."""
    def want(s):
        return any(s["hand"][p, t] > 0 for p in _inspectors(s, n) for t in INSPECTOR_USABLE)
    seed, s = _find_seed(n, want)
    for p in _inspectors(s, n):
        for t in INSPECTOR_USABLE:
            assert s["hand_later"][p, t - FIRST_ACTION] == 0
    g = make_game(n, seed=seed, skip_forced=False)
    holders = [p for p in _inspectors(s, n)
               if any(s["hand"][p, t] for t in INSPECTOR_USABLE)]
    asked = set()
    while g.phase == "action window":
        p = g.current_player
        asked.add(p)
        legal = legal_strings(g)
        if p in holders:
            assert any(a == "raid" or a.startswith("rob ") for a in legal)
        g.step("window pass")
    assert set(holders) <= asked


def test_7_2_3_deferred_starting_card_active_in_round_2_not_expired():
    """7.2-3, 7.2-5, 7.2-8: the inspector's deferred starting card survives round 1's expiry and
    is active in round 2 (no longer an inspector); its NR/RB (#2/#5) expire after round 1."""
    n = 4

    def want(s):
        return any(s["hand"][0, t] > 0 for t in DEFERRED)
    seed, s0 = _find_seed(n, want)
    g = make_game(n, seed=seed)
    deferred = {t: int(s0["hand"][0, t]) for t in DEFERRED if s0["hand"][0, t]}
    while g.round == 1:
        legal = legal_strings(g)
        for a in ("window pass", "end market", "close", "bounty done", "offer done", "pass",
                  "refuse demand", "stay out", "no reaction", "no lawyer", "no fund",
                  "skip collect"):
            if a in legal:
                g.step(a)
                break
        else:
            g.step(legal[0])
    s = g.state[0]
    assert 0 not in s["insp"]
    for t, k in deferred.items():
        assert s["hand"][0, t] >= k
        assert s["hand_later"][0, t - FIRST_ACTION] == 0  # all copies active in round 2
    for t in INSPECTOR_USABLE:
        # inspector 0 took no part in the market, so an unused #2/#5 from the starting hand
        # expired; anything held now came from the refill
        if s0["hand"][0, t]:
            assert s["discard"][t] >= s0["hand"][0, t]
