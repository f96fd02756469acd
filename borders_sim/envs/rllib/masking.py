"""The RLModule that masks illegal actions: RLlib's own where the installed RLlib ships it.

RLlib (2.x, new API stack) ships ``ActionMaskingTorchRLModule`` among its examples
(``ray.rllib.examples.rl_modules.classes.action_masking_rlm``): a PPO torch module that reads
the Dict observation of :mod:`.spaces`, builds its networks over ``"observations"`` alone and
adds ``log(action_mask)`` (clamped to the smallest float) to the logits of every forward pass,
so an action of mask 0 is never sampled. :func:`masking_module` returns that class when the
installed RLlib has it, and otherwise :class:`MaskedPPOTorchRLModule`, the same module written
here (kept importable, so a test can run both).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import (
    DefaultPPOTorchRLModule)
from ray.rllib.core.columns import Columns
from ray.rllib.utils.torch_utils import FLOAT_MIN

from .spaces import MASK_KEY, OBS_KEY


class MaskedPPOTorchRLModule(DefaultPPOTorchRLModule):
    """PPO's default torch module over ``"observations"``, its logits masked by
    ``"action_mask"`` (module docstring): borders_sim's fallback for an RLlib without
    ``ActionMaskingTorchRLModule``."""

    def __init__(self, *, observation_space: gym.Space | None = None, **kwargs: Any) -> None:
        if not (isinstance(observation_space, gym.spaces.Dict)
                and {OBS_KEY, MASK_KEY} <= set(observation_space.spaces)):
            raise ValueError(f"MaskedPPOTorchRLModule needs a Dict observation space with "
                             f"{OBS_KEY!r} and {MASK_KEY!r}, got {observation_space}")
        self.observation_space_with_mask = observation_space
        super().__init__(observation_space=observation_space[OBS_KEY], **kwargs)

    def setup(self) -> None:
        """Build PPO's networks over the observation vector, then take the observation space
        with the mask as the module's own."""
        super().setup()  # networks over the observation vector alone
        self.observation_space = self.observation_space_with_mask

    def _forward_inference(self, batch: dict, **kwargs: Any) -> dict:
        mask, batch = _split(batch)
        return _masked(super()._forward_inference(batch, **kwargs), mask)

    def _forward_exploration(self, batch: dict, **kwargs: Any) -> dict:
        mask, batch = _split(batch)
        return _masked(super()._forward_exploration(batch, **kwargs), mask)

    def _forward_train(self, batch: dict, **kwargs: Any) -> dict:
        mask, batch = _split(batch)
        return _masked(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch: dict, embeddings: Any = None) -> Any:
        """PPO's value estimates of ``batch``, its mask left out of the observations."""
        if isinstance(batch[Columns.OBS], dict):
            _, batch = _split(batch)
        return super().compute_values(batch, embeddings)


def _split(batch: dict) -> tuple[Any, dict]:
    """The mask of ``batch`` and a copy of ``batch`` whose observations are the vectors."""
    obs = batch[Columns.OBS]
    if not isinstance(obs, dict):
        raise ValueError(f"the batch's observations must be a dict of {OBS_KEY!r} and "
                         f"{MASK_KEY!r} (the envs of borders_sim.envs.rllib), got "
                         f"{type(obs).__name__}")
    return obs[MASK_KEY], {**batch, Columns.OBS: obs[OBS_KEY]}


def _masked(outs: dict, mask: Any) -> dict:
    """``outs`` with ``log(mask)`` (clamped to the smallest float) added to its logits."""
    outs[Columns.ACTION_DIST_INPUTS] = (outs[Columns.ACTION_DIST_INPUTS]
                                        + torch.clamp(torch.log(mask), min=FLOAT_MIN))
    return outs


def masking_module() -> type:
    """RLlib's ``ActionMaskingTorchRLModule`` where the installed RLlib ships it, else
    :class:`MaskedPPOTorchRLModule`."""
    try:
        from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
            ActionMaskingTorchRLModule)
    except ImportError:
        return MaskedPPOTorchRLModule
    return ActionMaskingTorchRLModule
