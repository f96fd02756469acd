"""``VectorEnv`` for a centralized critic or a learner of every seat (issue 60, item 5): every
seat's own view of every game, and each seat's reward credited to its last decision; neither
changes a game."""

from __future__ import annotations

import numpy as np
import pytest

from borders_sim.envs import OBS_SIZE, VectorEnv, observe
from borders_sim.rules.state import MAX_PLAYERS
from tests.test_env_vector import game_rngs, pick


@pytest.mark.parametrize("num_players", [3, 5, 8])
def test_every_seat_view_is_that_seats_own_observation(num_players):
    n = 3
    env = VectorEnv(n, num_players=num_players, seed=7, all_views=True)
    ts = env.reset()
    assert env.views.shape == (n, num_players, OBS_SIZE) and env.views.dtype == np.float32
    rngs = game_rngs(2, n)
    for step in range(120):
        if step % 7 == 0 or ts.terminated.any():
            for k in range(n):
                game = env.game(k)
                for p in range(num_players):
                    np.testing.assert_array_equal(env.views[k, p], observe(game, p))
                np.testing.assert_array_equal(env.views[k, ts.current_player[k]],
                                              ts.observation[k])
        ts = env.step(pick(rngs, ts.action_mask))


def test_views_and_credit_change_no_game():
    plain, both = VectorEnv(4, seed=3), VectorEnv(4, seed=3, all_views=True, credit=True)
    a, b = plain.reset(), both.reset()
    rngs = game_rngs(9, 4)
    for _ in range(300):
        for x, y in zip(a, b):
            np.testing.assert_array_equal(x, y)
        actions = pick(rngs, a.action_mask)
        a, b = plain.step(actions), both.step(actions)
    assert plain.states.tobytes() == both.states.tobytes()


def test_without_the_options_the_buffers_say_how_to_ask():
    env = VectorEnv(2)
    env.reset()
    with pytest.raises(RuntimeError, match=r"VectorEnv\(\.\.\., all_views=True\)"):
        env.views
    with pytest.raises(RuntimeError, match=r"VectorEnv\(\.\.\., credit=True\)"):
        env.credit
    with pytest.raises(ValueError, match="all_views"):
        VectorEnv(2, all_views="yes")
    with pytest.raises(ValueError, match="credit"):
        VectorEnv(2, credit=1)


@pytest.mark.parametrize("num_players,horizon", [(3, 700), (6, 2500)])
def test_credit_names_each_seats_last_decision_and_credits_its_reward(num_players, horizon):
    """Against a record of every call's mover: ``credit`` points at each seat's last decision of
    every game that ended, and ``credit_rewards`` puts each seat's reward on that row, once."""
    n = 3
    env = VectorEnv(n, num_players=num_players, seed=5, reward="score", credit=True)
    ts = env.reset()
    rngs = game_rngs(4, n)
    movers = np.zeros((horizon, n), dtype=np.int64)
    rewards = np.zeros((horizon, n), dtype=np.float32)
    done = np.zeros((horizon, n), dtype=bool)
    begun = np.zeros(n, dtype=np.int64)  # the row of each slot's current game's first call
    paid = 0.0
    ended = 0
    for t in range(horizon):
        movers[t] = ts.current_player
        ts = env.step(pick(rngs, ts.action_mask))
        credit = env.credit.copy()
        assert (credit[~ts.terminated] == -1).all()
        assert (credit[:, num_players:] == -1).all()
        for k in np.flatnonzero(ts.terminated):
            ended += 1
            for p in range(num_players):
                rows = np.flatnonzero(movers[begun[k]:t + 1, k] == p)
                assert credit[k, p] == (t - begun[k] - rows[-1] if len(rows) else -1)
            begun[k] = t + 1
        paid += ts.rewards[ts.terminated].sum()
        assert env.credit_rewards(rewards, t, done) == 0
    assert ended >= 3 and paid != 0
    assert np.isclose(rewards.sum(), paid)
    assert done.sum() == ended * num_players  # every seat decides in every game


def test_credit_before_the_buffer_is_counted_not_written():
    env = VectorEnv(1, num_players=3, seed=1, credit=True)
    ts = env.reset()
    rngs = game_rngs(0, 1)
    rewards = np.zeros((1, 1), dtype=np.float32)
    while not ts.terminated[0]:
        ts = env.step(pick(rngs, ts.action_mask))
    lost = env.credit_rewards(rewards, 0)
    assert lost == int((env.credit[0, :3] > 0).sum()) and lost >= 2
    assert rewards[0, 0] == ts.rewards[0, np.flatnonzero(env.credit[0] == 0)].sum()
    with pytest.raises(ValueError, match=r"rewards must be \[T, 1\]"):
        env.credit_rewards(np.zeros(4), 0)
    with pytest.raises(ValueError, match="t must be"):
        env.credit_rewards(rewards, 1)
    with pytest.raises(ValueError, match="done must have the shape"):
        env.credit_rewards(rewards, 0, np.zeros((2, 1), dtype=bool))
    assert MAX_PLAYERS == env.credit.shape[1]
