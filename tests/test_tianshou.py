"""Tianshou 2 on BORDERS (``borders_sim.envs.tianshou``): every seat's outcome is the reward of
its own last transition, after a game's end and after an illegal move, by hand and through
Tianshou's own ``Collector`` and ``MultiAgentPolicy``; a DQN seat updates; plain
``PettingZooEnv`` loses the other seats' outcomes (the reason for the adapter)."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tianshou")  # the optional tianshou extra: pip install ".[tianshou]"

from borders_sim.envs import observe  # noqa: E402
from borders_sim.envs.tianshou import TianshouEnv  # noqa: E402
from borders_sim.rules.rewards import final_rewards_at, reward_mode  # noqa: E402
from borders_sim.rules.state import MAX_PLAYERS  # noqa: E402


def final_rewards(game, mode: str = "win") -> list[float]:
    out = np.zeros(MAX_PLAYERS)
    final_rewards_at(game.state, 0, reward_mode(mode), out)
    return out[:game.num_players].tolist()


def play(env: TianshouEnv, rng: np.random.Generator, seed: int, illegal_at: int | None = None):
    """One episode by hand; returns (transitions as (agent, action, reward vector, mask),
    the game, the offender or None)."""
    obs, _ = env.reset(seed=seed)
    game = env.env.unwrapped.game
    transitions, offender, step = [], None, 0
    while True:
        mask = np.asarray(obs["mask"])
        agent = obs["agent_id"]
        seat = env.agent_idx[agent]
        assert np.array_equal(obs["obs"], observe(game, seat)), "another seat's view"
        if mask.any() and step == illegal_at:
            action, offender = int(np.flatnonzero(~mask)[0]), seat
        else:
            action = int(rng.choice(np.flatnonzero(mask))) if mask.any() else 0
        obs, rewards, terminated, truncated, _ = env.step(action)
        transitions.append((seat, action, list(rewards), mask))
        step += 1
        assert not truncated
        if terminated:
            return transitions, game, offender


@pytest.mark.parametrize("n", [3, 5, 8])
def test_each_seat_gets_its_outcome_on_its_own_last_transition(n):
    env = TianshouEnv(num_players=n)
    rng = np.random.default_rng(n)
    transitions, game, _ = play(env, rng, seed=n)
    assert game.is_terminal
    finals = [t for t in transitions if not t[3].any()]
    assert sorted(t[0] for t in finals) == list(range(n))  # one final turn per seat
    assert transitions[-n:] == finals
    expected = final_rewards(game)
    for seat, _action, rewards, _mask in finals:
        assert rewards == [expected[seat] if p == seat else 0.0 for p in range(n)]
    assert all(not any(t[2]) for t in transitions[:-n])  # nothing before the end


@pytest.mark.parametrize("n", [3, 6])
def test_an_illegal_move_gives_the_offender_minus_one_on_its_own_transition(n):
    env = TianshouEnv(num_players=n)
    transitions, game, offender = play(env, np.random.default_rng(0), seed=1, illegal_at=40)
    assert not game.is_terminal and offender is not None
    got = {t[0]: t[2][t[0]] for t in transitions[-n:]}
    assert got == {p: (-1.0 if p == offender else 0.0) for p in range(n)}


def test_tianshous_collector_hands_each_policy_its_outcomes():
    from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm as Random
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv

    n, games = 4, 6
    env = TianshouEnv(num_players=n)
    seats = MultiAgentOffPolicyAlgorithm(
        algorithms=[Random(env.action_space) for _ in range(n)], env=env)
    envs = DummyVectorEnv([lambda: TianshouEnv(num_players=n) for _ in range(2)])
    envs.seed(0)
    buffer = VectorReplayBuffer(50_000, len(envs))
    collector = Collector(seats.policy, envs, buffer)
    collector.reset()
    stats = collector.collect(n_episode=games)
    assert stats.n_collected_episodes == games
    batch = buffer.sample(0)[0]
    mask = np.asarray(batch.obs.mask, dtype=bool)
    acted = mask.any(axis=1)
    assert mask[acted, batch.act[acted]].all()  # no illegal action
    assert (~acted).sum() == n * games  # a final turn per seat per game
    for seat in range(n):
        own = batch.obs.agent_id == f"player_{seat}"
        # the seat's outcomes are on its own final turns only
        assert not batch.rew[own & acted, seat].any()
        assert (own & ~acted).sum() == games
    # "win" rewards of a game sum to zero: so do every game's final turns together
    assert batch.rew[~acted].sum() == pytest.approx(0.0)


def test_a_dqn_seat_updates_beside_random_seats():
    torch = pytest.importorskip("torch")
    from tianshou.algorithm import DQN
    from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
    from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm as Random
    from tianshou.data import Collector, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv
    from tianshou.utils.net.common import Net
    from tianshou.utils.torch_utils import policy_within_training_step

    from borders_sim.envs import NUM_ACTIONS, OBS_SIZE

    torch.set_num_threads(1)
    torch.manual_seed(0)
    env = TianshouEnv(num_players=3)
    net = Net(state_shape=OBS_SIZE, action_shape=NUM_ACTIONS, hidden_sizes=[32])
    dqn = DQN(policy=DiscreteQLearningPolicy(model=net, action_space=env.action_space,
                                             eps_training=0.2),
              optim=AdamOptimizerFactory(lr=1e-3), target_update_freq=20)
    seats = MultiAgentOffPolicyAlgorithm(
        algorithms=[dqn, Random(env.action_space), Random(env.action_space)], env=env)
    envs = DummyVectorEnv([lambda: TianshouEnv(num_players=3)])
    envs.seed(1)
    buffer = VectorReplayBuffer(5_000, 1)
    collector = Collector(seats.policy, envs, buffer, exploration_noise=True)
    collector.reset()
    before = [p.detach().clone() for p in net.parameters()]
    with policy_within_training_step(seats.policy):
        collector.collect(n_step=300)
        stats = seats.update(buffer=buffer, sample_size=32)
    assert np.isfinite(stats.get_loss_stats_dict()["player_0/loss"])
    assert any(not torch.equal(a, b) for a, b in zip(before, net.parameters()))
    batch = buffer.sample(0)[0]
    mask = np.asarray(batch.obs.mask, dtype=bool)
    acted = mask.any(axis=1)
    assert mask[acted, batch.act[acted]].all()  # the masked DQN took no illegal action


def test_plain_pettingzoo_env_loses_the_other_seats_outcomes():
    """Why the adapter exists: through ``tianshou.env.PettingZooEnv`` over ``borders_v0.env()``
    the episode ends on the last mover's step, so only that seat's transition holds a reward."""
    from tianshou.env import PettingZooEnv

    from borders_sim.envs import borders_v0

    env = PettingZooEnv(borders_v0.env(num_players=4))
    obs, _ = env.reset(seed=2)
    rng = np.random.default_rng(2)
    seen = []
    while True:
        seat = env.agent_idx[obs["agent_id"]]
        obs, rewards, terminated, _, _ = env.step(int(rng.choice(np.flatnonzero(obs["mask"]))))
        seen.append(rewards[seat])
        if terminated:
            break
    assert sum(r != 0 for r in seen) <= 1
