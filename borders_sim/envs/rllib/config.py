"""The registered RLlib env names and :func:`ppo_config`, a PPO set up for BORDERS.

Three routes, each a name registered with Ray Tune's env registry (:func:`register_envs`, run
when :mod:`borders_sim.envs.rllib` is imported; Ray's registry carries the names to every
process of the cluster):

* ``"multi_agent"`` (:data:`MULTI_AGENT_ENV`, :class:`.MultiAgentBordersEnv`): every seat an
  agent, one shared policy: self-play, one game per env copy in Python.
* ``"single_seat"`` (:data:`SINGLE_SEAT_ENV`, :class:`.SingleSeatRLlibEnv`): one learning seat
  against bots played in Python, one game per env copy.
* ``"training"`` (:data:`TRAINING_ENV`, :class:`.TrainingVectorEnv`): one learning seat
  against compiled opponents, ``num_envs_per_env_runner`` games stepped in one compiled call:
  the route at the library's speed.

:func:`ppo_config` returns a ``PPOConfig`` that trains on one of them: RLlib's masking module
(:func:`.masking_module`), for ``"multi_agent"`` one module ``"shared"`` that every agent maps
to, RLlib's own env pre-check off and :func:`.check_created_env` (legal actions only) on every
env a runner creates in its place.

PPO's batch and epochs are set for BORDERS rather than left at RLlib's defaults (a batch of
4,000 steps, 30 epochs of minibatches of 128). On the ``"training"`` route a runner steps
``num_envs_per_env_runner`` games side by side, so a batch of 4,000 gives each game a few steps
per iteration: with 256 games, 16 steps of a game that lasts about 100 learner decisions at 4
players (3 players ~100, 8 players ~190, random play), and no episode ends in the first
iterations. :func:`ppo_config` sizes the batch per game instead: :data:`STEPS_PER_GAME` steps
of every game of every runner (32,768 steps at 256 games and one runner), and takes
:data:`NUM_EPOCHS` epochs of :data:`MINIBATCHES` minibatches over it, as ``borders-sim train``
does (30 epochs of 128 made the learner take 16-22 s of every 18-22 s iteration). The
one-game routes keep RLlib's batch (their runner steps one game to its end before the next)
and take the same epochs. ``.training(...)`` after the call overrides any of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.tune.registry import register_env

from ...checks import as_bool, as_choice, as_int, as_mapping, as_seed
from .check import check_created_env
from .masking import masking_module
from .multi_agent import MultiAgentBordersEnv
from .runner import TrainingEnvRunner
from .single_seat import SingleSeatRLlibEnv
from .vector import TrainingVectorEnv

#: Registered name of :class:`.MultiAgentBordersEnv` (the ``"multi_agent"`` route).
MULTI_AGENT_ENV = "borders_sim-multi_agent-v0"
#: Registered name of :class:`.SingleSeatRLlibEnv` (the ``"single_seat"`` route).
SINGLE_SEAT_ENV = "borders_sim-single_seat-v0"
#: Registered name of :class:`.TrainingVectorEnv` (the ``"training"`` route); it is a vector
#: env: RLlib needs ``gym_env_vectorize_mode="vector_entry_point"`` for it.
TRAINING_ENV = "borders_sim-training-v0"
#: The routes of :func:`ppo_config`: registered name and env class.
ROUTES: dict[str, tuple[str, type]] = {
    "multi_agent": (MULTI_AGENT_ENV, MultiAgentBordersEnv),
    "single_seat": (SINGLE_SEAT_ENV, SingleSeatRLlibEnv),
    "training": (TRAINING_ENV, TrainingVectorEnv),
}
#: Games per env runner that :func:`ppo_config` sets by default, per route.
DEFAULT_NUM_ENVS = {"multi_agent": 1, "single_seat": 1, "training": 64}
#: Steps of every game per PPO iteration that :func:`ppo_config` sizes the ``"training"``
#: route's batch by: more than a 3- or 4-player game's mean length in learner decisions, so
#: every iteration ends games (module docstring).
STEPS_PER_GAME = 128
#: PPO's epochs over each batch that :func:`ppo_config` sets (RLlib's default is 30).
NUM_EPOCHS = 2
#: Minibatches per epoch that :func:`ppo_config` cuts the batch into (``borders-sim train``'s).
MINIBATCHES = 4
#: The module id of the policy every agent of the multi-agent route shares.
SHARED_POLICY = "shared"


def register_envs() -> None:
    """Register the three env names with Ray Tune's registry (again: harmless)."""
    for name, cls in ROUTES.values():
        register_env(name, cls)


def shared_policy(agent_id: Any, episode: Any = None, **kwargs: Any) -> str:
    """The policy mapping of the multi-agent route: every agent plays :data:`SHARED_POLICY`."""
    return SHARED_POLICY


def ppo_config(route: str = "multi_agent", env_config: Mapping[str, Any] | None = None, *,
               num_env_runners: int = 0, num_envs_per_env_runner: int | None = None,
               seed: int | None = None, model_config: Mapping[str, Any] | None = None,
               check_env: bool = True, fast_runner: bool = True) -> PPOConfig:
    """A ``PPOConfig`` that trains a masked policy on BORDERS by ``route``.

    Args:
        route: ``"multi_agent"`` (every seat, one shared policy), ``"single_seat"`` (one seat
            against bots) or ``"training"`` (one seat against compiled opponents, many games
            per call); module docstring.
        env_config: the env's settings (see the route's env class: ``num_players``,
            ``opponents``, ``reward``, the :class:`~borders_sim.GameConfig` flags, ...).
        num_env_runners: RLlib's remote env runners (0: sample in the driver).
        num_envs_per_env_runner: env copies per runner, for ``"training"`` the games of one
            compiled call (default :data:`DEFAULT_NUM_ENVS`; 256 on a cluster). The
            ``"training"`` route's batch is :data:`STEPS_PER_GAME` steps of each game of each
            runner (``num_envs_per_env_runner * max(1, num_env_runners) * STEPS_PER_GAME``).
        seed: RLlib's seed (``config.debugging(seed=...)``): runner ``w`` resets its envs
            with ``seed + w``, and torch is seeded; ``None``: unseeded.
        model_config: RLlib's ``DefaultModelConfig`` settings for the module (e.g.
            ``{"fcnet_hiddens": [256, 256]}``); ``None``: RLlib's defaults.
        check_env: run :func:`.check_env` (legal actions only) on every env a runner creates;
            RLlib's own check, which steps unmasked random actions, is always off.
        fast_runner: for ``"training"``, sample with :class:`.TrainingEnvRunner` (batched, at
            the compiled env's speed); ``False``: RLlib's own ``SingleAgentEnvRunner`` (its
            connectors and episode callbacks apply, at a fraction of the speed).

    Returns:
        A ``PPOConfig`` with :data:`NUM_EPOCHS` epochs of :data:`MINIBATCHES` minibatches per
        batch; chain more settings (``.training(...)``, ``.learners(...)``) and
        ``.build_algo()``.

    Raises:
        ValueError: a bad argument, named.
    """
    route = as_choice(route, "route", tuple(ROUTES))
    env_config = dict(as_mapping({} if env_config is None else env_config, "env_config"))
    num_env_runners = as_int(num_env_runners, "num_env_runners", 0)
    num_envs = as_int(DEFAULT_NUM_ENVS[route] if num_envs_per_env_runner is None
                      else num_envs_per_env_runner, "num_envs_per_env_runner", 1)
    models = dict(as_mapping({} if model_config is None else model_config, "model_config"))
    register_envs()
    spec = RLModuleSpec(module_class=masking_module(), model_config=models or None)
    config = (PPOConfig()
              .environment(ROUTES[route][0], env_config=env_config, disable_env_checking=True)
              .env_runners(num_env_runners=num_env_runners, num_envs_per_env_runner=num_envs))
    if route == "training":
        config.training(train_batch_size_per_learner=num_envs * max(1, num_env_runners)
                        * STEPS_PER_GAME)
        config.env_runners(gym_env_vectorize_mode="vector_entry_point")
        if as_bool(fast_runner, "fast_runner"):
            config.env_runners(env_runner_cls=TrainingEnvRunner)
    if route == "multi_agent":
        config.multi_agent(policies={SHARED_POLICY}, policy_mapping_fn=shared_policy)
        config.rl_module(rl_module_spec=MultiRLModuleSpec(
            rl_module_specs={SHARED_POLICY: spec}))
    else:
        config.rl_module(rl_module_spec=spec)
    config.training(num_epochs=NUM_EPOCHS,
                    minibatch_size=max(1, config.train_batch_size_per_learner // MINIBATCHES))
    if as_bool(check_env, "check_env"):
        config.callbacks(on_environment_created=check_created_env)
    if seed is not None:
        config.debugging(seed=as_seed(seed))
    return config
