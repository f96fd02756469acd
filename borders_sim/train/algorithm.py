"""The interface of an update rule, as a :class:`~.learner.Learner` uses it.

A learner collects a rollout (:class:`~.ppo.Rollout`: observations, masks, actions, their
log-probabilities and values, rewards, game ends) with its compiled actor, then asks its
algorithm for one update of the network from it. :class:`~.ppo.PPO` is the one shipped;
another rule (a V-trace learner, a policy-gradient baseline, NeuRD) implements the same four
methods and takes its place in ``Learner.algorithm``, with the collection, the league, the
checkpoints and the curve unchanged.
"""

from __future__ import annotations

from typing import Any, Protocol

import torch

from .model import PolicyValueNet
from .ppo import Rollout


class Algorithm(Protocol):
    """An update rule of a learner's policy-value network."""

    def update(self, rollout: Rollout, last_value: torch.Tensor, update: int,
               anchor: PolicyValueNet | None = None) -> Any:
        """One update of the network from ``rollout``; ``last_value`` holds the values of the
        decisions pending after its last step, ``update`` the updates made before this one,
        ``anchor`` a network to stay near (or None). Returns a dataclass of floats, the
        curve's columns for this update."""

    def reset(self) -> None:
        """Start afresh (the network's weights were replaced): a new optimizer state."""

    def state(self) -> dict:
        """What a checkpoint keeps of the rule: tensors and plain values only."""

    def restore(self, state: dict) -> None:
        """Continue from :meth:`state` (a checkpoint's dict, with other keys beside)."""
