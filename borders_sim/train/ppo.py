"""Masked PPO: the rollout storage, generalised advantage estimation and the clipped update.

:class:`PPO` is the update rule of a :class:`~.learner.Learner`, behind the small interface
:class:`~.algorithm.Algorithm` (update from a rollout, checkpoint state, reset) that another
update rule would implement; :func:`ppo_update` is its step, a pure function of the network,
the optimizer, the rollout and the settings.

The algorithm is PPO with clipping (Schulman et al., 2017) as CleanRL writes it, with the legal
mask applied to the logits (illegal actions get :data:`~.model.MASKED_LOGIT`, so they have
probability 0 and no gradient). Every decision of the training env is the learner's (its
opponents play inside the compiled call), so the storage is one row of ``num_envs`` decisions
per step and the advantages are computed per game slot: a game that ends cuts its slot's
returns there (the env deals the next game in the same step).

**Anchor.** With ``settings.anchor_coef > 0`` and an ``anchor`` network (the policy the run
started from: the behaviour-cloned teacher, or ``--init``), the loss adds
``anchor_coef * KL(pi || pi_anchor)`` over the legal actions of each decision, so the policy
improves on its starting point without forgetting it (the KL regulariser toward a supervised
policy of AlphaStar, Vinyals et al., 2019).

Numerical safety: advantages are normalised once over the whole batch, never over a minibatch
(a minibatch of one sample has no spread), with ``1e-8`` under the square root; a row with no
legal action keeps finite logits; an update whose loss is not finite is skipped (and counted)
instead of writing NaN into every weight.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ..rules.actions import NUM_ACTIONS
from ..rules.observation import OBS_SIZE
from .config import PPOSettings, TrainConfig
from .columns import ColumnGroups, policy_terms
from .model import PolicyValueNet, take


class Rollout:
    """``steps`` rows of ``num_envs`` learner decisions, filled by :meth:`put`."""

    def __init__(self, steps: int, num_envs: int) -> None:
        self.steps, self.num_envs = steps, num_envs
        self.obs = torch.zeros((steps, num_envs, OBS_SIZE), dtype=torch.float32)
        self.mask = torch.zeros((steps, num_envs, NUM_ACTIONS), dtype=torch.bool)
        self.action = torch.zeros((steps, num_envs), dtype=torch.int64)
        self.logp = torch.zeros((steps, num_envs), dtype=torch.float32)
        self.value = torch.zeros((steps, num_envs), dtype=torch.float32)
        self.reward = torch.zeros((steps, num_envs), dtype=torch.float32)
        self.done = torch.zeros((steps, num_envs), dtype=torch.bool)

    def put(self, t: int, obs: np.ndarray, mask: np.ndarray, action: torch.Tensor,
            logp: torch.Tensor, value: torch.Tensor) -> None:
        """The decisions of step ``t`` (the env's buffers are copied)."""
        self.obs[t].copy_(torch.from_numpy(obs))
        self.mask[t].copy_(torch.from_numpy(mask))
        self.action[t] = action
        self.logp[t] = logp
        self.value[t] = value

    def result(self, t: int, reward: np.ndarray, done: np.ndarray) -> None:
        """The rewards and game ends of the env step that applied step ``t``'s actions."""
        self.reward[t] = torch.from_numpy(reward.astype(np.float32))
        self.done[t] = torch.from_numpy(done)

    def advantages(self, last_value: torch.Tensor, settings: PPOSettings
                   ) -> tuple[torch.Tensor, torch.Tensor]:
        """GAE advantages and returns, ``[steps, num_envs]``; ``last_value`` is the value of
        the decisions pending after the last step."""
        adv = torch.zeros_like(self.reward)
        gae = torch.zeros(self.num_envs)
        next_value = last_value
        for t in reversed(range(self.steps)):
            live = (~self.done[t]).float()
            delta = self.reward[t] + settings.gamma * next_value * live - self.value[t]
            gae = delta + settings.gamma * settings.gae_lambda * live * gae
            adv[t] = gae
            next_value = self.value[t]
        return adv, adv + self.value


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


def normalized(adv: torch.Tensor) -> torch.Tensor:
    """``adv`` centred and scaled over the whole batch (unchanged for fewer than 2 samples)."""
    if adv.numel() < 2:
        return adv
    return (adv - adv.mean()) / torch.sqrt(adv.var() + 1e-8)


def ppo_update(model: PolicyValueNet, optimizer: torch.optim.Optimizer, rollout: Rollout,
               adv: torch.Tensor, returns: torch.Tensor, settings: PPOSettings,
               generator: torch.Generator, anchor: PolicyValueNet | None = None) -> UpdateStats:
    """``settings.epochs`` passes of clipped PPO over the rollout in ``settings.minibatches``
    shuffled minibatches (the shuffle drawn from ``generator``); with ``anchor`` and
    ``settings.anchor_coef > 0``, plus the KL penalty toward ``anchor`` (module docstring).
    The policy head computes each decision's logits on its phase's columns only
    (:mod:`.columns`)."""
    anchored = anchor is not None and settings.anchor_coef > 0
    n = rollout.steps * rollout.num_envs
    device = model.inv_scale.device
    obs = model.inputs(rollout.obs.reshape(n, OBS_SIZE).numpy())
    groups = ColumnGroups(rollout.mask.reshape(n, NUM_ACTIONS), rollout.action.reshape(n),
                          device)
    old_logp = rollout.logp.reshape(n).to(device)
    adv = normalized(adv.reshape(n)).to(device)
    returns = returns.reshape(n).to(device)
    size = max(1, n // settings.minibatches)
    totals = np.zeros(6)
    batches = skipped = 0
    for _ in range(settings.epochs):
        order = torch.randperm(n, generator=generator)
        for lo in range(0, n, size):
            rows = order[lo:lo + size]
            x = take(obs, rows)
            idx = rows.to(device)
            h = model.trunk(x)
            value = model.value(h)
            anchor_h = None
            if anchored:
                with torch.no_grad():
                    anchor_h = anchor.trunk(x)
            terms = policy_terms(model, h, groups.split(idx), anchor if anchored else None,
                                 anchor_h)
            at = idx[terms.order]
            log_ratio = terms.logp - old_logp[at]
            ratio = torch.exp(log_ratio)
            a = adv[at]
            policy_loss = torch.max(-a * ratio,
                                    -a * ratio.clamp(1 - settings.clip, 1 + settings.clip)).mean()
            value_loss = 0.5 * (value - returns[idx]).pow(2).mean()
            entropy = terms.entropy.mean()
            loss = policy_loss + settings.value_coef * value_loss - settings.entropy_coef * entropy
            kl_anchor = torch.zeros(())
            if anchored:
                kl_anchor = terms.anchor_kl.mean()
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
    """The PPO update of ``model`` with ``config``'s settings: its Adam optimizer, the generator
    of its minibatch shuffles (seeded by ``seed``) and the learning-rate schedule
    (:class:`~.algorithm.Algorithm`)."""

    def __init__(self, model: PolicyValueNet, config: TrainConfig, seed: int) -> None:
        self.model, self.config = model, config
        self.generator = torch.Generator().manual_seed(seed)
        self.reset()

    def update(self, rollout: Rollout, last_value: torch.Tensor, update: int,
               anchor: PolicyValueNet | None = None) -> UpdateStats:
        """One update from ``rollout`` (``last_value``: the values of the decisions pending
        after it; ``update``: the updates made before, for the learning-rate schedule;
        ``anchor``: the KL penalty's network, if any)."""
        c = self.config
        if c.anneal_lr and c.max_updates:
            frac = 1.0 - update / c.max_updates
            self.optimizer.param_groups[0]["lr"] = c.lr * max(frac, 0.05)
        adv, returns = rollout.advantages(last_value, c.ppo)
        return ppo_update(self.model, self.optimizer, rollout, adv, returns, c.ppo,
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
        """Continue from :meth:`state` (extra keys are ignored)."""
        self.optimizer.load_state_dict(state["optimizer"])
        self.generator.set_state(state["generator"])
