"""The update's first layer over the observation's non-zero entries only.

An observation has 1870 entries of which about 160 are non-zero in a real game, so the dense
first layer of the update (``[B, 1870] @ [1870, H0]`` forward and its weight gradient backward)
spends nine tenths of its products on zeros, and it was the largest single cost of the trainer.
Here the observations of a rollout are stored once as their non-zero entries (:class:`SparseRows`,
:func:`sparse_rows`), and :func:`first_layer` computes the same pre-activation
``(obs * inv_scale) @ w0 + b0`` and, backward, the gradients of ``w0`` and ``b0`` from those
entries alone: two compiled chunk kernels, the forward pass (:func:`forward_chunk`) on numba's
threads without the GIL, the weight gradient (:func:`weight_grad_chunk`, a scatter into the
rows of the entries) in one call. The acting kernel skips the zeros the same way
(:func:`~borders_sim.policies.network.hidden_layer`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import torch

from ..batch.chunks import run_chunks
from .._compile.jit import kernel


class SparseRows(NamedTuple):
    """Observations as their non-zero entries: row ``b`` holds ``values[b, k]`` at entry
    ``index[b, k]``, ``[B, K]`` each, ``K`` the most non-zero entries of any row (shorter rows
    padded with value 0 at index 0)."""

    index: np.ndarray  # int64[B, K]
    values: np.ndarray  # float32[B, K]

    def take(self, rows: np.ndarray | torch.Tensor) -> SparseRows:
        """The rows ``rows`` (an index array, or a CPU index tensor)."""
        rows = np.asarray(rows)
        return SparseRows(self.index[rows], self.values[rows])


@kernel(nogil=True)
def count_chunk(lo, hi, obs, counts):
    """``counts[b]``: the non-zero entries of ``obs[b]``, for rows ``lo .. hi - 1``."""
    for b in range(lo, hi):
        c = 0
        for i in range(obs.shape[1]):
            if obs[b, i] != 0:
                c += 1
        counts[b] = c


@kernel(nogil=True)
def gather_chunk(lo, hi, obs, index, values):
    """The non-zero entries of rows ``lo .. hi - 1`` of ``obs`` into ``index`` and
    ``values`` (zero-filled beforehand)."""
    for b in range(lo, hi):
        k = 0
        for i in range(obs.shape[1]):
            x = obs[b, i]
            if x != 0:
                index[b, k] = i
                values[b, k] = x
                k += 1


def sparse_rows(obs: np.ndarray) -> SparseRows:
    """The :class:`SparseRows` of ``obs`` (``[B, OBS_SIZE]``, float32 or int16)."""
    obs = np.ascontiguousarray(obs)
    counts = np.zeros(obs.shape[0], dtype=np.int64)
    run_chunks(count_chunk, obs.shape[0], obs, counts)
    k = max(1, int(counts.max(initial=0)))
    index = np.zeros((obs.shape[0], k), dtype=np.int64)
    values = np.zeros((obs.shape[0], k), dtype=np.float32)
    run_chunks(gather_chunk, obs.shape[0], obs, index, values)
    return SparseRows(index, values)


@kernel(nogil=True)
def forward_chunk(lo, hi, index, values, inv_scale, w0, b0, out):
    """``out[b] = b0 + sum_k values[b, k] * inv_scale[i] * w0[i]`` (``i = index[b, k]``) for
    rows ``lo .. hi - 1``; ``w0`` is ``[OBS_SIZE, H0]``."""
    for b in range(lo, hi):
        o = out[b]
        o[:] = b0
        for k in range(index.shape[1]):
            x = values[b, k]
            if x != 0:
                i = index[b, k]
                x = x * inv_scale[i]
                row = w0[i]
                for u in range(o.shape[0]):
                    o[u] += x * row[u]


@kernel(nogil=True)
def weight_grad_chunk(lo, hi, index, values, inv_scale, grad_out, grad_w0):
    """Columns ``lo .. hi - 1`` of ``grad_w0`` (``[OBS_SIZE, H0]``, zero beforehand):
    ``sum_b values[b, k] * inv_scale[i] * grad_out[b]`` into row ``i = index[b, k]``."""
    for b in range(index.shape[0]):
        g = grad_out[b, lo:hi]  # (slices, not range(lo, hi): the loop then vectorises)
        for k in range(index.shape[1]):
            x = values[b, k]
            if x != 0:
                i = index[b, k]
                x = x * inv_scale[i]
                row = grad_w0[i, lo:hi]
                for u in range(row.shape[0]):
                    row[u] += x * g[u]


class _FirstLayer(torch.autograd.Function):
    """The first layer's pre-activation from :class:`SparseRows` (module docstring)."""

    @staticmethod
    def forward(ctx, weight: torch.Tensor, bias: torch.Tensor, rows: SparseRows,
                inv_scale: np.ndarray, w0: np.ndarray | None) -> torch.Tensor:
        if w0 is None:
            w0 = np.ascontiguousarray(weight.detach().numpy().T)  # [OBS_SIZE, H0]
        out = np.empty((rows.index.shape[0], w0.shape[1]), dtype=np.float32)
        run_chunks(forward_chunk, out.shape[0], rows.index, rows.values, inv_scale, w0,
                   bias.detach().numpy(), out)
        ctx.rows, ctx.inv_scale, ctx.shape = rows, inv_scale, w0.shape
        return torch.from_numpy(out)

    @staticmethod
    def backward(ctx, grad_out: torch.Tensor):
        g = np.ascontiguousarray(grad_out.numpy(), dtype=np.float32)
        grad_w0 = np.zeros(ctx.shape, dtype=np.float32)
        # one thread: two, each reading every entry for half the columns, ran slower here
        weight_grad_chunk(0, ctx.shape[1], ctx.rows.index, ctx.rows.values, ctx.inv_scale, g,
                          grad_w0)
        return torch.from_numpy(grad_w0.T), torch.from_numpy(g.sum(0)), None, None, None


def first_layer(weight: torch.Tensor, bias: torch.Tensor, rows: SparseRows,
                inv_scale: np.ndarray, w0: np.ndarray | None = None) -> torch.Tensor:
    """``(obs * inv_scale) @ weight.T + bias`` for the observations ``rows`` holds, with the
    gradients of ``weight`` (``[H0, OBS_SIZE]``, an ``nn.Linear``'s) and ``bias`` (CPU
    tensors; module docstring); ``w0``, when given, is ``weight.T`` as a C-contiguous
    float32 array (a caller that keeps it saves the copy)."""
    return _FirstLayer.apply(weight, bias, rows, inv_scale, w0)
