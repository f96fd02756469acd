"""The training env: one learning seat per game, the opponents inside the compiled call."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.wrappers.vector import RecordEpisodeStatistics

from borders_sim import Game, GameConfig
from borders_sim.agents import make
from borders_sim.batch.seeds import bot_seed
from borders_sim.policies.network import NetPlayer, save_policy
from borders_sim.envs.training import LEARNER, NO_SEAT, TrainingEnv
from borders_sim.batch.seeds import derive_seed
from borders_sim.game.views import observe
from borders_sim.rules.observation import OBS_SIZE
from borders_sim.rules.rewards import REWARD_MODES
from tests.test_ppo_bot import random_policy

POOL = ("honest", "bluffer", "collector")


def play(env: TrainingEnv, steps: int, seed: int = 0):
    """Random legal actions for ``steps`` steps; returns per step (obs, rewards, terms)."""
    rng = np.random.default_rng(seed)
    obs, infos = env.reset()
    out = []
    for _ in range(steps):
        masks = infos["action_mask"]
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, terms, truncs, infos = env.step(actions)
        out.append((obs.copy(), rewards.copy(), terms.copy(), infos["seat"].copy()))
    return out


def test_it_is_a_gymnasium_vector_env_with_masks():
    env = TrainingEnv(4, opponents=POOL, seed=0)
    assert isinstance(env, VectorEnv)
    assert env.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP  # Gymnasium's default
    same = TrainingEnv(4, opponents=POOL, seed=0, autoreset_mode="same_step")
    assert same.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert env.single_action_space.n == 513 and env.observation_space.shape == (4, OBS_SIZE)
    obs, infos = env.reset()
    assert infos["is_learner"].all() and (infos["member"] == LEARNER).all()
    assert (infos["seat"] == infos["learner_seat"]).all()
    assert np.array_equal(env.action_masks(), infos["action_mask"])
    assert env.action_masks().any(axis=1).all()


def test_record_episode_statistics_accepts_it():
    env = RecordEpisodeStatistics(TrainingEnv(8, opponents=POOL, seed=1, reward="margin"))
    obs, infos = env.reset()
    rng = np.random.default_rng(0)
    seen = 0
    while seen < 3:
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in infos["action_mask"]])
        obs, rewards, terms, truncs, infos = env.step(actions)
        if "episode" in infos:
            done = infos["_episode"]
            assert np.allclose(infos["episode"]["r"][done], infos["outcome"][done, 1])
            seen += int(done.sum())


def test_the_same_seed_gives_the_same_games_whatever_n_and_threads():
    small = play(TrainingEnv(2, opponents=POOL, seed=7), 300)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = play(TrainingEnv(2, opponents=POOL, seed=7), 300)
    finally:
        numba.set_num_threads(before)
    for (o1, r1, t1, s1), (o2, r2, t2, s2) in zip(small, one):
        assert np.array_equal(o1, o2) and np.array_equal(r1, r2) and np.array_equal(s1, s2)
    # slot 0 of a wider env plays slot 0's stream: the same, if given the same actions
    wide = TrainingEnv(5, opponents=POOL, seed=7)
    obs, infos = wide.reset()
    rng_small = np.random.default_rng(0)
    narrow = TrainingEnv(2, opponents=POOL, seed=7)
    obs2, infos2 = narrow.reset()
    for _ in range(200):
        a2 = np.array([rng_small.choice(np.flatnonzero(m)) for m in infos2["action_mask"]])
        a = np.concatenate([a2, [np.flatnonzero(m)[0] for m in infos["action_mask"][2:]]])
        obs, *_rest, infos = wide.step(a)
        obs2, *_rest2, infos2 = narrow.step(a2)
        assert np.array_equal(obs[:2], obs2)


def test_a_game_is_a_tournament_game_of_its_seed():
    """Slot k's first game is Game(config, derive_seed(seed, k, 0)) with the compiled bots
    seeded as a tournament seeds them: replaying the learner's actions through Game and the
    Python bots gives the same observations."""
    env = TrainingEnv(3, opponents=POOL, seed=11, scale_obs=False)  # observe()'s raw vector
    obs, infos = env.reset()
    k = 1
    game_seed = derive_seed(11, k, 0)
    game = Game(GameConfig(num_players=4), seed=game_seed)
    learner = int(infos["learner_seat"][k])
    lineup = env._members[k]
    bots = {p: make(POOL[lineup[p]], bot_seed(game_seed, p)) for p in range(4) if p != learner}
    rng = np.random.default_rng(3)

    def opponents_play():
        while game.current_player != learner and not game.is_terminal:
            p = game.current_player
            game.step(bots[p].act(observe(game, p), game.legal_mask()))

    for _ in range(2000):
        opponents_play()
        assert np.array_equal(observe(game, learner), obs[k])
        actions = np.array([np.flatnonzero(m)[0] for m in infos["action_mask"]])
        actions[k] = rng.choice(np.flatnonzero(infos["action_mask"][k]))
        game.step(int(actions[k]))
        obs, rewards, terms, _, infos = env.step(actions)
        if terms[k]:
            opponents_play()
            assert game.is_terminal
            assert np.array_equal(obs[k], observe(game, learner))  # NEXT_STEP: the final obs
            break
    assert game.is_terminal


@pytest.mark.parametrize("reward", REWARD_MODES)
def test_dense_rewards_sum_to_the_terminal_reward(reward):
    env = TrainingEnv(16, opponents=POOL, seed=3, reward=reward, dense=True)
    sparse = TrainingEnv(16, opponents=POOL, seed=3, reward=reward, dense=False)
    totals = np.zeros(16)
    rng = np.random.default_rng(1)
    rng2 = np.random.default_rng(1)
    obs, infos = env.reset()
    _, infos2 = sparse.reset()
    games = 0
    while games < 20:
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in infos["action_mask"]])
        actions2 = np.array([rng2.choice(np.flatnonzero(m)) for m in infos2["action_mask"]])
        assert np.array_equal(actions, actions2)  # the same games: shaping changes no mask
        obs, rewards, terms, _, infos = env.step(actions)
        _, rewards2, terms2, _, infos2 = sparse.step(actions2)
        totals += rewards
        assert np.array_equal(terms, terms2)
        for k in np.flatnonzero(terms):
            assert totals[k] == pytest.approx(rewards2[k], abs=1e-9)
            totals[k] = 0
            games += 1
        assert np.all(rewards2[~terms] == 0)


def test_external_members_come_back_to_python():
    env = TrainingEnv(6, opponents=("honest", "external:outside"), weights=[0, 1], seed=2)
    assert env.external == (1,)
    obs, infos = env.reset()
    rng = np.random.default_rng(0)
    seen_learner = seen_outside = 0
    for _ in range(300):
        outside = ~infos["is_learner"]
        assert np.all(infos["member"][outside] == 1)
        assert np.all(infos["member"][~outside] == LEARNER)
        seen_outside += int(outside.sum())
        seen_learner += int((~outside).sum())
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in infos["action_mask"]])
        obs, rewards, terms, _, infos = env.step(actions)
    assert seen_learner > 0 and seen_outside > 2 * seen_learner


@pytest.mark.parametrize("member", ["honset", "outside", "external:", "", "ismcts"])
def test_an_unknown_member_name_is_refused_with_the_known_ones(member):
    """A typo is an error naming it and the vocabulary, never an external seat."""
    with pytest.raises(ValueError) as err:
        TrainingEnv(2, opponents=("honest", member))
    text = str(err.value)
    assert repr(member) in text and "bluffer" in text and "external:NAME" in text


def test_network_members_play_in_the_kernel(tmp_path):
    path = tmp_path / "p.npz"
    save_policy(path, random_policy(5))
    env = TrainingEnv(4, opponents=(f"ppo@{path}", NetPlayer("hot", random_policy(6), 1.0)),
                      seed=4)
    assert env.external == ()
    out = play(env, 200)
    assert all(len(step) for step in out)
    env.replace_policy(1, random_policy(7))
    with pytest.raises(ValueError, match="not a network member"):
        env.replace_policy(2, random_policy(7))
    with pytest.raises(ValueError, match="hidden sizes"):
        env.replace_policy(1, random_policy(7, hidden=(4, 4)))


def test_seats_join_the_pool_at_its_door_and_play_as_their_names_do(tmp_path):
    """A :class:`Seat` of a compiled bot or of a network is the member its name or spec is:
    the same games, the spec read once at the env's door (the batch below reads no spec)."""
    from borders_sim.agents import Seat, as_seat
    from borders_sim.batch.seats import seat_table

    path = tmp_path / "p.npz"
    save_policy(path, random_policy(5))
    named = TrainingEnv(4, opponents=("honest", f"ppo:argmax@{path}"), seed=3)
    seats = TrainingEnv(4, opponents=(as_seat("honest"), as_seat(f"ppo:argmax@{path}")), seed=3)
    net = TrainingEnv(4, opponents=(Seat("honest", spec="honest"),
                                    Seat("mine", net=NetPlayer("mine", random_policy(5), 0.0))),
                      seed=3)
    assert named.opponents == seats.opponents == ("honest", f"ppo:argmax@{path}")
    assert net.opponents == ("honest", "mine")
    for a, b, c in zip(play(named, 60), play(seats, 60), play(net, 60)):
        for x, y, z in zip(a, b, c):
            np.testing.assert_array_equal(x, y)
            np.testing.assert_array_equal(x, z)
    with pytest.raises(ValueError, match="opponent 'ismcts' is a Python bot, and TrainingEnv"):
        TrainingEnv(2, opponents=(as_seat("ismcts"),))
    with pytest.raises(ValueError, match="cannot play in a compiled seat.*NetPlayer"):
        seat_table(["ppo"])


def test_lineups_follow_the_weights_and_the_learning_seat():
    env = TrainingEnv(64, opponents=POOL, weights=[0, 1, 0], seat=2, seed=5)
    env.reset()
    assert (env._learner == 2).all()
    members = env._members[:, :4]
    assert np.all(members[:, 2] == LEARNER)
    assert np.all(np.delete(members, 2, axis=1) == 1)
    assert np.all(env._members[:, 4:] == NO_SEAT)
    mixed = TrainingEnv(64, opponents=POOL, mixed=1.0, seed=5)
    mixed.reset()
    rows = [set(r[r >= 0].tolist()) for r in mixed._members]
    assert max(len(r) for r in rows) > 1


def test_deviator_tables_seat_one_member_among_copies_of_the_self_member():
    plain = TrainingEnv(256, opponents=POOL, deviator=1.0, seed=5)
    plain.reset()
    twin = TrainingEnv(256, opponents=POOL, seed=5)
    twin.reset()  # no self member yet: no deviator table, and the stream is the same
    assert np.array_equal(plain._members, twin._members)
    env = TrainingEnv(256, opponents=POOL, deviator=1.0, seed=5)
    env.set_self_member(2)
    env.reset()
    odd = []
    for row, seat in zip(env._members[:, :4], env._learner):
        others = np.delete(row, seat)
        assert row[seat] == LEARNER
        assert (others != 2).sum() <= 1  # one deviator (or none: it drew the self member)
        odd += [int(p) for p in np.flatnonzero(row != 2) if p != seat]
    assert len(odd) > 150 and {0, 1} <= set(env._members[env._members >= 0].tolist())
    assert set(odd) == {0, 1, 2, 3}  # the deviator sits in every seat
    half = TrainingEnv(512, opponents=POOL, deviator=0.5, seed=5)
    half.set_self_member(2)
    half.reset()
    copies = [(np.delete(r[:4], s) == 2).sum() for r, s in zip(half._members, half._learner)]
    assert 0.3 < np.mean([c >= 2 for c in copies]) < 0.8
    with pytest.raises(ValueError, match="member"):
        env.set_self_member(3)


def test_bad_input_is_refused():
    env = TrainingEnv(2, opponents=POOL, seed=0)
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(np.zeros(2, dtype=np.int64))
    obs, infos = env.reset()
    illegal = np.array([np.flatnonzero(~m)[0] for m in infos["action_mask"]])
    with pytest.raises(ValueError, match="illegal action .* in env 0"):
        env.step(illegal)
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros(3, dtype=np.int64))
    for bad in ({"opponents": ()}, {"weights": [1, -1, 0]}, {"weights": [0, 0, 0]},
                {"mixed": 2.0}, {"seat": 4}, {"reward": "points"}):
        kwargs = {"opponents": POOL, **bad}
        with pytest.raises(ValueError):
            TrainingEnv(2, **kwargs)


def test_state_arrays_continue_exactly():
    a = TrainingEnv(3, opponents=POOL, seed=9)
    play(a, 50)
    saved = a.state_arrays()
    b = TrainingEnv(3, opponents=POOL, seed=9)
    b.load_state_arrays(saved)
    rng = np.random.default_rng(2)
    infos_a, infos_b = a.pending_infos(), b.pending_infos()
    for _ in range(100):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in infos_a["action_mask"]])
        oa, ra, ta, _, infos_a = a.step(actions)
        ob, rb, tb, _, infos_b = b.step(actions)
        assert np.array_equal(oa, ob) and np.array_equal(ra, rb) and np.array_equal(ta, tb)
