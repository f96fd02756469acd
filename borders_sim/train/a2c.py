"""A2C, advantage actor-critic: the example of an update rule written against the trainer's
public API (``borders-sim train --algorithm a2c``). Copy this file to write your own.

One gradient step per rollout on every decision of it, the loss of Mnih et al. (2016) with GAE
advantages: ``-adv * log pi(a|s) + value_coef * (V(s) - R)^2 / 2 - entropy_coef * H(pi(.|s))``,
plus ``anchor_coef * KL(pi || pi_anchor)`` when the trainer keeps an anchor. Everything else
(acting, the games, the league, checkpoints, evaluation) is the trainer's. The pieces used:

* :class:`~.rollout.Rollout`, :func:`~.rollout.advantages` and :func:`~.rollout.normalized`:
  the decisions collected this update, and their GAE advantages and returns;
* :class:`~.minibatch.Batch`: the rollout prepared once, and its :meth:`~.minibatch.Batch.
  forward`, the network on any rows (log-probabilities of the taken actions, entropies, values,
  KL to the anchor), through the sparse first layer and the phase-columns head;
* :meth:`~.config.TrainConfig.learning_rate`: the run's ``--lr`` and its schedule.

A factory is ``factory(model, settings, config, seed) -> Algorithm`` with a ``Settings``
dataclass (:mod:`.algorithm`): this class is one.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ..settings import setting
from .config import TrainConfig
from .minibatch import Batch
from .model import PolicyValueNet
from .rollout import Rollout, advantages, normalized


@dataclass
class A2CSettings:
    """A2C's settings, each declared once (:func:`~borders_sim.settings.setting`: its help and
    bounds, checked by :func:`~borders_sim.train.algorithm.settings_of`); ``--gamma`` and the
    other options of those names on the command line (or ``--algorithm-arg NAME=VALUE``),
    ``TrainConfig.algorithm_args`` in Python."""

    gamma: float = setting(0.999, lo=0.0, hi=1.0, help="the discount")
    gae_lambda: float = setting(0.95, lo=0.0, hi=1.0,
                                help="GAE's lambda (1: Monte-Carlo returns minus the value)")
    value_coef: float = setting(0.5, lo=0.0, hi=1000.0, help="weight of the value loss")
    entropy_coef: float = setting(0.01, lo=0.0, hi=1000.0, help="weight of the entropy bonus")
    max_grad_norm: float = setting(0.5, lo=0.0, above=True, hi=1e6,
                                   help="the gradient's norm is clipped to this")
    anchor_coef: float = setting(0.0, lo=0.0, hi=1000.0,
                                 help="weight of KL(pi || anchor); > 0: the trainer keeps an "
                                      "anchor")
    anchor_every: int = setting(0, lo=0, hi=10**9,
                                help="move the anchor to the current policy every K updates "
                                     "(0: never)")


@dataclass
class A2CStats:
    """One update's figures: the curve's columns (``curve.csv``)."""

    policy_loss: float
    value_loss: float
    entropy: float
    anchor_kl: float
    skipped: int  # 1 if the loss was not finite and the step was skipped


class A2C:
    """Advantage actor-critic on ``model`` (module docstring); ``seed`` is unused (A2C draws
    nothing: every decision is in its one batch)."""

    Settings = A2CSettings  # what --algorithm-arg sets, and what the files record

    def __init__(self, model: PolicyValueNet, settings: A2CSettings, config: TrainConfig,
                 seed: int) -> None:
        self.model, self.settings, self.config = model, settings, config
        self.reset()  # the optimizer

    def update(self, rollout: Rollout, last_value: torch.Tensor, update: int,
               anchor: PolicyValueNet | None = None) -> A2CStats:
        """One gradient step from ``rollout``; ``last_value`` is the value of the decisions
        pending after it (the bootstrap), ``update`` the updates made before (for the learning
        rate's schedule), ``anchor`` the network to stay near (given only while the settings'
        ``anchor_coef > 0``)."""
        s = self.settings
        # the learning rate of this update (--lr, annealed over --max-updates)
        self.optimizer.param_groups[0]["lr"] = self.config.learning_rate(update)
        # GAE advantages and the returns the value head learns, [steps, num_envs] each
        adv, returns = advantages(rollout, last_value, s.gamma, s.gae_lambda)
        # the rollout as the network reads it: sparse observations, phase groups, flat arrays
        batch = Batch(self.model, rollout)
        # the network on every row: log pi(a|s), H(pi(.|s)), V(s) (and the KL to the anchor)
        out = batch.forward(self.model, torch.arange(batch.size), anchor)
        # line the advantages and returns up with out's rows (normalised over the whole batch)
        adv = batch.flat(normalized(adv))[out.rows]
        returns = batch.flat(returns)[out.rows]
        policy_loss = -(adv * out.logp).mean()  # the policy gradient
        value_loss = 0.5 * (out.value - returns).pow(2).mean()  # the critic's regression
        entropy = out.entropy.mean()  # exploration
        loss = policy_loss + s.value_coef * value_loss - s.entropy_coef * entropy
        anchor_kl = torch.zeros(())
        if anchor is not None:  # stay near the anchor
            anchor_kl = out.anchor_kl.mean()
            loss = loss + s.anchor_coef * anchor_kl
        if not torch.isfinite(loss):  # never write NaN into the weights
            return A2CStats(float("nan"), float("nan"), float("nan"), float("nan"), 1)
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), s.max_grad_norm)
        self.optimizer.step()
        return A2CStats(policy_loss.item(), value_loss.item(), entropy.item(), anchor_kl.item(),
                        0)

    def reset(self) -> None:
        """A fresh optimizer (at the start, or once the trainer replaced the weights)."""
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=self.config.lr, eps=1e-5)

    def state(self) -> dict:
        """What a checkpoint keeps: the optimizer's state (tensors and plain values)."""
        return {"optimizer": self.optimizer.state_dict()}

    def restore(self, state: dict) -> None:
        """Continue from :meth:`state`."""
        self.optimizer.load_state_dict(state["optimizer"])
