"""The training env under Gymnasium's vector wrappers: its autoreset modes (``NEXT_STEP``, the
default, and ``SAME_STEP``, the trainer's) play the same games, and ``scale_obs``."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode
from gymnasium.wrappers.vector import (ClipReward, NormalizeObservation, NormalizeReward,
                                       RecordEpisodeStatistics, TransformObservation)

from borders_sim.envs import TrainingEnv, observation_scales
from borders_sim.envs.training import LEARNER
from borders_sim.rules.actions import NUM_ACTIONS
from borders_sim.checks import ArgumentTypeError

POOL = ("honest", "bluffer", "collector")


def legal_choice(rng: np.random.Generator, mask: np.ndarray) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def test_the_modes_are_arguments_and_per_instance_metadata():
    nxt = TrainingEnv(2, opponents=POOL)
    same = TrainingEnv(2, opponents=POOL, autoreset_mode=AutoresetMode.SAME_STEP)
    assert nxt.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP  # Gymnasium's default
    assert same.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert TrainingEnv(2, opponents=POOL, autoreset_mode="same_step").autoreset_mode \
        == AutoresetMode.SAME_STEP
    assert TrainingEnv(2, opponents=POOL, autoreset_mode="next_step").autoreset_mode \
        == AutoresetMode.NEXT_STEP
    with pytest.raises(ValueError, match="autoreset_mode must be"):
        TrainingEnv(2, opponents=POOL, autoreset_mode=AutoresetMode.DISABLED)
    with pytest.raises(ValueError, match="autoreset_mode must be"):
        TrainingEnv(2, opponents=POOL, autoreset_mode="NextStep")
    with pytest.raises(ArgumentTypeError, match="autoreset_mode must be"):
        TrainingEnv(2, opponents=POOL, autoreset_mode=1)
    with pytest.raises(ValueError, match="scale_obs"):
        TrainingEnv(2, opponents=POOL, scale_obs="yes")
    # Gymnasium's observation wrappers refuse same-step autoreset (a ValueError naming NEXT_STEP
    # in gymnasium 1.4; a bare AssertionError in 1.2.2, which the rllib extra brings), and take
    # next-step
    with pytest.raises((ValueError, AssertionError)) as refused:
        NormalizeObservation(same)
    assert isinstance(refused.value, AssertionError) or "NEXT_STEP" in str(refused.value)
    NormalizeObservation(nxt)


def test_gymnasium_vector_wrappers_stacked_with_masked_random_actions():
    n = 16
    base = TrainingEnv(n, opponents=POOL, reward="margin", seed=3)
    env = RecordEpisodeStatistics(base)
    env = NormalizeObservation(env)
    env = TransformObservation(env, lambda o: np.clip(o, -5.0, 5.0))
    env = NormalizeReward(env, gamma=0.99)
    env = ClipReward(env, -1.0, 1.0)
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    obs, infos = env.reset(seed=3)
    assert obs.shape == (n, base.single_observation_space.shape[0])
    rng = np.random.default_rng(0)
    ended = np.zeros(n, dtype=bool)  # the rows whose last step ended their game
    episodes = resets = 0
    for _ in range(600):
        masks = infos["action_mask"]
        assert masks.dtype == np.bool_ and masks.shape == (n, NUM_ACTIONS)
        assert np.array_equal(masks, base.action_masks())
        # a finished game's row lets every action through; a pending decision's is its legal
        # mask (never every action)
        assert masks[ended].all()
        assert not masks[~ended].all(axis=1).any()
        actions = np.array([legal_choice(rng, m) for m in masks])
        obs, rewards, terms, truncs, infos = env.step(actions)  # never raises
        assert np.isfinite(obs).all() and np.abs(obs).max() <= 5.0
        assert np.all(np.abs(rewards) <= 1.0) and not truncs.any()
        # the step after a game ended: reward 0, not terminated, the next game's first decision
        assert np.all(rewards[ended] == 0) and not terms[ended].any()
        assert infos["is_learner"][ended].all()
        resets += int(ended.sum())
        if terms.any():
            assert "episode" in infos and np.array_equal(infos["_episode"], terms)
            assert np.array_equal(infos["_outcome"], terms)
            # RecordEpisodeStatistics sits on the bare env: raw rewards, the margin of the game
            assert np.allclose(infos["episode"]["r"][terms], infos["outcome"][terms, 1])
            assert np.all(infos["episode"]["l"][terms] > 0)
            assert infos["is_learner"][terms].all()
            assert np.all(infos["member"][terms] == LEARNER)
            assert np.all(infos["seat"][terms] == infos["learner_seat"][terms])
            episodes += int(terms.sum())
        else:
            assert "episode" not in infos
        ended = terms.copy()
    assert episodes >= 30 and resets >= episodes - n
    assert env.unwrapped is base


def transitions(env: TrainingEnv, steps: int, seed: int) -> tuple[list, list]:
    """Step ``env`` with random legal actions drawn per slot from its own generator, one draw
    per real decision (the ignored step after a game ended draws from another generator, from
    every id of its all-True mask). Returns per slot its list of ``(obs, reward, terminated,
    seat, member, is_learner)`` from the reset on, and its finished games' ``(return, length)``,
    counted here and checked against what ``RecordEpisodeStatistics`` reports (in
    ``SAME_STEP`` mode only where it knows that mode: gymnasium 1.2.2, which the rllib extra
    brings, counts every env as ``NEXT_STEP``)."""
    stats = RecordEpisodeStatistics(env)
    n = env.num_envs
    by_gymnasium = env.autoreset_mode == AutoresetMode.NEXT_STEP or \
        "SAME_STEP" in inspect.getsource(RecordEpisodeStatistics.step)  # it knows the mode
    returns, lengths = np.zeros(n), np.zeros(n, dtype=np.int64)
    rngs = [np.random.default_rng([seed, k]) for k in range(n)]
    junk = np.random.default_rng(99)
    obs, infos = stats.reset()
    same = env.autoreset_mode == AutoresetMode.SAME_STEP
    seqs = [[(obs[k].copy(), 0.0, False, int(infos["seat"][k]), int(infos["member"][k]),
              bool(infos["is_learner"][k]))] for k in range(n)]
    games: list[list] = [[] for _ in range(n)]
    ended = np.zeros(n, dtype=bool)
    for _ in range(steps):
        masks = infos["action_mask"]
        actions = np.array([legal_choice(junk if ended[k] else rngs[k], masks[k])
                            for k in range(n)])
        obs, rewards, terms, _, infos = stats.step(actions)
        for k in range(n):
            now = (obs[k].copy(), float(rewards[k]), bool(terms[k]), int(infos["seat"][k]),
                   int(infos["member"][k]), bool(infos["is_learner"][k]))
            if same and terms[k]:  # the final observation, then the next game's first decision
                seat = int(np.flatnonzero(infos["ended_members"][k] == LEARNER)[0])
                seqs[k].append((infos["final_obs"][k].copy(), float(rewards[k]), True, seat,
                                LEARNER, True))
                now = now[:1] + (0.0, False) + now[3:]
            seqs[k].append(now)
            if not ended[k]:  # (NEXT_STEP: the ignored step after an end is in no game)
                returns[k] += rewards[k]
                lengths[k] += 1
            if terms[k]:
                games[k].append((float(returns[k]), int(lengths[k])))
                if by_gymnasium:
                    assert (infos["episode"]["r"][k], infos["episode"]["l"][k]) == \
                        (pytest.approx(returns[k]), lengths[k])
                returns[k], lengths[k] = 0.0, 0
        ended = terms.copy() if not same else ended
    return seqs, games


@pytest.mark.parametrize("pool, dense, steps", [(POOL, False, 500),
                                               (("honest", "external:outside"), True, 2000)],
                         ids=["compiled", "external-dense"])
def test_next_step_plays_the_same_games_as_same_step_with_the_final_obs_inserted(pool, dense,
                                                                                 steps):
    """Slot by slot, NEXT_STEP's (obs, reward, terminated, seat, member, is_learner) equal
    SAME_STEP's for the same seed and decisions, with each finished game's final observation
    (reward, terminated True) inserted before the next game's first decision (reward 0)."""
    kwargs = {"opponents": pool, "seed": 8, "reward": "margin", "dense": dense}
    same, same_games = transitions(TrainingEnv(3, autoreset_mode="same_step", **kwargs),
                                   steps, 1)
    nxt, nxt_games = transitions(TrainingEnv(3, autoreset_mode="next_step", **kwargs),
                                 steps, 1)
    ends = 0
    for k in range(3):
        assert len(nxt[k]) == steps + 1 and len(same[k]) >= len(nxt[k])
        for t, (a, b) in enumerate(zip(nxt[k], same[k])):
            assert np.array_equal(a[0], b[0]), (k, t)
            assert a[1:] == b[1:], (k, t)
            ends += a[2]
        # the same games, with the same episode statistics (the ignored step counts in neither)
        shared = min(len(nxt_games[k]), len(same_games[k]))
        assert shared >= 1
        assert nxt_games[k][:shared] == same_games[k][:shared]
    assert ends >= 6


def until_a_game_ends(env: TrainingEnv, rng: np.random.Generator) -> tuple[np.ndarray, dict]:
    """Random legal actions from a reset until some slot's game ends: that step's
    ``terminated`` and infos."""
    _, infos = env.reset()
    terms = np.zeros(env.num_envs, dtype=bool)
    while not terms.any():
        actions = np.array([legal_choice(rng, m) for m in infos["action_mask"]])
        _, _, terms, _, infos = env.step(actions)
    return terms, infos


def test_a_finished_slot_ignores_any_action_of_the_action_space():
    env = TrainingEnv(4, opponents=POOL, seed=2, scale_obs=False)  # as the kernel's buffers
    rng = np.random.default_rng(0)
    terms, infos = until_a_game_ends(env, rng)
    k = int(np.flatnonzero(terms)[0])
    pending = env.state_arrays()
    legal = np.array([legal_choice(rng, m) for m in infos["action_mask"]])
    illegal_there = int(np.flatnonzero(~env._mask_out[k].view(bool))[0])  # not legal anew
    legal[k] = NUM_ACTIONS  # outside the action space: refused, nothing stepped
    with pytest.raises(ValueError, match=f"illegal action {NUM_ACTIONS} "):
        env.step(legal)
    other = (k + 1) % 4
    if not terms[other]:
        bad = legal.copy()
        bad[k] = 0
        bad[other] = int(np.flatnonzero(~infos["action_mask"][other])[0])
        with pytest.raises(ValueError, match=f"in env {other} "):
            env.step(bad)  # the other slots' actions are still checked
    legal[k] = illegal_there
    before = env._states[k].copy()
    obs, rewards, terms2, _, infos = env.step(legal)
    assert rewards[k] == 0 and not terms2[k]
    assert env._states[k].tobytes() == before.tobytes()  # the kernel did not step that game
    assert np.array_equal(obs[k], pending["_obs"][k])  # the next game's first decision
    assert np.array_equal(infos["action_mask"][k], pending["_mask_out"][k].view(bool))


def test_state_arrays_continue_a_pending_autoreset_exactly():
    a = TrainingEnv(3, opponents=POOL, seed=4)
    rng = np.random.default_rng(5)
    until_a_game_ends(a, rng)
    saved = a.state_arrays()
    assert saved["_autoreset"].any()
    b = TrainingEnv(3, opponents=POOL, seed=4)
    b.load_state_arrays(saved)
    infos_a, infos_b = a.pending_infos(), b.pending_infos()
    for name in infos_a:
        assert np.array_equal(infos_a[name], infos_b[name]), name
    for _ in range(200):
        actions = np.array([legal_choice(rng, m) for m in infos_a["action_mask"]])
        oa, ra, ta, _, infos_a = a.step(actions)
        ob, rb, tb, _, infos_b = b.step(actions)
        assert np.array_equal(oa, ob) and np.array_equal(ra, rb) and np.array_equal(ta, tb)
        assert np.array_equal(infos_a["action_mask"], infos_b["action_mask"])
    # a SAME_STEP env's state has no autoreset arrays (the trainer's checkpoints are unchanged)
    same = TrainingEnv(3, opponents=POOL, seed=4, autoreset_mode="same_step")
    same.reset()
    assert "_autoreset" not in same.state_arrays() and "_ended" not in same.state_arrays()


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_scale_obs_divides_by_the_documented_scales(mode):
    raw = TrainingEnv(4, opponents=POOL, seed=6, autoreset_mode=mode, scale_obs=False)
    scaled = TrainingEnv(4, opponents=POOL, seed=6, autoreset_mode=mode, scale_obs=True)
    scales = observation_scales()
    o1, i1 = raw.reset()
    o2, i2 = scaled.reset()
    assert o2.dtype == np.float32 and np.array_equal(o2, o1 / scales)
    rng = np.random.default_rng(3)
    finals = 0
    for _ in range(400):
        actions = np.array([legal_choice(rng, m) for m in i1["action_mask"]])
        o1, r1, t1, _, i1 = raw.step(actions)
        o2, r2, t2, _, i2 = scaled.step(actions)
        assert np.array_equal(o2, o1 / scales)
        assert np.array_equal(r1, r2) and np.array_equal(t1, t2)
        assert np.array_equal(i1["action_mask"], i2["action_mask"])
        if t1.any() and mode == "same_step":
            assert np.array_equal(i2["final_obs"][t1], i1["final_obs"][t1] / scales)
        finals += int(t1.sum())
    assert finals >= 4
    assert o1.max() > 20 and o2.max() < o1.max()


def test_sb3_keeps_same_step():
    pytest.importorskip("stable_baselines3")
    from borders_sim.envs.sb3 import SB3VecEnv

    env = SB3VecEnv(2, opponents=POOL, seed=0)
    assert env.env.autoreset_mode == AutoresetMode.SAME_STEP
    with pytest.raises(ValueError, match="same_step"):
        SB3VecEnv(2, opponents=POOL, autoreset_mode="next_step")
