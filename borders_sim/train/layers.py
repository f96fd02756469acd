"""The trainer's two fast network pieces as torch layers for your own loop.

An observation has 1870 entries of which about 160 are non-zero, and a decision can take only
the few action ids of its phase, so a plain ``Linear(OBS_SIZE, H)`` first layer and a
``Linear(H, NUM_ACTIONS)`` head spend most of an update on zeros and on ids no row could take.
The trainer skips both; these layers give your module the same code:

* :class:`SparseLinear`: an ``nn.Linear`` that also reads a batch of observations as their
  non-zero entries (:func:`sparse_obs`): the same output and gradients (the trainer's
  :func:`~.sparse.first_layer`, compiled kernels on the CPU);
* :class:`PhaseHead`: an ``nn.Linear(H, NUM_ACTIONS)`` whose :meth:`PhaseHead.log_prob` gives
  each row's log-probability of its action and its entropy from the logits of its phase's ids
  only (the trainer's :func:`~.columns.policy_terms`, grouped once per update by
  :class:`PhaseColumns`).

Both are ``nn.Linear`` s, so a ``Sequential(SparseLinear, Tanh, Linear, Tanh, PhaseHead)``
exports as a policy file (:func:`~borders_sim.policies.export.export_policy`) and plays dense
observations as any ``Linear`` does. ``examples/ppo_loop.py`` is built on them:

>>> import numpy as np, torch
>>> from borders_sim.envs import OBS_SIZE
>>> layer = SparseLinear(OBS_SIZE, 8)
>>> obs = np.zeros((2, OBS_SIZE), np.float32); obs[0, 3] = 1.5
>>> bool(torch.allclose(layer(sparse_obs(obs)), layer(torch.from_numpy(obs)), atol=1e-6))
True

On the CPU only: the sparse path's kernels read the weights' memory (a GPU module reads dense
tensors, as an ``nn.Linear``).
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn

from ..rules.actions import NUM_ACTIONS
from .columns import ColumnGroups, policy_terms
from .sparse import SparseRows, first_layer, sparse_rows

__all__ = ["PhaseColumns", "PhaseHead", "SparseLinear", "SparseRows", "sparse_obs"]


def sparse_obs(obs: np.ndarray | torch.Tensor) -> SparseRows:
    """A batch of observations (``[B, in_features]``, float32 or an integer dtype, a numpy
    array or a CPU tensor) as its non-zero entries, the input of :class:`SparseLinear`;
    ``rows.take(index)`` selects a minibatch of them."""
    if isinstance(obs, torch.Tensor):
        obs = obs.detach().cpu().numpy()
    obs = np.asarray(obs)
    if obs.ndim != 2:
        raise ValueError(f"sparse_obs takes a batch of observations [B, features], got shape "
                         f"{obs.shape}")
    return sparse_rows(obs)


class SparseLinear(nn.Linear):
    """``nn.Linear(in_features, out_features)`` that also takes :class:`SparseRows`
    (:func:`sparse_obs`): the same ``x @ weight.T + bias`` and gradients from the non-zero
    entries alone (module docstring). A dense tensor goes through ``nn.Linear`` as usual."""

    def forward(self, x: SparseRows | torch.Tensor) -> torch.Tensor:
        if not isinstance(x, SparseRows):
            return super().forward(x)
        if self.weight.device.type != "cpu":
            raise ValueError("SparseLinear reads SparseRows on the CPU only; on "
                             f"{self.weight.device} give it a dense tensor")
        if self.bias is None:
            raise ValueError("SparseLinear reads SparseRows with a bias only (bias=True)")
        wide = int(x.index.max(initial=0))
        if wide >= self.in_features:
            raise ValueError(f"SparseRows with an entry at column {wide} do not fit "
                             f"SparseLinear({self.in_features}, {self.out_features})")
        return first_layer(self.weight, self.bias, x, self._ones(), self._rows_major())

    def _ones(self) -> np.ndarray:
        """float32[in_features] of ones: the input scale of :func:`~.sparse.first_layer`."""
        ones = self.__dict__.get("_ones_array")
        if ones is None or len(ones) != self.in_features:
            ones = self.__dict__["_ones_array"] = np.ones(self.in_features, dtype=np.float32)
        return ones

    def _rows_major(self) -> np.ndarray:
        """``weight.T`` as a C-contiguous array, copied again only after the weight changed
        (torch counts its in-place changes: an optimizer step, ``load_state_dict``), so acting
        step after step between two updates copies it once."""
        key = (self.weight._version, self.weight.data_ptr(), tuple(self.weight.shape))
        kept = self.__dict__.get("_rows_major_array")
        if kept is None or kept[0] != key:
            kept = self.__dict__["_rows_major_array"] = (
                key, np.ascontiguousarray(self.weight.detach().numpy().T, dtype=np.float32))
        return kept[1]


class PhaseColumns(ColumnGroups):
    """A rollout's decisions grouped by phase for :meth:`PhaseHead.log_prob`: make it once per
    update from the legal masks (``bool[N, NUM_ACTIONS]``) and the actions taken (``int[N]``),
    CPU tensors, rows in the order your minibatch indices count them.

    Raises:
        ValueError: a row whose action is not legal there (the first one named).
    """


class PhaseHead(nn.Linear):
    """The policy head ``nn.Linear(in_features, NUM_ACTIONS)``: called, every logit (for acting
    and export); :meth:`log_prob`, the update's figures from each phase's ids only."""

    def __init__(self, in_features: int, bias: bool = True,
                 device: torch.device | str | None = None, dtype: torch.dtype | None = None
                 ) -> None:
        super().__init__(in_features, NUM_ACTIONS, bias=bias, device=device, dtype=dtype)

    def log_prob(self, h: torch.Tensor, columns: PhaseColumns, rows: torch.Tensor
                 ) -> tuple[torch.Tensor, torch.Tensor]:
        """Each row's log-probability of the action it took and the entropy of its masked
        policy, in the order of ``rows``: the masked softmax of every logit would give the same
        figures and gradients, to float rounding (tested).

        Args:
            h: this head's inputs for the minibatch (``[len(rows), in_features]``).
            columns: the rollout's :class:`PhaseColumns`.
            rows: the minibatch's rows of the rollout (an int64 index tensor).
        """
        if self.bias is None:
            raise ValueError("PhaseHead.log_prob needs a bias (bias=True)")
        if h.shape[0] != len(rows):
            raise ValueError(f"h has {h.shape[0]} rows for {len(rows)} rows of the rollout")
        terms = policy_terms(self, h, columns.split(rows.to(columns.key.device)))
        back = torch.argsort(terms.order)
        return terms.logp[back], terms.entropy[back]
