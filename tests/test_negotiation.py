"""Rule tests of the border-check negotiation (RULINGS P-5.1 .. P-5.4, R-05 .. R-11, R-37).

Positions are scripted with :mod:`scenario`: a game is played to the packing phase, crates,
hands, warehouses and gold are set by hand (cards conserved), the announcements are made, and
the check is driven with readable action strings. Seats: with 4 players the inspector A is seat 0
and the smugglers are 1, 2, 3 (round order 1, 2, 3, 0); with 6 players A is seat 0, B is seat 1
and the smugglers are 2..5 (round order 2, 3, 4, 5, 0, 1).
"""

from __future__ import annotations

import pytest

from tests.scenario import (KEY, ONE_AND_TWO, S, assert_consistent, at_check, finish_bounties,
                            gold, legal_strings, play, st)


# --- helpers ----------------------------------------------------------------------------------
def inspect(game, p):
    """A picks crate p; the bounty turns are skipped; the owner's offer turn comes up."""
    game.step(f"inspect p{p}")
    finish_bounties(game)


def first_smuggler(n):
    """The first smuggler in round order: the first bounty turn on crate p3 (P-5.2)."""
    return 1 if n < 6 else 2


# --- P-5.1 crate choice (R-11) ------------------------------------------------------------------
@ONE_AND_TWO
def test_p5_1_r11_inspector_A_chooses_the_next_crate(n):
    game = at_check(n)
    s = S(game)
    smugglers = [p for p in range(n) if p not in (0, 1 if n >= 6 else 0)]
    assert game.phase == "choose crate"
    assert game.current_player == 0  # A, never B
    assert sorted(legal_strings(game)) == sorted(f"inspect p{p}" for p in smugglers)
    target = smugglers[-1]
    game.step(f"inspect p{target}")
    assert s["cur"] == target
    finish_bounties(game)
    play(game, "offer done", "pass")
    if n >= 6:
        game.step("pass")
    assert game.phase == "choose crate" and game.current_player == 0
    assert f"inspect p{target}" not in legal_strings(game)  # a settled crate is done
    assert len(legal_strings(game)) == len(smugglers) - 1
    assert_consistent(game)


@ONE_AND_TWO
def test_p5_1_crate_order_announcement_takes_crates_in_round_order(n):
    game = at_check(n, crate_order="announcement", bounties=False)
    s = S(game)
    order = [int(p) for p in s["order"][:n] if p not in (0, 1 if n >= 6 else 0)]
    seen = []
    for _ in order:
        assert game.phase == "offer"
        seen.append(int(s["cur"]))
        play(game, "offer done", "pass")
        if n >= 6:
            game.step("pass")
    assert seen == order
    assert game.phase in ("collect", "action window", "market")  # the check is over
    assert_consistent(game)


# --- P-5.2 bounties (R-07) ----------------------------------------------------------------------
@ONE_AND_TWO
def test_p5_2_bounties_are_gold_only_by_default_and_in_round_order(n):
    game = at_check(n, wh={p: {"rum": 1, "coffee": 1} for p in range(n)}, skip_forced=False)
    s = S(game)
    owner = 3
    game.step(f"inspect p{owner}")
    expected = [int(p) for p in s["order"][:n]
                if p != owner and p not in (0, 1 if n >= 6 else 0)]
    turns = []
    while game.phase == "bounty":
        turns.append(game.current_player)
        legal = legal_strings(game)
        assert not [a for a in legal if a.startswith(("bounty card", "give"))]
        assert "bounty gold 5 to A" in legal
        assert ("bounty gold 5 to B" in legal) == (n >= 6)
        game.step("bounty done")
    assert turns == expected
    assert game.phase == "offer" and game.current_player == owner
    assert_consistent(game)


def test_p5_2_bounty_masked_to_affordable_and_one_per_inspector():
    game = at_check(6, gold={2: 4})
    game.step("inspect p3")
    assert game.current_player == 2
    legal = legal_strings(game)
    assert [a for a in legal if a.endswith("to A")] == \
        [f"bounty gold {g} to A" for g in (1, 2, 3, 4)]
    game.step("bounty gold 3 to A")
    legal = legal_strings(game)
    assert not [a for a in legal if a.endswith("to A")]  # one standing bounty per inspector
    # the budget left for B is what remains after the standing bounty to A
    assert [a for a in legal if a.endswith("to B")] == ["bounty gold 1 to B"]
    assert S(game)["bounty_gold"][2, 0] == 3
    assert_consistent(game)


def test_p5_2_bounty_goods_flag():
    wh = {1: {"rum": 1, "coffee": 1}}
    game = at_check(4, wh=wh, bounty_goods=True)
    game.step("inspect p3")
    assert game.current_player == 1
    legal = legal_strings(game)
    assert "bounty card rum to A" in legal and "bounty card coffee to A" in legal
    game.step("bounty card rum to A")
    assert "bounty card rum to A" not in legal_strings(game)  # only one rum in the warehouse
    game.step("bounty gold 2 to A")  # gold and goods together make one bounty
    assert "bounty card coffee to A" in legal_strings(game)
    # the flag has no effect when haggling is gold only
    game = at_check(4, wh=wh, bounty_goods=True, haggling="gold_only")
    game.step("inspect p3")
    assert not [a for a in legal_strings(game) if a.startswith("bounty card")]
    assert_consistent(game)


def test_p5_2_bounty_goods_paid_to_opener():
    game = at_check(4, crates={3: {"coffee": 1}}, announce={3: "coffee"},
                    wh={1: {"rum": 1}}, bounty_goods=True)
    before = gold(game)
    game.step("inspect p3")
    play(game, "bounty card rum to A", "bounty gold 2 to A", "bounty done")  # p1
    finish_bounties(game)
    play(game, "offer done", "open")
    s = S(game)
    assert s["wh_down"][0, KEY["rum"]] == 1 and s["wh_down"][1, KEY["rum"]] == 0
    after = gold(game)
    assert after[1] - before[1] == -2
    assert after[0] - before[0] == 2 - 2  # +2 bounty, -2 true-announcement fine
    assert_consistent(game)


@ONE_AND_TWO
def test_r07_bounty_accepted_by_open_and_paid(n):
    x = first_smuggler(n)
    game = at_check(n, crates={3: {"coffee": 1}}, announce={3: "coffee"})
    before = gold(game)
    game.step("inspect p3")
    assert game.current_player == x
    play(game, "bounty gold 5 to A")
    finish_bounties(game)
    play(game, "offer done", "open")
    if n >= 6:
        assert game.phase == "join"
        game.step("stay out")
    s = S(game)
    after = gold(game)
    assert after[x] - before[x] == -5
    assert after[0] - before[0] == 5 - 2  # bounty in, true fine of one coffee out
    assert after[3] - before[3] == 2
    assert s["res_gold"].sum() == 0  # escrow released
    assert_consistent(game)


def test_r07_bounty_is_escrowed_when_accepted():
    game = at_check(4, crates={3: {"coffee": 1}}, announce={3: "coffee"},
                    hands={3: {"bottom": 1}}, action_cards=True)
    game.step("inspect p3")
    play(game, "bounty gold 5 to A")
    finish_bounties(game)
    play(game, "offer done", "open")
    s = S(game)
    assert game.phase == "react"  # the owner may answer with False Bottom
    assert s["bounty_on"][1, 0] == 1 and s["res_gold"][1] == 5
    assert_consistent(game)


@ONE_AND_TWO
def test_r07_bounty_paid_even_after_secret_route(n):
    game = at_check(n, crates={3: {"rum": 2}}, announce={3: "coffee"},
                    hands={3: {"route": 1}}, action_cards=True)
    x = first_smuggler(n)
    before = gold(game)
    game.step("inspect p3")
    play(game, "bounty gold 4 to A")
    finish_bounties(game)
    play(game, "offer done", "open")
    if n >= 6:
        game.step("stay out")
    assert game.phase == "react"
    game.step("play route")
    after = gold(game)
    assert after[x] - before[x] == -4 and after[0] - before[0] == 4
    assert after[3] == before[3]  # SR-2: no fine
    assert S(game)["wh_down"][3, KEY["rum"]] == 2
    assert_consistent(game)


def test_r07_bounty_not_paid_if_inspector_does_not_open_one_inspector():
    game = at_check(4, crates={3: {"rum": 1}})
    before = gold(game)
    game.step("inspect p3")
    play(game, "bounty gold 6 to A")
    finish_bounties(game)
    play(game, "offer done", "pass")
    assert (gold(game) == before).all()
    assert S(game)["res_gold"].sum() == 0
    assert_consistent(game)


def test_r07_bounty_paid_only_to_the_inspector_who_opened_two_inspectors():
    game = at_check(6, crates={3: {"coffee": 1}}, announce={3: "coffee"})
    before = gold(game)
    game.step("inspect p3")
    play(game, "bounty gold 3 to A", "bounty gold 4 to B")  # p2
    finish_bounties(game)
    play(game, "offer done", "wait", "open")  # A waits, B opens
    assert game.phase == "join" and game.current_player == 0
    game.step("stay out")
    after = gold(game)
    assert after[2] - before[2] == -4
    assert after[1] - before[1] == 4 - 2
    assert after[0] == before[0]
    assert_consistent(game)


def test_r07_p5_4_join_accepts_the_bounties_of_the_joiner():
    game = at_check(6, crates={3: {"rum": 1}}, announce={3: "coffee"})
    before = gold(game)
    game.step("inspect p3")
    play(game, "bounty gold 3 to A", "bounty gold 4 to B")
    finish_bounties(game)
    play(game, "offer done", "open")
    assert game.phase == "join" and game.current_player == 1
    game.step("join")
    after = gold(game)
    assert after[2] - before[2] == -7
    # both opened a false crate: fine 4 split 2 / 2 (8-6)
    assert after[0] - before[0] == 3 + 2 and after[1] - before[1] == 4 + 2
    assert after[3] - before[3] == -4
    assert_consistent(game)


def test_r07_bounty_to_a_committed_inspector_is_not_paid():
    game = at_check(6, crates={3: {"rum": 1}}, announce={3: "coffee"})
    before = gold(game)
    game.step("inspect p3")
    play(game, "bounty gold 3 to A", "bounty gold 4 to B")
    finish_bounties(game)
    play(game, "offer gold 2 to B", "offer done", "wait", "accept")  # B commits
    play(game, "offer done", "open")  # A opens in the next exchange
    assert game.phase == "choose crate"  # B is committed: not asked to join
    after = gold(game)
    assert after[2] - before[2] == -3  # only A's bounty
    assert after[1] - before[1] == 2  # B's deal is still paid (8-4)
    assert after[0] - before[0] == 3 + 4  # bounty + fine for the rum
    assert after[3] - before[3] == -2 - 4
    assert_consistent(game)


def test_p5_2_no_bounty_turns_when_bounties_off():
    game = at_check(4, bounties=False, skip_forced=False)
    game.step("inspect p2")
    assert game.phase == "offer" and game.current_player == 2


# --- R-06c smuggler transfers -------------------------------------------------------------------
    assert_consistent(game)
def test_r06c_gifts_only_with_the_flag():
    game = at_check(4, wh={2: {"beer": 1}})
    game.step("inspect p3")
    assert not [a for a in legal_strings(game) if a.startswith("give")]
    assert_consistent(game)


@ONE_AND_TWO
def test_r06c_gifts_are_immediate_transfers(n):
    x = first_smuggler(n)
    game = at_check(n, smuggler_transfers=True, bounties=False, wh={x: {"beer": 1, "sugar": 1}})
    s = S(game)
    before = gold(game)
    game.step("inspect p3")
    assert game.phase == "bounty" and game.current_player == x
    legal = legal_strings(game)
    assert not [a for a in legal if a.startswith("bounty gold")]  # bounties are off
    others = [q for q in range(n) if q not in (x, 0) and not (n >= 6 and q == 1)]
    assert {a.split()[-1] for a in legal if a.startswith("give gold")} == {f"p{q}" for q in others}
    game.step("give gold 3 to p3")
    assert gold(game)[x] == before[x] - 3 and gold(game)[3] == before[3] + 3  # immediate
    assert not [a for a in legal_strings(game) if a.startswith("give gold")]  # one per turn
    game.step("give card beer to p3")
    assert s["wh_down"][3, KEY["beer"]] == 1 and s["wh_down"][x, KEY["beer"]] == 0
    game.step("give card sugar to p3")
    assert s["wh_up"][3, KEY["sugar"]] == 1  # legal face up
    assert not [a for a in legal_strings(game) if a.startswith("give card")]
    assert_consistent(game)


def test_r06c_gift_masked_to_free_gold():
    game = at_check(4, smuggler_transfers=True, bounties=False, gold={1: 3})
    game.step("inspect p3")
    gifts = [a for a in legal_strings(game) if a.startswith("give gold") and a.endswith("p3")]
    assert gifts == ["give gold 1 to p3", "give gold 2 to p3", "give gold 3 to p3"]


# --- P-5.3a offers ------------------------------------------------------------------------------
    assert_consistent(game)
@ONE_AND_TWO
def test_p5_3a_offer_gold_set_once_per_turn(n):
    game = at_check(n, skip_forced=False)
    inspect(game, 3)
    assert game.phase == "offer" and game.current_player == 3
    game.step("offer gold 5 to A")
    legal = legal_strings(game)
    assert not [a for a in legal if a.startswith("offer gold") and a.endswith("to A")]
    if n >= 6:  # the limit is per inspector
        assert "offer gold 5 to B" in legal
    assert S(game)["offer_gold"][0] == 5
    play(game, "offer done", "wait")
    if n >= 6:
        game.step("wait")
    assert game.phase == "offer"  # next exchange: gold may be set again
    legal = legal_strings(game)
    assert "offer gold 7 to A" in legal and "offer gold 5 to A" not in legal  # same value: no-op
    game.step("offer gold 7 to A")
    assert S(game)["offer_gold"][0] == 7
    assert_consistent(game)


def test_p5_3a_offer_gold_masked_to_free_gold():
    game = at_check(4, gold={3: 6})
    inspect(game, 3)
    offers = [a for a in legal_strings(game) if a.startswith("offer gold")]
    assert offers == [f"offer gold {g} to A" for g in range(1, 7)]
    assert_consistent(game)


def test_p5_3a_offer_warehouse_cards_up_to_holdings():
    game = at_check(4, wh={3: {"rum": 1, "sugar": 2}})
    inspect(game, 3)
    legal = legal_strings(game)
    assert "offer warehouse rum to A" in legal and "offer warehouse beer to A" not in legal
    game.step("offer warehouse rum to A")
    assert "offer warehouse rum to A" not in legal_strings(game)
    play(game, "offer warehouse sugar to A", "offer warehouse sugar to A")
    assert "offer warehouse sugar to A" not in legal_strings(game)
    assert list(S(game)["offer_wh"][0, [KEY["sugar"], KEY["rum"]]]) == [2, 1]
    assert_consistent(game)


@pytest.mark.parametrize("size", [1, 3])
def test_p5_3a_offer_crate_cards_capped_at_crate_size(size):
    game = at_check(4, crates={3: {"coffee": size}})
    inspect(game, 3)
    # the owner may bluff about the crate's contents: any goods type is offered
    assert "offer crate gun to A" in legal_strings(game)
    for _ in range(size):
        game.step("offer crate rum to A")
    assert not [a for a in legal_strings(game) if a.startswith("offer crate")]
    assert S(game)["offer_crate"][0].sum() == size
    assert_consistent(game)


def test_p5_3a_promise_withdraw():
    game = at_check(4, skip_forced=False)
    inspect(game, 3)
    s = S(game)
    assert "withdraw A" not in legal_strings(game)  # nothing to withdraw
    game.step("promise A")
    assert "promise A" not in legal_strings(game)
    game.step("offer gold 4 to A")
    game.step("withdraw A")
    assert s["offer_gold"][0] == 0 and s["offer_promise"][0] == 0
    legal = legal_strings(game)
    assert legal == ["offer done"]  # no further change to A this turn
    game.step("offer done")
    assert "accept" not in legal_strings(game)  # an empty offer cannot be accepted
    game.step("wait")
    assert "promise A" in legal_strings(game)  # a new turn
    assert_consistent(game)


def test_p5_3b_promise_only_deal_commits_and_pays_nothing():
    game = at_check(4, crates={3: {"rum": 2}})
    before = gold(game)
    inspect(game, 3)
    play(game, "promise A", "offer done", "accept")
    s = S(game)
    assert (gold(game) == before).all()
    assert s["n_passed"] == 1 and s["wh_down"][3, KEY["rum"]] == 2
    assert_consistent(game)


# --- P-5.3b accept (R-05, R-09) ------------------------------------------------------------------
def test_r05_accept_commits_single_inspector_crate_passes():
    game = at_check(4, crates={3: {"rum": 2}}, wh={3: {"beer": 1}})
    before = gold(game)
    inspect(game, 3)
    play(game, "offer gold 5 to A", "offer warehouse beer to A", "offer done")
    assert {"accept", "open", "pass", "wait"} <= set(legal_strings(game))
    game.step("accept")
    s = S(game)
    assert game.phase == "choose crate"  # the crate resolved as passing, no open
    assert s["n_passed"] == 1 and s["n_opened"] == 0
    after = gold(game)
    assert after[3] - before[3] == -5 and after[0] - before[0] == 5
    assert s["wh_down"][0, KEY["beer"]] == 1 and s["wh_down"][3, KEY["beer"]] == 0
    assert s["wh_down"][3, KEY["rum"]] == 2
    assert_consistent(game)


def test_r05_8_3_committed_inspector_cannot_open():
    game = at_check(6, crates={3: {"rum": 1}}, announce={3: "coffee"}, skip_forced=False)
    s = S(game)
    inspect(game, 3)
    play(game, "offer gold 3 to A", "offer done", "accept")
    assert s["g_status"][0] == st.G_COMMITTED
    assert game.current_player == 1  # B's turn
    game.step("wait")
    assert game.phase == "offer"
    # nothing more for A: no offer to a committed inspector
    assert not [a for a in legal_strings(game) if a.endswith("to A")]
    game.step("offer done")
    assert game.phase == "respond" and game.current_player == 1  # A is not asked again
    game.step("open")
    assert game.phase == "choose crate"  # A is not asked to join; the crate is settled
    assert s["n_opened"] == 1
    assert_consistent(game)


def test_r09_accepted_assets_are_escrowed_and_cannot_be_offered_again():
    game = at_check(6, gold={3: 40}, wh={3: {"rum": 1}})
    s = S(game)
    inspect(game, 3)
    play(game, "offer gold 30 to A", "offer warehouse rum to A",
         "offer gold 30 to B", "offer warehouse rum to B", "offer done")
    game.step("accept")  # A
    assert s["res_gold"][3] == 30 and s["res_wh"][3, KEY["rum"]] == 1
    legal = legal_strings(game)  # B: the same gold and rum are no longer free
    assert "accept" not in legal
    assert "demand 10" in legal and "demand 12" not in legal  # 10 free gold left
    game.step("wait")
    legal = legal_strings(game)
    assert [a for a in legal if a.startswith("offer gold")] == \
        [f"offer gold {g} to B" for g in (1, 2, 3, 4, 5, 6, 7, 8, 10)]
    assert "offer warehouse rum to B" not in legal
    play(game, "offer gold 10 to B", "withdraw B")
    assert_consistent(game)


def test_r09_accept_masked_when_offer_unaffordable_after_other_deal():
    game = at_check(6, gold={3: 12})
    inspect(game, 3)
    play(game, "offer gold 10 to A", "offer gold 5 to B", "offer done", "accept")
    assert "accept" not in legal_strings(game)  # 5 > 12 - 10 free gold
    game.step("wait")
    play(game, "offer gold 2 to B", "offer done")
    assert "accept" in legal_strings(game)


# --- P-5.3c demands -----------------------------------------------------------------------------
    assert_consistent(game)
def test_p5_3c_demand_masked_to_owner_free_gold_and_accepted():
    game = at_check(4, gold={3: 7}, crates={3: {"rum": 1}})
    before = gold(game)
    inspect(game, 3)
    play(game, "offer gold 2 to A", "offer done")
    demands = [a for a in legal_strings(game) if a.startswith("demand")]
    assert demands == [f"demand {g}" for g in range(1, 8)]
    game.step("demand 6")
    assert game.phase == "answer demand" and game.current_player == 3
    assert legal_strings(game) == ["accept demand", "refuse demand"]
    game.step("accept demand")  # binding, replaces the offer of 2
    s = S(game)
    after = gold(game)
    assert after[3] - before[3] == -6 and after[0] - before[0] == 6
    assert s["n_passed"] == 1
    assert_consistent(game)


@ONE_AND_TWO
def test_p5_3c_refused_demand_goes_to_the_next_exchange(n):
    game = at_check(n, crates={3: {"rum": 1}})
    s = S(game)
    inspect(game, 3)
    play(game, "offer done", "demand 8")
    if n >= 6:
        game.step("wait")
    game.step("refuse demand")
    assert game.phase == "offer" and s["exchange"] == 2
    assert s["g_status"][0] == st.G_UNDECIDED and s["demand"][0] == 0
    assert_consistent(game)


def test_p5_3c_two_demands_answered_against_free_gold():
    game = at_check(6, gold={3: 15}, skip_forced=False)
    inspect(game, 3)
    play(game, "offer done", "demand 10", "demand 10")
    game.step("accept demand")  # A's
    assert game.current_player == 3
    assert legal_strings(game) == ["refuse demand"]  # only 5 free gold left for B's demand
    assert S(game)["res_gold"][3] == 10


# --- P-5.3 exchanges, budget (R-37) -------------------------------------------------------------
    assert_consistent(game)
@pytest.mark.parametrize("rounds", [1, 2, 3])
@ONE_AND_TWO
def test_p5_3b_wait_not_legal_in_the_last_exchange(n, rounds):
    game = at_check(n, haggle_rounds=rounds, skip_forced=False)
    s = S(game)
    inspect(game, 3)
    game.step("offer gold 2 to A")
    while True:
        assert game.phase == "offer" and s["exchange"] <= rounds
        game.step("offer done")
        last = s["exchange"] == rounds
        for _ in range(2 if n >= 6 else 1):
            legal = set(legal_strings(game))
            if last:  # must accept, open or pass (P-5.3b, R-37)
                assert legal == {"accept", "open", "pass"} or legal == {"open", "pass"}
            else:
                assert {"wait", "demand 1", "open", "pass"} <= legal
                game.step("wait")
        if last:
            break
    assert s["exchange"] == rounds
    assert_consistent(game)


@ONE_AND_TWO
def test_r37_budget_runs_out_crate_passes(n):
    game = at_check(n, haggle_rounds=2, crates={3: {"gun": 1}})
    s = S(game)
    before = gold(game)
    inspect(game, 3)
    play(game, "offer done", *["wait"] * (2 if n >= 6 else 1))
    play(game, "offer done", *["pass"] * (2 if n >= 6 else 1))
    assert game.phase == "choose crate"
    assert s["n_passed"] == 1 and s["wh_down"][3, KEY["gun"]] == 1
    assert (gold(game) == before).all()
    assert_consistent(game)


# --- haggling variants (P-7) ---------------------------------------------------------------------
def test_haggling_gold_only_masks():
    game = at_check(4, haggling="gold_only", bounty_goods=True, smuggler_transfers=True,
                    wh={p: {"rum": 1} for p in range(4)})
    game.step("inspect p3")
    legal = legal_strings(game)
    assert "bounty gold 2 to A" in legal and "give gold 2 to p3" in legal
    assert not [a for a in legal if a.startswith(("bounty card", "give card"))]
    finish_bounties(game)
    legal = legal_strings(game)
    assert {a.split()[0] + " " + a.split()[1] for a in legal if a != "offer done"} == \
        {"offer gold"}
    game.step("offer gold 3 to A")
    assert set(legal_strings(game)) == {"withdraw A", "offer done"}
    game.step("offer done")
    assert {"accept", "open", "pass", "wait", "demand 4"} <= set(legal_strings(game))
    assert_consistent(game)


@ONE_AND_TWO
def test_haggling_none_inspectors_only_open_or_pass(n):
    game = at_check(n, haggling="none", smuggler_transfers=True, crates={3: {"rum": 1}})
    game.step("inspect p3")
    assert game.phase == "respond"  # no bounty turn, no offer turn
    assert set(legal_strings(game)) == {"open", "pass"}
    game.step("pass")
    if n >= 6:
        assert set(legal_strings(game)) == {"open", "pass"}
        game.step("pass")
    assert game.phase == "choose crate"


# --- P-5.4 join / stay out, R-10 -----------------------------------------------------------------
    assert_consistent(game)
def test_p5_4_r10_open_ends_negotiation_and_pending_offers_lapse():
    game = at_check(6, crates={3: {"rum": 1}}, announce={3: "coffee"})
    s = S(game)
    before = gold(game)
    inspect(game, 3)
    play(game, "offer gold 5 to A", "offer gold 7 to B", "offer done", "open")
    assert game.phase == "join" and game.current_player == 1
    assert set(legal_strings(game)) == {"join", "stay out"}  # B can no longer accept
    assert s["offer_gold"].sum() == 0
    game.step("stay out")
    after = gold(game)
    assert after[1] == before[1]  # the lapsed offer to B is not paid
    assert after[0] - before[0] == 4 and after[3] - before[3] == -4  # A takes the whole fine (8-5)
    assert_consistent(game)


def test_p5_4_b_opens_a_undecided_joins():
    game = at_check(6, crates={3: {"rum": 2}}, announce={3: "coffee"})
    before = gold(game)
    inspect(game, 3)
    play(game, "offer done", "wait", "open")
    assert game.phase == "join" and game.current_player == 0
    game.step("join")
    after = gold(game)
    assert after[0] - before[0] == 4 and after[1] - before[1] == 4
    assert after[3] - before[3] == -8
    assert_consistent(game)


def test_p5_4_passed_inspector_is_not_asked_to_join():
    game = at_check(6, crates={3: {"rum": 1}}, announce={3: "coffee"})
    before = gold(game)
    inspect(game, 3)
    play(game, "offer done", "pass", "open")
    assert game.phase == "choose crate"
    after = gold(game)
    assert after[1] - before[1] == 4 and after[0] == before[0]
    assert_consistent(game)


def test_r10_open_by_B_lapses_A_standing_demand():
    game = at_check(6, crates={3: {"rum": 1}}, announce={3: "coffee"})
    s = S(game)
    before = gold(game)
    inspect(game, 3)
    play(game, "offer done", "demand 10", "open")  # A demands, B opens
    assert game.phase == "join" and game.current_player == 0  # no answer to the demand
    assert s["demand"].sum() == 0
    game.step("stay out")
    after = gold(game)
    assert after[0] == before[0] and after[1] - before[1] == 4 and after[3] - before[3] == -4
    assert_consistent(game)
