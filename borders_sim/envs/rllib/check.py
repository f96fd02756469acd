"""An env check for RLlib that plays legal actions only.

RLlib's own pre-check of a multi-agent env steps ``action_space.sample()``, which knows no
mask: on BORDERS it plays an illegal move, and every env copy ends a game on it before training
starts. :func:`check_env` checks the same things (the spaces, the observations in them, the
shapes and types of rewards, flags and infos) while playing uniformly random *legal* actions
read from each observation's ``"action_mask"``, a whole game for the one-game envs and a few
steps of every game for the vector env. :func:`~borders_sim.envs.rllib.config.ppo_config`
turns RLlib's check off and runs this one on every env an env runner creates
(:func:`check_created_env`, RLlib's ``on_environment_created`` callback).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from .spaces import MASK_KEY, OBS_KEY

#: Steps of a vector env that :func:`check_env` takes.
VECTOR_STEPS = 16
#: More steps than any game of BORDERS takes (P-0.4 bounds the game length far below).
MAX_STEPS = 100_000


class EnvCheckError(ValueError):
    """An env broke the contract of :mod:`borders_sim.envs.rllib` (the message says how)."""


def check_env(env: Any, seed: int | None = None) -> None:
    """Check ``env`` (an env of :mod:`borders_sim.envs.rllib`, or a Gymnasium wrapper of one)
    by playing random legal actions (module docstring). ``seed`` seeds the choice of actions
    and the env's ``reset``; ``None`` (the default) leaves the env's stream of games as it is
    (it goes on after the checked game), so env copies keep playing different games.

    Raises:
        EnvCheckError: a space, an observation, a reward, a flag or an info is not what RLlib
            and the masking module need, or the mask allows no action at a decision.
    """
    rng = np.random.default_rng(seed)
    if isinstance(getattr(env, "unwrapped", env), MultiAgentEnv):
        _check_multi_agent(env, rng, seed)
    elif hasattr(env, "num_envs") and hasattr(env, "single_observation_space"):
        _check_vector(env, rng, seed)
    else:
        _check_single(env, rng, seed)


def check_created_env(*, env: Any = None, **kwargs: Any) -> None:
    """RLlib's ``on_environment_created`` callback: :func:`check_env` on the env of a runner
    (on each sub-env of a vector of one-game envs)."""
    if env is None:
        return
    subs = getattr(env, "envs", None)
    for sub in (subs if subs is not None else [env]):
        check_env(sub)


def _legal(observation: dict, rng: np.random.Generator, where: str) -> int:
    """A random legal action of ``observation``'s mask."""
    legal = np.flatnonzero(observation[MASK_KEY] > 0.5)
    if legal.size == 0:
        raise EnvCheckError(f"{where}: the action mask allows no action")
    return int(rng.choice(legal))


def _check_obs(space: spaces.Space, observation: Any, where: str) -> None:
    if not isinstance(observation, dict) or set(observation) != {OBS_KEY, MASK_KEY}:
        raise EnvCheckError(f"{where}: an observation must be a dict of {OBS_KEY!r} and "
                            f"{MASK_KEY!r}, got {type(observation).__name__} "
                            f"{sorted(observation) if isinstance(observation, dict) else ''}")
    if not space.contains(observation):
        parts = {k: (v.dtype, v.shape) for k, v in observation.items()}
        raise EnvCheckError(f"{where}: the observation {parts} is not in {space}")
    mask = observation[MASK_KEY]
    if not np.all((mask == 0) | (mask == 1)):
        raise EnvCheckError(f"{where}: the action mask must hold 0.0 and 1.0 only")


def _check_multi_agent(env: Any, rng: np.random.Generator, seed: int | None) -> None:
    base = env.unwrapped
    agents = set(base.possible_agents)
    obs, infos = env.reset(seed=seed)
    for step in range(MAX_STEPS):
        where = f"{base!r}, step {step}"
        if not set(obs) <= agents or not isinstance(infos, dict):
            raise EnvCheckError(f"{where}: observations for unknown agents {sorted(obs)}")
        for agent, o in obs.items():
            _check_obs(base.observation_spaces[agent], o, f"{where}, {agent}")
        if len(obs) != 1:
            raise EnvCheckError(f"{where}: one agent decides at a time, got {sorted(obs)}")
        agent = next(iter(obs))
        obs, rewards, terminated, truncated, infos = env.step(
            {agent: _legal(obs[agent], rng, where)})
        for name, flags in (("terminateds", terminated), ("truncateds", truncated)):
            if "__all__" not in flags or not all(isinstance(v, (bool, np.bool_))
                                                 for v in flags.values()):
                raise EnvCheckError(f"{where}: {name} must be bools with '__all__'")
        if not all(isinstance(r, float) for r in rewards.values()):
            raise EnvCheckError(f"{where}: rewards must be floats, got {rewards}")
        if terminated["__all__"]:
            if set(obs) != agents or set(rewards) != agents:
                raise EnvCheckError(f"{where}: the last step must give every agent its "
                                    "observation and reward")
            for agent, o in obs.items():
                _check_obs(base.observation_spaces[agent], o, f"{where}, {agent}")
            return
    raise EnvCheckError(f"{base!r}: no game ended in {MAX_STEPS} steps")


def _check_single(env: Any, rng: np.random.Generator, seed: int | None) -> None:
    obs, info = env.reset(seed=seed)
    for step in range(MAX_STEPS):
        where = f"{env!r}, step {step}"
        _check_obs(env.observation_space, obs, where)
        obs, reward, terminated, truncated, info = env.step(_legal(obs, rng, where))
        if not isinstance(reward, float) or not isinstance(terminated, (bool, np.bool_)):
            raise EnvCheckError(f"{where}: the reward must be a float and terminated a bool")
        if terminated or truncated:
            _check_obs(env.observation_space, obs, where)
            return
    raise EnvCheckError(f"{env!r}: no game ended in {MAX_STEPS} steps")


def _check_vector(env: Any, rng: np.random.Generator, seed: int | None) -> None:
    obs, infos = env.reset(seed=seed)
    n = env.num_envs
    for step in range(VECTOR_STEPS):
        where = f"{env!r}, step {step}"
        _check_obs(env.observation_space, obs, where)
        actions = np.array([_legal({MASK_KEY: obs[MASK_KEY][k]}, rng, f"{where}, game {k}")
                            for k in range(n)], dtype=np.int64)
        obs, rewards, terminated, truncated, infos = env.step(actions)
        for name, value, dtype in (("rewards", rewards, np.floating),
                                   ("terminated", terminated, np.bool_),
                                   ("truncated", truncated, np.bool_)):
            if not (isinstance(value, np.ndarray) and value.shape == (n,)
                    and np.issubdtype(value.dtype, dtype)):
                raise EnvCheckError(f"{where}: {name} must be an array of {n} "
                                    f"{dtype.__name__}")
