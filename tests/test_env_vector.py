"""VectorEnv: N games in one compiled call, checked against N Python ``Game``s played with the same
actions (deal, observation, mask, rewards, auto-reset), and independent of N and threads."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from borders_sim import Game, GameConfig, NUM_ACTIONS
from borders_sim.envs import OBS_SIZE, VectorEnv, observe
from borders_sim.rules.rewards import final_rewards_at, reward_mode
from borders_sim.envs.vector import VectorStep
from borders_sim.rules.rng import seed_rng
from borders_sim.batch.seeds import derive_seed
from borders_sim.game.invariants import check
from borders_sim.rules.rng import seed_words
from borders_sim.rules.state import MAX_PLAYERS


def pick(rngs, mask: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per game, game ``k`` drawing from ``rngs[k]``."""
    return np.array([r.choice(np.flatnonzero(m)) for r, m in zip(rngs, mask)], dtype=np.int64)


def game_rngs(seed: int, n: int) -> list:
    return [np.random.default_rng([seed, k]) for k in range(n)]


def assert_matches(env: VectorEnv, ts: VectorStep, games: list[Game]) -> None:
    """Every slot of ``env`` is the Python game beside it: state, seat, observation, mask."""
    for k, g in enumerate(games):
        assert env.states[k].tobytes() == g.state[0].tobytes(), f"slot {k}"
        assert ts.current_player[k] == g.current_player
        np.testing.assert_array_equal(ts.observation[k], observe(g, g.current_player))
        np.testing.assert_array_equal(ts.action_mask[k], g.legal_mask().astype(bool))
        copy = env.game(k)
        np.testing.assert_array_equal(ts.observation[k], observe(copy, int(ts.current_player[k])))
        np.testing.assert_array_equal(ts.action_mask[k], copy.legal_mask().astype(bool))


def test_returned_arrays_shapes_dtypes_and_reused_buffers():
    env = VectorEnv(5, num_players=6, seed=1)
    ts = env.reset()
    assert isinstance(ts, VectorStep)
    assert ts.current_player.shape == (5,) and ts.current_player.dtype == np.int64
    assert ts.observation.shape == (5, OBS_SIZE) and ts.observation.dtype == np.float32
    assert ts.action_mask.shape == (5, NUM_ACTIONS) and ts.action_mask.dtype == np.bool_
    assert ts.rewards.shape == (5, MAX_PLAYERS) and ts.rewards.dtype == np.float32
    assert ts.terminated.shape == (5,) and ts.terminated.dtype == np.bool_
    assert not ts.terminated.any() and not ts.rewards.any()
    assert ts.action_mask.any(axis=1).all()
    kept = ts.observation.copy()
    ts2 = env.step(pick(game_rngs(0, 5), ts.action_mask))
    # documented: the same buffers, overwritten in place by the next call
    for a, b in zip(ts, ts2):
        assert a is b
    assert not np.array_equal(kept, ts2.observation)


@pytest.mark.parametrize("num_players,flags", [(n, {}) for n in range(3, 9)]
                         + [(4, {"action_cards": False}), (3, {"haggling": "none"})])
def test_every_slot_is_the_game_dealt_from_its_derived_seed(num_players, flags):
    """Deal, observations, masks, rewards once at the end, and auto-reset from the stream,
    against Python games stepped with the same actions, until every slot has restarted."""
    n, seed = 3, 11
    config = GameConfig(num_players=num_players, **flags)
    env = VectorEnv(n, num_players=num_players, seed=seed, reward="score", **flags)
    ts = env.reset()
    games = [Game(config, derive_seed(seed, k, 0)) for k in range(n)]
    episode = [0] * n
    assert_matches(env, ts, games)
    rngs = game_rngs(5, n)
    expected = np.zeros(MAX_PLAYERS, dtype=np.float32)
    steps = 0
    while min(episode) < 1 or steps % 37:  # stop at an arbitrary step after all restarted
        actions = pick(rngs, ts.action_mask)
        ts = env.step(actions)
        steps += 1
        for k, g in enumerate(games):
            g.step(int(actions[k]))
            assert ts.terminated[k] == g.is_terminal
            if g.is_terminal:
                assert check(g.state[0]) == []
                final_rewards_at(g.state, 0, reward_mode("score"), expected)
                np.testing.assert_array_equal(ts.rewards[k], expected)
                episode[k] += 1
                games[k] = Game(config, derive_seed(seed, k, episode[k]))
            else:
                assert not ts.rewards[k].any()
        if steps % 16 == 0 or ts.terminated.any():
            assert_matches(env, ts, games)
    assert_matches(env, ts, games)
    assert list(env.episodes) == [e + 1 for e in episode]


def test_rewards_by_mode_are_reported_once():
    envs = {m: VectorEnv(2, num_players=3, seed=4, reward=m, haggling="none")
            for m in ("win", "score", "margin")}
    tss = {m: e.reset() for m, e in envs.items()}
    rngs = game_rngs(1, 2)
    ended = 0
    while ended < 3:
        actions = pick(rngs, tss["win"].action_mask)
        tss = {m: e.step(actions) for m, e in envs.items()}
        term = tss["win"].terminated
        for m, ts in tss.items():
            np.testing.assert_array_equal(ts.terminated, term)
            assert not ts.rewards[~term].any(), m
            assert not ts.rewards[:, 3:].any(), m  # seats beyond the player count
        for k in np.flatnonzero(term):
            ended += 1
            win, score, margin = (tss[m].rewards[k, :3] for m in ("win", "score", "margin"))
            assert abs(win.sum()) < 1e-6 and abs(margin.sum()) < 1e-4
            np.testing.assert_allclose(margin, score - (score.sum() - score) / 2, atol=1e-4)
            if win.any():
                assert score[win > 0].min() >= score[win < 0].max()


def test_the_readme_shapes_rewards_have_a_column_per_possible_seat():
    """``from borders_sim.envs import OBS_SIZE, NUM_ACTIONS`` (docs/environments.md names them together;
    ``NUM_ACTIONS`` is the package's own), and ``VectorEnv(256, num_players=4)`` as that page
    runs it: rewards of shape ``(256, MAX_PLAYERS)`` = ``(256, 8)``, the 4 seats' rewards in
    the rows of the games that ended, the columns past the player count always 0."""
    import borders_sim
    from borders_sim.envs import NUM_ACTIONS as ENVS_NUM_ACTIONS, OBS_SIZE as ENVS_OBS_SIZE
    assert ENVS_NUM_ACTIONS is borders_sim.NUM_ACTIONS and ENVS_OBS_SIZE is OBS_SIZE
    assert MAX_PLAYERS == 8
    env = VectorEnv(256, num_players=4, seed=0)
    ts = env.reset()
    assert ts.observation.shape == (256, OBS_SIZE) and ts.action_mask.shape == (256, NUM_ACTIONS)
    assert ts.rewards.shape == (256, 8)
    ended = 0
    while not ended:
        ts = env.step(ts.action_mask.argmax(axis=1))
        assert ts.rewards.shape == (256, 8) and not ts.rewards[:, 4:].any()
        assert not ts.rewards[~ts.terminated].any()
        ended = int(ts.terminated.sum())
    # reward="win": the winners share +1, the others -1; no seat of an ended game has 0
    assert (ts.rewards[ts.terminated, :4] != 0).all()


def test_reset_seeding_and_the_stream():
    env = VectorEnv(4, num_players=5, seed=2)
    first = env.reset().observation.copy()
    assert list(env.episodes) == [1] * 4
    second = env.reset().observation.copy()  # seed=None: the next game of each slot
    assert list(env.episodes) == [2] * 4
    for k in range(4):
        assert env.states[k].tobytes() == Game(GameConfig(num_players=5),
                                               derive_seed(2, k, 1)).state[0].tobytes()
    assert not np.array_equal(first, second)
    np.testing.assert_array_equal(env.reset(seed=2).observation, first)
    other = env.reset(seed=2**64 - 7)
    assert env.seed == 2**64 - 7 and list(env.episodes) == [1] * 4
    assert env.states[3].tobytes() == Game(GameConfig(num_players=5),
                                           derive_seed(2**64 - 7, 3, 0)).state[0].tobytes()
    assert not np.array_equal(other.observation, first)


def test_seed_derivation():
    for seed in (0, 1, 2**63 - 1, 2**63, 2**64 - 1, 123456789):
        rng = np.zeros(2, dtype=np.uint64)
        seed_rng(rng, np.uint64(seed))
        np.testing.assert_array_equal(rng, seed_words(seed))
    assert derive_seed(2**64 - 1, 1, 2) != derive_seed(2**63 - 1, 1, 2)
    seeds = {derive_seed(0, k, e) for k in range(50) for e in range(50)}
    assert len(seeds) == 2500 and all(0 <= s < 2**64 for s in seeds)
    for bad, name in (((1.5, 0, 0), "seed"), ((-1, 0, 0), "seed"), ((2**64, 0, 0), "seed"),
                      ((0, -1, 0), "k"), ((0, 0, -2), "episode"), ((0, True, 0), "k")):
        with pytest.raises(ValueError, match=rf"^{name} must be"):
            derive_seed(*bad)


@pytest.mark.parametrize("seed", [-1, 2**64, 2**70, -2**63, 1.0, True, "3"])
def test_seeds_outside_the_rule_are_refused_not_reduced(seed):
    with pytest.raises(ValueError, match=r"seed must be a seed, an int from 0 to 2\*\*64 - 1"):
        VectorEnv(2, seed=seed)
    env = VectorEnv(2, seed=5)
    with pytest.raises(ValueError, match=r"seed must be a seed"):
        env.reset(seed=seed)
    assert env.seed == 5


def trajectory(num_envs: int, threads: int, steps: int) -> list[tuple]:
    """Per step: (actions, seats, observations, masks, rewards, terminated) of every slot, each
    slot's actions drawn from its own generator."""
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        env = VectorEnv(num_envs, num_players=3, seed=9, haggling="none")
        ts = env.reset()
        rngs = game_rngs(3, num_envs)
        out = []
        for _ in range(steps):
            actions = pick(rngs, ts.action_mask)
            ts = env.step(actions)
            out.append((actions,) + tuple(x.copy() for x in ts))
        return out
    finally:
        numba.set_num_threads(before)


def test_trajectories_do_not_depend_on_batch_size_or_threads():
    threads = min(2, numba.config.NUMBA_NUM_THREADS)
    steps = 700  # every slot finishes a game (3 players, no haggling) and starts the next
    one = trajectory(1, 1, steps)
    seven = trajectory(7, 1, steps)
    seven_threads = trajectory(7, threads, steps)
    assert sum(t[-1][0] for t in one) >= 1
    for a, b, c in zip(one, seven, seven_threads):
        for x, y, z in zip(a, b, c):
            np.testing.assert_array_equal(x[0], y[0])
            np.testing.assert_array_equal(y, z)


def test_illegal_action_names_the_game_and_changes_nothing():
    env = VectorEnv(4, num_players=4, seed=3)
    ts = env.reset()
    actions = pick(game_rngs(0, 4), ts.action_mask)
    ts = env.step(actions)
    snapshot = (env.states.copy(), env.episodes, tuple(x.copy() for x in ts))
    good = pick(game_rngs(1, 4), ts.action_mask)
    illegal = int(np.flatnonzero(~ts.action_mask[2])[0])
    for bad_action in (illegal, -1, NUM_ACTIONS, 2**63 + 1):
        actions = good.astype(np.uint64) if bad_action > 2**62 else good.copy()
        actions[2] = bad_action
        with pytest.raises(ValueError, match=r"illegal action .*in env 2 .*legal actions: \[") as e:
            env.step(actions)
        assert str(bad_action) in str(e.value)
        assert env.states.tobytes() == snapshot[0].tobytes()
        np.testing.assert_array_equal(env.episodes, snapshot[1])
        for x, y in zip(ts, snapshot[2]):
            np.testing.assert_array_equal(x, y)
    for bad in (good[:3], good.astype(np.float64), good.reshape(2, 2), "pass"):
        with pytest.raises(ValueError, match="actions must be an int array of shape"):
            env.step(bad)
    env.step(good)  # still usable


def test_game_copy_is_independent():
    env = VectorEnv(2, seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(2, dtype=np.int64))
    ts = env.reset()
    g = env.game(1)
    assert isinstance(g, Game) and g.legal_mask().astype(bool).tolist() == \
        ts.action_mask[1].tolist()
    before = env.states.tobytes()
    g.step(g.legal_actions()[0])
    assert env.states.tobytes() == before
    for bad in (2, -1, "0", True):
        with pytest.raises(ValueError, match="k must be a slot"):
            env.game(bad)


@pytest.mark.parametrize("kwargs,name", [
    ({"num_envs": 0}, "num_envs"), ({"num_envs": 2.0}, "num_envs"),
    ({"num_envs": 2, "num_players": 9}, "num_players"),
    ({"num_envs": 2, "reward": "points"}, "reward"),
    ({"num_envs": 2, "seed": "x"}, "seed"),
    ({"num_envs": 2, "haggle_round": 2}, "haggle_round"),
    ({"num_envs": 2, "haggling": "some"}, "haggling"),
])
def test_bad_arguments_are_named(kwargs, name):
    with pytest.raises(ValueError, match=name):
        VectorEnv(**kwargs)
