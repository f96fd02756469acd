"""A rollout as an update reads it, and the network's forward on a minibatch of it: the one
call an update rule makes for its losses.

:class:`Batch` prepares a :class:`~.rollout.Rollout` once per update: its observations as the
sparse first layer reads them on the CPU (:mod:`.sparse`; dense on a GPU), its decisions
grouped by phase for the phase-columns policy head (:mod:`.columns`), and its old
log-probabilities, values and actions as flat tensors on the network's device.
:meth:`Batch.forward` then gives, for any set of its rows, what a policy-gradient loss needs
with gradient: each row's log-probability of the action it took, its policy's entropy, its
value, and with an ``anchor`` network its ``KL(pi || pi_anchor)`` over the legal actions. These
are the dense masked head's figures to float rounding, with the same gradient, at a fraction of
its cost (tested in ``tests/test_train.py``); :class:`~.ppo.PPO` and :class:`~.a2c.A2C` use this
call and nothing else of the network.

**Row order.** :class:`Forward`'s entries come in an order of their own (grouped by phase),
which ``Forward.rows`` gives: index any flat per-decision tensor with it (``adv[out.rows]``,
``batch.logp[out.rows]``) to line it up.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import torch

from ..rules.actions import NUM_ACTIONS
from ..rules.observation import OBS_SIZE
from .columns import ColumnGroups, policy_terms
from .model import PolicyValueNet, take
from .rollout import Rollout


class Forward(NamedTuple):
    """The network on a minibatch (:meth:`Batch.forward`): one entry per row, in the order of
    ``rows``, each with gradient to the network's weights."""

    rows: torch.Tensor  # int64[B]: the flat rollout row of each entry (on the device)
    logp: torch.Tensor  # float32[B]: log-probability of the row's action
    entropy: torch.Tensor  # float32[B]: entropy of the row's policy (over its legal actions)
    value: torch.Tensor  # float32[B]: the value head
    anchor_kl: torch.Tensor | None  # float32[B]: KL(pi || pi_anchor); None without an anchor


class Batch:
    """``rollout`` prepared for updates of ``model`` (module docstring); ``size`` rows, flat in
    the rollout's ``[steps, num_envs]`` order, with ``action``, ``logp`` (the log-probabilities
    when acted) and ``value`` (the values when acted) as flat tensors on ``device``, the
    model's.

    Raises:
        ValueError: a row whose action is not legal there.
    """

    def __init__(self, model: PolicyValueNet, rollout: Rollout) -> None:
        n = self.size = rollout.steps * rollout.num_envs
        self.device = model.inv_scale.device
        self.inputs = model.inputs(rollout.obs.reshape(n, OBS_SIZE).numpy())
        self.groups = ColumnGroups(rollout.mask.reshape(n, NUM_ACTIONS),
                                   rollout.action.reshape(n), self.device)
        self.action = self.flat(rollout.action)
        self.logp = self.flat(rollout.logp)
        self.value = self.flat(rollout.value)

    def flat(self, t: torch.Tensor) -> torch.Tensor:
        """A per-decision tensor of the rollout's shape (``[steps, num_envs]``: advantages,
        returns) flat and on the device, to index with ``Forward.rows``."""
        return t.reshape(self.size).to(self.device)

    def minibatches(self, count: int, generator: torch.Generator) -> Iterator[torch.Tensor]:
        """One shuffled pass over the rows in ``count`` minibatches of equal size (the last
        shorter), the shuffle drawn from ``generator``: CPU index tensors for
        :meth:`forward`."""
        order = torch.randperm(self.size, generator=generator)
        size = max(1, self.size // count)
        for lo in range(0, self.size, size):
            yield order[lo:lo + size]

    def forward(self, model: PolicyValueNet, rows: torch.Tensor,
                anchor: PolicyValueNet | None = None) -> Forward:
        """The network's figures on the rows ``rows`` (an int64 index tensor on the CPU;
        ``torch.arange(batch.size)`` for all): the trunk through the sparse first layer, the
        value head, and the policy head on each phase's columns only (:class:`Forward`); with
        ``anchor``, each row's KL to it (no gradient through the anchor)."""
        x = take(self.inputs, rows)
        idx = rows.to(self.device)
        h = model.trunk(x)
        anchor_h = None
        if anchor is not None:
            with torch.no_grad():
                anchor_h = anchor.trunk(x)
        terms = policy_terms(model.pi, h, self.groups.split(idx),
                             None if anchor is None else anchor.pi, anchor_h)
        return Forward(idx[terms.order], terms.logp, terms.entropy, model.value(h)[terms.order],
                       terms.anchor_kl)
