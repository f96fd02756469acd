"""A user's update rule, defined outside the package and written against the public API of
``borders_sim.train`` only: loaded by the tests as ``--algorithm tests.algo_fixture:make``.

A vanilla policy gradient with a learned baseline over shuffled minibatches (so its state holds
a generator, and a resumed run must restore it to make the same next update), plain SGD with
momentum (an optimizer state to restore too).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from borders_sim.train import Batch, PolicyValueNet, Rollout, TrainConfig, advantages, normalized


@dataclass
class Settings:
    """The rule's settings (``--algorithm-arg``)."""

    minibatches: int = 2
    gamma: float = 0.99
    lam: float = 1.0
    momentum: float = 0.9
    baseline: bool = True

    def check(self) -> None:
        if self.minibatches < 1:
            raise ValueError(f"minibatches must be at least 1, got {self.minibatches}")


@dataclass
class Stats:
    """The curve's columns."""

    pg_loss: float
    baseline_loss: float


class Gradient:
    """The rule (a :class:`borders_sim.train.Algorithm`)."""

    def __init__(self, model: PolicyValueNet, settings: Settings, config: TrainConfig,
                 seed: int) -> None:
        self.model, self.settings, self.config = model, settings, config
        self.generator = torch.Generator().manual_seed(seed)
        self.reset()

    def update(self, rollout: Rollout, last_value: torch.Tensor, update: int,
               anchor: PolicyValueNet | None = None) -> Stats:
        s = self.settings
        self.optimizer.param_groups[0]["lr"] = self.config.learning_rate(update)
        adv, returns = advantages(rollout, last_value, s.gamma, s.lam)
        if not s.baseline:
            adv = returns
        batch = Batch(self.model, rollout)
        adv, returns = batch.flat(normalized(adv)), batch.flat(returns)
        pg = vl = 0.0
        for rows in batch.minibatches(s.minibatches, self.generator):
            out = batch.forward(self.model, rows)
            pg_loss = -(adv[out.rows] * out.logp).mean()
            baseline_loss = 0.5 * (out.value - returns[out.rows]).pow(2).mean()
            self.optimizer.zero_grad(set_to_none=True)
            (pg_loss + baseline_loss).backward()
            self.optimizer.step()
            pg, vl = pg + pg_loss.item(), vl + baseline_loss.item()
        return Stats(pg, vl)

    def reset(self) -> None:
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=self.config.lr,
                                         momentum=self.settings.momentum)

    def state(self) -> dict:
        return {"optimizer": self.optimizer.state_dict(), "generator": self.generator.get_state()}

    def restore(self, state: dict) -> None:
        self.optimizer.load_state_dict(state["optimizer"])
        self.generator.set_state(state["generator"])


def make(model: PolicyValueNet, settings: Settings, config: TrainConfig, seed: int) -> Gradient:
    """The factory: ``--algorithm tests.algo_fixture:make``."""
    return Gradient(model, settings, config, seed)


make.Settings = Settings
