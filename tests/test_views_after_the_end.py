"""After every way a game ends, every seat sees its own view and an all-zero mask.

A game ends by being played to its end, by an illegal move under the default wrappers
(PettingZoo's ``TerminateIllegalWrapper`` ends it with -1 for the offender), or by ``close()``.
After each, in every environment, each agent's observation must be exactly what that seat may
know (:func:`~borders_sim.game.views.observe` of its own seat) and its mask all zeros: a view
cached for the mover is never served to anyone else, nor after the game is over.

* The AEC env, wrapped (``borders_v0.env()``) and raw: a hypothesis test cuts games of 3..8
  players with an illegal move at a random point and reads every agent's view through
  ``observe`` and through ``last`` while each agent steps ``None`` out; games played to their
  end; ``close()`` at a random point.
* ``SingleSeatEnv``: an illegal learner move with ``illegal_action="lose"``, and the end.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

from borders_sim.envs import SingleSeatEnv, borders_v0, observe
from borders_sim.rules.actions import NUM_ACTIONS

PLAYERS = range(3, 9)


def assert_own_views(env, agents=None) -> None:
    """Each agent of ``agents`` (default: every possible agent) observes its own seat's view
    with an all-zero mask."""
    game = env.unwrapped.game
    for seat, agent in enumerate(env.possible_agents):
        if agents is not None and agent not in agents:
            continue
        seen = env.observe(agent)
        assert np.array_equal(seen["observation"], observe(game, seat)), \
            f"{agent} sees another seat's view"
        assert not seen["action_mask"].any(), f"{agent} has a non-empty mask after the end"


def play_random(env, rng: random.Random, steps: int) -> None:
    """Up to ``steps`` random legal moves of the agents to move (stops at the end)."""
    for _ in range(steps):
        obs, _r, term, trunc, _i = env.last()
        if term or trunc:
            return
        env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))


def step_everyone_out(env) -> None:
    """Each agent in turn steps ``None`` until none is left; every ``last()`` on the way is its
    own view with an empty mask, and every other agent's view stays so."""
    game = env.unwrapped.game
    while env.agents:
        agent = env.agent_selection
        obs, _reward, term, trunc, _info = env.last()
        assert term or trunc
        assert np.array_equal(obs["observation"], observe(game, env.possible_agents.index(agent)))
        assert not obs["action_mask"].any()
        assert_own_views(env)
        env.step(None)


@settings(max_examples=60, deadline=None)
@given(n=hst.sampled_from(PLAYERS), seed=hst.integers(0, 2**32 - 1),
       cut=hst.floats(0.0, 1.0), pick=hst.integers(0, NUM_ACTIONS))
def test_an_illegal_move_under_the_default_wrappers_leaks_nothing(n, seed, cut, pick):
    env = borders_v0.env(num_players=n)
    env.reset(seed=seed)
    rng = random.Random(seed)
    # a point of the game: a random legal game's length times cut (replayed from the same seed)
    length = 0
    while env.agents and not env.terminations[env.agent_selection]:
        play_random(env, rng, 1)
        length += 1
    env.reset(seed=seed)
    rng = random.Random(seed)
    play_random(env, rng, int(cut * (length - 1)))
    obs, *_ = env.last()
    illegal = np.flatnonzero(obs["action_mask"] == 0)
    env.step(int(illegal[pick % len(illegal)]))
    assert all(env.terminations.values())
    assert_own_views(env)
    step_everyone_out(env)


@pytest.mark.parametrize("wrapped", [True, False], ids=["env", "raw_env"])
@pytest.mark.parametrize("n", PLAYERS)
def test_a_game_played_to_its_end_leaks_nothing(n, wrapped):
    env = (borders_v0.env if wrapped else borders_v0.raw_env)(num_players=n)
    env.reset(seed=100 + n)
    play_random(env, random.Random(n), 10**6)
    assert env.unwrapped.game.is_terminal
    assert_own_views(env)
    step_everyone_out(env)


@pytest.mark.parametrize("wrapped", [True, False], ids=["env", "raw_env"])
@pytest.mark.parametrize("n", PLAYERS)
def test_close_mid_game_leaves_own_views_and_refuses_play(n, wrapped):
    env = (borders_v0.env if wrapped else borders_v0.raw_env)(num_players=n)
    env.reset(seed=200 + n)
    rng = random.Random(n)
    play_random(env, rng, rng.randrange(1, 300))
    mover = env.agent_selection
    env.observe(mover)  # the mover's view is cached now
    env.close()
    assert_own_views(env)
    with pytest.raises(RuntimeError, match=r"after close\(\)"):
        env.unwrapped.step(0)
    with pytest.raises(RuntimeError, match=r"after close\(\)"):
        env.unwrapped.last()
    env.reset(seed=1)  # a new game after close
    obs, *_ = env.last()
    assert obs["action_mask"].any()


def test_the_raw_env_ended_by_a_wrapper_steps_dead_agents_only():
    """``TerminateIllegalWrapper`` ends the game by setting the raw env's terminations; the raw
    env then treats its step as a dead agent's step and never plays the cut game on."""
    env = borders_v0.env(num_players=4)
    env.reset(seed=1)
    play_random(env, random.Random(1), 7)
    before = env.unwrapped.game.to_dict()
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    raw = env.unwrapped
    while raw.agents:
        raw.step(None)
    assert raw.game.to_dict() == before


@pytest.mark.parametrize("n", [3, 8])
def test_single_seat_env_after_an_illegal_move_and_at_the_end(n):
    env = SingleSeatEnv(num_players=n, seat=1, seed=n)
    obs, info = env.reset()
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    obs, reward, terminated, _trunc, info = env.step(illegal)
    assert terminated and reward == -1.0 and info["illegal_action"]
    assert np.array_equal(obs, observe(env.game, 1))
    assert not info["action_mask"].any() and not env.action_masks().any()

    rng = np.random.default_rng(n)
    obs, info = env.reset()
    terminated = False
    while not terminated:
        obs, _r, terminated, _t, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
    assert np.array_equal(obs, observe(env.game, 1))
    assert not info["action_mask"].any() and not env.action_masks().any()
