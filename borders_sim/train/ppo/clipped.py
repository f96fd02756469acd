"""The clipped update of PPO (module :mod:`borders_sim.train.ppo`): :func:`ppo_update`, a pure
function of the network, the optimizer, the rollout and the settings, and :class:`PPO`, the
update rule that calls it (its optimizer and the generator of its minibatch shuffles)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import torch

from ..minibatch import Batch
from ..model import PolicyValueNet
from ..rollout import Rollout, advantages, normalized
from . import PPOSettings

if TYPE_CHECKING:
    from ..config import TrainConfig  # (the run's settings: its learning rate and schedule)


@dataclass
class UpdateStats:
    """Means over the update's minibatches."""

    policy_loss: float
    value_loss: float
    entropy: float
    approx_kl: float
    clip_fraction: float
    anchor_kl: float
    skipped: int


def ppo_update(model: PolicyValueNet, optimizer: torch.optim.Optimizer, rollout: Rollout,
               adv: torch.Tensor, returns: torch.Tensor, settings: PPOSettings,
               generator: torch.Generator, anchor: PolicyValueNet | None = None) -> UpdateStats:
    """``settings.epochs`` passes of clipped PPO over the rollout in ``settings.minibatches``
    shuffled minibatches (the shuffle drawn from ``generator``); with ``anchor`` and
    ``settings.anchor_coef > 0``, plus the KL penalty toward ``anchor`` (module docstring).
    The network's figures come from :meth:`~.minibatch.Batch.forward` (the sparse first
    layer, the phase-columns head)."""
    anchored = anchor is not None and settings.anchor_coef > 0
    batch = Batch(model, rollout)
    adv = batch.flat(normalized(adv))
    returns = batch.flat(returns)
    totals = np.zeros(6)
    batches = skipped = 0
    for _ in range(settings.epochs):
        for rows in batch.minibatches(settings.minibatches, generator):
            out = batch.forward(model, rows, anchor if anchored else None)
            log_ratio = out.logp - batch.logp[out.rows]
            ratio = torch.exp(log_ratio)
            a = adv[out.rows]
            policy_loss = torch.max(-a * ratio,
                                    -a * ratio.clamp(1 - settings.clip, 1 + settings.clip)).mean()
            value_loss = 0.5 * (out.value - returns[out.rows]).pow(2).mean()
            entropy = out.entropy.mean()
            loss = policy_loss + settings.value_coef * value_loss - settings.entropy_coef * entropy
            kl_anchor = torch.zeros(())
            if anchored:
                kl_anchor = out.anchor_kl.mean()
                loss = loss + settings.anchor_coef * kl_anchor
            if not torch.isfinite(loss):
                skipped += 1
                continue
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), settings.max_grad_norm)
            optimizer.step()
            with torch.no_grad():
                kl = ((ratio - 1) - log_ratio).mean()
                clipped = ((ratio - 1).abs() > settings.clip).float().mean()
            totals += [policy_loss.item(), value_loss.item(), entropy.item(), kl.item(),
                       clipped.item(), kl_anchor.item()]
            batches += 1
    means = totals / max(batches, 1)
    return UpdateStats(*map(float, means), skipped=skipped)


class PPO:
    """The PPO update of ``model`` with ``settings`` in the run ``config`` (its learning rate
    and schedule): its Adam optimizer and the generator of its minibatch shuffles (seeded by
    ``seed``) (:class:`~.algorithm.Algorithm`, made as a :class:`~.algorithm.Factory`)."""

    #: the settings' dataclass (what ``TrainConfig.settings`` holds for PPO)
    Settings = PPOSettings

    def __init__(self, model: PolicyValueNet, settings: PPOSettings, config: TrainConfig,
                 seed: int) -> None:
        self.model, self.settings, self.config = model, settings, config
        self.generator = torch.Generator().manual_seed(seed)
        self.reset()

    def update(self, rollout: Rollout, last_value: torch.Tensor, update: int,
               anchor: PolicyValueNet | None = None) -> UpdateStats:
        """One update from ``rollout`` (``last_value``: the values of the decisions pending
        after it; ``update``: the updates made before, for the learning-rate schedule;
        ``anchor``: the KL penalty's network, if any)."""
        s = self.settings
        self.optimizer.param_groups[0]["lr"] = self.config.learning_rate(update)
        adv, returns = advantages(rollout, last_value, s.gamma, s.gae_lambda)
        return ppo_update(self.model, self.optimizer, rollout, adv, returns, s,
                          self.generator, anchor)

    def reset(self) -> None:
        """A fresh optimizer (at the start, or once the network's weights were replaced); the
        generator goes on."""
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=self.config.lr, eps=1e-5)

    def state(self) -> dict:
        """What a checkpoint keeps of the update rule: the optimizer's and the generator's
        states."""
        return {"optimizer": self.optimizer.state_dict(), "generator": self.generator.get_state()}

    def restore(self, state: dict) -> None:
        """Continue from :meth:`state`."""
        self.optimizer.load_state_dict(state["optimizer"])
        self.generator.set_state(state["generator"])
