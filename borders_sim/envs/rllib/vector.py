"""The compiled training env as the vector env of an RLlib env runner: many games per call.

:class:`TrainingVectorEnv` is a ``gymnasium.vector.VectorEnv`` over
:class:`~borders_sim.envs.TrainingEnv`: ``num_envs`` games of one learning seat each, the
opponents (compiled bots, ``"ppo"`` policies) played inside the compiled call, so one
``step`` plays every opponent decision of every game up to each learner's next one. RLlib's
``SingleAgentEnvRunner`` samples from it directly: the env is registered with a
``vector_entry_point``, and :func:`~borders_sim.envs.rllib.config.ppo_config` sets
``gym_env_vectorize_mode="vector_entry_point"``, so RLlib calls the env creator with
``num_envs_per_env_runner`` instead of stacking that many Python envs.

The observations are RLlib's masking Dict (:mod:`.spaces`), batched: ``"observations"``
float32[N, OBS_SIZE] (scaled by default) and ``"action_mask"`` float32[N, NUM_ACTIONS]. The env
uses Gymnasium's ``NEXT_STEP`` autoreset, the one RLlib's runner expects: the step in which
game ``k`` ends returns its last observation (all-ones mask row) with ``terminated[k]``, and
the next step ignores ``actions[k]`` and returns the first decision of ``k``'s next game.
``infos`` hold ``outcome`` (the learner's ``(score, margin, win share)``) for the games that
ended, with ``_outcome`` saying which; nothing else, so RLlib's per-step work on them is small.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from ...rules.actions import NUM_ACTIONS
from ...checks import as_int, as_seed
from ..training import TrainingEnv
from .spaces import MASK_KEY, OBS_KEY, env_settings, observation_space, runner_seed

#: The settings of ``env_config`` this env reads itself; every other key goes to
#: :class:`~borders_sim.envs.TrainingEnv` (``num_players``, ``opponents``, ``weights``,
#: ``seat``, ``reward``, ``dense``, the :class:`~borders_sim.GameConfig` flags, ...).
SETTINGS = ("num_envs", "scale_obs", "seed")


class TrainingVectorEnv(gymnasium.vector.VectorEnv):
    """:class:`~borders_sim.envs.TrainingEnv` in RLlib's masking keys (module docstring).

    Args:
        config: RLlib's ``env_config`` (with ``num_envs`` added by RLlib's runner):
            ``num_envs`` (games per call, default 1); ``scale_obs`` (default True);
            ``seed`` (the stream of games until RLlib's first ``reset(seed=...)``, mixed with
            the runner's index where RLlib passes it; default: fresh entropy); and every
            argument of :class:`~borders_sim.envs.TrainingEnv` (``num_players``,
            ``opponents``, ``seat``, ``reward``, ``dense``, ... and the
            :class:`~borders_sim.GameConfig` flags).

    Raises:
        ValueError: a bad setting, named; an opponent that would be played outside the
            compiled call (RLlib steps the learner only), or an ``autoreset_mode`` other than
            ``"next_step"``.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}

    def __init__(self, config: Any = None, **kwargs: Any) -> None:
        own, rest = env_settings({**dict(config or {}), **kwargs}, SETTINGS)
        if "autoreset_mode" in rest and rest["autoreset_mode"] not in (
                "next_step", AutoresetMode.NEXT_STEP):
            raise ValueError(f"TrainingVectorEnv uses autoreset_mode 'next_step', the mode "
                             f"RLlib's env runner expects; got {rest['autoreset_mode']!r}")
        rest["autoreset_mode"] = AutoresetMode.NEXT_STEP
        seed = own.get("seed")
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
        else:
            entropy = runner_seed(config, as_seed(seed))
            seed = int(np.random.SeedSequence(entropy).generate_state(1, np.uint64)[0])
        self.env = TrainingEnv(as_int(own.get("num_envs", 1), "num_envs", 1),
                               scale_obs=own.get("scale_obs", True), seed=seed, **rest)
        if self.env.external:
            raise ValueError(f"TrainingVectorEnv plays compiled opponents only; "
                             f"{[self.env.opponents[m] for m in self.env.external]} are "
                             "external (bot names of borders_sim.agents.COMPILED_BOTS and ppo "
                             "specs are compiled)")
        self.num_envs = self.env.num_envs
        self.single_observation_space = observation_space()
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = observation_space(self.num_envs)
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, NUM_ACTIONS))
        self._no_infos: dict = {}

    def reset(self, *, seed: int | None = None,
              options: dict | None = None) -> tuple[dict, dict]:
        """Deal a new game in every slot (``seed``: restart the stream from it)."""
        obs, infos = self.env.reset(seed=seed, options=options)
        return self._observation(obs, infos["action_mask"]), {}

    def step(self, actions: Any) -> tuple[dict, np.ndarray, np.ndarray, np.ndarray, dict]:
        """One action per game (module docstring); an illegal action is refused as
        :meth:`TrainingEnv.step` refuses it (a ValueError naming the game), nothing stepped."""
        obs, rewards, terminated, truncated, infos = self.env.step(
            np.asarray(actions, dtype=np.int64) if not isinstance(actions, np.ndarray)
            else actions)
        out = {}
        if terminated.any():
            out = {"outcome": infos["outcome"].copy(), "_outcome": infos["_outcome"].copy()}
        return (self._observation(obs, infos["action_mask"]), rewards.astype(np.float32),
                terminated.copy(), truncated.copy(), out)

    def action_masks(self) -> np.ndarray:
        """bool[N, NUM_ACTIONS]: the legal actions of each game's pending decision."""
        return self.env.action_masks().copy()

    def close(self, **kwargs: Any) -> None:
        env = getattr(self, "env", None)  # (None: __init__ refused its arguments)
        if env is not None:
            env.close()

    @staticmethod
    def _observation(obs: np.ndarray, mask: np.ndarray) -> dict:
        # copies: the env's buffers are overwritten by the next call, and RLlib keeps views
        return {OBS_KEY: obs.copy(), MASK_KEY: mask.astype(np.float32)}

    def __repr__(self) -> str:
        return f"TrainingVectorEnv({self.env!r})"
