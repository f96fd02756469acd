"""The public history and the private knowledge the state records for observations
(RULINGS R-39, R-33): history counters, promises kept and broken, what settled crates showed,
cards known after Night Raid (NR-2) and after fines paid in goods (R-14e), and the rule that
knowledge is a certain lower bound, lowered as cards leave unseen."""

from __future__ import annotations

import json

import numpy as np
import pytest

from borders_sim import Game
from borders_sim.envs import observe
from borders_sim.rules import state as st
from borders_sim.rules.observation import decode
from borders_sim.rules.piles import NOBODY, PUBLIC, forget
from borders_sim.game.saved.dict_format import state_from_dict, state_to_dict
from tests.scenario import (KEY, S, assert_consistent, at_check, legal_strings, play,
                            set_counts)
from tests.test_action_window import restart_window, scripted
from tests.test_settlement import open_crate, pass_crate

H = {k: i for i, (k, _m) in enumerate(st.HISTORY_COUNTERS)}


def hist(game, p, key):
    return int(S(game)["hist"][p, H[key]])


def row(viewer, p, n):
    return (p - viewer) % n


# --- certain knowledge: the lower-bound rule ---------------------------------------------------
def test_r39_forget_lowers_the_seen_type_or_every_bound():
    know = np.zeros((8, 8, 20), dtype=np.int8)
    know[1, 0, 4] = 2   # viewer 1 knows seat 0 holds two beer
    know[1, 0, 5] = 1   # and one rum
    know[2, 0, 4] = 1   # viewer 2 knows one beer
    forget(know, 4, 0, 4, 1)        # a beer leaves; viewer 1 saw it, viewer 2 did not
    assert know[1, 0, 4] == 1 and know[1, 0, 5] == 1
    assert know[2, 0, 4] == 0
    forget(know, 4, 0, 6, NOBODY)   # a card nobody saw: every bound drops by one
    assert know[1, 0, 4] == 0 and know[1, 0, 5] == 0
    know[3, 0, 7] = 1
    forget(know, 4, 0, 7, PUBLIC)   # a card everybody saw
    assert know[3, 0, 7] == 0 and know.min() == 0


# --- R-14e, R-33: fines paid in goods -----------------------------------------------------------
def test_r33_fine_paid_in_goods_the_payer_knows_the_creditors_face_down_cards():
    """Three rum announced as sugar (fine 12), no gold: sugar, beer, whisky go to inspector A;
    only the payer (and A) know what lies face down there now; the history counts the fine."""
    game = at_check(4, crates={3: {"rum": 3}}, announce={3: "sugar"}, gold={3: 0},
                    wh={3: {"sugar": 1, "whisky": 1, "beer": 1, "gun": 1}}, bounties=False)
    open_crate(game, 3, 4)
    s = S(game)
    assert s["know_down"][3, 0, KEY["beer"]] == 1 and s["know_down"][3, 0, KEY["whisky"]] == 1
    assert not s["know_down"][[1, 2]].any()
    assert hist(game, 3, "fines_paid") == 2 + 6 + 8 and hist(game, 0, "fines_received") == 16
    assert hist(game, 3, "crates_opened") == 1 and hist(game, 3, "lies_caught") == 1
    assert hist(game, 0, "opens") == 1 and hist(game, 0, "crates_inspected") == 1
    d3, d1 = decode(observe(game, 3)), decode(observe(game, 1))
    assert d3["known_face_down"][row(3, 0, 4), KEY["beer"]] == 1
    assert not d1["known_face_down"].any()
    assert d3["seen"][0].tolist()[KEY["rum"]] == 3   # the opened crate was shown
    assert_consistent(game)


def test_r39_passed_crate_shows_its_legal_goods_and_counts_the_rest():
    game = at_check(4, crates={2: {"sugar": 2, "rum": 1}}, announce={2: "sugar"}, bounties=False)
    pass_crate(game, 2, 4)
    s = S(game)
    assert s["seen"][2, KEY["sugar"]] == 2 and s["seen"][2, KEY["rum"]] == 0
    assert s["seen_hidden"][2] == 1
    assert hist(game, 2, "crates_passed") == 1 and hist(game, 2, "crates") == 1


# --- NR-2: Night Raid -------------------------------------------------------------------------
@pytest.mark.parametrize("n", [3, 6, 8])
def test_nr_2_r39_victims_know_what_the_raider_took(n):
    game = scripted(n, {}, seed=n)
    s = S(game)
    raider = int(s["order"][0])
    set_counts(game, "hand", raider, {"raid": 1, "fish": 5})
    restart_window(game)
    game.step("raid")
    assert s["raid_thief"] == raider and hist(game, raider, "played_raid") == 1
    for q in range(n):
        if q == raider:
            continue
        t = int(s["raid_taken"][q])
        assert t in (KEY["sugar"], KEY["coffee"])
        assert s["know_hand"][q, raider, t] >= 1
        d = decode(observe(game, q))
        assert d["known_hand"][row(q, raider, n), t] >= 1
        assert d["raid_taken"][0, t] == 1           # its own loss
        assert d["raid_taken"].sum() == 1           # not the others'
        assert d["raid_thief"][row(q, raider, n)] == 1
    thief_view = decode(observe(game, raider))
    assert thief_view["raid_taken"].sum() == n - 1
    while game.phase == "raid discard":             # discards are public: bounds drop
        legal = legal_strings(game)
        game.step("discard sugar" if "discard sugar" in legal else legal[0])
    assert (s["know_hand"][:, raider] <= s["hand"][raider]).all()
    assert_consistent(game)


def test_nr_2_a_second_raid_in_the_round_takes_nothing_from_its_thief():
    """8 players, both Night Raids in one round: the second thief's own entry says the last
    raid took nothing from it (never the card the first raid took), and the state survives its
    dict round trip exactly."""
    n = 8
    game = scripted(n, {}, seed=n)
    s = S(game)
    first, second = int(s["order"][0]), int(s["order"][1])
    set_counts(game, "hand", first, {"raid": 1, "fish": 5})
    set_counts(game, "hand", second, {"raid": 1, "fish": 5})
    restart_window(game)
    game.step("raid")
    while game.phase == "raid discard":
        game.step(game.legal_actions()[0])
    assert game.current_player == second and s["raid_taken"][second] >= 0
    game.step("raid")
    assert s["raid_thief"] == second and s["raid_taken"][second] == -1
    assert decode(observe(game, second))["raid_taken"].sum() == n - 1
    back = Game.from_dict(json.loads(json.dumps(game.to_dict())))
    assert back.state.tobytes() == game.state.tobytes()



# --- promises of a future pass (P-5.3a, R-06d) --------------------------------------------------
def test_r06d_a_promise_in_an_accepted_deal_is_owed_to_the_inspector():
    game = at_check(4, crates={1: {"rum": 1}}, announce={1: "sugar"}, bounties=False)
    play(game, "inspect p1", "promise A", "offer done", "accept")
    s = S(game)
    assert s["promised"][1, 0] == 1 and hist(game, 1, "promises_made") == 1
    assert hist(game, 1, "deals_made") == 1 and hist(game, 0, "deals_taken") == 1
    assert decode(observe(game, 2))["promises"][row(2, 1, 4), row(2, 0, 4)] == 1
    back = state_from_dict(state_to_dict(game.state))
    assert back.tobytes() == game.state.tobytes()


@pytest.mark.parametrize("opens", [False, True])
def test_r06d_a_promise_is_kept_by_a_pass_and_broken_by_an_open(opens):
    """Inspector A (seat 0) owes seat 3 a pass; A's choice on seat 3's crate settles it."""
    game = at_check(4, crates={3: {"sugar": 1}}, announce={3: "sugar"}, bounties=False)
    S(game)["promised"][0, 3] = 1
    (open_crate if opens else pass_crate)(game, 3, 4)
    assert S(game)["promised"][0, 3] == 0
    assert hist(game, 0, "promises_broken") == int(opens)
    assert hist(game, 0, "promises_kept") == int(not opens)


def test_p_5_3b_prime_a_voided_deal_owes_no_promise():
    """accept_commits=False: a held deal that its inspector voids by opening is no deal, so its
    promise is not owed (P-5.3(b'), R-06d)."""
    game = at_check(4, crates={1: {"rum": 1}}, announce={1: "sugar"}, bounties=False,
                    accept_commits=False)
    play(game, "inspect p1", "promise A", "offer done", "accept")
    assert S(game)["promised"][1, 0] == 1
    play(game, "open and void")
    assert S(game)["promised"][1, 0] == 0 and hist(game, 1, "promises_made") == 0
    assert_consistent(game)


# --- serialization of old saves ---------------------------------------------------------------
def test_format_1_saves_load_with_an_empty_history():
    game = at_check(4, crates={1: {"rum": 1}}, announce={1: "sugar"}, bounties=False)
    d = state_to_dict(game.state)
    old = {k: v for k, v in d.items() if k not in ("history", "knowledge")}
    old["format"] = "borders_sim.state/1"
    back = state_from_dict(old)
    assert not back[0]["hist"].any() and back[0]["raid_thief"] == -1
    assert (back[0]["raid_taken"][:4] == -1).all()
