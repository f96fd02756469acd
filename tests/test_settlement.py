"""Rule tests of crate settlement (RULINGS 4.4-A/B/P, §8, R-07, R-08, R-12 .. R-18, R-25, R-33,
R-36, SR-*, FB-*, LW-*, SF-*, TV-E10, Appendix A).

Positions are scripted with :mod:`scenario` (cards conserved): the game is played to the packing
phase of round 1, crates, hands, warehouses and gold are set, announcements made, and the check
is driven with readable action strings. Seats: with 4 players A is seat 0 and the smugglers are
1, 2, 3; with 6 or 8 players A is seat 0, B seat 1 and the smugglers 2..N-1. Every scenario ends
with :func:`assert_consistent`, which also checks that gold only changes through the bank flows
(``sum(gold) == 50 * N + bank_out - bank_in``).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from borders_sim.rules.cards import CARD_FINE, NUM_LEGAL
from borders_sim.rules.rng import seed_words
from tests.scenario import (KEY, ONE_AND_TWO, S, assert_consistent, gold, legal_strings, make_game,
                            play, set_counts)
from tests.scenario import at_check as scenario_at_check


# --- helpers ----------------------------------------------------------------------------------
def at_check(*args, bounties=False, **kw):
    """:func:`tests.scenario.at_check` with the bounty turns off unless ``bounties=True`` is
    passed."""
    return scenario_at_check(*args, bounties=bounties, **kw)


def delta(game, before):
    return gold(game) - before


def up(game, p, k):
    return int(S(game)["wh_up"][p, KEY[k]])


def down(game, p, k):
    return int(S(game)["wh_down"][p, KEY[k]])


def wh_total(game, p):
    s = S(game)
    return int(s["wh_up"][p].sum() + s["wh_down"][p].sum())


def discard(game, k):
    return int(S(game)["discard"][KEY[k]])


def open_crate(game, owner, n, join=False):
    """A opens crate ``owner`` at the first exchange; with two inspectors B joins or stays out."""
    play(game, f"inspect p{owner}", "offer done", "open")
    if n >= 6:
        assert game.phase == "join"
        game.step("join" if join else "stay out")


def pass_crate(game, owner, n):
    play(game, f"inspect p{owner}", "offer done", *(["pass"] * (2 if n >= 6 else 1)))


def bank(game):
    s = S(game)
    return int(s["bank_in"]), int(s["bank_out"])


# --- 4.4-A: let it pass ------------------------------------------------------------------------
@ONE_AND_TWO
def test_4_4_A1_pass_legal_face_up_contraband_and_premium_face_down(n):
    crate = {"coffee": 2, "fish": 1, "rum": 1, "colombian": 1}
    game = at_check(n, crates={3: crate}, announce={3: "coffee"})
    before = gold(game)
    pass_crate(game, 3, n)
    assert up(game, 3, "coffee") == 2 and up(game, 3, "fish") == 1
    assert down(game, 3, "rum") == 1 and down(game, 3, "colombian") == 1
    assert down(game, 3, "coffee") == 0 and up(game, 3, "rum") == 0
    assert (delta(game, before) == 0).all()  # no fines on a pass
    s = S(game)
    assert s["crate"][3].sum() == 0 and s["n_passed"] == 1 and s["n_opened"] == 0
    assert_consistent(game)


# --- 4.4-B: open it ----------------------------------------------------------------------------
@pytest.mark.parametrize("n", [4, 6, 8])
@pytest.mark.parametrize("k", [1, 3, 5])
def test_4_4_B1_8_5_true_announcement_the_single_opener_pays_2_per_card(n, k):
    game = at_check(n, crates={3: {"fish": k}}, announce={3: "fish"})
    before = gold(game)
    open_crate(game, 3, n)
    d = delta(game, before)
    assert d[0] == -2 * k and d[3] == 2 * k  # 4.4-B1, 4.4-B6: fine 2 per legal card
    assert (np.delete(d, [0, 3]) == 0).all()
    assert up(game, 3, "fish") == k  # the goods go to the warehouse
    assert S(game)["n_opened"] == 1
    assert_consistent(game)


@ONE_AND_TWO
def test_4_4_B2_B4_false_announcement(n):
    game = at_check(n, crates={3: {"coffee": 2, "rum": 1, "chocolate": 1, "sugar": 1}},
                    announce={3: "coffee"})
    before = gold(game)
    dis = {k: discard(game, k) for k in ("rum", "chocolate", "sugar", "coffee")}
    open_crate(game, 3, n)
    assert up(game, 3, "coffee") == 2  # 4.4-B2: the announced type is kept
    assert wh_total(game, 3) == 2
    for k in ("rum", "chocolate", "sugar"):  # 4.4-B3: the rest is confiscated, face up
        assert discard(game, k) == dis[k] + 1
    assert discard(game, "coffee") == dis["coffee"]
    d = delta(game, before)
    fine = 4 + 3 + 2  # rum, chocolate, sugar (4.4-B4)
    assert d[3] == -fine and d[0] == fine
    assert_consistent(game)


def test_4_4_B5_r25_premium_never_matches_the_announced_type():
    game = at_check(4, crates={3: {"coffee": 2, "colombian": 1}}, announce={3: "coffee"})
    before = gold(game)
    dis = discard(game, "colombian")
    open_crate(game, 3, 4)
    s = S(game)
    assert s["truthful"] == 0
    assert discard(game, "colombian") == dis + 1 and down(game, 3, "colombian") == 0
    assert up(game, 3, "coffee") == 2
    d = delta(game, before)
    assert d[3] == -4 and d[0] == 4  # the Colombian coffee's fine; no payment to the owner
    assert_consistent(game)


def test_r36_4_4_B6_true_fines_are_always_even():
    assert all(CARD_FINE[t] == 2 for t in range(NUM_LEGAL))
    for t, k in itertools.product(range(NUM_LEGAL), range(1, 6)):
        assert (k * CARD_FINE[t]) % 2 == 0


# --- paying a fine when gold runs out ----------------------------------------
def test_r14_fine_paid_in_legal_goods_lowest_value_first_no_change():
    # fine 8 (two rum); 3 gold, then sugar (2) -> 5, then coffee (3) -> 8; fish and beer stay
    game = at_check(4, crates={3: {"rum": 2}}, announce={3: "fish"}, gold={3: 3},
                    wh={3: {"fish": 1, "coffee": 1, "sugar": 1, "beer": 1}})
    before = gold(game)
    open_crate(game, 3, 4)
    assert gold(game)[3] == 0 and delta(game, before)[0] == 3
    assert up(game, 0, "sugar") == 1 and up(game, 0, "coffee") == 1  # creditor's warehouse
    assert up(game, 3, "fish") == 1 and down(game, 3, "beer") == 1
    assert up(game, 3, "sugar") == 0 and up(game, 3, "coffee") == 0
    assert_consistent(game)


def test_r14_overpayment_is_lost_and_contraband_after_legal():
    # fine 12 (three rum); 0 gold: sugar 2, then contraband lowest first: beer 6 -> 8,
    # whisky 8 -> 16 >= 12 (no change given); the gun (9) is kept
    game = at_check(4, crates={3: {"rum": 3}}, announce={3: "sugar"}, gold={3: 0},
                    wh={3: {"sugar": 1, "whisky": 1, "beer": 1, "gun": 1}})
    before = gold(game)
    open_crate(game, 3, 4)
    assert (delta(game, before) == 0).all()
    assert up(game, 0, "sugar") == 1
    assert down(game, 0, "beer") == 1 and down(game, 0, "whisky") == 1
    assert down(game, 3, "gun") == 1 and wh_total(game, 3) == 1
    assert_consistent(game)


def test_r14_premium_counts_as_contraband_tier():
    # fine 4; 0 gold; a chocolate (premium, value 4) goes after legal goods, before nothing else
    game = at_check(4, crates={3: {"beer": 1}}, announce={3: "sugar"}, gold={3: 0},
                    wh={3: {"fish": 1, "chocolate": 1, "beer": 1}})
    open_crate(game, 3, 4)
    assert up(game, 0, "fish") == 1  # legal first, even though chocolate has the same value
    assert down(game, 3, "chocolate") == 1 and down(game, 3, "beer") == 1
    assert_consistent(game)


def test_r14_4_4_P4_rest_of_the_debt_is_forgiven():
    game = at_check(4, crates={3: {"gun": 3}}, announce={3: "coffee"}, gold={3: 2},
                    wh={3: {"sugar": 1}})
    before = gold(game)
    open_crate(game, 3, 4)
    d = delta(game, before)
    assert gold(game)[3] == 0 and d[0] == 2  # 12 owed, 2 gold + a sugar worth 2 paid
    assert up(game, 0, "sugar") == 1 and wh_total(game, 3) == 0
    assert_consistent(game)


def test_r15_inspector_pays_a_true_fine_in_goods():
    # true crate of 4 coffee: fine 8; A has 1 gold, then coffee (3) -> 4, fish (4) -> 8
    game = at_check(4, crates={3: {"coffee": 4}}, announce={3: "coffee"}, gold={0: 1},
                    wh={0: {"fish": 1, "coffee": 1, "rum": 1}})
    before = gold(game)
    open_crate(game, 3, 4)
    d = delta(game, before)
    assert gold(game)[0] == 0 and d[3] == 1
    assert up(game, 3, "coffee") == 5 and up(game, 3, "fish") == 1  # to the smuggler
    assert down(game, 0, "rum") == 1
    assert_consistent(game)


def test_r15_inspector_pays_contraband_after_legal_rest_forgiven():
    game = at_check(4, crates={3: {"sugar": 5}}, announce={3: "sugar"}, gold={0: 0},
                    wh={0: {"beer": 1}})
    open_crate(game, 3, 4)
    assert down(game, 3, "beer") == 1 and wh_total(game, 0) == 0  # 6 of 10 paid, rest forgiven
    assert_consistent(game)


# --- §8: two inspectors --------------------------------------------------------------------------
@pytest.mark.parametrize("n", [6, 8])
def test_8_6_8_7_both_open_false_fine_halved_odd_gold_to_bank(n):
    # rum 4 + chocolate 3 = 7: 3 each, 1 to the bank
    game = at_check(n, crates={3: {"rum": 1, "chocolate": 1}}, announce={3: "coffee"})
    before, (bin0, bout0) = gold(game), bank(game)
    open_crate(game, 3, n, join=True)
    d = delta(game, before)
    assert d[0] == 3 and d[1] == 3 and d[3] == -7
    assert bank(game) == (bin0 + 1, bout0)
    assert_consistent(game)


def test_8_6_even_false_fine_split_no_bank():
    game = at_check(6, crates={3: {"rum": 2}}, announce={3: "coffee"})
    before, b0 = gold(game), bank(game)
    open_crate(game, 3, 6, join=True)
    d = delta(game, before)
    assert d[0] == 4 and d[1] == 4 and d[3] == -8 and bank(game) == b0
    assert_consistent(game)


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_8_6_r36_both_open_true_fine_split_bank_never_pays(k):
    game = at_check(6, crates={3: {"sugar": k}}, announce={3: "sugar"})
    before, b0 = gold(game), bank(game)
    open_crate(game, 3, 6, join=True)
    d = delta(game, before)
    assert d[0] == -k and d[1] == -k and d[3] == 2 * k
    assert bank(game) == b0  # the bank-pays branch of 8-7 never triggers
    assert_consistent(game)


def test_r14f_two_openers_owner_short_of_gold_A_then_B_then_bank():
    # fine 11 (rum, rum, chocolate): shares 5 / 5, odd 1. The owner has 7 gold and a beer:
    # A gets 5 gold, B gets 2 gold + the beer (6), the bank's 1 is forgiven (gold only).
    game = at_check(6, crates={3: {"rum": 2, "chocolate": 1}}, announce={3: "sugar"},
                    gold={3: 7}, wh={3: {"beer": 1}})
    before, b0 = gold(game), bank(game)
    open_crate(game, 3, 6, join=True)
    d = delta(game, before)
    assert d[0] == 5 and d[1] == 2 and gold(game)[3] == 0
    assert down(game, 1, "beer") == 1
    assert bank(game) == b0
    assert_consistent(game)


def test_8_4_r08_deal_paid_when_the_other_inspector_opens_crate_goods_lapse():
    game = at_check(6, crates={3: {"rum": 2, "coffee": 1}}, announce={3: "coffee"},
                    wh={3: {"beer": 1}})
    before = gold(game)
    play(game, "inspect p3", "offer gold 3 to B", "offer warehouse beer to B",
         "offer crate rum to B", "offer done", "wait", "accept")
    play(game, "offer done", "open")  # A opens; B is committed (8-3)
    assert game.phase == "choose crate"
    d = delta(game, before)
    assert d[1] == 3  # gold part still paid (8-4)
    assert down(game, 1, "beer") == 1  # warehouse part still paid
    assert down(game, 1, "rum") == 0  # crate-goods part lapsed
    assert d[0] == 8 and d[3] == -3 - 8  # A takes the whole fine (8-5)
    assert up(game, 3, "coffee") == 1
    assert_consistent(game)


# --- R-08 / 4.4-H6 / 4.4-H7: crate goods -------------------------------------------------------
def test_r08_4_4_H7_crate_goods_missing_are_forgiven_one_inspector():
    game = at_check(4, crates={3: {"coffee": 1, "rum": 2}}, announce={3: "coffee"})
    play(game, "inspect p3", "offer crate coffee to A", "offer crate coffee to A",
         "offer crate gun to A", "offer done", "accept")
    assert up(game, 0, "coffee") == 1 and down(game, 0, "gun") == 0  # what is present only
    assert wh_total(game, 0) == 1
    assert up(game, 3, "coffee") == 0 and down(game, 3, "rum") == 2
    assert_consistent(game)


def test_r08_crate_goods_delivered_in_acceptance_order():
    game = at_check(6, crates={3: {"rum": 3}}, announce={3: "coffee"}, skip_forced=False)
    s = S(game)
    play(game, "inspect p3", "offer crate rum to A", "offer crate rum to A",
         "offer crate rum to B", "offer crate rum to B", "offer done")
    play(game, "wait", "accept")  # B accepts first
    play(game, "offer done", "accept")  # then A
    assert s["deal_seq"][1] == 1 and s["deal_seq"][0] == 2
    while game.phase in ("lawyer", "fund"):
        game.step(legal_strings(game)[-1])
    assert down(game, 1, "rum") == 2 and down(game, 0, "rum") == 1  # B first, A gets the rest
    assert down(game, 3, "rum") == 0
    assert_consistent(game)


def test_r08_unclaimed_crate_cards_go_to_owner():
    game = at_check(4, crates={3: {"rum": 2, "sugar": 2}}, announce={3: "sugar"})
    play(game, "inspect p3", "offer crate sugar to A", "offer done", "accept")
    assert up(game, 0, "sugar") == 1 and up(game, 3, "sugar") == 1 and down(game, 3, "rum") == 2
    assert_consistent(game)


# --- Secret Route (SR-1..SR-4, R-10, R-13) -------------------------------------------------------
@ONE_AND_TWO
def test_sr1_only_after_an_open(n):
    game = at_check(n, crates={3: {"rum": 2}}, hands={3: {"route": 1}}, action_cards=True,
                    skip_forced=False)
    play(game, "inspect p3", "offer done", *(["pass"] * (2 if n >= 6 else 1)))
    assert game.phase == "choose crate"  # no reaction window without an open
    assert S(game)["hand"][3, KEY["route"]] == 1
    assert_consistent(game)


@ONE_AND_TWO
def test_sr2_no_fines_goods_as_if_passed(n):
    game = at_check(n, crates={3: {"rum": 1, "colombian": 1, "coffee": 1}},
                    announce={3: "sugar"}, hands={3: {"route": 1}}, action_cards=True)
    before = gold(game)
    open_crate(game, 3, n, join=True)
    assert game.phase == "react"
    assert set(legal_strings(game)) == {"play route", "no reaction"}
    game.step("play route")
    s = S(game)
    assert (delta(game, before) == 0).all()  # nobody pays a fine, either way
    assert down(game, 3, "rum") == 1 and down(game, 3, "colombian") == 1
    assert up(game, 3, "coffee") == 1
    assert s["hand"][3, KEY["route"]] == 0 and discard(game, "route") >= 1
    assert s["n_passed"] == 1
    assert_consistent(game)


def test_sr2_true_crate_inspector_pays_nothing():
    game = at_check(4, crates={3: {"sugar": 3}}, announce={3: "sugar"},
                    hands={3: {"route": 1}}, action_cards=True)
    before = gold(game)
    open_crate(game, 3, 4)
    game.step("play route")
    assert (delta(game, before) == 0).all()
    assert up(game, 3, "sugar") == 3
    assert_consistent(game)


def test_sr3_sr4_deal_with_the_other_inspector_paid_including_crate_goods():
    game = at_check(6, crates={3: {"rum": 2, "beer": 1}}, announce={3: "coffee"},
                    hands={3: {"route": 1}}, action_cards=True)
    before = gold(game)
    play(game, "inspect p3", "offer gold 4 to B", "offer crate rum to B", "offer done",
         "wait", "accept")
    play(game, "offer done", "open")  # A opens, B is committed
    assert game.phase == "react"
    game.step("play route")
    d = delta(game, before)
    assert d[1] == 4 and d[3] == -4 and d[0] == 0  # the deal is paid, no fine (SR-2, SR-3)
    assert down(game, 1, "rum") == 1  # the crate passed: crate goods are delivered
    assert down(game, 3, "rum") == 1 and down(game, 3, "beer") == 1
    assert_consistent(game)


def test_sr4_protects_against_both_openers_and_bounties_are_paid():
    game = at_check(6, crates={3: {"gun": 2}}, announce={3: "fish"},
                    hands={3: {"route": 1}}, action_cards=True, bounties=True)
    before = gold(game)
    play(game, "inspect p3", "bounty gold 2 to A", "bounty gold 3 to B")  # p2
    while game.phase == "bounty":
        game.step("bounty done")
    play(game, "offer done", "open", "join", "play route")
    d = delta(game, before)
    assert d[2] == -5 and d[0] == 2 and d[1] == 3 and d[3] == 0  # paid despite SR
    assert down(game, 3, "gun") == 2
    assert_consistent(game)


def test_r13_sr_and_fb_both_offered_only_one_played():
    game = at_check(4, crates={3: {"rum": 2}}, hands={3: {"route": 1, "bottom": 1}},
                    action_cards=True)
    open_crate(game, 3, 4)
    assert set(legal_strings(game)) == {"play route", "play bottom", "no reaction"}
    game.step("play bottom")
    assert game.phase != "react"
    assert S(game)["hand"][3, KEY["route"]] == 1
    assert_consistent(game)


# --- False Bottom (FB-1..FB-6, R-12, R-13) ------------------------------------------------------
def _fb_game(n, crate, announce, join=False, **kw):
    game = at_check(n, crates={3: crate}, announce={3: announce},
                    hands={3: {"bottom": 1}}, action_cards=True, **kw)
    open_crate(game, 3, n, join=join)
    assert game.phase == "react" and "play bottom" in legal_strings(game)
    return game


@ONE_AND_TWO
def test_fb4_fb5_hidden_card_face_down_without_fine_rest_settled(n):
    # two rums announced coffee: one is hidden (face down, no fine), the other confiscated
    game = _fb_game(n, {"rum": 2}, "coffee")
    before = gold(game)
    dis = discard(game, "rum")
    game.step("play bottom")
    s = S(game)
    assert s["fb_hidden"] == KEY["rum"]
    assert down(game, 3, "rum") == 1 and discard(game, "rum") == dis + 1
    d = delta(game, before)
    assert d[3] == -4 and d[0] == 4  # only the looked-at rum is fined
    assert s["n_opened"] == 1 and s["n_passed"] == 0  # FB counts as opened
    assert_consistent(game)


def test_fb4_r13_hidden_legal_card_goes_face_down():
    game = _fb_game(4, {"coffee": 3}, "coffee")
    before = gold(game)
    game.step("play bottom")
    assert down(game, 3, "coffee") == 1 and up(game, 3, "coffee") == 2
    d = delta(game, before)
    assert d[0] == -4 and d[3] == 4  # FB-5: the inspector pays only for the 2 looked at
    assert_consistent(game)


@pytest.mark.parametrize("n", [4, 6])
def test_fb5_r13_true_rest_inspector_pays_only_looked_at_cards(n):
    """FB-5, R-13 (E5): two coffee + one rum announced coffee; the hidden card is random
    (R-12): if the rum is hidden, the rest is true and the opener(s) pay 2 x 2; if a coffee is
    hidden, the rum is confiscated and the owner pays 4."""
    seen = set()
    for k in range(40):
        game = _fb_game(n, {"coffee": 2, "rum": 1}, "coffee", join=True)
        S(game)["rng"] = seed_words(1000 + k)
        before = gold(game)
        game.step("play bottom")
        s = S(game)
        hidden = int(s["fb_hidden"])
        d = delta(game, before)
        openers = [0, 1] if n >= 6 else [0]
        if hidden == KEY["rum"]:
            assert down(game, 3, "rum") == 1 and up(game, 3, "coffee") == 2
            assert d[3] == 4 and sum(d[g] for g in openers) == -4
        else:
            assert hidden == KEY["coffee"]
            assert down(game, 3, "coffee") == 1 and up(game, 3, "coffee") == 1
            assert down(game, 3, "rum") == 0
            assert d[3] == -4 and sum(d[g] for g in openers) == 4
        if n >= 6:
            assert d[0] == d[1]  # §8 split among the openers
        assert_consistent(game)
        seen.add(hidden)
        if len(seen) == 2:
            break
    assert seen == {KEY["rum"], KEY["coffee"]}


@ONE_AND_TWO
def test_fb6_one_card_crate_passes_its_card_without_fine(n):
    game = _fb_game(n, {"gun": 1}, "coffee")
    before = gold(game)
    game.step("play bottom")
    s = S(game)
    assert down(game, 3, "gun") == 1
    assert (delta(game, before) == 0).all()
    assert s["n_opened"] == 1  # counts as opened
    assert_consistent(game)


def test_fb6_r08_one_card_crate_crate_goods_of_other_inspector_lapse():
    game = at_check(6, crates={3: {"gun": 1}}, announce={3: "coffee"},
                    hands={3: {"bottom": 1}}, action_cards=True)
    before = gold(game)
    play(game, "inspect p3", "offer gold 2 to B", "offer crate gun to B", "offer done",
         "wait", "accept", "offer done", "open", "play bottom")
    d = delta(game, before)
    assert d[1] == 2 and d[3] == -2  # the gold part is still paid (8-4)
    assert down(game, 1, "gun") == 0 and down(game, 3, "gun") == 1  # FB crate did not pass
    assert_consistent(game)


def test_fb_no_reaction_opens_normally():
    game = _fb_game(4, {"rum": 1}, "coffee")
    before = gold(game)
    game.step("no reaction")
    assert delta(game, before)[3] == -4
    assert S(game)["hand"][3, KEY["bottom"]] == 1  # kept (expires at the end of the round)
    assert_consistent(game)


# --- Lawyer (LW-2..LW-4, R-17) -------------------------------------------------------------------
def test_lw2_one_inspector_half_gold_rounded_down():
    game = at_check(4, crates={3: {"rum": 1}}, hands={3: {"lawyer": 1}}, action_cards=True)
    before = gold(game)
    play(game, "inspect p3", "offer gold 7 to A", "offer done", "accept")
    assert game.phase == "lawyer" and game.current_player == 3
    assert set(legal_strings(game)) == {"lawyer to A", "no lawyer"}
    game.step("lawyer to A")
    d = delta(game, before)
    assert d[0] == 3 and d[3] == -3
    assert S(game)["hand"][3, KEY["lawyer"]] == 0
    assert S(game)["res_gold"][3] == 0
    assert_consistent(game)


def test_lw_no_lawyer_pays_in_full():
    game = at_check(4, crates={3: {"rum": 1}}, hands={3: {"lawyer": 1}}, action_cards=True)
    before = gold(game)
    play(game, "inspect p3", "offer gold 7 to A", "offer done", "accept", "no lawyer")
    assert delta(game, before)[0] == 7
    assert S(game)["hand"][3, KEY["lawyer"]] == 1
    assert_consistent(game)


def test_lw4_r17c_r17d_goods_halved_lowest_value_first_gold_separately():
    # deal: 5 gold + fish, sugar, beer (warehouse) + coffee, molasses (crate) = 5 cards -> 2:
    # the lowest value ones, sugar (2) and coffee (3); gold 5 -> 2
    game = at_check(4, crates={3: {"coffee": 1, "molasses": 1}}, announce={3: "coffee"},
                    wh={3: {"fish": 1, "sugar": 1, "beer": 1}},
                    hands={3: {"lawyer": 1}}, action_cards=True)
    before = gold(game)
    play(game, "inspect p3", "offer gold 5 to A", "offer warehouse fish to A",
         "offer warehouse sugar to A", "offer warehouse beer to A", "offer crate coffee to A",
         "offer crate molasses to A", "offer done", "accept",
         "lawyer to A")
    d = delta(game, before)
    assert d[0] == 2 and d[3] == -2
    assert up(game, 0, "sugar") == 1 and up(game, 0, "coffee") == 1 and wh_total(game, 0) == 2
    assert up(game, 3, "fish") == 1 and down(game, 3, "beer") == 1
    assert down(game, 3, "molasses") == 1  # unclaimed crate card goes home
    assert_consistent(game)


def test_r17d_player_choice_the_owner_picks_the_goods_half():
    """R-17d variant ``lawyer_goods="player_choice"`` (§7.3 "you choose which ones"): after the
    Lawyer the owner hands over floor(5/2) = 2 cards of their choosing, one at a time, from the
    offered warehouse and crate goods; the rest stays or goes home."""
    game = at_check(4, crates={3: {"coffee": 1, "molasses": 1}}, announce={3: "coffee"},
                    wh={3: {"fish": 1, "sugar": 1, "beer": 1}},
                    hands={3: {"lawyer": 1}}, action_cards=True, lawyer_goods="player_choice")
    before = gold(game)
    play(game, "inspect p3", "offer gold 5 to A", "offer warehouse fish to A",
         "offer warehouse sugar to A", "offer warehouse beer to A", "offer crate coffee to A",
         "offer crate molasses to A", "offer done", "accept", "lawyer to A")
    assert game.phase == "lawyer goods" and game.current_player == 3
    assert set(legal_strings(game)) == {"hand over fish", "hand over sugar", "hand over beer",
                                        "hand over coffee", "hand over molasses"}
    game.step("hand over molasses")
    assert "hand over molasses" not in legal_strings(game)
    game.step("hand over beer")
    assert game.phase != "lawyer goods"
    d = delta(game, before)
    assert d[0] == 2 and d[3] == -2
    assert down(game, 0, "molasses") == 1 and down(game, 0, "beer") == 1
    assert wh_total(game, 0) == 2
    assert up(game, 3, "fish") == 1 and up(game, 3, "sugar") == 1 and up(game, 3, "coffee") == 1
    assert S(game)["res_wh"].sum() == 0 and S(game)["crate"][3].sum() == 0
    assert_consistent(game)


def test_r17d_player_choice_for_a_bounty_payer_with_goods():
    """The same choice for a bounty payer's Lawyer (R-17e): 2 warehouse cards offered, 1 chosen."""
    game = at_check(4, crates={3: {"rum": 1}}, announce={3: "coffee"},
                    wh={1: {"beer": 1, "sugar": 1}}, hands={1: {"lawyer": 1}},
                    action_cards=True, bounties=True, bounty_goods=True,
                    lawyer_goods="player_choice")
    play(game, "inspect p3", "bounty card beer to A", "bounty card sugar to A")  # p1
    while game.phase == "bounty":
        game.step("bounty done")
    play(game, "offer done", "open", "lawyer to A")
    assert game.phase == "lawyer goods" and game.current_player == 1
    assert set(legal_strings(game)) == {"hand over beer", "hand over sugar"}
    game.step("hand over beer")
    assert down(game, 0, "beer") == 1 and up(game, 1, "sugar") == 1
    assert S(game)["res_wh"].sum() == 0
    assert_consistent(game)


def test_lw3_two_inspectors_sum_of_deals_half_to_the_chosen_one():
    for chosen, other in ((0, 1), (1, 0)):
        game = at_check(6, crates={3: {"rum": 1}}, hands={3: {"lawyer": 1}},
                        action_cards=True)
        before = gold(game)
        play(game, "inspect p3", "offer gold 6 to A", "offer gold 5 to B", "offer done",
             "accept", "accept")
        assert game.phase == "lawyer"
        assert set(legal_strings(game)) == {"lawyer to A", "lawyer to B", "no lawyer"}
        game.step("lawyer to " + "AB"[chosen])
        d = delta(game, before)
        assert d[chosen] == 5 and d[other] == 0 and d[3] == -5  # (6 + 5) // 2
        assert S(game)["res_gold"][3] == 0
        assert_consistent(game)


def test_r17b_lawyer_only_to_an_inspector_with_a_binding_deal():
    game = at_check(6, crates={3: {"rum": 1}}, announce={3: "coffee"},
                    hands={3: {"lawyer": 1}}, action_cards=True)
    before = gold(game)
    play(game, "inspect p3", "offer gold 8 to B", "offer done", "wait", "accept",
         "offer done", "open")
    assert game.phase == "lawyer"
    assert set(legal_strings(game)) == {"lawyer to B", "no lawyer"}  # A opened: no deal
    game.step("lawyer to B")
    d = delta(game, before)
    assert d[1] == 4 and d[0] == 4 and d[3] == -8  # half of the deal; A's fine in full
    assert_consistent(game)


def test_r17_no_lawyer_window_without_a_binding_deal():
    game = at_check(4, crates={3: {"rum": 1}}, hands={3: {"lawyer": 1}}, action_cards=True)
    play(game, "inspect p3", "promise A", "offer done", "accept")  # a promise binds nothing
    assert game.phase == "choose crate"
    assert S(game)["hand"][3, KEY["lawyer"]] == 1
    assert_consistent(game)


def test_r17e_lawyer_for_a_bounty_payer():
    game = at_check(4, crates={3: {"rum": 1}}, announce={3: "coffee"},
                    hands={1: {"lawyer": 1}}, action_cards=True, bounties=True)
    before = gold(game)
    play(game, "inspect p3", "bounty gold 7 to A")  # p1
    while game.phase == "bounty":
        game.step("bounty done")
    play(game, "offer done", "open")
    assert game.phase == "bounty lawyer" and game.current_player == 1
    assert set(legal_strings(game)) == {"lawyer to A", "no lawyer"}
    game.step("lawyer to A")
    d = delta(game, before)
    assert d[1] == -3 and d[0] == 3 + 4 and d[3] == -4
    assert S(game)["res_gold"].sum() == 0
    assert_consistent(game)


# --- Syndicate Fund (SF-1..SF-6, R-18, TV-E10) ---------------------------------------------------
def test_tv_e10_sf6_eight_players_two_inspectors_18_gold():
    """TV-E10: 8 players, A=0, B=1, owner p6 pays 18; payers from the owner's left skipping
    the inspectors: p7, p2, p3, p4 give 4 each, p5 gives the last 2."""
    game = at_check(8, crates={6: {"rum": 1}}, hands={6: {"fund": 1}}, action_cards=True,
                    gold_menu=(1, 2, 3, 4, 5, 8, 10, 18))
    before = gold(game)
    play(game, "inspect p6", "offer gold 18 to A", "offer done", "accept", "pass")
    assert game.phase == "fund" and game.current_player == 6
    game.step("fund")
    d = delta(game, before)
    assert d[0] == 18 and d[1] == 0
    assert [d[p] for p in (7, 2, 3, 4, 5)] == [-4, -4, -4, -4, -2]
    assert d[6] == 0
    assert S(game)["hand"][6, KEY["fund"]] == 0
    assert_consistent(game)


def test_r18b_fund_covers_gold_paid_to_both_inspectors():
    game = at_check(8, crates={6: {"rum": 1}}, hands={6: {"fund": 1}}, action_cards=True)
    before = gold(game)
    play(game, "inspect p6", "offer gold 10 to A", "offer gold 8 to B", "offer done",
         "accept", "accept", "fund")
    d = delta(game, before)
    assert d[0] == 10 and d[1] == 8 and d[6] == 0
    assert [d[p] for p in (7, 2, 3, 4, 5)] == [-4, -4, -4, -4, -2]
    assert_consistent(game)


def test_sf3_share_capped_at_5():
    # 4 players: k = 2 other smugglers; 20 paid -> ceil(20 / 2) = 10, capped at 5 each
    game = at_check(4, crates={3: {"rum": 1}}, hands={3: {"fund": 1}}, action_cards=True)
    before = gold(game)
    play(game, "inspect p3", "offer gold 20 to A", "offer done", "accept", "fund")
    d = delta(game, before)
    assert d[0] == 20 and d[1] == -5 and d[2] == -5 and d[3] == -10
    assert_consistent(game)


def test_sf4_last_payer_gives_only_the_rest():
    # 4 players: 7 paid -> share 4: p1 gives 4, p2 gives 3
    game = at_check(4, crates={3: {"rum": 1}}, hands={3: {"fund": 1}}, action_cards=True)
    before = gold(game)
    play(game, "inspect p3", "offer gold 7 to A", "offer done", "accept", "fund")
    d = delta(game, before)
    assert d[1] == -4 and d[2] == -3 and d[3] == 0 and d[0] == 7
    assert_consistent(game)


def test_sf5_r18f_payers_with_little_gold_pay_what_they_have():
    game = at_check(6, crates={3: {"rum": 1}}, hands={3: {"fund": 1}}, action_cards=True,
                    gold={4: 1, 5: 0})
    before = gold(game)
    # 6 players, owner p3: payers p4, p5, p2 (k = 3); 12 paid -> share 4
    play(game, "inspect p3", "offer gold 12 to A", "offer done", "accept", "pass", "fund")
    d = delta(game, before)
    assert d[4] == -1 and d[5] == 0 and d[2] == -4  # no redistribution of the shortfall
    assert d[3] == -12 + 5 and d[0] == 12 and d[1] == 0
    assert_consistent(game)


def test_sf1_fund_not_offered_for_goods_only_deals():
    game = at_check(4, crates={3: {"rum": 1}}, hands={3: {"fund": 1}}, action_cards=True,
                    wh={3: {"beer": 1}})
    play(game, "inspect p3", "offer warehouse beer to A", "offer done", "accept")
    assert game.phase == "choose crate"
    assert S(game)["hand"][3, KEY["fund"]] == 1
    assert_consistent(game)


def test_r18g_fund_not_offered_to_a_bounty_payer():
    game = at_check(4, crates={3: {"rum": 1}}, hands={1: {"fund": 1}}, action_cards=True,
                    bounties=True)
    before = gold(game)
    play(game, "inspect p3", "bounty gold 6 to A")
    while game.phase == "bounty":
        game.step("bounty done")
    play(game, "offer done", "open")
    assert game.phase == "choose crate"
    assert delta(game, before)[1] == -6
    assert S(game)["hand"][1, KEY["fund"]] == 1
    assert_consistent(game)


def test_sf1_fund_after_a_deal_paid_while_the_other_inspector_opened():
    game = at_check(6, crates={3: {"rum": 1}}, announce={3: "coffee"},
                    hands={3: {"fund": 1}}, action_cards=True)
    before = gold(game)
    play(game, "inspect p3", "offer gold 6 to B", "offer done", "wait", "accept",
         "offer done", "open")
    assert game.phase == "fund"
    game.step("fund")
    d = delta(game, before)
    # payers p4, p5, p2 (k = 3): share 2 each; then the fine of 4 to A
    assert d[4] == -2 and d[5] == -2 and d[2] == -2
    assert d[1] == 6 and d[0] == 4 and d[3] == -6 + 6 - 4
    assert_consistent(game)


def test_lw_sf_lawyer_then_fund_reimburses_the_halved_amount():
    game = at_check(4, crates={3: {"rum": 1}}, hands={3: {"lawyer": 1, "fund": 1}},
                    action_cards=True)
    before = gold(game)
    play(game, "inspect p3", "offer gold 10 to A", "offer done", "accept", "lawyer to A")
    assert game.phase == "fund"
    game.step("fund")
    d = delta(game, before)
    assert d[0] == 5  # halved first
    assert d[1] == -3 and d[2] == -2 and d[3] == 0  # the fund reimburses the 5 actually paid
    assert_consistent(game)


def test_sf2_inspectors_never_pay_into_the_fund():
    game = at_check(6, crates={3: {"rum": 1}}, hands={3: {"fund": 1}}, action_cards=True)
    before = gold(game)
    play(game, "inspect p3", "offer gold 30 to A", "offer done", "accept", "pass", "fund")
    d = delta(game, before)
    assert d[1] == 0 and d[0] == 30  # B does not pay
    assert [d[p] for p in (4, 5, 2)] == [-5, -5, -5]  # capped at 5 (SF-3)
    assert_consistent(game)


# --- gold conservation over whole games ----------------------------------------------------------
@pytest.mark.parametrize("n", [4, 6])
def test_gold_conserved_over_random_play_with_all_features(n):
    """Gold only changes through bank_in / bank_out; checked after every decision."""
    rng = np.random.default_rng(n)
    game = make_game(n, seed=n, bounty_goods=True, smuggler_transfers=True)
    for _ in range(1500):
        if game.is_terminal:
            break
        game.step(int(rng.choice(game.legal_actions())))
        assert_consistent(game)


# --- more corners --------------------------------------------------------------------------------
def test_r14c_face_down_legal_card_is_paid_in_the_legal_tier():
    # a face-down coffee (e.g. an earlier False Bottom card) is legal: it goes before the beer
    game = at_check(4, crates={3: {"rum": 1}}, announce={3: "sugar"}, gold={3: 0})
    set_counts(game, "wh_down", 3, {"coffee": 1, "beer": 1})
    open_crate(game, 3, 4)
    assert up(game, 0, "coffee") == 1  # legal cards land face up with the creditor
    assert down(game, 0, "beer") == 1  # 3 < 4: the beer follows
    assert wh_total(game, 3) == 0
    assert_consistent(game)


def test_fb_two_openers_split_odd_gold_to_bank():
    # two chocolates announced coffee, both open, FB: one hidden, the other fined 3:
    # 1 to A, 1 to B, 1 to the bank (8-6, 8-7)
    game = _fb_game(6, {"chocolate": 2}, "coffee", join=True)
    before, (bin0, bout0) = gold(game), bank(game)
    game.step("play bottom")
    d = delta(game, before)
    assert down(game, 3, "chocolate") == 1
    assert d[0] == 1 and d[1] == 1 and d[3] == -3
    assert bank(game) == (bin0 + 1, bout0)
    assert_consistent(game)


def test_lw3_lw4_two_inspectors_goods_pooled_half_to_the_chosen_one():
    # A: 4 gold + beer; B: 2 gold + sugar + fish. Lawyer to B: (4 + 2) // 2 = 3 gold and
    # 3 // 2 = 1 card, the lowest value one (sugar); A receives nothing (LW-3)
    game = at_check(6, crates={3: {"rum": 1}}, wh={3: {"beer": 1, "sugar": 1, "fish": 1}},
                    hands={3: {"lawyer": 1}}, action_cards=True)
    before = gold(game)
    play(game, "inspect p3", "offer gold 4 to A", "offer warehouse beer to A",
         "offer gold 2 to B", "offer warehouse sugar to B", "offer warehouse fish to B",
         "offer done", "accept", "accept", "lawyer to B")
    d = delta(game, before)
    assert d[1] == 3 and d[0] == 0 and d[3] == -3
    assert up(game, 1, "sugar") == 1 and wh_total(game, 1) == 1 and wh_total(game, 0) == 0
    assert down(game, 3, "beer") == 1 and up(game, 3, "fish") == 1
    assert S(game)["res_wh"].sum() == 0 and S(game)["res_gold"].sum() == 0
    assert_consistent(game)


def test_4_4_A3_deal_paid_in_full_gold_and_goods_two_inspectors():
    game = at_check(6, crates={3: {"rum": 2, "fish": 1}}, announce={3: "fish"},
                    wh={3: {"coffee": 1}})
    before = gold(game)
    play(game, "inspect p3", "offer gold 5 to A", "offer crate rum to A",
         "offer warehouse coffee to B", "offer done", "accept", "accept")
    d = delta(game, before)
    assert d[0] == 5 and d[3] == -5 and d[1] == 0
    assert down(game, 0, "rum") == 1 and up(game, 1, "coffee") == 1
    assert down(game, 3, "rum") == 1 and up(game, 3, "fish") == 1 and up(game, 3, "coffee") == 0
    assert_consistent(game)


def test_r17c_lawyer_counts_only_deliverable_crate_goods():
    # promised: 2 coffee from the crate (1 present) + 1 warehouse sugar -> 2 deliverable cards,
    # the Lawyer hands over 1 (the sugar, lowest value)
    game = at_check(4, crates={3: {"coffee": 1, "rum": 1}}, announce={3: "coffee"},
                    wh={3: {"sugar": 1}}, hands={3: {"lawyer": 1}}, action_cards=True)
    play(game, "inspect p3", "offer crate coffee to A", "offer crate coffee to A",
         "offer warehouse sugar to A", "offer done", "accept", "lawyer to A")
    assert wh_total(game, 0) == 1 and up(game, 0, "sugar") == 1
    assert up(game, 3, "coffee") == 1 and down(game, 3, "rum") == 1
    assert_consistent(game)


def test_r17f_one_lawyer_per_payment_and_sf_one_fund():
    game = at_check(4, crates={3: {"rum": 1}}, hands={3: {"lawyer": 2, "fund": 2}},
                    action_cards=True)
    before = gold(game)
    play(game, "inspect p3", "offer gold 12 to A", "offer done", "accept", "lawyer to A")
    assert game.phase == "fund"  # no second Lawyer on the same payment
    game.step("fund")
    assert game.phase == "choose crate"
    d = delta(game, before)
    assert d[0] == 6 and d[1] == -3 and d[2] == -3 and d[3] == 0
    s = S(game)
    assert s["hand"][3, KEY["lawyer"]] == 1 and s["hand"][3, KEY["fund"]] == 1
    assert_consistent(game)


def test_7_2_inactive_cards_give_no_window():
    game = at_check(4, crates={3: {"rum": 1}}, hands={3: {"lawyer": 1, "fund": 1, "route": 1}},
                    action_cards=True)
    S(game)["hand_later"][3] = S(game)["hand"][3, 14:]  # all of them wait for a later round
    before = gold(game)
    play(game, "inspect p3", "offer gold 6 to A", "offer done", "accept")
    assert game.phase == "choose crate"  # no Lawyer, no Fund window
    assert delta(game, before)[0] == 6
    game2 = at_check(4, crates={3: {"rum": 1}}, hands={3: {"route": 1}}, action_cards=True)
    S(game2)["hand_later"][3] = S(game2)["hand"][3, 14:]
    open_crate(game2, 3, 4)
    assert game2.phase == "choose crate"  # no reaction window either
    assert_consistent(game)
    assert_consistent(game2)


def test_r17e_p5_5_bounty_payer_lawyer_with_two_openers_same_choice_as_lw3():
    """P-5.5: a bounty payer gets "the same Lawyer choice": with bounties to both openers the
    sum is halved and goes to the chosen inspector only (LW-3 read with R-17e, R-17f)."""
    game = at_check(6, crates={3: {"sugar": 1}}, announce={3: "sugar"},
                    hands={2: {"lawyer": 1}}, action_cards=True, bounties=True)
    before = gold(game)
    play(game, "inspect p3", "bounty gold 4 to A", "bounty gold 6 to B")  # p2
    while game.phase == "bounty":
        game.step("bounty done")
    play(game, "offer done", "open", "join")
    assert game.phase == "bounty lawyer" and game.current_player == 2
    assert set(legal_strings(game)) == {"lawyer to A", "lawyer to B", "no lawyer"}
    game.step("lawyer to A")
    d = delta(game, before)
    assert d[2] == -5 and d[0] == 5 - 1 and d[1] == -1 and d[3] == 2  # true fine 2 split 1 / 1
    assert_consistent(game)
