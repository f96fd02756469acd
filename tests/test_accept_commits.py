"""Rule tests of the ``accept_commits=False`` variant (RULINGS R-05's alternative, §4.4's literal
reading), with the protocol P-5.3(b'): accepting a deal does not commit the inspector; it is
*holding a deal* (recorded and escrowed, R-09) and takes no further part in the exchanges. When
the negotiation would end without an open, each holding inspector, A then B, keeps the deal (the
crate passes for it, the deal is paid) or opens, voiding the deal (P-5.4 follows, its bounties are
accepted, R-07). If the other inspector opens first, a holding inspector joins (voiding the deal)
or stays out (keeping it, paid as SR-3 and Appendix A say for a non-opener).

Seats as in :mod:`tests.test_negotiation`: with 4 players A is seat 0 and the smugglers are 1, 2,
3 (round order 1, 2, 3, 0); with 6 players A is seat 0, B seat 1 and the smugglers 2..5 (round
order 2, 3, 4, 5, 0, 1). Every scenario ends with :func:`assert_consistent`: cards conserved and
gold moving only through the bank flows.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from borders_sim import Game, GameConfig
from borders_sim.game.invariants import check
from borders_sim.rules.limits import max_decisions_per_round
from borders_sim.game.saved.dict_format import state_from_dict, state_to_dict
from tests.scenario import (KEY, ONE_AND_TWO, S, assert_consistent, assert_mask_is_the_accepted_set,
                            at_check, finish_bounties,
                            gold, legal_strings, play, st)


# --- helpers ----------------------------------------------------------------------------------
def holding_game(n, **kw):
    """:func:`tests.scenario.at_check` with ``accept_commits=False``."""
    return at_check(n, accept_commits=False, **kw)


def inspect(game, p):
    """A picks crate p; the bounty turns are skipped; the owner's offer turn comes up."""
    game.step(f"inspect p{p}")
    finish_bounties(game)


def down(game, p, k):
    return int(S(game)["wh_down"][p, KEY[k]])


def assert_no_deal(game, g):
    s = S(game)
    assert s["deal_gold"][g] == 0 and s["deal_seq"][g] == 0 and s["deal_promise"][g] == 0
    assert not s["deal_wh"][g].any() and not s["deal_crate"][g].any()


# --- the flag ---------------------------------------------------------------------------------
def test_r05_flag_defaults_to_commit_and_round_trips():
    assert GameConfig().accept_commits is True
    config = GameConfig(num_players=6, accept_commits=False)
    assert GameConfig.unpack(*config.pack()) == config
    assert config.to_dict()["accept_commits"] is False
    assert GameConfig.unpack(*GameConfig().pack()).accept_commits is True
    with pytest.raises(ValueError, match="accept_commits must be True or False"):
        GameConfig(accept_commits="no")


def test_p0_4_max_length_bounds_the_final_choices():
    """P-0.4: each crate adds at most one keep-or-open decision per inspector."""
    for n in range(3, 9):
        on = max_decisions_per_round(GameConfig(num_players=n))
        off = max_decisions_per_round(GameConfig(num_players=n, accept_commits=False))
        smugglers = n - (1 if n <= 5 else 2)
        assert off - on == smugglers * (1 if n <= 5 else 2)


@ONE_AND_TWO
def test_r05_accept_commits_true_is_unchanged(n):
    """R-05 (the default): accepting commits; no keep-or-open choice, no join for the committed
    inspector."""
    game = at_check(n, crates={3: {"rum": 1}}, announce={3: "coffee"})
    s = S(game)
    before = gold(game)
    inspect(game, 3)
    play(game, "offer gold 5 to A", "offer done", "accept")
    if n >= 6:
        assert s["g_status"][0] == st.G_COMMITTED
        assert game.phase == "respond" and game.current_player == 1
        game.step("open")  # B opens; committed A is not asked to join
    else:
        assert s["n_passed"] == 1  # acceptance resolved the crate as passing
    assert game.phase == "choose crate"
    after = gold(game)
    assert after[0] - before[0] == 5  # the deal is paid
    if n >= 6:
        assert after[1] - before[1] == 4 and after[3] - before[3] == -5 - 4
    assert_consistent(game)


# --- one inspector ----------------------------------------------------------------------------
def test_p5_3b_prime_accept_holds_the_deal_one_inspector():
    """P-5.3(b'): the accepted deal is recorded and escrowed (R-09), the inspector is holding it,
    and with no one left to negotiate the final choice comes at once."""
    game = holding_game(4, crates={3: {"rum": 2}}, wh={3: {"beer": 1}})
    s = S(game)
    inspect(game, 3)
    play(game, "offer gold 5 to A", "offer warehouse beer to A", "offer crate rum to A",
         "offer done", "accept")
    assert game.phase == "keep or open" and game.current_player == 0
    assert s["g_status"][0] == st.G_HOLDING
    assert s["deal_gold"][0] == 5 and s["deal_seq"][0] == 1
    assert s["res_gold"][3] == 5 and s["res_wh"][3, KEY["beer"]] == 1
    assert s["outcome"] == st.OUT_PENDING
    assert legal_strings(game) == ["keep deal", "open and void"]
    assert_consistent(game)


def test_p5_3b_prime_keep_one_inspector_crate_passes_and_deal_is_paid():
    """P-5.3(b') keep: the deal is binding and paid like a committed deal, crate goods included
    (R-08)."""
    game = holding_game(4, crates={3: {"rum": 2}}, wh={3: {"beer": 1}})
    s = S(game)
    before = gold(game)
    inspect(game, 3)
    play(game, "offer gold 5 to A", "offer warehouse beer to A", "offer crate rum to A",
         "offer done", "accept", "keep deal")
    assert game.phase == "choose crate"
    assert s["n_passed"] == 1 and s["n_opened"] == 0
    after = gold(game)
    assert after[3] - before[3] == -5 and after[0] - before[0] == 5
    assert down(game, 0, "beer") == 1 and down(game, 3, "beer") == 0
    assert down(game, 0, "rum") == 1 and down(game, 3, "rum") == 1
    assert s["res_gold"].sum() == 0 and s["res_wh"].sum() == 0
    assert_consistent(game)


def test_p5_3b_prime_open_voids_the_deal_releases_escrow_and_accepts_bounties():
    """P-5.3(b') open: the deal is void and its reserve released; the open accepts the
    inspector's bounties (R-07). Secret Route (stopping the open here) still pays the bounty, and
    a void deal is not a deal made, so SR-3 pays nothing on it."""
    game = holding_game(4, crates={3: {"rum": 1}}, announce={3: "coffee"}, wh={3: {"beer": 1}},
                        hands={3: {"route": 1}}, action_cards=True)
    s = S(game)
    before = gold(game)
    game.step("inspect p3")
    play(game, "bounty gold 5 to A")  # p1
    finish_bounties(game)
    play(game, "offer gold 6 to A", "offer warehouse beer to A", "offer done", "accept")
    assert s["bounty_on"][1, 0] == 0  # holding a deal is no open: the bounty waits
    assert s["res_gold"][3] == 6 and s["res_wh"][3, KEY["beer"]] == 1
    game.step("open and void")
    assert game.phase == "react" and game.current_player == 3
    assert s["g_status"][0] == st.G_OPENED
    assert_no_deal(game, 0)
    assert s["res_gold"][3] == 0 and s["res_wh"][3].sum() == 0  # reserve released
    assert s["bounty_on"][1, 0] == 1 and s["res_gold"][1] == 5  # accepted, escrowed
    assert_consistent(game)
    game.step("play route")
    after = gold(game)
    assert after[1] - before[1] == -5 and after[0] - before[0] == 5  # only the bounty
    assert after[3] == before[3] and down(game, 3, "beer") == 1 and down(game, 3, "rum") == 1
    assert s["res_gold"].sum() == 0
    assert_consistent(game)


def test_p5_3b_prime_open_voids_the_deal_and_the_fine_is_settled():
    """P-5.3(b') open without a reaction: the open proceeds by P-5.4 and 4.4-B; the void deal is
    not paid, the bounty is, and the false announcement's fine goes to the opener."""
    game = holding_game(4, crates={3: {"rum": 1}}, announce={3: "coffee"}, wh={3: {"beer": 1}})
    s = S(game)
    before = gold(game)
    game.step("inspect p3")
    play(game, "bounty gold 5 to A")  # p1
    finish_bounties(game)
    play(game, "offer gold 6 to A", "offer warehouse beer to A", "offer crate rum to A",
         "offer done", "accept", "open and void")
    assert game.phase == "choose crate"
    assert s["n_opened"] == 1 and s["outcome"] == st.OUT_OPENED
    after = gold(game)
    assert after[0] - before[0] == 5 + 4  # bounty + the rum's fine
    assert after[1] - before[1] == -5
    assert after[3] - before[3] == -4  # the fine only: the deal is void
    assert down(game, 3, "beer") == 1 and down(game, 0, "beer") == 0
    assert s["discard"][KEY["rum"]] >= 1 and down(game, 3, "rum") == 0  # confiscated (4.4-B3)
    assert s["res_gold"].sum() == 0 and s["res_wh"].sum() == 0
    assert_consistent(game)


def test_p5_3c_accepted_demand_is_held_too():
    """P-5.3(b') with P-5.3c: an accepted demand is a deal like any other and, under §4.4's
    literal reading, binds only if the inspector keeps it."""
    game = holding_game(4, crates={3: {"rum": 1}})
    s = S(game)
    before = gold(game)
    inspect(game, 3)
    play(game, "offer done", "demand 6", "accept demand")
    assert game.phase == "keep or open" and game.current_player == 0
    assert s["g_status"][0] == st.G_HOLDING and s["deal_gold"][0] == 6 and s["res_gold"][3] == 6
    game.step("keep deal")
    after = gold(game)
    assert after[3] - before[3] == -6 and after[0] - before[0] == 6
    assert s["n_passed"] == 1
    assert_consistent(game)


def test_p5_5_lawyer_halves_a_kept_deal():
    """A kept deal is a binding deal at settlement (R-17b): the owner's Lawyer may halve it."""
    game = holding_game(4, crates={3: {"rum": 1}}, hands={3: {"lawyer": 1}}, action_cards=True)
    before = gold(game)
    inspect(game, 3)
    play(game, "offer gold 10 to A", "offer done", "accept", "keep deal")
    assert game.phase == "lawyer" and set(legal_strings(game)) == {"lawyer to A", "no lawyer"}
    game.step("lawyer to A")
    after = gold(game)
    assert after[3] - before[3] == -5 and after[0] - before[0] == 5
    assert_consistent(game)


# --- two inspectors -------------------------------------------------------------------------
def test_p5_3b_prime_holding_inspector_takes_no_further_part():
    """P-5.3(b'): after A accepts, only B negotiates; no offer to A, A is not asked to respond."""
    game = holding_game(6, crates={3: {"rum": 1}})
    s = S(game)
    inspect(game, 3)
    play(game, "offer gold 5 to A", "offer done", "accept")
    assert s["g_status"][0] == st.G_HOLDING
    assert game.phase == "respond" and game.current_player == 1  # B in the same exchange
    game.step("wait")
    assert game.phase == "offer"
    assert not [a for a in legal_strings(game) if a.endswith("to A")]
    game.step("offer done")
    assert game.phase == "respond" and game.current_player == 1
    game.step("pass")
    # the negotiation would end without an open: A's final choice
    assert game.phase == "keep or open" and game.current_player == 0
    assert_consistent(game)


def _holding_a_then_b_opens(**kw):
    """6 players: p2 offers bounties 3 to A and 4 to B on crate p3 (rum x2, announced coffee);
    A accepts 5 gold + a beer + a crate rum; B waits, then opens in the next exchange."""
    game = holding_game(6, crates={3: {"rum": 2}}, announce={3: "coffee"}, wh={3: {"beer": 1}},
                        **kw)
    before = gold(game)
    game.step("inspect p3")
    play(game, "bounty gold 3 to A", "bounty gold 4 to B")  # p2
    finish_bounties(game)
    play(game, "offer gold 5 to A", "offer warehouse beer to A", "offer crate rum to A",
         "offer done", "accept", "wait", "offer done", "open")
    assert game.phase == "join" and game.current_player == 0
    assert set(legal_strings(game)) == {"join", "stay out"}
    return game, before


def test_p5_3b_prime_p5_4_join_voids_the_held_deal():
    """P-5.3(b'): B opens first; A, holding a deal, joins: its deal is void (reserve released),
    its bounty is accepted (R-07), and the fine is split between the two openers (8-6)."""
    game, before = _holding_a_then_b_opens()
    s = S(game)
    game.step("join")
    assert game.phase == "choose crate"
    after = gold(game)
    assert after[0] - before[0] == 3 + 4 and after[1] - before[1] == 4 + 4
    assert after[2] - before[2] == -7
    assert after[3] - before[3] == -8  # the fine of two rums, no deal
    assert down(game, 3, "beer") == 1 and down(game, 0, "beer") == 0
    assert s["res_gold"].sum() == 0 and s["res_wh"].sum() == 0
    assert_no_deal(game, 0)
    assert_consistent(game)


def test_p5_3b_prime_p5_4_stay_out_keeps_the_held_deal():
    """P-5.3(b'): B opens first; A, holding a deal, stays out: the deal is kept and paid as a
    non-opener's deal (8-4, SR-3, Appendix A): gold and warehouse goods, the crate-goods part
    lapses (R-08). B opened alone: the whole fine is B's (8-5); A's bounty is not paid."""
    game, before = _holding_a_then_b_opens()
    s = S(game)
    game.step("stay out")
    assert game.phase == "choose crate"
    after = gold(game)
    assert after[0] - before[0] == 5
    assert after[1] - before[1] == 4 + 8
    assert after[2] - before[2] == -4
    assert after[3] - before[3] == -5 - 8
    assert down(game, 0, "beer") == 1 and down(game, 3, "beer") == 0
    assert down(game, 0, "rum") == 0 and down(game, 3, "rum") == 0  # confiscated, lapsed
    assert s["res_gold"].sum() == 0 and s["res_wh"].sum() == 0
    assert_consistent(game)


def test_p5_3b_prime_stay_out_then_secret_route_pays_crate_goods():
    """SR-3 after a stay-out: the kept deal is paid in full, crate goods included, because the
    crate passed by Secret Route (R-08, R-10)."""
    game, before = _holding_a_then_b_opens(hands={3: {"route": 1}}, action_cards=True)
    game.step("stay out")
    assert game.phase == "react"
    game.step("play route")
    after = gold(game)
    assert after[0] - before[0] == 5 and after[1] - before[1] == 4
    assert after[3] - before[3] == -5
    assert down(game, 0, "rum") == 1 and down(game, 3, "rum") == 1
    assert down(game, 0, "beer") == 1
    assert_consistent(game)


def test_p5_3b_prime_both_keep_crate_goods_in_acceptance_order():
    """P-5.3(b') with R-08: both inspectors hold and keep; the final choices go A then B, but
    promised crate goods go in the order the deals were accepted (B first here)."""
    game = holding_game(6, crates={3: {"rum": 1, "coffee": 1}})
    s = S(game)
    before = gold(game)
    inspect(game, 3)
    play(game, "offer crate rum to A", "offer crate rum to B", "offer gold 2 to B", "offer done",
         "wait", "accept")  # A waits, B accepts first
    assert s["g_status"][1] == st.G_HOLDING and s["deal_seq"][1] == 1
    assert game.phase == "offer"
    play(game, "offer done", "accept")  # A accepts second
    assert s["deal_seq"][0] == 2
    assert game.phase == "keep or open" and game.current_player == 0  # A decides first
    game.step("keep deal")
    assert s["g_status"][0] == st.G_COMMITTED
    assert game.phase == "keep or open" and game.current_player == 1
    game.step("keep deal")
    assert game.phase == "choose crate" and s["n_passed"] == 1
    assert down(game, 1, "rum") == 1 and down(game, 0, "rum") == 0  # B's deal came first
    assert s["wh_up"][3, KEY["coffee"]] == 1
    after = gold(game)
    assert after[1] - before[1] == 2 and after[3] - before[3] == -2 and after[0] == before[0]
    assert_consistent(game)


def test_p5_3b_prime_a_keeps_b_opens():
    """A keeps (the crate passes for A: its deal is paid, crate goods lapse as the crate is
    opened, R-08); B opens, voiding its own deal, takes the whole fine (8-5); A, committed by
    keeping, is not asked to join."""
    game = holding_game(6, crates={3: {"rum": 1}}, announce={3: "coffee"})
    s = S(game)
    before = gold(game)
    inspect(game, 3)
    play(game, "offer gold 3 to A", "offer crate rum to A", "offer gold 4 to B", "offer done",
         "accept", "accept")
    assert game.phase == "keep or open" and game.current_player == 0
    assert s["res_gold"][3] == 7
    play(game, "keep deal", "open and void")
    assert game.phase == "choose crate" and s["n_opened"] == 1
    after = gold(game)
    assert after[0] - before[0] == 3 and after[1] - before[1] == 4
    assert after[3] - before[3] == -3 - 4
    assert down(game, 0, "rum") == 0
    assert s["res_gold"].sum() == 0
    assert_consistent(game)


@pytest.mark.parametrize("b_joins", [True, False], ids=["join", "stay_out"])
def test_p5_3b_prime_a_opens_b_holding_chooses(b_joins):
    """Both hold; A opens in its final choice (its deal void, its bounty accepted); B, holding,
    gets P-5.4's choice: joining voids B's deal, staying out keeps it."""
    game = holding_game(6, crates={3: {"rum": 2}}, announce={3: "coffee"})
    s = S(game)
    before = gold(game)
    game.step("inspect p3")
    play(game, "bounty gold 3 to A", "bounty gold 4 to B")  # p2
    finish_bounties(game)
    play(game, "offer gold 5 to A", "offer gold 6 to B", "offer done", "accept", "accept",
         "open and void")
    assert game.phase == "join" and game.current_player == 1
    assert s["g_status"][0] == st.G_OPENED and s["g_status"][1] == st.G_HOLDING
    assert s["res_gold"][3] == 6 and s["bounty_on"][2, 0] == 1
    game.step("join" if b_joins else "stay out")
    assert game.phase == "choose crate"
    after = gold(game)
    if b_joins:
        assert after[0] - before[0] == 3 + 4 and after[1] - before[1] == 4 + 4
        assert after[2] - before[2] == -7 and after[3] - before[3] == -8
    else:
        assert after[0] - before[0] == 3 + 8 and after[1] - before[1] == 6
        assert after[2] - before[2] == -3 and after[3] - before[3] == -6 - 8
    assert s["res_gold"].sum() == 0
    assert_consistent(game)


# --- save and load ------------------------------------------------------------------------------
def _round_trip(game):
    d = state_to_dict(game.state)
    back = state_from_dict(json.loads(json.dumps(d)))
    assert back.tobytes() == game.state.tobytes()
    return d


@ONE_AND_TWO
def test_serialize_holding_and_keep_or_open_round_trip(n):
    game = holding_game(n, crates={3: {"rum": 1}})
    inspect(game, 3)
    play(game, "offer gold 5 to A", "offer done", "accept")
    d = _round_trip(game)
    assert d["negotiation"]["inspectors"][0]["status"] == "holding"
    if n >= 6:
        game.step("pass")
    assert game.phase == "keep or open"
    d = _round_trip(game)
    assert d["phase"] == "keep or open" and d["to_move"] == "p0"
    assert d["config"]["accept_commits"] is False
    loaded = Game.from_dict(d)
    loaded.step("keep deal")
    game.step("keep deal")
    assert loaded.state.tobytes() == game.state.tobytes()


def _keep_or_open_dict():
    game = holding_game(4, crates={3: {"rum": 1}})
    inspect(game, 3)
    play(game, "offer gold 5 to A", "offer done", "accept")
    assert game.phase == "keep or open"
    return state_to_dict(game.state)


def test_serialize_refuses_holding_with_accept_commits_true():
    d = _keep_or_open_dict()
    d["config"]["accept_commits"] = True
    with pytest.raises(ValueError, match=r"inspectors\[0\]\.status: 'holding' needs config"):
        state_from_dict(d)


def test_serialize_refuses_holding_in_a_settlement_phase():
    d = _keep_or_open_dict()
    d["phase"] = "lawyer"
    d["to_move"] = "p3"
    with pytest.raises(ValueError, match=r"'holding' needs config\.accept_commits false and one"):
        state_from_dict(d)


@pytest.mark.parametrize("edit", ["to_move", "slot", "status"])
def test_serialize_refuses_keep_or_open_without_a_holding_inspector_to_move(edit):
    d = _keep_or_open_dict()
    if edit == "to_move":
        d["to_move"] = "p1"
    elif edit == "slot":
        d["position"]["index"] = 1
    else:
        d["negotiation"]["inspectors"][0]["status"] = "undecided"
    path = r"(to_move|position\.index|negotiation\.inspectors)\b.*keep or open"
    with pytest.raises(ValueError, match=path):
        state_from_dict(d)


# --- random play ------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [4, 6])
def test_mask_is_exactly_what_step_accepts_in_the_new_decisions(n):
    """P-0.1 for the keep-or-open phase and the join of a holding inspector: every masked id is
    accepted, every other id is refused and changes nothing; states there round-trip."""
    rng = random.Random(n)
    wanted = {"keep or open", "join holding"} if n >= 6 else {"keep or open"}
    seen = set()
    for seed in range(20):
        game = Game(GameConfig(num_players=n, accept_commits=False), seed=seed)
        while not game.is_terminal and seen != wanted:
            s = S(game)
            key = None
            if game.phase == "keep or open":
                key = "keep or open"
            elif game.phase == "join" and s["g_status"][s["pos"]] == st.G_HOLDING:
                key = "join holding"
            if key is not None and key not in seen:
                seen.add(key)
                _round_trip(game)
                assert_mask_is_the_accepted_set(game)
            game.step(rng.choice(game.legal_actions()))
        if seen == wanted:
            break
    assert seen == wanted


def test_random_games_reach_every_branch():
    """Random play with the flag off keeps the invariants and visits keep, open-and-void, join
    and stay-out of holding inspectors (3..8 players)."""
    branches = set()
    for n in range(3, 9):
        game = Game(GameConfig(num_players=n, accept_commits=False), seed=n)
        rng = random.Random(n)
        while not game.is_terminal:
            s = S(game)
            holding_join = game.phase == "join" and s["g_status"][s["pos"]] == st.G_HOLDING
            a = rng.choice(game.legal_actions())
            name = game.action_to_string(a)
            if game.phase == "keep or open" or holding_join:
                branches.add(name)
            game.step(a)
            problems = check(game.state[0])
            assert not problems, problems
        assert int(S(game)["res_gold"].sum()) == 0 and not np.any(S(game)["res_wh"])
    assert branches == {"keep deal", "open and void", "join", "stay out"}
