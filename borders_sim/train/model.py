"""The policy-value network of the trainer, in PyTorch, and its export to a policy file.

Its policy part is exactly the compiled network every ``ppo`` player runs
(:mod:`borders_sim.policies.network`), here for the update only:
the observation times the fixed inverse scales, two ``tanh`` layers, one logit per action id.
A value head on the same trunk estimates the learner's return. :meth:`PolicyValueNet.policy`
exports the policy part as numpy arrays (a :class:`~borders_sim.policies.network.Policy`), and
:meth:`PolicyValueNet.load_policy` loads one back, so a policy file can start a run or play as a
frozen opponent.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from ..policies.network import Policy
from ..rules.actions import NUM_ACTIONS
from ..rules.observation import OBS_SIZE, observation_scales
from .columns import MASKED_LOGIT
from .sparse import SparseRows, first_layer, sparse_rows


def take(x: SparseRows | torch.Tensor, rows: torch.Tensor) -> SparseRows | torch.Tensor:
    """The rows ``rows`` (an index tensor on the CPU) of a batch of :meth:`PolicyValueNet.
    inputs`."""
    if isinstance(x, SparseRows):
        return x.take(rows.numpy())
    return x[rows.to(x.device)]


def _init(layer: nn.Linear, gain: float) -> nn.Linear:
    nn.init.orthogonal_(layer.weight, gain)
    nn.init.zeros_(layer.bias)
    return layer


class PolicyValueNet(nn.Module):
    """Observation (float32[B, OBS_SIZE]) and legal mask (bool[B, NUM_ACTIONS]) to masked
    logits (float32[B, NUM_ACTIONS]) and values (float32[B]).

    Args:
        hidden: the sizes of the two hidden layers.
    """

    def __init__(self, hidden: tuple[int, int] = (256, 256)) -> None:
        super().__init__()
        h0, h1 = hidden
        self.hidden = (int(h0), int(h1))
        self.register_buffer("inv_scale", torch.from_numpy(1.0 / observation_scales()))
        self.l0 = _init(nn.Linear(OBS_SIZE, h0), np.sqrt(2))
        self.l1 = _init(nn.Linear(h0, h1), np.sqrt(2))
        self.pi = _init(nn.Linear(h1, NUM_ACTIONS), 0.01)
        self.v = _init(nn.Linear(h1, 1), 1.0)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The dense masked logits (``[B, NUM_ACTIONS]``) and values (``[B]``) of dense
        observations; an update uses :meth:`~.minibatch.Batch.forward` instead (the same
        figures at a fraction of the cost)."""
        return self.forward_inputs(obs, mask)

    def inputs(self, obs: np.ndarray) -> SparseRows | torch.Tensor:
        """A batch of observations (``[B, OBS_SIZE]``, any numeric dtype) as the update reads
        it (:meth:`forward_inputs`, :func:`take`): on the CPU their non-zero entries
        (:mod:`.sparse`: the first layer and its gradient cost a tenth of the dense product),
        on another device a float32 tensor there."""
        if self.inv_scale.device.type == "cpu":
            return sparse_rows(obs)
        return torch.from_numpy(np.asarray(obs, dtype=np.float32)).to(self.inv_scale.device)

    def forward_inputs(self, x: SparseRows | torch.Tensor, mask: torch.Tensor
                       ) -> tuple[torch.Tensor, torch.Tensor]:
        """:meth:`forward` of observations in the form of :meth:`inputs` (the same function,
        to float rounding)."""
        h = self.trunk(x)
        return self.pi(h).masked_fill(~mask, MASKED_LOGIT), self.value(h)

    def trunk(self, x: SparseRows | torch.Tensor) -> torch.Tensor:
        """The second hidden layer's output (``[B, H1]``) for observations in the form of
        :meth:`inputs` (or a dense float tensor)."""
        if isinstance(x, SparseRows):
            h0 = first_layer(self.l0.weight, self.l0.bias, x, self.inv_scale.numpy())
        else:
            h0 = self.l0(x * self.inv_scale)
        return torch.tanh(self.l1(torch.tanh(h0)))

    def value(self, h: torch.Tensor) -> torch.Tensor:
        """The values (``[B]``) of trunk outputs ``h``."""
        return self.v(h).squeeze(-1)

    def policy(self, meta: dict | None = None) -> Policy:
        """The policy part as a :class:`~borders_sim.policies.network.Policy` (float32 copies)."""
        def a(t: torch.Tensor) -> np.ndarray:
            return t.detach().cpu().numpy().astype(np.float32, copy=True)
        return Policy(a(self.inv_scale), a(self.l0.weight.T), a(self.l0.bias), a(self.l1.weight.T),
                      a(self.l1.bias), a(self.pi.weight), a(self.pi.bias), meta=dict(meta or {}))

    @torch.no_grad()
    def load_policy(self, policy: Policy) -> None:
        """Set the policy part from ``policy`` (same hidden sizes); the value head is kept."""
        if policy.hidden != self.hidden:
            raise ValueError(f"a policy of hidden sizes {policy.hidden} does not fit a network "
                             f"of hidden sizes {self.hidden}")
        self.inv_scale.copy_(torch.from_numpy(policy.inv_scale))
        self.l0.weight.copy_(torch.from_numpy(policy.w0.T))
        self.l0.bias.copy_(torch.from_numpy(policy.b0))
        self.l1.weight.copy_(torch.from_numpy(policy.w1.T))
        self.l1.bias.copy_(torch.from_numpy(policy.b1))
        self.pi.weight.copy_(torch.from_numpy(policy.wp))
        self.pi.bias.copy_(torch.from_numpy(policy.bp))
