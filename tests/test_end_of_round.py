"""End of round (§4.5 in its strict order, 4.5-7): main-resource collection (P-6, §5, R-04, R-26,
R-27), expiry of action cards (7.2-5), refill (4.5-4, 7.2-2, 7.2-3), badge movement (4.5-5) and
the end trigger when the middle empties (6-1).
"""

from __future__ import annotations

import pytest

from borders_sim.rules import state as st
from borders_sim.rules.cards import (FIRST_ACTION, LAWYER, MAIN_NAMES, NIGHT_RAID, ROBBERY,
                                     SECRET_ROUTE)
from tests.scenario import (assert_consistent, card, inspectors, legal_strings, make_game,
                            play_until, put_on_top, reseek, set_counts, set_gold)

PLAYER_COUNTS = list(range(3, 9))
MIDDLE = {3: 3, 4: 3, 5: 4, 6: 4, 7: 5, 8: 6}
MR = {name: i for i, name in enumerate(MAIN_NAMES)}


def new(n=4, seed=0, **flags):
    """A game whose hands are plain goods (so all action cards are in the piles)."""
    flags.setdefault("skip_forced", False)
    g = make_game(n, seed=seed, **flags)
    for p in range(n):
        set_counts(g, "hand", p, {"sugar": 3, "coffee": 3})
    s = g.state[0]
    s["phase"], s["pos"], s["window_passes"] = st.PH_WINDOW, 0, 0
    reseek(g)
    return g


def to_collect(game):
    play_until(game, lambda g: g.phase == "collect")
    assert game.phase == "collect"


def set_main(game, middle, held=None):
    """Main resources: ``middle`` (names) face up, ``held`` {seat: [names]}; K(N) in total."""
    held = held or {}
    s = game.state[0]
    s["main_middle"][:] = 0
    s["main_held"][:] = 0
    for name in middle:
        s["main_middle"][MR[name]] = 1
    for p, names in held.items():
        for name in names:
            s["main_held"][p, MR[name]] = 1
    assert s["main_middle"].sum() + s["main_held"].sum() == MIDDLE[game.num_players]


def filler(n, k, exclude=()):
    """``k`` main-resource names usable as filler for an n-player game."""
    pool = [m for m in MAIN_NAMES if m not in exclude and (n > 3 or m not in ("corn", "coal"))]
    return pool[:k]


def set_wh(game, p, up=None, down=None):
    set_counts(game, "wh_up", p, up or {})
    set_counts(game, "wh_down", p, down or {})


def collects(game):
    return [a for a in legal_strings(game) if a.startswith("collect ")]


# --- P-6, 5-3, R-26, R-27: collection ------------------------------------------------------------
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_p6_collect_legal_only_when_completable(n):
    """P-6, 5-3, 5-9: "collect m" is legal exactly for the main resources in the middle the
    player can complete now; the spent cards go face up onto the discard pile (5-3)."""
    g = new(n, seed=n)
    s = g.state[0]
    to_collect(g)
    p = g.current_player
    middle = ["sugar", "malt", "secret warehouse", "motorboat", "oak barrel", "ice shipment"]
    set_main(g, middle[: MIDDLE[n]])
    set_wh(g, p, up={"sugar": 4, "coffee": 1}, down={"beer": 1})
    assert collects(g) == ["collect sugar"]
    assert "skip collect" in legal_strings(g)
    before = s["discard"].copy()
    gold = int(s["gold"][p])
    g.step("collect sugar")
    assert s["main_held"][p, MR["sugar"]] == 1 and s["main_middle"][MR["sugar"]] == 0
    assert s["collected"][p] == 1
    diff = s["discard"] - before
    assert diff[card("sugar")] == 4 and diff[card("beer")] == 1 and diff.sum() == 5
    assert s["wh_up"][p, card("coffee")] == 1 and s["wh_up"][p].sum() == 1
    assert s["wh_down"][p].sum() == 0
    assert s["gold"][p] == gold                              # no top-up needed
    assert g.current_player != p                              # one collection per turn
    assert_consistent(g)


def test_5_12_black_market_costs_10_gold_to_bank():
    """5-12, R-26c/d: one missing piece is replaced for 10 gold paid to the bank; legal only with
    10 free gold; never two missing pieces."""
    g = new(4, seed=1)
    s = g.state[0]
    to_collect(g)
    p = g.current_player
    set_main(g, ["sugar", "malt", "secret warehouse"])
    set_wh(g, p, up={"sugar": 4})                      # the "1 any contraband" is missing
    set_gold(g, p, 9)
    reseek(g)
    assert collects(g) == []
    set_gold(g, p, 10)
    assert collects(g) == ["collect sugar"]
    set_wh(g, p, up={"sugar": 3})                      # two pieces missing
    assert collects(g) == []
    set_wh(g, p, up={"sugar": 4})
    set_gold(g, p, 25)
    bank_in = int(s["bank_in"])
    g.step("collect sugar")
    assert s["gold"][p] == 15 and s["bank_in"] == bank_in + 10
    assert s["wh_up"][p].sum() == 0 and s["main_held"][p, MR["sugar"]] == 1
    assert_consistent(g)


def test_5_13_at_most_two_held():
    """5-13, P-6: a player already holding 2 main resources cannot collect a third."""
    g = new(5, seed=2)
    to_collect(g)
    p = g.current_player
    set_main(g, ["secret warehouse", "sugar"], held={p: ["malt", "yeast"]})
    set_wh(g, p, down={"beer": 5})
    assert collects(g) == []
    set_main(g, ["secret warehouse", "sugar", "yeast"], held={p: ["malt"]})
    assert collects(g) == ["collect secret warehouse"]


def test_5_14_one_collection_per_round_and_next_round_again():
    """5-14, R-27: one pass in round order, at most one collection per player per round; the
    player may collect again in a later round, up to 2 (5-13)."""
    g = new(4, seed=3)
    s = g.state[0]
    to_collect(g)
    p = g.current_player
    order = [int(x) for x in s["order"][:4]]
    set_main(g, ["secret warehouse", "sugar", "bottles"])
    set_wh(g, p, up={"sugar": 8, "coffee": 1, "fish": 1}, down={"beer": 9})
    assert collects(g) == ["collect sugar", "collect bottles", "collect secret warehouse"]
    g.step("collect secret warehouse")
    seq = [p]
    while g.phase == "collect":
        seq.append(g.current_player)
        g.step("skip collect")
    assert seq == order                                       # nobody is asked twice
    assert g.round == 2 and s["collected"][p] == 0
    to_collect(g)
    while g.current_player != p:
        g.step("skip collect")
    assert set(collects(g)) == {"collect sugar", "collect bottles"}
    g.step("collect bottles")
    play_until(g, lambda x: x.round == 3)
    to_collect(g)
    while g.current_player != p:
        g.step("skip collect")
    assert collects(g) == []                                  # holds 2 now
    assert s["main_held"][p].sum() == 2
    assert_consistent(g)


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_5_15_inspectors_collect_too(n):
    """5-15, R-34: inspectors may collect, in their place at the end of round order."""
    g = new(n, seed=4)
    s = g.state[0]
    to_collect(g)
    a = inspectors(g)[0]
    set_main(g, filler(n, MIDDLE[n] - 1, exclude=("secret warehouse",)) + ["secret warehouse"])
    set_wh(g, a, down={"rum": 2, "gun": 1, "beer": 2})
    while g.current_player != a:
        g.step("skip collect")
    assert "collect secret warehouse" in collects(g)
    g.step("collect secret warehouse")
    assert s["main_held"][a, MR["secret warehouse"]] == 1


def test_r_27_goods_received_this_round_can_be_used():
    """R-27: warehouse cards received earlier in the round (a passed crate) can be used."""
    g = new(4, seed=5)
    s = g.state[0]
    play_until(g, lambda x: x.phase == "pack")
    p = g.current_player
    set_counts(g, "hand", p, {"beer": 5, "sugar": 1})
    set_main(g, ["secret warehouse", "sugar", "malt"])
    set_wh(g, p)
    for _ in range(5):
        g.step("pack beer")
    to_collect(g)
    assert s["wh_down"][p, card("beer")] == 5
    while g.current_player != p:
        g.step("skip collect")
    assert collects(g) == ["collect secret warehouse"]


@pytest.mark.parametrize("n", [6, 7, 8])
@pytest.mark.parametrize("flag", ["b_plus_1", "a_plus_1"])
def test_r_04_collection_order_two_inspectors(n, flag):
    """R-04, 4-3, 4.5-1: with two inspectors collection starts at B+1 and ends with A then B;
    variant collect_order_2inspectors=a_plus_1 starts at A+1 (= B) and ends with A."""
    g = new(n, seed=6, collect_order_2inspectors=flag)
    play_until(g, lambda x: x.round == 2)
    to_collect(g)
    a, b = inspectors(g)
    seq = []
    while g.phase == "collect":
        seq.append(g.current_player)
        g.step("skip collect")
    start = (b + 1) % n if flag == "b_plus_1" else (a + 1) % n
    assert seq == [(start + i) % n for i in range(n)]
    assert seq[-1] == (b if flag == "b_plus_1" else a)


@pytest.mark.parametrize("n", [3, 5])
def test_r_04_collection_order_one_inspector(n):
    """4.5-1, R-04: with one inspector collection starts left of it and it collects last
    (the a_plus_1 flag changes nothing)."""
    for flag in ("b_plus_1", "a_plus_1"):
        g = new(n, seed=7, collect_order_2inspectors=flag)
        to_collect(g)
        seq = []
        while g.phase == "collect":
            seq.append(g.current_player)
            g.step("skip collect")
        assert seq == [(1 + i) % n for i in range(n)]


# --- 6-1: trigger ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [3, 6, 8])
def test_6_1_trigger_when_middle_empties(n):
    """6-1, 4.5-3: collecting the last main resource in the middle (not an earlier one) sets the
    trigger round; the game then ends at the end of the cycle."""
    g = new(n, seed=8)
    s = g.state[0]
    to_collect(g)
    order = [int(x) for x in s["order"][:n]]
    p, q = order[0], order[1]
    others = [x for x in range(n) if x not in (p, q)]
    rest = filler(n, MIDDLE[n] - 2, exclude=("secret warehouse", "sugar"))
    held = {}
    for i, name in enumerate(rest):
        held.setdefault(others[i % len(others)], []).append(name)
    set_main(g, ["secret warehouse", "sugar"], held=held)
    set_wh(g, p, down={"beer": 5})
    set_wh(g, q, up={"sugar": 4}, down={"rum": 1})
    g.step("collect secret warehouse")
    assert s["trigger_round"] == 0 and s["end_reason"] == st.END_NONE
    g.step("collect sugar")
    assert s["trigger_round"] == 1 and s["end_reason"] == st.END_MAIN_RESOURCES
    play_until(g, lambda x: False)
    L = {3: 3, 6: 3, 8: 4}[n]
    assert g.is_terminal and g.round == L
    # 4.5-3: when the game ends, refill and badge movement are skipped
    last = inspectors(g)
    assert last == [((L - 1) * (1 if n <= 5 else 2) + k) % n for k in range(len(last))]
    for x in range(n):
        if x not in last:
            assert s["hand"][x].sum() < 6           # packed a card, no refill


# --- 7.2-5: expiry ---------------------------------------------------------------------------------------
def test_7_2_5_active_cards_expire_waiting_cards_kept():
    """7.2-5, 7.2-7, 4.5-2: at the end of the round every active, unused action card is
    discarded (smuggler's Lawyer, inspector's Night Raid); a waiting card (the inspector's
    deferred Secret Route, 7.2-3) is kept and active the next round."""
    g = new(4, seed=9)
    s = g.state[0]
    to_collect(g)
    set_counts(g, "hand", 2, {"lawyer": 1, "sugar": 4})
    set_counts(g, "hand", 0, {"route": 1, "raid": 1, "sugar": 4})
    s["hand_later"][0, SECRET_ROUTE - FIRST_ACTION] = 1       # deferred: 0 is inspector
    before = s["discard"].copy()
    play_until(g, lambda x: x.round == 2)
    diff = s["discard"] - before
    assert diff[LAWYER] == 1 and diff[NIGHT_RAID] == 1 and diff[SECRET_ROUTE] == 0
    assert diff.sum() == 2
    assert s["hand"][0, SECRET_ROUTE] >= 1
    assert s["hand_later"][0, SECRET_ROUTE - FIRST_ACTION] == 0   # active in round 2
    assert_consistent(g)


# --- 4.5-4, 7.2-2, 7.2-3: refill -------------------------------------------------------------------------
def test_4_5_4_refill_everyone_to_6_in_round_order_new_cards_wait():
    """4.5-4, 4-3: everyone, inspectors included, draws up to 6 in round order; 7.2-2: cards
    drawn in the refill belong to the next round (not discarded by this round's expiry);
    7.2-3: there a new inspector's #1 waits one more round, a #5 is active."""
    g = new(4, seed=10)
    s = g.state[0]
    to_collect(g)
    assert list(s["order"][:4]) == [1, 2, 3, 0]
    set_counts(g, "hand", 1, {"sugar": 4})
    set_counts(g, "hand", 2, {"sugar": 5})
    set_counts(g, "hand", 3, {"sugar": 5})
    set_counts(g, "hand", 0, {"sugar": 3})             # the inspector holds 3
    put_on_top(g, [SECRET_ROUTE, ROBBERY, card("gun"), card("whisky"), card("beer"),
                    card("rum"), card("fish")])
    play_until(g, lambda x: x.round == 2)
    assert [int(x) for x in s["hand"][:4].sum(axis=1)] == [6, 6, 6, 6]
    assert s["hand"][1, SECRET_ROUTE] == 1 and s["hand"][1, ROBBERY] == 1
    assert s["hand"][2, card("gun")] == 1 and s["hand"][3, card("whisky")] == 1
    assert s["hand"][0, card("beer")] == 1 and s["hand"][0, card("rum")] == 1
    assert s["hand"][0, card("fish")] == 1
    assert inspectors(g) == [1]
    assert s["hand_later"][1, SECRET_ROUTE - FIRST_ACTION] == 1   # deferred (7.2-3)
    assert s["hand_later"][1, ROBBERY - FIRST_ACTION] == 0        # #5 active for an inspector
    assert g.phase == "action window" and g.current_player == 1
    assert "rob p0" in legal_strings(g)
    play_until(g, lambda x: x.round == 3)
    assert s["hand"][1, SECRET_ROUTE] == 1 and s["hand"][1, ROBBERY] == 0   # #5 expired
    assert s["hand_later"][1, SECRET_ROUTE - FIRST_ACTION] == 0             # active now
    assert_consistent(g)


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_4_5_5_badges_move_after_refill(n):
    """4.5-5, 4.5-7: after the refill badge A moves one seat left (two badges: both move 2)."""
    g = new(n, seed=11)
    s = g.state[0]
    before = inspectors(g)
    play_until(g, lambda x: x.round == 2)
    step = 1 if n <= 5 else 2
    assert inspectors(g) == [(p + step) % n for p in before]
    assert all(s["hand"][p].sum() == 6 for p in range(n))
    # 3.4-3: the +3 gold is for round-1 inspectors only (passive play moves no gold)
    assert [int(x) for x in s["gold"][:n]] == [53 if p in before else 50 for p in range(n)]
