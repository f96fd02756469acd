"""The training env as a stable-baselines3 ``VecEnv``, masks included, for bring-your-own
algorithms (sb3-contrib's ``MaskablePPO`` among them).

:class:`SB3VecEnv` wraps a :class:`~borders_sim.envs.training.TrainingEnv` whose opponents all
play inside the compiled call (every decision it returns is the learner's), and speaks SB3's
protocol: ``reset() -> obs``, ``step_async`` / ``step_wait -> (obs, rewards, dones, infos)``
with ``infos[k]["terminal_observation"]`` on a game's last step (and
``"episode": {"r", "l"}``, as SB3's ``Monitor`` would write it), and
``env_method("action_masks")``, which sb3-contrib's ``get_action_masks`` calls. Actions are
checked as :class:`TrainingEnv` checks them, before anything is stepped and never cast (an int
array, one legal id per game; ``11.9`` or ``"13"`` are refused, not played as 11 or 13), and a
seed as every seed is (:mod:`borders_sim.checks`)::

    from sb3_contrib import MaskablePPO
    from borders_sim.envs.sb3 import SB3VecEnv

    env = SB3VecEnv(num_envs=64, num_players=4, opponents=("honest", "bluffer", "collector"))
    MaskablePPO("MlpPolicy", env, n_steps=64, seed=0).learn(100_000)

Needs stable-baselines3, which the ``rl`` extra installs with sb3-contrib (``pip install
torch==2.13.0``, the CPU build, then ``pip install ".[rl]"`` in the source checkout); importing
this module without it raises a ModuleNotFoundError with that line
(:func:`~borders_sim.install_hints.install_hint`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode

from ..checks import as_int, as_seed, as_sequence, is_int
from ..install_hints import needs

try:
    from stable_baselines3.common.vec_env import VecEnv
except ModuleNotFoundError as err:  # stable-baselines3, or torch under it, is not installed
    _missing = (err.name or "stable_baselines3").partition(".")[0]
    raise ModuleNotFoundError(needs("borders_sim.envs.sb3 (SB3VecEnv)", "rl", _missing),
                              name=_missing) from err
from .training import TrainingEnv, as_autoreset_mode


class SB3VecEnv(VecEnv):
    """A :class:`TrainingEnv` (built from the same arguments) for stable-baselines3.

    SB3's ``VecEnv`` resets a game in the step in which it ends, so the env is built with
    ``autoreset_mode=AutoresetMode.SAME_STEP`` (the only mode accepted here).

    Raises:
        ValueError: an opponent that would be played outside the kernel (SB3 steps the
            learner only), or another autoreset mode.
    """

    def __init__(self, num_envs: int = 64, **kwargs: Any) -> None:
        mode = as_autoreset_mode(kwargs.pop("autoreset_mode", AutoresetMode.SAME_STEP))
        if mode != AutoresetMode.SAME_STEP:
            raise ValueError(f"SB3VecEnv resets a game in the step in which it ends: "
                             f"autoreset_mode must be 'same_step', got {mode}")
        self.env = TrainingEnv(num_envs, autoreset_mode=mode, **kwargs)
        if self.env.external:
            raise ValueError(f"SB3VecEnv plays compiled opponents only; "
                             f"{[self.env.opponents[m] for m in self.env.external]} are external")
        super().__init__(self.env.num_envs, self.env.single_observation_space,
                         self.env.single_action_space)
        self._actions: Any = None  # the actions of step_async, checked, for step_wait
        self._returns = np.zeros(self.num_envs)
        self._lengths = np.zeros(self.num_envs, dtype=np.int64)

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seed the next :meth:`reset`, which restarts the stream of games from ``seed`` (SB3's
        ``VecEnv.seed``; ``None`` draws one). A bad seed is refused here and changes nothing:
        later resets go on as before."""
        if seed is not None:
            as_seed(seed)
        return super().seed(seed)

    def reset(self) -> np.ndarray:
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        obs, _ = self.env.reset(seed=seed)
        self._reset_seeds()
        self._returns[:] = 0
        self._lengths[:] = 0
        return obs.copy()

    def step_async(self, actions: np.ndarray) -> None:
        """Take ``actions`` for the next :meth:`step_wait`, checked now as
        :meth:`TrainingEnv.step` checks them (a ``ValueError`` naming the bad entry; nothing
        is taken then)."""
        self.env.check_actions(actions)
        self._actions = actions

    def step_wait(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        if self._actions is None:
            raise RuntimeError("call step_async(actions) before step_wait()")
        actions, self._actions = self._actions, None
        obs, rewards, done, _, infos = self.env.step(actions)
        self._returns += rewards
        self._lengths += 1
        out = [{} for _ in range(self.num_envs)]
        for k in np.flatnonzero(done):
            out[k] = {"terminal_observation": infos["final_obs"][k].copy(),
                      "episode": {"r": float(self._returns[k]), "l": int(self._lengths[k])},
                      "outcome": infos["outcome"][k].copy()}
            self._returns[k] = 0
            self._lengths[k] = 0
        return obs.copy(), rewards.astype(np.float32), done.copy(), out

    def action_masks(self) -> np.ndarray:
        """bool[N, NUM_ACTIONS]: the legal actions of each game's pending decision."""
        return self.env.action_masks().copy()

    def env_method(self, method_name: str, *method_args: Any, indices: Any = None,
                   **method_kwargs: Any) -> list:
        if method_name != "action_masks":
            raise AttributeError(f"SB3VecEnv has no per-env method {method_name!r}")
        masks = self.action_masks()
        return [masks[k] for k in self._indices(indices)]

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == "action_masks" or hasattr(self.env, attr_name)

    def get_attr(self, attr_name: str, indices: Any = None) -> list:
        value = getattr(self.env, attr_name)
        return [value for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
        raise AttributeError("SB3VecEnv's games share one compiled env: set attributes on .env")

    def env_is_wrapped(self, wrapper_class: type, indices: Any = None) -> list[bool]:
        return [False for _ in self._indices(indices)]

    def close(self) -> None:
        self.env.close()

    def _indices(self, indices: Any) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        last = self.num_envs - 1
        if is_int(indices):
            return [as_int(indices, "indices", 0, last)]
        items = as_sequence(indices, "indices", "an env index or a list of them")
        return [as_int(k, f"indices[{i}]", 0, last) for i, k in enumerate(items)]
