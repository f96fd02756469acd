"""BORDERS for Ray RLlib (new API stack): envs with masks in RLlib's keys, the masking module,
and a ready ``PPOConfig``.

Set-up (the ``rllib`` extra: ``pip install torch==2.13.0``, then ``pip install ".[rllib]"`` in
the source checkout)::

    from borders_sim.envs.rllib import ppo_config

    config = ppo_config("training", {"num_players": 4, "opponents": ["honest", "bluffer"]})
    algo = config.build_algo()
    print(algo.train()["env_runners"]["num_env_steps_sampled"])

Three routes (:mod:`.config`), each a registered env name:

* ``"multi_agent"``: :class:`MultiAgentBordersEnv`, every seat an agent of an RLlib
  ``MultiAgentEnv``, one shared policy by default (self-play); one game per env copy.
* ``"single_seat"``: :class:`SingleSeatRLlibEnv`, one learning seat against bots (any bot spec,
  or callables), one game per env copy.
* ``"training"``: :class:`TrainingVectorEnv`, one learning seat against compiled opponents,
  ``num_envs_per_env_runner`` games stepped in one compiled call, sampled by
  :class:`TrainingEnvRunner` (RLlib's runner with a batched loop): the route at the compiled
  env's speed.

Every env's observation is a Dict of ``"observations"`` (float32[OBS_SIZE], scaled by
:func:`~borders_sim.rules.observation.observation_scales` unless ``scale_obs=False``) and
``"action_mask"`` (float32[NUM_ACTIONS], 1.0 where legal), the keys RLlib's masking module reads
(:mod:`.spaces`). :func:`masking_module` is RLlib's ``ActionMaskingTorchRLModule`` (ours,
:class:`MaskedPPOTorchRLModule`, where an RLlib lacks it), and :func:`check_env` RLlib's env
check with legal actions only. :func:`ppo_config` puts them together.

On a cluster: install the same borders_sim, ``ray[rllib]`` and torch on every node (the env
classes are pickled by reference, and each node compiles or loads the kernels: run
``borders-sim warmup`` on each), Ray's authentication token on every node and the driver
(Ray 2.60 refuses a node without it: ``docs/env-rllib.md``, "Your own cluster"), ``ray start
--head`` on one node, ``ray start --address=HEAD:6379`` on the others, then in the driver
``ray.init(address="auto")`` and ``ppo_config(..., num_env_runners=R)``: each runner steps its
own games (``NUMBA_NUM_THREADS`` in Ray's ``runtime_env`` sets how many threads a runner's
games use).

Importing this module without Ray's RLlib or torch raises a ModuleNotFoundError with the
install line (:func:`~borders_sim.install_hints.install_hint`).
"""

from ...install_hints import needs

try:
    import ray.rllib  # noqa: F401
    import torch  # noqa: F401
except ModuleNotFoundError as err:  # the rllib extra is not installed
    _missing = (err.name or "ray").partition(".")[0]  # torch, or ray or a dependency of rllib
    raise ModuleNotFoundError(needs("borders_sim.envs.rllib", "rllib",
                                    "torch" if _missing == "torch" else "ray[rllib]"),
                              name=_missing) from err

from .check import EnvCheckError, check_created_env, check_env  # noqa: E402
from .config import (DEFAULT_NUM_ENVS, MINIBATCHES, MULTI_AGENT_ENV, NUM_EPOCHS,  # noqa: E402
                     ROUTES, SHARED_POLICY, SINGLE_SEAT_ENV, STEPS_PER_GAME, TRAINING_ENV,
                     ppo_config, register_envs, shared_policy)
from .masking import MaskedPPOTorchRLModule, masking_module  # noqa: E402
from .multi_agent import MultiAgentBordersEnv  # noqa: E402
from .runner import TrainingEnvRunner  # noqa: E402
from .single_seat import SingleSeatRLlibEnv  # noqa: E402
from .spaces import MASK_KEY, OBS_KEY, observation_space  # noqa: E402
from .vector import TrainingVectorEnv  # noqa: E402

register_envs()

__all__ = ["DEFAULT_NUM_ENVS", "EnvCheckError", "MASK_KEY", "MINIBATCHES", "MULTI_AGENT_ENV",
           "MaskedPPOTorchRLModule", "MultiAgentBordersEnv", "NUM_EPOCHS", "OBS_KEY", "ROUTES",
           "SHARED_POLICY", "SINGLE_SEAT_ENV", "STEPS_PER_GAME", "SingleSeatRLlibEnv",
           "TRAINING_ENV",
           "TrainingEnvRunner", "TrainingVectorEnv", "check_created_env", "check_env",
           "masking_module", "observation_space", "ppo_config", "register_envs",
           "shared_policy"]
