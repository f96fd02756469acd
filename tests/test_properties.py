"""Properties of random legal play (hypothesis): invariants after every step, termination within
``max_game_length`` (P-0.4), determinism, and the mask being exactly the set
of accepted actions (P-0.1); research positions (``Game.from_dict(d, reachable=False)``) play
to the end with every invariant too.

``BORDERS_PROPERTY_EXAMPLES`` scales the hypothesis examples of this file (default 1; the CI's
bounds-checked pass, which compiles every kernel again, runs 0.5)."""

from __future__ import annotations

import copy
import json
import os
import random

import numba
import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as hst

from borders_sim import Game, GameConfig, IllegalActionError, NUM_ACTIONS
from tests.perturb import perturb
from tests.scenario import assert_mask_is_the_accepted_set
from borders_sim.batch import rollouts as rollout
from borders_sim.rules.actions import PHASE_HI, PHASE_LO
from borders_sim.game.invariants import check
from borders_sim.rules.setup import new_state

PLAYERS = range(3, 9)
SCALE = float(os.environ.get("BORDERS_PROPERTY_EXAMPLES", "1"))


def examples(n: int) -> int:
    """``n`` hypothesis examples scaled by ``BORDERS_PROPERTY_EXAMPLES`` (at least 1)."""
    return max(1, round(n * SCALE))


FLAG_SETS = [
    {},
    {"action_cards": False},
    {"haggling": "gold_only", "bounty_goods": True},
    {"haggling": "none"},
    {"bounty_goods": True, "smuggler_transfers": True, "haggle_rounds": 1},
    {"skip_forced": False, "crate_order": "announcement", "first_inspector": "random",
     "lawyer_goods": "player_choice"},
    {"robbery_timing": "own_turn", "collect_order_2inspectors": "a_plus_1",
     "tiebreak_legal": "pieces", "haggle_rounds": 8, "gold_menu": (1, 3, 9),
     "midround_2_5_rollover": True},
    {"accept_commits": False},  # P-5.3(b'): accepting holds the deal (R-05's alternative)
]


def play_random(game: Game, rng: random.Random, checker=None) -> int:
    steps = 0
    while not game.is_terminal:
        game.step(rng.choice(game.legal_actions()))
        steps += 1
        if checker is not None:
            checker(game)
        assert steps <= game.max_game_length
    return steps


def assert_invariants(game: Game) -> None:
    problems = check(game.state[0])
    assert not problems, problems
    legal = game.legal_actions()
    phase = int(game.state[0]["phase"])
    assert all(PHASE_LO[phase] <= a < PHASE_HI[phase] for a in legal), (game.phase, legal)
    assert (len(legal) == 0) == game.is_terminal


@pytest.mark.parametrize("n", PLAYERS)
@pytest.mark.parametrize("flags", FLAG_SETS, ids=lambda f: ",".join(f) or "rulebook")
def test_random_play_keeps_invariants_and_ends(n, flags):
    """Cards conserved, gold moves only through the bank flows, escrow within holdings (R-09),
    hands within 6 (R-40), main resources conserved, and the game ends (P-0.4)."""
    game = Game(GameConfig(num_players=n, **flags), seed=n * 101 + len(flags))
    assert_invariants(game)
    play_random(game, random.Random(n), assert_invariants)
    assert game.is_terminal and game.current_player == -1
    assert game.state[0]["end_reason"] in (1, 2)
    assert len(game.winners()) >= 1


@settings(max_examples=examples(25), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(n=hst.integers(3, 8), seed=hst.integers(0, 2**63 - 1), policy=hst.integers(0, 2**32),
       flags=hst.sampled_from(FLAG_SETS))
def test_random_play_property(n, seed, policy, flags):
    game = Game(GameConfig(num_players=n, **flags), seed=seed)
    play_random(game, random.Random(policy), assert_invariants)


@settings(max_examples=examples(20), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(n=hst.integers(3, 8), seed=hst.integers(0, 2**32), cut=hst.integers(0, 2500),
       flags=hst.sampled_from(FLAG_SETS))
@example(n=7, seed=144, cut=611,  # the mover's gold was changed: its bounty decision vanished
         flags={"bounty_goods": True, "smuggler_transfers": True, "haggle_rounds": 1})
def test_research_positions_play_to_the_end(n, seed, cut, flags):
    """A real position with gold, cards and hands changed by hand (:mod:`tests.perturb`): a
    saved game that no game reaches, so ``Game.from_dict`` refuses it naming the gold and the
    bank's books; ``Game.from_dict(d, reachable=False)`` loads it, and it plays to the end
    with every invariant after every step; reloaded with ``reachable=False`` along the way, it
    is the same game (nothing more to rebase)."""
    game = Game(GameConfig(num_players=n, **flags), seed=seed)
    rng = random.Random(seed)
    position = game.copy()
    for _ in range(cut):  # a position along the game, before its end
        if game.is_terminal:
            break
        position = game.copy()
        game.step(rng.choice(game.legal_actions()))
    d = position.to_dict()
    perturb(d, rng)
    with pytest.raises(ValueError, match=r"players\[\*\]\.gold, bank: invariant violated"):
        Game.from_dict(copy.deepcopy(d))
    research = Game.from_dict(d, reachable=False)
    assert [int(g) for g in research.state[0]["gold"][:n]] == [p["gold"] for p in d["players"]]

    def checker(g: Game) -> None:
        assert_invariants(g)
        if rng.random() < 0.02:
            d = g.to_dict()
            assert Game.from_dict(json.loads(json.dumps(d)), reachable=False).to_dict() == d

    checker(research)
    play_random(research, rng, checker)


@pytest.mark.parametrize("n", PLAYERS)
def test_same_seed_same_game(n):
    """The state holds the generator: same config, seed and actions give the same game."""
    a = Game(GameConfig(num_players=n), seed=42)
    b = Game(GameConfig(num_players=n), seed=42)
    assert a.state.tobytes() == b.state.tobytes()
    ra, rb = random.Random(7), random.Random(7)
    while not a.is_terminal:
        a.step(ra.choice(a.legal_actions()))
        b.step(rb.choice(b.legal_actions()))
        assert a.state.tobytes() == b.state.tobytes()
    assert a.scores() == b.scores()
    c = Game(GameConfig(num_players=n), seed=43)
    assert c.state.tobytes() != Game(GameConfig(num_players=n), seed=42).state.tobytes()


@pytest.mark.parametrize("n", PLAYERS)
def test_copy_is_independent_and_replays(n):
    game = Game(GameConfig(num_players=n), seed=5)
    rng = random.Random(3)
    for _ in range(150):
        game.step(rng.choice(game.legal_actions()))
    twin = game.copy()
    actions = []
    while not game.is_terminal:
        actions.append(rng.choice(game.legal_actions()))
        game.step(actions[-1])
    for a in actions:
        twin.step(a)
    assert twin.state.tobytes() == game.state.tobytes()


@settings(max_examples=examples(12), deadline=None)
@given(n=hst.integers(3, 8), seed=hst.integers(0, 10**6), cut=hst.integers(0, 400))
def test_mask_is_exactly_what_step_accepts(n, seed, cut):
    """Every masked action is accepted; every other id is refused and changes nothing (P-0.1)."""
    game = Game(GameConfig(num_players=n, bounty_goods=True, smuggler_transfers=True), seed=seed)
    rng = random.Random(seed)
    for _ in range(cut):
        if game.is_terminal:
            break
        game.step(rng.choice(game.legal_actions()))
    if game.is_terminal:
        return
    assert_mask_is_the_accepted_set(game)


def test_illegal_input_is_refused_with_a_clear_message():
    game = Game(GameConfig(num_players=4), seed=1)
    before = game.state.tobytes()
    with pytest.raises(IllegalActionError, match=r"illegal action 'open' .* player p\d .* phase"):
        game.step("open")
    with pytest.raises(IllegalActionError, match="outside the action space"):
        game.step(NUM_ACTIONS)
    with pytest.raises(IllegalActionError, match="unknown action string"):
        game.step("fly to the moon")
    with pytest.raises(IllegalActionError, match="int id or a string"):
        game.step(1.5)
    with pytest.raises(IllegalActionError, match="out of turn"):
        game.step(game.legal_actions()[0], player=(game.current_player + 1) % 4)
    game.copy().step(game.legal_actions()[0], player=game.current_player)
    with pytest.raises(TypeError, match="seed must be a seed, an int from 0 to 2"):
        Game(GameConfig(), seed="7")
    for seed in (-1, 2**64):
        with pytest.raises(ValueError, match=r"seed must be a seed, an int from 0 to 2\*\*64 - 1"):
            Game(GameConfig(), seed=seed)
    with pytest.raises(TypeError, match="config must be a GameConfig"):
        Game({"num_players": 4})
    assert game.state.tobytes() == before
    play_random(game, random.Random(0))
    with pytest.raises(IllegalActionError, match="game is over"):
        game.step(0)


@pytest.mark.parametrize("bad", [{"num_players": 2}, {"num_players": 9}, {"colour": "red"},
                                 {"haggle_rounds": 0}, {"gold_menu": ()},
                                 {"haggling": "loud"}, {"bounties": "yes"}])
def test_bad_config_is_refused(bad):
    with pytest.raises(ValueError):
        GameConfig(**bad)


def test_kernel_rollouts_independent_of_batch_and_threads():
    """A game's result does not depend on batch size or thread count."""
    def run(seeds, threads):
        numba.set_num_threads(threads)
        states = np.concatenate([new_state(GameConfig(num_players=5), s) for s in seeds])
        steps = np.zeros(len(seeds), dtype=np.int64)
        rollout.random_games(states, np.asarray(seeds, dtype=np.uint64), 10**8, steps)
        return states, steps

    try:
        big, big_steps = run(list(range(8)), numba.config.NUMBA_NUM_THREADS)
        one, one_steps = run([3], 1)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert big[3].tobytes() == one[0].tobytes()
    assert big_steps[3] == one_steps[0]
    for s in big:
        assert s["phase"] == 16 and not check(s)


@settings(max_examples=examples(20), deadline=None)
@given(n=hst.integers(3, 8), cards=hst.booleans(),
       seeds=hst.lists(hst.integers(0, 2**64 - 1), min_size=0, max_size=6))
def test_the_compiled_deal_of_a_batch_is_each_seeds_new_state(n, cards, seeds):
    """``deal_states`` (one compiled call for a batch; in the ``NUMBA_BOUNDSCHECK=1`` pass an
    out-of-bounds index is an error) sets each slot up exactly as ``new_state`` does."""
    from borders_sim.batch.loop import deal_states
    config = GameConfig(num_players=n, action_cards=cards)
    got = deal_states(config, np.array(seeds, dtype=np.uint64))
    assert got.shape == (len(seeds),)
    for state, seed in zip(got, seeds):
        assert state.tobytes() == new_state(config, seed)[0].tobytes()
