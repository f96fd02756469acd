"""The trainer's fast layers as public torch layers (``borders_sim.train.layers``, issue 60,
item 4): each gives the dense layer's figures and gradients, exports as a policy file, and
refuses what it cannot read. Needs torch."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from borders_sim.envs import NUM_ACTIONS, OBS_SIZE  # noqa: E402
from borders_sim.policies.export import policy_from_module  # noqa: E402
from borders_sim.policies.network import net_logits, stack_nets  # noqa: E402
from borders_sim.train.layers import (PhaseColumns, PhaseHead, SparseLinear,  # noqa: E402
                                      sparse_obs)
from tests.test_train import real_rows  # noqa: E402


def sparse_batch(rows: int, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    obs = rng.normal(size=(rows, OBS_SIZE)) * (rng.random((rows, OBS_SIZE)) < 0.08)
    obs[2] = 0  # a row without a non-zero entry
    return obs.astype(np.float32)


@pytest.mark.parametrize("dtype", [np.float32, np.int16])
def test_sparse_linear_is_the_dense_linear_with_its_gradients(dtype):
    obs = (sparse_batch(30) * 4).astype(dtype)
    layer = SparseLinear(OBS_SIZE, 24)
    rows = torch.arange(1, 30, 2)

    def run(x):
        layer.zero_grad()
        out = layer(x)
        out.pow(2).sum().backward()
        return out.detach(), layer.weight.grad.clone(), layer.bias.grad.clone()

    want = run(torch.from_numpy(obs.astype(np.float32))[rows])
    got = run(sparse_obs(obs).take(rows))
    for a, b in zip(want, got):
        assert torch.allclose(a, b, atol=1e-4), (a - b).abs().max()


def test_sparse_linear_reads_the_weights_after_each_change():
    """Acting keeps the weight's transposed copy between calls; an optimizer step or a load
    changes the weight, and the next call reads the new one."""
    obs = sparse_batch(8)
    layer = SparseLinear(OBS_SIZE, 16)
    optimizer = torch.optim.SGD(layer.parameters(), lr=0.5)
    dense = torch.from_numpy(obs)
    for _ in range(3):
        with torch.no_grad():
            assert torch.allclose(layer(sparse_obs(obs)), layer(dense), atol=1e-5)
        optimizer.zero_grad()
        layer(sparse_obs(obs)).sum().backward()
        optimizer.step()
    layer.load_state_dict(SparseLinear(OBS_SIZE, 16).state_dict())
    with torch.no_grad():
        assert torch.allclose(layer(sparse_obs(obs)), layer(dense), atol=1e-5)


def test_sparse_linear_refuses_what_it_cannot_read():
    with pytest.raises(ValueError, match=r"entry at column 1869 do not fit SparseLinear\(100, 4\)"):
        SparseLinear(100, 4)(sparse_obs(np.eye(1, OBS_SIZE, OBS_SIZE - 1, dtype=np.float32)))
    with pytest.raises(ValueError, match="with a bias only"):
        SparseLinear(OBS_SIZE, 4, bias=False)(sparse_obs(sparse_batch(3)))
    with pytest.raises(ValueError, match=r"batch of observations \[B, features\]"):
        sparse_obs(np.zeros(OBS_SIZE, np.float32))


@pytest.mark.parametrize("players,flags", [(4, {}), (7, {"smuggler_transfers": True,
                                                       "bounty_goods": True})])
def test_the_phase_head_gives_the_dense_heads_figures_in_row_order(players, flags):
    obs, mask, action = real_rows(players, 2, **flags)
    torch.manual_seed(5)
    trunk = torch.nn.Sequential(SparseLinear(OBS_SIZE, 32), torch.nn.Tanh())
    head = PhaseHead(32)
    with torch.no_grad():
        head.weight.mul_(50.0)  # far from uniform
    params = list(trunk.parameters()) + list(head.parameters())
    x = sparse_obs(obs)
    columns = PhaseColumns(mask, action)
    rows = torch.randperm(len(obs))[: len(obs) // 2]

    def grads(loss):
        for p in params:
            p.grad = None
        loss.backward()
        return [p.grad.clone() for p in params]

    logp_all = torch.log_softmax(head(trunk(x.take(rows))).masked_fill(~mask[rows], -1e9), -1)
    want = (logp_all.gather(1, action[rows, None]).squeeze(1),
            -(logp_all.exp() * logp_all.masked_fill(~mask[rows], 0)).sum(-1))
    want_grads = grads(want[0].mean() + want[1].mean())
    got = head.log_prob(trunk(x.take(rows)), columns, rows)
    for w, g in zip(want, got):
        assert torch.allclose(w.detach(), g.detach(), atol=1e-5), (w - g).abs().max()
    for w, g in zip(want_grads, grads(got[0].mean() + got[1].mean())):
        assert torch.allclose(w, g, atol=1e-5), (w - g).abs().max()
    with pytest.raises(ValueError, match="h has 3 rows for"):
        head.log_prob(trunk(x.take(rows[:3])), columns, rows)


def test_a_module_built_on_the_layers_exports_and_plays_as_it_computes():
    torch.manual_seed(2)
    actor = torch.nn.Sequential(SparseLinear(OBS_SIZE, 16), torch.nn.Tanh(),
                                torch.nn.Linear(16, 12), torch.nn.Tanh(), PhaseHead(12))
    policy = policy_from_module(actor, inputs="raw")
    assert policy.hidden == (16, 12)
    nets = stack_nets([policy])
    obs = sparse_batch(4, seed=3)
    out = np.empty(NUM_ACTIONS, dtype=np.float64)
    with torch.no_grad():
        want = actor(sparse_obs(obs)).numpy()
    for row in range(len(obs)):
        assert np.abs(net_logits(nets, 0, obs[row], out) - want[row]).max() < 1e-4
