"""A policy file holds every matrix in torch's orientation (``borders_sim.policy/2``), files of
the first format still load, and :func:`~borders_sim.policies.export.export_policy` writes a
torch module of the file's shape, refusing any other (issue 60, its item 3)."""

from __future__ import annotations

import doctest
import json
import zipfile

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from borders_sim import cli  # noqa: E402
from borders_sim.envs import NUM_ACTIONS, OBS_SIZE  # noqa: E402
from borders_sim.policies import export  # noqa: E402
from borders_sim.policies.export import export_policy, policy_from_module  # noqa: E402
from borders_sim.policies.network import (FORMAT, FORMAT_V1, SHIPPED_WEIGHTS,  # noqa: E402
                                          load_policy, policy_meta, save_policy)
from borders_sim.rules.observation import observation_scales  # noqa: E402

torch.set_num_threads(1)


def _net(h0: int = 16, h1: int = 16, bias: bool = True, act=torch.nn.Tanh) -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(OBS_SIZE, h0, bias=bias), act(),
                               torch.nn.Linear(h0, h1, bias=bias), act(),
                               torch.nn.Linear(h1, NUM_ACTIONS, bias=bias))


def _logits(policy, raw: np.ndarray) -> np.ndarray:
    """The policy's logits on raw observations, in numpy (the kernels' function)."""
    h = np.tanh((raw * policy.inv_scale) @ policy.w0 + policy.b0)
    h = np.tanh(h @ policy.w1 + policy.b1)
    return h @ policy.wp.T + policy.bp


@pytest.mark.parametrize("inputs", ["scaled", "raw"])
@pytest.mark.parametrize("bias", [True, False])
def test_an_exported_module_plays_as_the_module(tmp_path, inputs, bias):
    net = _net(bias=bias)  # square hidden layers: a transposed w1 would load without error
    raw = np.random.default_rng(1).integers(0, 5, (8, OBS_SIZE)).astype(np.float32)
    seen = raw / observation_scales() if inputs == "scaled" else raw
    want = net(torch.from_numpy(seen.astype(np.float32))).detach().numpy()
    path = export_policy(net, tmp_path / "mine.npz", inputs=inputs)
    policy = load_policy(path)
    assert np.allclose(_logits(policy, raw), want, atol=1e-4)
    meta = policy_meta(path)
    assert meta["algorithm"]["name"] == "exported" and meta["inputs"] == inputs
    assert meta["exported_from"] == "Sequential" and meta["hidden"] == [16, 16]


def test_the_file_holds_torchs_orientation_and_says_its_format(tmp_path):
    net = _net(16, 8)
    path = export_policy(net, tmp_path / "mine.npz")
    with zipfile.ZipFile(path) as z, z.open("w1.npy") as f:
        header = f.read(128).decode("latin1")
    assert "(8, 16)" in header  # [out, in], as nn.Linear.weight
    with np.load(path) as arrays:
        assert str(arrays["format"]) == FORMAT
        assert np.array_equal(arrays["w0"], net[0].weight.detach().numpy())
        assert np.array_equal(arrays["w1"], net[2].weight.detach().numpy())
        assert np.array_equal(arrays["wp"], net[4].weight.detach().numpy())


def test_a_file_of_the_first_format_still_loads_and_plays_the_same(tmp_path):
    shipped = load_policy(SHIPPED_WEIGHTS)  # written in the first format
    with np.load(SHIPPED_WEIGHTS) as arrays:
        assert str(arrays["format"]) == FORMAT_V1
    again = load_policy(save_policy(tmp_path / "again.npz", shipped))
    for name in ("inv_scale", "w0", "b0", "w1", "b1", "wp", "bp"):
        assert np.array_equal(getattr(again, name), getattr(shipped, name))


@pytest.mark.parametrize("net, phrase", [
    (lambda: _net(act=torch.nn.ReLU), "layers are Linear, ReLU, Linear, ReLU, Linear"),
    (lambda: torch.nn.Sequential(torch.nn.Linear(OBS_SIZE, 8), torch.nn.Tanh(),
                                 torch.nn.Linear(8, NUM_ACTIONS)), "Linear, Tanh, Linear"),
    (lambda: torch.nn.Sequential(torch.nn.Linear(100, 8), torch.nn.Tanh(),
                                 torch.nn.Linear(8, 8), torch.nn.Tanh(),
                                 torch.nn.Linear(8, NUM_ACTIONS)), "first Linear must be"),
    (lambda: torch.nn.Sequential(torch.nn.Linear(OBS_SIZE, 8), torch.nn.Tanh(),
                                 torch.nn.Linear(8, 8), torch.nn.Tanh(),
                                 torch.nn.Linear(8, 10)), "last Linear must be"),
])
def test_a_module_the_file_cannot_hold_is_refused_in_one_line(tmp_path, net, phrase):
    with pytest.raises(ValueError) as err:
        export_policy(net(), tmp_path / "x.npz")
    assert phrase in str(err.value) and "\n" not in str(err.value)
    assert not (tmp_path / "x.npz").exists()
    with pytest.raises(ValueError, match="inputs must be one of"):
        policy_from_module(_net(), inputs="normalised")


def test_an_exported_policy_sits_in_a_tournament(tmp_path, capsys):
    path = export_policy(_net(), tmp_path / "mine.npz")
    code = cli.main(["tournament", "--players", "3", "--games", "3", "--bots",
                     f"ppo@{path},honest,random", "--seed", "1"])
    out = capsys.readouterr()
    assert code == 0 and "a policy exported from a torch module" in out.err
    assert json.loads(json.dumps(policy_meta(path)))["inputs"] == "scaled"


def test_the_module_docstring_runs():
    assert doctest.testmod(export).failed == 0


def last_legal(observation, action_mask):
    """A policy function: the last legal action."""
    return int(np.flatnonzero(action_mask)[-1])


def test_a_module_and_a_policy_function_sit_at_a_table_without_a_file():
    from borders_sim.agents.seats import as_seat
    from borders_sim.arena import run_tournament

    net = _net()
    seat = as_seat(net)
    assert seat.net is not None and seat.name == "Sequential"  # inside the kernels
    assert "hidden=(16, 16)" in repr(seat)
    function = as_seat(last_legal)
    assert function.factory is not None and function.name.endswith("last_legal")
    result = run_tournament(4, [last_legal, net, "honest", "random"], games=4, seed=3)
    assert [bot["games"] for bot in result.bots] == [4, 4, 4, 4]
    assert result.names[:2] == [function.name, "Sequential"]


def test_a_float16_file_is_half_the_size_and_loads_as_float32(tmp_path):
    policy = policy_from_module(_net(64, 64))
    small = save_policy(tmp_path / "small.npz", policy, dtype=np.float16)
    full = save_policy(tmp_path / "full.npz", policy)
    back = load_policy(small)
    assert back.w0.dtype == np.float32 and np.allclose(back.w0, policy.w0, atol=1e-3)
    assert small.stat().st_size < 0.7 * full.stat().st_size
    with pytest.raises(ValueError, match="float32 or float16"):
        save_policy(tmp_path / "x.npz", policy, dtype=np.float64)
