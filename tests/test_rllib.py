"""Ray RLlib on BORDERS (borders_sim.envs.rllib): the three routes' envs speak RLlib's protocol
with the mask in RLlib's keys, the env check plays legal actions only, the masking module
masks, the fast runner cuts its arrays into RLlib's episodes, and one PPO iteration runs on
each route on a local Ray instance without a single illegal action (every env is made with
``illegal_action="raise"`` where it has the choice, and the compiled env always refuses one).
Bots are policies of the single-seat env (issue 30's point 3; no Ray needed for that)."""

from __future__ import annotations

import numpy as np
import pytest

from borders_sim.agents import make
from borders_sim.envs import SingleSeatEnv
from borders_sim.rules.actions import NUM_ACTIONS
from borders_sim.rules.observation import OBS_SIZE

POOL = ["honest", "bluffer", "collector"]


def play_out(env: SingleSeatEnv, info: dict, rng: np.random.Generator) -> float:
    """Random legal learner actions to the end of the game; the last reward."""
    while True:
        _, reward, terminated, _, info = env.step(int(rng.choice(np.flatnonzero(
            info["action_mask"]))))
        if terminated:
            return reward


def test_bots_are_policies_of_the_single_seat_env():
    bots = [make("honest", seed=i) for i in range(3)]
    assert all(callable(b) for b in bots) and callable(make("ppo")) and callable(make("ismcts"))
    env = SingleSeatEnv(num_players=4, opponents=bots, seed=0)
    obs, info = env.reset()
    # a bot called is the bot acting
    assert make("ppo", seed=7)(obs, info["action_mask"]) == \
        make("ppo", seed=7).act(obs, info["action_mask"])
    play_out(env, info, np.random.default_rng(0))

    class ActOnly:  # the Bot protocol without the base class: its act is the policy
        name = "first"

        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[0])

    for opponents in (make("bluffer", seed=1), ActOnly(), [ActOnly(), bots[1], bots[2]]):
        env = SingleSeatEnv(num_players=4, opponents=opponents, seed=1)
        _, info = env.reset()
        play_out(env, info, np.random.default_rng(1))
    SingleSeatEnv(num_players=4, opponents=[bots[0], "honest", bots[2]])  # a name: a seat
    with pytest.raises(ValueError, match="an opponent is a bot .* or a policy"):
        SingleSeatEnv(num_players=4, opponents=[bots[0], 3, bots[2]])
    with pytest.raises(ValueError, match="a list of 3; an opponent is a bot"):
        SingleSeatEnv(num_players=4, opponents=bots[:2])


def test_without_the_extra_the_import_says_how_to_install(monkeypatch):
    import importlib
    import sys

    from borders_sim.install_hints import install_hint
    for prefix in ("ray", "borders_sim.envs.rllib"):
        for name in [m for m in sys.modules if m == prefix or m.startswith(prefix + ".")]:
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(ModuleNotFoundError) as caught:
        importlib.import_module("borders_sim.envs.rllib")
    assert str(caught.value) == f"borders_sim.envs.rllib needs ray[rllib]: " \
                                f"{install_hint('rllib')}"


# --- RLlib ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def rl():
    """borders_sim.envs.rllib, with torch on one thread (skips without the rllib extra)."""
    pytest.importorskip("ray.rllib")
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    import borders_sim.envs.rllib as rllib
    return rllib


@pytest.fixture(scope="module")
def ray_local(rl):
    """A small local Ray instance for the PPO tests, its workers on the package under test."""
    import ray

    from borders_sim.arena.ray_backend import local_cluster_kwargs
    ray.init(include_dashboard=False, log_to_driver=False, ignore_reinit_error=True,
             **local_cluster_kwargs(2))
    yield ray
    ray.shutdown()


def test_the_multi_agent_env_speaks_rllibs_protocol(rl):
    env = rl.MultiAgentBordersEnv({"num_players": 4, "seed": 3})
    assert env.agents == [f"player_{i}" for i in range(4)]
    obs, infos = env.reset(seed=5)
    (agent, o), = obs.items()
    assert set(o) == {"observations", "action_mask"} and o["action_mask"].dtype == np.float32
    assert o["observations"].shape == (OBS_SIZE,) and o["action_mask"].shape == (NUM_ACTIONS,)
    assert np.array_equal(o["action_mask"] > 0, env.legal_mask())
    rng = np.random.default_rng(0)
    while True:
        legal = np.flatnonzero(o["action_mask"])
        obs, rewards, terminated, truncated, infos = env.step({agent: int(rng.choice(legal))})
        if terminated["__all__"]:
            break
        (agent, o), = obs.items()
        assert rewards == {agent: 0.0}  # RLlib asks a reward beside each observation
    assert set(obs) == set(rewards) == set(env.agents) and not truncated["__all__"]
    assert sum(rewards.values()) == pytest.approx(0.0)  # "win": +1 shared, -1 shared
    assert all(np.all(o["action_mask"] == 1.0) for o in obs.values())
    with pytest.raises(RuntimeError, match="reset"):
        env.step({agent: 0})
    rl.check_env(env)
    assert env.illegal_actions == 0

    # an illegal action: the offender loses (-1), or with "raise" nothing happens
    obs, _ = env.reset()
    (agent, o), = obs.items()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    _, rewards, terminated, _, _ = env.step({agent: illegal})
    assert terminated["__all__"] and rewards[agent] == -1.0 and env.illegal_actions == 1
    strict = rl.MultiAgentBordersEnv({"illegal_action": "raise", "num_players": 3})
    obs, _ = strict.reset(seed=1)
    (agent, o), = obs.items()
    from borders_sim import IllegalActionError
    with pytest.raises(IllegalActionError):
        strict.step({agent: int(np.flatnonzero(o["action_mask"] == 0)[0])})
    with pytest.raises(ValueError, match="the agent to move"):
        strict.step({"player_9": 0})
    with pytest.raises(ValueError):
        rl.MultiAgentBordersEnv({"num_players": 9})


@pytest.mark.parametrize("n", range(3, 9))
def test_every_agents_last_observation_is_its_own_after_any_end(rl, n):
    """After an illegal move (at a random point) and at a game's own end, every agent's last
    observation is its own view (scaled as the env scales), never the offender's or the last
    mover's; its all-ones mask is the documented constant of a finished game (:mod:`.spaces`)."""
    from borders_sim.envs import observe
    from borders_sim.rules.observation import observation_scales

    scale = observation_scales().astype(np.float32)
    env = rl.MultiAgentBordersEnv({"num_players": n, "seed": n})
    rng = np.random.default_rng(n)
    for cut in (int(rng.integers(0, 200)), None):
        obs, _ = env.reset()
        (agent, o), = obs.items()
        step = 0
        while True:
            mask = o["action_mask"]
            bad = step == cut
            action = int(rng.choice(np.flatnonzero(mask == 0 if bad else mask)))
            obs, rewards, terminated, _, _ = env.step({agent: action})
            step += 1
            if terminated["__all__"]:
                break
            (agent, o), = obs.items()
        assert set(obs) == set(env.agents)
        for seat, a in enumerate(env.agents):
            expected = observe(env.game, seat) / scale
            assert np.allclose(obs[a]["observations"], expected), f"{a} sees another view"
            assert np.all(obs[a]["action_mask"] == 1.0)
        assert not env.legal_mask().any()


def test_the_single_seat_env_has_the_mask_in_the_observation(rl):
    env = rl.SingleSeatRLlibEnv({"num_players": 4, "opponents": "honest", "seed": 0,
                                 "seat": 1, "illegal_action": "raise"})
    assert all(type(p).__name__ == "CompiledBot" for p in env.unwrapped.opponents)
    obs, info = env.reset()
    assert env.observation_space.contains(obs)
    assert np.array_equal(obs["action_mask"] > 0, info["action_mask"])
    rl.check_env(env)
    raw = rl.SingleSeatRLlibEnv({"opponents": POOL, "scale_obs": False, "seed": 0})
    obs, info = raw.reset(seed=2)
    assert np.array_equal(obs["observations"], raw.unwrapped._observation())
    with pytest.raises(ValueError, match="unknown bot"):
        rl.SingleSeatRLlibEnv({"opponents": "nobody"})
    with pytest.raises(ValueError, match="opponents must be"):
        rl.SingleSeatRLlibEnv({"opponents": ["honest"]})


def test_the_training_vector_env_batches_the_dict(rl):
    env = rl.TrainingVectorEnv({"num_envs": 4, "num_players": 3, "opponents": POOL, "seed": 0})
    obs, _ = env.reset()
    assert env.observation_space.contains(obs)
    assert obs["observations"].shape == (4, OBS_SIZE)
    rng = np.random.default_rng(0)
    for _ in range(400):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        obs, rewards, terminated, truncated, infos = env.step(actions)
        if terminated.any():
            break
    assert terminated.any() and "_outcome" in infos
    assert np.all(obs["action_mask"][terminated] == 1.0)  # NEXT_STEP: the ended game's row
    rl.check_env(env)
    with pytest.raises(ValueError, match="compiled opponents only"):
        rl.TrainingVectorEnv({"num_envs": 2, "opponents": ["honest", "external:someone"]})
    with pytest.raises(ValueError, match="next_step"):
        rl.TrainingVectorEnv({"num_envs": 2, "autoreset_mode": "same_step"})


def test_the_env_check_refuses_what_rllib_cannot_mask(rl):
    import gymnasium as gym

    class NoMask(gym.ObservationWrapper):
        def __init__(self, env):
            super().__init__(env)
            self.observation_space = env.observation_space["observations"]

        def observation(self, observation):
            return observation["observations"]

    with pytest.raises(rl.EnvCheckError, match="dict of 'observations' and 'action_mask'"):
        rl.check_env(NoMask(rl.SingleSeatRLlibEnv({"seed": 0})))


def test_the_masking_module_masks(rl):
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule)
    from gymnasium.spaces import Discrete

    assert rl.masking_module() is ActionMaskingTorchRLModule  # RLlib's, where it ships it
    mask = torch.zeros(5, NUM_ACTIONS)
    mask[:, 3:7] = 1.0
    obs = torch.rand(5, OBS_SIZE)
    for cls in (rl.MaskedPPOTorchRLModule, rl.masking_module()):
        module = RLModuleSpec(module_class=cls, observation_space=rl.observation_space(),
                              action_space=Discrete(NUM_ACTIONS),
                              model_config={"fcnet_hiddens": [16]}).build()
        out = module.forward_exploration({Columns.OBS: {"observations": obs,
                                                        "action_mask": mask.clone()}})
        logits = out[Columns.ACTION_DIST_INPUTS]
        assert torch.all(logits[mask == 0] < -1e30) and torch.all(logits[mask == 1] > -1e3)
        values = module.compute_values({Columns.OBS: {"observations": obs,
                                                      "action_mask": mask.clone()}})
        assert values.shape == (5,)
    with pytest.raises(ValueError, match="Dict observation space"):
        RLModuleSpec(module_class=rl.MaskedPPOTorchRLModule,
                     observation_space=rl.observation_space()["observations"],
                     action_space=Discrete(NUM_ACTIONS)).build()


def test_ppo_config_sets_up_each_route(rl):
    config = rl.ppo_config()
    assert config.is_multi_agent and set(config.policies) == {rl.SHARED_POLICY}
    assert config.policy_mapping_fn("player_2", None) == rl.SHARED_POLICY
    assert config.disable_env_checking and config.env == rl.MULTI_AGENT_ENV
    fast = rl.ppo_config("training", {"opponents": POOL})
    assert fast.env_runner_cls is rl.TrainingEnvRunner
    assert fast.num_envs_per_env_runner == rl.DEFAULT_NUM_ENVS["training"]
    assert fast.gym_env_vectorize_mode == "vector_entry_point"
    assert rl.ppo_config("training", fast_runner=False).env_runner_cls is None
    assert rl.ppo_config("single_seat").env == rl.SINGLE_SEAT_ENV
    # PPO's batch per game and epochs (the config module's docstring), not RLlib's defaults
    for runners, games in ((0, 256), (3, 256), (0, 16)):
        config = rl.ppo_config("training", num_env_runners=runners,
                               num_envs_per_env_runner=games)
        assert config.train_batch_size_per_learner == games * max(1, runners) * \
            rl.STEPS_PER_GAME
        assert config.num_epochs == rl.NUM_EPOCHS
        assert config.minibatch_size == config.train_batch_size_per_learner // rl.MINIBATCHES
    assert rl.ppo_config("single_seat").train_batch_size_per_learner == 4000  # RLlib's
    assert rl.ppo_config("multi_agent").num_epochs == rl.NUM_EPOCHS
    with pytest.raises(ValueError, match="route"):
        rl.ppo_config("parallel")
    with pytest.raises(ValueError, match="num_envs_per_env_runner"):
        rl.ppo_config("training", num_envs_per_env_runner=0)


def test_the_fast_runner_cuts_rllibs_episodes(rl, ray_local):
    config = rl.ppo_config("training", {"num_players": 3, "opponents": POOL}, seed=0,
                           num_envs_per_env_runner=4, model_config={"fcnet_hiddens": [16]})
    runner = rl.TrainingEnvRunner(config=config)
    seen: dict[str, int] = {}  # episode id -> steps so far
    ended = 0
    for _ in range(3):
        chunks = runner.sample(num_timesteps=4 * 40, explore=True)
        # as RLlib's runner: at least the decisions asked for, within one step of them
        assert 4 * 40 <= sum(len(c) for c in chunks) < 4 * 40 + 4
        for c in chunks:
            c.validate()
            masks = c.get_observations()["action_mask"]
            actions = c.get_actions()
            assert np.all(masks[np.arange(len(c)), actions] == 1.0)  # legal, every one
            assert c.t_started == seen.get(c.id_, 0)  # a game goes on under its id
            seen[c.id_] = c.t_started + len(c)
            logp = c.get_extra_model_outputs("action_logp")
            assert logp.shape == (len(c),) and np.all(logp <= 0)
            if c.is_terminated:
                ended += 1
                assert np.all(masks[-1] == 1.0) and c.get_rewards()[-1] != 0
    assert ended > 0
    random = runner.sample(num_timesteps=8, random_actions=True)
    assert all(np.all(c.get_observations()["action_mask"][np.arange(len(c)),
                                                          c.get_actions()] == 1.0)
               for c in random)
    runner.stop()


def _one_iteration(rl, route: str, env_config: dict, **kwargs) -> tuple:
    """One PPO iteration of ``route`` on a tiny batch; the result and the algorithm."""
    config = (rl.ppo_config(route, env_config, seed=0, model_config={"fcnet_hiddens": [32]},
                            **kwargs)
              .training(train_batch_size_per_learner=256, minibatch_size=128, num_epochs=1))
    algo = config.build_algo()
    result = algo.train()
    return result, algo


@pytest.mark.parametrize("route, env_config, kwargs", [
    ("multi_agent", {"num_players": 4, "illegal_action": "raise"}, {}),
    ("single_seat", {"num_players": 4, "opponents": "honest", "illegal_action": "raise"}, {}),
    ("training", {"num_players": 4, "opponents": POOL}, {"num_envs_per_env_runner": 16}),
    ("training", {"num_players": 4, "opponents": POOL},
     {"num_envs_per_env_runner": 8, "fast_runner": False}),
], ids=["multi_agent", "single_seat", "training", "training-rllib-runner"])
def test_one_ppo_iteration_per_route_with_no_illegal_action(rl, ray_local, route, env_config,
                                                            kwargs):
    result, algo = _one_iteration(rl, route, env_config, **kwargs)
    try:
        assert result["env_runners"]["num_env_steps_sampled"] >= 256
        env = algo.env_runner.env.unwrapped
        if route == "multi_agent":  # every env copy counts the illegal actions it was given
            assert all(e.unwrapped.illegal_actions == 0 for e in env.envs)
        learner = result["learners"][rl.SHARED_POLICY if route == "multi_agent"
                                     else "default_policy"]
        assert np.isfinite(learner["total_loss"])
    finally:
        algo.stop()


def test_the_cluster_recipe_finishes_episodes_from_its_first_iteration(rl, ray_local):
    """The recommended settings of docs/env-rllib.md's cluster recipe (256 games a runner,
    ``ppo_config``'s batch and epochs, RLlib's default network) on one local runner: the first
    iteration already reports finished episodes and their mean return (RLlib's batch of 4,000
    steps gave none in three)."""
    config = rl.ppo_config("training", {"num_players": 4, "opponents": POOL}, seed=0,
                           num_envs_per_env_runner=256)
    algo = config.build_algo()
    try:
        result = algo.train()
        runners = result["env_runners"]
        assert runners["num_env_steps_sampled"] >= 256 * rl.STEPS_PER_GAME
        assert runners["num_episodes"] > 0
        assert runners["episode_return_mean"] is not None
        assert np.isfinite(runners["episode_return_mean"])
    finally:
        algo.stop()
