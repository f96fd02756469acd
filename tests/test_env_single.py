"""SingleSeatEnv: Gymnasium's checker, determinism, opponents, masks, rewards, bad input (an
opponent policy that raises or cheats leaves the env broken until reset; ids outside the action
space are errors, never a lost game), and (if sb3-contrib is installed) a short MaskablePPO
run."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from borders_sim import IllegalActionError, NUM_ACTIONS
from borders_sim.envs import OBS_SIZE, SINGLE_SEAT_ID, SingleSeatEnv, observe
from borders_sim.rules.rewards import final_rewards_at, reward_mode
from borders_sim.rules.state import MAX_PLAYERS


def first_legal(info: dict) -> int:
    return int(np.flatnonzero(info["action_mask"])[0])


def play(env: SingleSeatEnv, seed: int | None, choose=first_legal) -> list[tuple]:
    """One whole episode: (observation, reward, terminated, seat) per call."""
    obs, info = env.reset(seed=seed)
    out = [(obs, 0.0, False, info["seat"])]
    terminated = False
    while not terminated:
        obs, reward, terminated, truncated, info = env.step(choose(info))
        assert truncated is False
        out.append((obs, reward, terminated, info["seat"]))
    return out


@pytest.mark.parametrize("num_players", range(3, 9))
def test_gymnasium_check_env(num_players):
    # check_env steps unmasked action_space samples: with the default illegal_action="lose"
    # an illegal one ends the game (documented); the text render is checked too.
    env = gymnasium.make(SINGLE_SEAT_ID, num_players=num_players, seat="random",
                         render_mode="ansi")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)


def test_check_env_with_action_cards_off():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(gymnasium.make(SINGLE_SEAT_ID, num_players=5, action_cards=False).unwrapped)


def test_spaces_observation_mask_and_seat():
    env = SingleSeatEnv(5, seat=2)
    assert env.observation_space.shape == (OBS_SIZE,)
    assert env.observation_space.dtype == np.float32
    assert env.action_space.n == NUM_ACTIONS
    obs, info = env.reset(seed=3)
    assert info["seat"] == 2 and env.game.current_player == 2
    np.testing.assert_array_equal(obs, observe(env.game, 2))
    assert obs in env.observation_space
    mask = env.action_masks()
    assert mask.dtype == np.bool_ and mask.shape == (NUM_ACTIONS,)
    np.testing.assert_array_equal(mask, env.game.legal_mask().astype(bool))
    np.testing.assert_array_equal(info["action_mask"], mask)
    assert mask is not env.action_masks()


@pytest.mark.parametrize("reward", ["win", "score", "margin"])
def test_reward_only_at_the_end_by_mode(reward):
    env = SingleSeatEnv(3, seat=1, reward=reward, haggling="none")
    obs, info = env.reset(seed=8)
    total = 0
    terminated = False
    while not terminated:
        assert env.game.current_player == 1
        obs, r, terminated, _, info = env.step(first_legal(info))
        if not terminated:
            assert r == 0.0
            total += 1
    assert env.game.is_terminal and not env.action_masks().any()
    expected = np.zeros(MAX_PLAYERS, dtype=np.float32)
    final_rewards_at(env.game.state, 0, reward_mode(reward), expected)
    assert r == pytest.approx(float(expected[1]))
    assert info["scores"] == env.game.scores()
    with pytest.raises(RuntimeError, match="game is over"):
        env.step(0)


def test_reset_is_deterministic():
    env = SingleSeatEnv(4, seat="random", haggling="gold_only")
    a = play(env, 21)
    b = play(env, 21)
    c = play(SingleSeatEnv(4, seat="random", haggling="gold_only", seed=21), None)
    assert len(a) == len(b) == len(c)
    for x, y, z in zip(a, b, c):
        np.testing.assert_array_equal(x[0], y[0])
        np.testing.assert_array_equal(x[0], z[0])
        assert x[1:] == y[1:] == z[1:]
    # unseeded resets continue the stream: new games, new seats
    seats = {env.reset()[1]["seat"] for _ in range(30)}
    assert seats == {0, 1, 2, 3}
    first = env.reset(seed=5)[0]
    assert not np.array_equal(first, env.reset()[0])


def test_opponents_list_plays_the_seats_after_the_learner():
    n, calls = 5, []

    def recorder(j):
        def policy(observation, action_mask):
            game = env.game
            p = game.current_player
            calls.append((j, p))
            np.testing.assert_array_equal(observation, observe(game, p))
            np.testing.assert_array_equal(action_mask, game.legal_mask().astype(bool))
            assert action_mask.dtype == np.bool_
            return np.int64(np.flatnonzero(action_mask)[-1])
        return policy

    env = SingleSeatEnv(n, seat=3, opponents=[recorder(j) for j in range(n - 1)])
    _, info = env.reset(seed=1)
    for _ in range(60):
        _, _, terminated, _, info = env.step(first_legal(info))
        assert not terminated
    assert {p for _, p in calls} == {0, 1, 2, 4}
    assert all(p == (3 + 1 + j) % n for j, p in calls)


def test_one_callable_plays_every_opponent_and_is_deterministic():
    def last_legal(observation, action_mask):
        return int(np.flatnonzero(action_mask)[-1])

    env = SingleSeatEnv(3, seat=0, opponents=last_legal, haggling="none")
    a, b = play(env, 4), play(env, 40)
    # the opponents do not depend on the env's generator; only the deal does
    env2 = SingleSeatEnv(3, seat=0, opponents=last_legal, haggling="none")
    for x, y in zip(a, play(env2, 4)):
        np.testing.assert_array_equal(x[0], y[0])
    assert len(a) != len(b) or any(not np.array_equal(x[0], y[0]) for x, y in zip(a, b))


def test_illegal_opponent_action_names_the_seat():
    def illegal(observation, action_mask):
        return int(np.flatnonzero(~action_mask)[0])

    for opponents, shown in ((illegal, r"\d+"), (lambda o, m: "pass", "'pass'")):
        env = SingleSeatEnv(4, seat=0, opponents=opponents)
        with pytest.raises(IllegalActionError, match=f"opponent policy of seat p[123] returned "
                                                     f"{shown}, which is not a legal") as e:
            env.reset(seed=0)
        assert f"seat p{env.game.current_player} " in str(e.value)


class PolicyBug(Exception):
    pass


def crashes(observation, action_mask):
    raise PolicyBug("the opponent fell over")


def illegal(observation, action_mask):
    return int(np.flatnonzero(~action_mask)[0])


@pytest.mark.parametrize("policy,first_error", [(crashes, PolicyBug),
                                                (illegal, IllegalActionError),
                                                (lambda o, m: 2**70, IllegalActionError)])
@pytest.mark.parametrize("when", ["reset", "step"])
def test_a_failing_opponent_leaves_the_env_broken_until_reset(policy, first_error, when):
    """The call that ran the opponent raises; every later call says the episode stopped at an
    opponent's decision (never offering that decision's mask to the learner); reset recovers."""
    calls = {"n": 0, "failing": True}

    def opponent(observation, action_mask):
        calls["n"] += 1
        if calls["failing"] and (when == "reset" or calls["n"] > 30):
            return policy(observation, action_mask)
        return int(np.flatnonzero(action_mask)[0])

    env = SingleSeatEnv(4, seat=0, opponents=opponent)
    with pytest.raises(first_error):
        if when == "reset":
            env.reset(seed=0)
        else:
            _obs, info = env.reset(seed=0)
            while True:
                _obs, _r, done, _t, info = env.step(first_legal(info))
                assert not done
    assert env.game.current_player != 0  # stopped at the opponent's decision
    for call in (lambda: env.step(0), env.action_masks, lambda: env.step(1)):
        with pytest.raises(RuntimeError, match=r"this episode stopped at an opponent's "
                                               r"decision \(the opponent policy of seat p[123] "
                                               r"(raised PolicyBug|returned)"):
            call()
    calls["failing"] = False
    _obs, info = env.reset(seed=1)
    env.step(first_legal(info))


@pytest.mark.parametrize("mode", ["lose", "raise"])
@pytest.mark.parametrize("bad", [-1, NUM_ACTIONS, 2**70, -2**70, np.int64(-3)], ids=repr)
def test_actions_outside_the_space_are_errors_in_both_modes(mode, bad):
    """An id outside ``Discrete(NUM_ACTIONS)`` is a policy bug, not a move: never a lost game."""
    env = SingleSeatEnv(4, seat=1, illegal_action=mode)
    _obs, info = env.reset(seed=2)
    before = env.game.state.tobytes()
    with pytest.raises(IllegalActionError, match=r"outside the action space 0\.\.512"):
        env.step(bad)
    assert env.game.state.tobytes() == before
    env.step(first_legal(info))  # still playing


def test_illegal_learner_action_raises_and_changes_nothing():
    env = SingleSeatEnv(4, seat=1, illegal_action="raise")
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    env.reset(seed=2)
    before = env.game.state.tobytes()
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    for bad in (illegal, -1, NUM_ACTIONS, 1.0, True, "pass"):
        with pytest.raises(IllegalActionError):
            env.step(bad)
        assert env.game.state.tobytes() == before
    env.step(np.array(int(np.flatnonzero(env.action_masks())[0])))  # 0-d arrays are accepted


def test_illegal_learner_action_loses_when_asked():
    env = SingleSeatEnv(4, seat=1, reward="score", illegal_action="lose")
    env.reset(seed=2)
    before = env.game.state.tobytes()
    obs, r, terminated, truncated, info = env.step(int(np.flatnonzero(~env.action_masks())[0]))
    assert (r, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert env.game.state.tobytes() == before and not info["action_mask"].any()
    with pytest.raises(RuntimeError, match="game is over"):
        env.step(0)
    env.reset()
    with pytest.raises(IllegalActionError):
        env.step("pass")  # a wrong type is a programming error in every mode


@pytest.mark.parametrize("kwargs,name", [
    ({"seat": 4}, "seat"), ({"seat": -1}, "seat"), ({"seat": "any"}, "seat"),
    ({"seat": True}, "seat"),
    ({"opponents": [lambda o, m: 0] * 2}, "opponents"), ({"opponents": 3}, "opponents"),
    ({"reward": "points"}, "reward"), ({"render_mode": "rgb"}, "render_mode"),
    ({"illegal_action": "ignore"}, "illegal_action"), ({"seed": 1.5}, "seed"),
    ({"num_players": 2}, "num_players"), ({"haggle_round": 2}, "haggle_round"),
])
def test_bad_arguments_are_named(kwargs, name):
    with pytest.raises(ValueError, match=name):
        SingleSeatEnv(**kwargs)


def test_maskable_ppo_trains_a_few_hundred_steps():
    sb3_contrib = pytest.importorskip("sb3_contrib")  # optional extra rl: pip install ".[rl]"
    env = SingleSeatEnv(3, reward="margin", haggling="none", seed=0)
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=1,
                                    seed=0, device="cpu")
    model.learn(total_timesteps=384)
    obs, _ = env.reset(seed=1)
    action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]
    env.step(int(action))


def test_render_shows_the_learners_view():
    env = SingleSeatEnv(4, seat=2, render_mode="ansi")
    env.reset(seed=3)
    text = env.render()
    assert isinstance(text, str) and "p2" in text
