"""The observation every RLlib env of borders_sim hands out: a Dict in RLlib's masking keys.

RLlib's action-masking module (``ActionMaskingTorchRLModule``) reads a ``gymnasium.spaces.Dict``
of two entries, ``"observations"`` (what the network sees) and ``"action_mask"`` (a float 0/1
vector, one entry per action): ``log(mask)`` is added to the logits, so an action of mask 0 is
never sampled. So every env of :mod:`borders_sim.envs.rllib` returns

* ``"observations"``: float32[OBS_SIZE], the player's view
  (:data:`~borders_sim.rules.observation.OBSERVATION_LAYOUT`), divided by
  :func:`~borders_sim.rules.observation.observation_scales` unless ``scale_obs=False`` (RLlib's
  default network does not normalise its inputs, and raw counts run to a few hundred);
* ``"action_mask"``: float32[NUM_ACTIONS], 1.0 for each legal action of the decision.

The last observation of a finished game, on which nobody acts, carries an all-ones mask (as
:class:`~borders_sim.envs.TrainingEnv`'s ``NEXT_STEP`` rows do), so no masked logits are ever
all minus infinity when RLlib computes values or log-probabilities over it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from ...rules.actions import NUM_ACTIONS
from ...checks import as_bool, as_mapping
from ...rules.observation import OBS_SIZE, observation_scales

#: The key of the observation vector (RLlib's masking module's name for it).
OBS_KEY = "observations"
#: The key of the legal mask.
MASK_KEY = "action_mask"
#: Largest value of the observation Box (entries are counts and one-hots, >= 0).
OBS_HIGH = float(np.finfo(np.float32).max)


def observation_space(num_envs: int | None = None) -> spaces.Dict:
    """The Dict space of one observation, or (``num_envs``) of a batch of that many."""
    lead = () if num_envs is None else (num_envs,)
    return spaces.Dict({
        OBS_KEY: spaces.Box(0.0, OBS_HIGH, lead + (OBS_SIZE,), np.float32),
        MASK_KEY: spaces.Box(0.0, 1.0, lead + (NUM_ACTIONS,), np.float32),
    })


def scales(scale_obs: bool) -> np.ndarray | None:
    """The divisors of the observations (float32[OBS_SIZE]), or ``None`` with ``scale_obs``
    False."""
    return observation_scales().astype(np.float32) if scale_obs else None


def dict_obs(obs: np.ndarray, mask: np.ndarray | None, divisors: np.ndarray | None) -> dict:
    """``{"observations": obs (divided by divisors), "action_mask": mask as float32}``, both new
    arrays; ``mask=None``: all ones (a finished game's last observation)."""
    vector = obs / divisors if divisors is not None else np.array(obs, dtype=np.float32)
    if mask is None:
        flags = np.ones(obs.shape[:-1] + (NUM_ACTIONS,), dtype=np.float32)
    else:
        flags = np.asarray(mask, dtype=np.float32)
    return {OBS_KEY: vector.astype(np.float32, copy=False), MASK_KEY: flags}


def env_settings(config: Any, known: tuple[str, ...]) -> tuple[dict, dict]:
    """Split an RLlib ``env_config`` (a dict, or RLlib's ``EnvContext``) into the settings of
    the adapter named in ``known`` and the rest (the underlying env's arguments, e.g. the
    :class:`~borders_sim.GameConfig` flags); ``scale_obs`` is checked here."""
    items = dict(as_mapping({} if config is None else config, "env_config",
                            "a dict of env settings (RLlib's env_config)"))
    own = {k: items.pop(k) for k in known if k in items}
    if "scale_obs" in own:
        own["scale_obs"] = as_bool(own["scale_obs"], "scale_obs")
    return own, items


def runner_seed(config: Any, seed: int) -> list[int]:
    """Entropy for a seed of one env copy: ``seed`` with the env runner and the vector index
    of RLlib's ``EnvContext`` (0 and 0 for a plain dict), so that every copy on every runner
    plays other games."""
    worker = int(getattr(config, "worker_index", 0) or 0)
    vector = int(getattr(config, "vector_index", 0) or 0)
    return [seed, worker, vector]
