"""Loaded states cannot hang, corrupt or crash the engine.

* The defects found by mutating real ``to_dict()`` dicts are refused by ``Game.from_dict`` with a
  ``ValueError`` that names the dict path (regression tests, one per defect).
* States built by hand that the kernels cannot play end in :class:`EngineError` instead of a
  hang (the kernel guards of :mod:`borders_sim.rules.engine`), checked in a child process with
  a timeout.
* The mutation fuzzer of :mod:`tests.fuzz_load` runs in child processes (a hang or a crash is a
  failure, not a stuck test run): ``BORDERS_FUZZ_MUTATIONS`` trials (default
  :data:`DEFAULT_MUTATIONS`, about a minute on 2 cores; set it to e.g. 30000 for a campaign),
  and half as many again loading research positions (``Game.from_dict(d, reachable=False)``).
"""

from __future__ import annotations

import copy
import json
import os
import random
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from borders_sim import EngineError, Game, GameConfig
from borders_sim.game.invariants import check
from borders_sim.batch.rollouts import play_batch
from tests.fuzz_load import ROOT, play_out, run_campaign

DEFAULT_MUTATIONS = 400

_FOUND: dict = {}


def real_dict(n: int, phase: str, pred=None, **flags) -> dict:
    """The first ``to_dict()`` of a random game with ``n`` players in ``phase`` (and ``pred``)."""
    key = (n, phase, pred, tuple(sorted(flags.items())))
    if key not in _FOUND:
        for seed in range(300):
            game = Game(GameConfig(num_players=n, **flags), seed=seed)
            rng = random.Random(seed)
            while not game.is_terminal:
                if game.phase == phase:
                    d = game.to_dict()
                    if pred is None or pred(d):
                        _FOUND[key] = d
                        break
                game.step(rng.choice(game.legal_actions()))
            if key in _FOUND:
                break
        else:
            raise AssertionError(f"no {n}-player game reached {phase!r}")
    return copy.deepcopy(_FOUND[key])


def refused(d: dict, pattern: str) -> str:
    """``Game.from_dict(d)`` raises a ValueError matching ``pattern``; returns the message."""
    with pytest.raises(ValueError) as err:
        Game.from_dict(d)
    msg = str(err.value)
    assert msg.startswith("bad state dict"), msg
    assert re.search(pattern, msg), msg
    return msg


def loads_and_plays(d: dict) -> Game:
    game = Game.from_dict(d)
    play_out(game.copy(), random.Random(0))
    return game


def _all_mains_held(d: dict) -> None:
    """Every main resource in the middle goes to a player (at most 2 each, 5-13)."""
    players = d["players"]
    for name in list(d["main_resources_in_middle"]):
        p = next(p for p in players if len(p["main_resources"]) < 2)
        p["main_resources"].append(name)
    d["main_resources_in_middle"] = []


# --- the defects a fuzzer found, refused at load -----------------------------------------------
def test_hang_runouts_2_without_trigger_is_refused():
    """4 players, all main resources held, 2 run-outs and no trigger: no end could ever come."""
    d = real_dict(4, "market")
    _all_mains_held(d)
    d["end_of_game"].update(runouts=2, trigger_round=None, reason=None, end_round=None)
    refused(copy.deepcopy(d), r"end_of_game\.trigger_round: null after 2 run-outs")
    d["end_of_game"].update(trigger_round=d["round"], reason="fallback")
    loads_and_plays(d)  # with the trigger set it is a position the engine can finish


@pytest.mark.parametrize("value", [2 ** 31 - 1, 2 ** 31 - 2, 10 ** 6, 1000])
def test_round_near_the_int32_limit_is_refused(value):
    d = real_dict(4, "pack")
    d["round"] = value
    refused(d, r"round: \d+, but a game in this position may last until round \d+ \(.*\), "
               r"beyond max_rounds = \d+")


def test_answer_demand_with_index_beyond_the_badges_is_refused():
    """5 players, offer phase -> 'answer demand' at position.index 5 read demand[5]."""
    d = real_dict(5, "offer")
    d["phase"] = "answer demand"
    d["position"]["index"] = 5
    refused(d, r"position\.index: 5, but in the 'answer demand' phase it is a badge slot")


def test_a_deal_without_an_acceptance_is_refused():
    """3 players, first offer phase: badge A's deal.gold = 100 and deal_order = 2 created a
    coffee 12 steps later."""
    base = real_dict(3, "offer", action_cards=False)
    d = copy.deepcopy(base)
    d["negotiation"]["inspectors"][0]["deal"]["gold"] = 100
    d["negotiation"]["inspectors"][0]["deal_order"] = 2
    refused(d, r"negotiation\.inspectors\[0\]\.deal")
    d = copy.deepcopy(base)
    d["negotiation"]["inspectors"][0]["deal"]["gold"] = 100
    refused(d, r"negotiation\.inspectors\[0\]\.deal\.gold: 100 is not on the gold menu")


def test_fund_without_the_card_is_refused():
    """6 players, offer -> 'fund': the Fund was legal without the card and a hand went negative."""
    d = real_dict(6, "offer")
    d["phase"] = "fund"
    refused(d, r"negotiation\.outcome: 'pending' in the 'fund' phase")


def test_fund_after_an_open_without_opener_is_refused():
    """'fund' with outcome 'opened' and no opener divided the fine by zero openers."""
    d = real_dict(6, "offer")
    d["phase"] = "fund"
    d["negotiation"]["outcome"] = "opened"
    refused(d, r"negotiation\.outcome: 'passed' exactly when no inspector opened")


def test_choose_crate_before_the_announcements_is_refused():
    """5 players, announce -> 'choose crate': not terminal and no legal action."""
    d = real_dict(5, "announce")
    d["phase"] = "choose crate"
    refused(d, r"players\[\d\]\.crate_status: 'closed', but in the 'choose crate' phase")


def test_lawyer_pool_outside_the_lawyer_goods_phase_is_refused():
    """lawyer_pool.cards_left = 1 in the respond phase left the game stuck in 'lawyer goods'."""
    d = real_dict(4, "respond")
    d["negotiation"]["lawyer_pool"]["cards_left"] = 1
    refused(d, r"negotiation\.lawyer_pool\.cards_left: 1 outside the 'lawyer goods' phase")


def test_gold_near_the_int32_limit_is_refused():
    """Gold conserved through the bank's books, but more than the bank can ever have paid."""
    d = real_dict(4, "market")
    extra = 2 ** 31 - 1 - d["players"][1]["gold"]
    d["players"][1]["gold"] += extra
    d["bank"]["paid_out"] += extra
    refused(d, r"bank\.paid_out: \d+, but the bank pays the first inspectors 3 gold")


def test_steps_beyond_max_game_length_are_refused_and_never_wrap():
    d = real_dict(4, "market")
    limit = Game.from_dict(copy.deepcopy(d)).max_game_length
    for steps in (2 ** 63 - 1, limit + 1):
        bad = copy.deepcopy(d)
        bad["steps"] = steps
        refused(bad, r"steps: \d+ decisions, more than max_game_length")
    d["steps"] = limit - 3  # accepted: 3 decisions are left before the bound (P-0.4)
    for step in (Game.step, Game.step_observe):
        game = Game.from_dict(copy.deepcopy(d))
        for _ in range(3):
            step(game, game.legal_actions()[0])
        assert game.state[0]["steps"] == limit and not game.is_terminal
        at_limit = game.state.tobytes()
        with pytest.raises(EngineError, match=rf"{limit} decisions\): .* max_game_length"):
            step(game, game.legal_actions()[0])
        assert game.state.tobytes() == at_limit and game.legal_actions() == []
        assert Game.from_dict(game.to_dict()).state.tobytes() == at_limit
    d["steps"] = limit  # the whole-game kernels enforce it too
    states = Game.from_dict(d).state.copy()
    with pytest.raises(EngineError, match=r"play_batch: game 0 .* max_game_length"):
        play_batch(states, np.array([5], dtype=np.uint64), 10**9)


def _reserved(d: dict) -> bool:
    return any(p["reserved_gold"] for p in d["players"])


def test_swapped_players_with_escrow_are_refused():
    """Two players' records swapped while one has reserved gold: the escrow went negative."""
    d = real_dict(6, "respond", _reserved)
    a = next(i for i, p in enumerate(d["players"]) if p["reserved_gold"])
    b = (a + 1) % 6
    for key in d["players"][a]:
        if key != "seat":
            d["players"][a][key], d["players"][b][key] = d["players"][b][key], \
                d["players"][a][key]
    refused(d, r"players\[\d\]\.reserved_gold: \d+, but the accepted deals and bounties")


@pytest.mark.parametrize("n", [3, 6])
def test_main_resources_all_held_need_the_end_of_the_game(n):
    d = real_dict(n, "market")
    _all_mains_held(d)
    refused(d, r"end_of_game\.trigger_round: null although main_resources_in_middle is empty")


def test_messages_name_dict_paths_not_state_fields():
    d = real_dict(6, "respond")
    d["phase"] = "join"
    msg = refused(d, r"negotiation\.inspectors: the join phase")
    for field in ("g_status", "cur", "pos", "res_gold", "deal_seq", "pool_left"):
        assert not re.search(rf"\b{field}\b", msg), (field, msg)


def test_a_loaded_game_saves_and_loads_again():
    for n, phase in [(3, "respond"), (6, "bounty"), (8, "collect"), (5, "lawyer")]:
        d = real_dict(n, phase, bounty_goods=True)
        game = Game.from_dict(d)
        assert game.to_dict() == d
        play_out(game, random.Random(n))


# --- the kernel guards: states built by hand end in EngineError, not in a hang ------------------
def run_isolated(code: str, timeout: float = 300) -> str:
    """Run ``code`` in a child Python at the repository root; a hang fails the test."""
    try:
        done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT,
                              capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the child process hung for {timeout} s")
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_kernels_give_up_on_a_game_that_cannot_end():
    """The hang of the issue (2 run-outs, no trigger, every main resource held), built by hand
    past from_dict: Game.step and the rollout kernel raise EngineError within max_rounds."""
    out = run_isolated("""
        import random
        import numpy as np
        from borders_sim import EngineError, Game, GameConfig
        from borders_sim.rules.limits import max_rounds
        from borders_sim.batch.rollouts import play_batch

        def endless(seed):
            game = Game(GameConfig(num_players=4), seed=seed)
            s = game.state[0]
            held = np.flatnonzero(s["main_middle"])
            for k, m in enumerate(held):
                s["main_middle"][m] = 0
                s["main_held"][k, m] = 1
            s["runouts"] = 2
            return game

        game = endless(1)
        game.state[0]["round"] = max_rounds(game.config) - 4  # the guard comes in a few rounds
        rng = random.Random(0)
        try:
            while True:
                game.step(rng.choice(game.legal_actions()))
        except EngineError as err:
            print("step:", err)
        states = endless(2).state
        try:
            play_batch(states, np.array([5]), 10**9)
        except EngineError as err:
            print("batch:", err)
    """)
    assert re.search(r"step: step\(\d+\): the engine gave up on this state", out), out
    assert re.search(r"batch: play_batch: game 0 \(1 of 1 games\): the engine gave up", out), out


def test_kernels_give_up_on_a_round_past_the_limit_or_an_unknown_phase():
    out = run_isolated("""
        from borders_sim import EngineError, Game, GameConfig

        for field, value in (("round", 2**31 - 5), ("phase", 99)):
            game = Game(GameConfig(num_players=5, skip_forced=False), seed=3)
            action = game.legal_actions()[0]
            game.state[0][field] = value
            try:
                game.step(action)
            except EngineError as err:
                print(field, "->", err)
    """, timeout=120)
    assert re.search(r"round -> .*gave up on this state \(phase '[a-z ]+', round \d+", out), out
    assert re.search(r"phase -> .*gave up on this state \(phase number 99", out), out


def test_engine_error_is_a_runtime_error():
    assert issubclass(EngineError, RuntimeError)
    states = Game(GameConfig(num_players=3), seed=0).state.copy()
    out = play_batch(states, np.array([1]), 10 ** 9)
    assert out[0] > 0 and not check(states[0])


# --- the fuzzer ----------------------------------------------------------------------------------
@pytest.mark.slow
def test_mutated_dicts_load_cleanly_or_are_refused():
    """Real dicts mutated in one place: refused with a ValueError, or played to the end with
    every invariant, reloading along the way; no hang, no crash."""
    count = int(os.environ.get("BORDERS_FUZZ_MUTATIONS", DEFAULT_MUTATIONS))
    result = run_campaign(count, first_seed=1, batch=max(1, -(-count // 2)), workers=2)
    summary = json.dumps(result, indent=1)
    assert result["trials"] == count, summary
    assert not result["failures"], summary
    assert result["accepted"] >= count // 20, summary  # the fuzzer does reach play


@pytest.mark.slow
def test_mutated_research_positions_load_cleanly_or_are_refused():
    """The same for ``Game.from_dict(d, reachable=False)``, which accepts more of the mutated
    dicts (research positions) and must play each to the end as cleanly, reloading the same
    way."""
    count = int(os.environ.get("BORDERS_FUZZ_MUTATIONS", DEFAULT_MUTATIONS)) // 2
    result = run_campaign(count, first_seed=201, batch=max(1, -(-count // 2)), workers=2,
                          reachable=False)
    summary = json.dumps(result, indent=1)
    assert result["trials"] == count, summary
    assert not result["failures"], summary
    assert result["accepted"] >= count // 10, summary
