"""Policy files are read with bounds, and every bad one is one ``ValueError`` naming it.

* a damaged file (cut at many offsets, bits flipped anywhere) loads unchanged or is refused;
* headers are checked before any data is inflated: a header claiming a giant array (``w0`` of
  (OBS_SIZE, 60000), 7 TB, a hidden layer of 60,000, a header of 2 GiB, a 2-GB meta) is refused
  having allocated next to nothing;
* pickles stay refused, without numpy's advice to load them; wrong dtypes, shapes, NaN weights
  and a meta that disagrees with the arrays are refused naming the array;
* a named pipe, a device or a directory is refused without blocking; an ``.npy``, an empty or
  missing file, an empty path, a 4,000-character name too; a PyTorch checkpoint gets the
  policy files of its run named;
* the commands show these as one error line; ``save_policy`` is atomic.
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import numpy as np
import pytest

from borders_sim import cli
from borders_sim.agents import make
from borders_sim.policies.network import (MAX_HIDDEN, Policy, load_policy, net_player,
                                        policy_meta, save_policy)
from borders_sim.rules.actions import NUM_ACTIONS
from borders_sim.rules.observation import OBS_SIZE
from tests.fuzz_files import (bit_flips, check_refusal, npy_bytes, npy_header, npz_with,
                              peak_memory, refused, released_after, truncations)

ARRAYS = ("inv_scale", "w0", "b0", "w1", "b1", "wp", "bp")
SMALL = 4 << 20  # bytes a refused file may cost at most (the good file's arrays are ~40 kB)


def small_policy(hidden=(4, 3)) -> Policy:
    rng = np.random.default_rng(0)
    h0, h1 = hidden
    return Policy(np.ones(OBS_SIZE), rng.normal(size=(OBS_SIZE, h0)), rng.normal(size=h0),
                  rng.normal(size=(h0, h1)), rng.normal(size=h1),
                  rng.normal(size=(NUM_ACTIONS, h1)), rng.normal(size=NUM_ACTIONS),
                  meta={"hidden": [h0, h1], "seed": 1})


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    return save_policy(tmp_path_factory.mktemp("good") / "policy.npz", small_policy())


def same(p: Policy, q: Policy) -> bool:
    return p.meta == q.meta and all(np.array_equal(getattr(p, a), getattr(q, a)) for a in ARRAYS)


def test_a_policy_written_by_numpy_itself_loads(good, tmp_path):
    """Uncompressed, float64, Fortran-order arrays (``np.savez`` of a transposed array)."""
    p = load_policy(good)
    path = tmp_path / "numpy.npz"
    arrays = {name: getattr(p, name).astype(np.float64) for name in ARRAYS}
    arrays["w0"] = np.asfortranarray(arrays["w0"])
    np.savez(path, format=np.array("borders_sim.policy/1"), meta=np.array(json.dumps(p.meta)),
             **arrays)
    assert same(load_policy(path), p) and policy_meta(path) == p.meta


def test_a_file_of_the_first_observation_layout_plays_as_it_was_trained(tmp_path):
    """A file written before the behaviour rates (``OBS_SIZE_V1`` inputs) loads with zero
    weights for the rates, so its logits on any observation are those of its own inputs."""
    from borders_sim.policies.network import net_logits, stack_nets
    from borders_sim.rules.observation import OBS_SIZE_V1, observation_scales
    p = small_policy()
    path = tmp_path / "v1.npz"
    arrays = {name: getattr(p, name) for name in ARRAYS}
    arrays["inv_scale"] = (1.0 / observation_scales()[:OBS_SIZE_V1]).astype(np.float32)
    arrays["w0"] = p.w0[:OBS_SIZE_V1]
    np.savez(path, format=np.array("borders_sim.policy/1"), meta=np.array(json.dumps(p.meta)),
             **arrays)
    q = load_policy(path)
    assert q.w0.shape == (OBS_SIZE, 4) and not q.w0[OBS_SIZE_V1:].any()
    assert np.array_equal(q.w0[:OBS_SIZE_V1], arrays["w0"])
    obs = np.random.default_rng(2).integers(0, 5, OBS_SIZE).astype(np.float32)
    seen = obs.copy()
    seen[OBS_SIZE_V1:] = 0  # what the first layout's network could see
    nets = stack_nets([q])
    out = np.zeros(NUM_ACTIONS)
    assert np.allclose(net_logits(nets, 0, obs, out.copy()), net_logits(nets, 0, seen, out))


# --- damaged files -----------------------------------------------------------------------------
def test_truncated_policy_files_are_refused(good, tmp_path):
    data = good.read_bytes()
    for cut in truncations(len(data)):
        path = tmp_path / f"cut-{cut}.npz"
        path.write_bytes(data[:cut])
        refused(load_policy, path)
        refused(policy_meta, path)


def test_flipped_bits_load_unchanged_or_are_refused(good, tmp_path):
    """Every member's bytes are under its CRC: a flip anywhere is refused, or lands where it
    changes nothing read (a date, an unused field)."""
    original = load_policy(good)
    path = tmp_path / "flipped.npz"
    loaded = 0
    for data, where in bit_flips(good.read_bytes(), seed=1, count=200):
        path.write_bytes(data)
        try:
            policy = load_policy(path)
        except ValueError as err:
            check_refusal(str(err), path)
        else:
            assert same(policy, original), where
            loaded += 1
    assert loaded < 30


# --- forged headers: checked before any data is read -------------------------------------------
FORGED = {
    "w0 claims (OBS_SIZE, 60000)": ("w0", npy_header((OBS_SIZE, 60000)) + bytes(4096),
                                    rf"array 'w0' claims {OBS_SIZE * 60000 * 4:,} bytes of data, "
                                    r"the archive 4,096"),
    "w0 claims 7 TB": ("w0", npy_header((OBS_SIZE, 10**9)),
                       rf"array 'w0' claims {OBS_SIZE * 10**9 * 4:,} bytes"),
    "hidden layer of 60000": ("b0", npy_bytes(np.zeros(60000, np.float32)),
                              rf"'b0' has shape \(60000,\), expected a hidden layer of 1 to "
                              rf"{MAX_HIDDEN} units"),
    "header of 2 GiB": ("w0", npy_header((OBS_SIZE, 4), version=(2, 0), length=2**31),
                        r"array 'w0' has a header of 2,147,483,648 bytes"),
    "npy version 3.0": ("w0", npy_header((OBS_SIZE, 4), version=(3, 0)),
                        r"array 'w0' has an .npy header of version \(3, 0\)"),
    "meta claims 2 GB": ("meta", npy_header((), descr="<U500000000"),
                         r"array 'meta' claims 2,000,000,000 bytes"),
    "meta of 2M characters": ("meta", npy_bytes(np.array("x" * 2_000_000)),
                              r"array 'meta' is <U2000000 of shape \(\), not a text of at most "
                              r"1,048,576 characters"),
    "int weights": ("w1", npy_bytes(np.zeros((4, 3), np.int64)),
                    r"array 'w1' is int64, not float32"),
    "transposed weights": ("w1", npy_bytes(np.zeros((4, 3), np.float32)),
                           r"policy array 'w1' has shape \(4, 3\), expected \(3, 4\) \(a "
                           r"borders_sim.policy/2 file\)"),
    "short data": ("wp", npy_bytes(np.zeros((NUM_ACTIONS, 3), np.float32))[:-8],
                   r"array 'wp' claims 6,156 bytes of data, the archive 6,148"),
    "meta disagrees": ("meta", npy_bytes(np.array(json.dumps({"hidden": [256, 256]}))),
                       r"its meta says hidden sizes \[256, 256\], its arrays \[4, 3\]"),
    "meta not JSON": ("meta", npy_bytes(np.array("{not json")), r"its meta is not JSON"),
    "meta a list": ("meta", npy_bytes(np.array("[1, 2]")), r"its meta is not a JSON object"),
    "meta nested deep": ("meta", npy_bytes(np.array("[" * 100_000)), r"its meta is not JSON"),
    "other format": ("format", npy_bytes(np.array("borders_sim.policy/3")),
                     r"not a borders_sim.policy/2 \(or borders_sim.policy/1\) file"),
    "no meta": ("meta", None, r"it has no meta record"),
    "no bp": ("bp", None, r"missing arrays \['bp'\]"),
}


@pytest.mark.parametrize("case", FORGED)
def test_forged_headers_are_refused_before_the_data(good, tmp_path, case):
    member, forged, why = FORGED[case]
    path = npz_with(good, tmp_path / "forged.npz", **{member: forged})
    refused(load_policy, path, why)
    assert peak_memory(lambda: load_policy(path)) < SMALL


@pytest.mark.parametrize("member", ["meta", "w0", "format"])
def test_pickles_are_refused(good, tmp_path, member):
    pickle = npy_bytes(np.array([{"hidden": [4, 3]}, None], dtype=object))
    path = npz_with(good, tmp_path / "pickle.npz", **{member: pickle})
    refused(load_policy, path, rf"array '{member}' holds Python objects \(a pickle\), which are "
                               "never loaded")


def test_nan_weights_are_refused_naming_the_file_and_the_array(good, tmp_path):
    b0 = np.array([0.0, np.nan, 1.0, 2.0], np.float32)
    path = npz_with(good, tmp_path / "nan.npz", b0=npy_bytes(b0))
    refused(load_policy, path, r"policy array 'b0' holds NaN or infinite values")


# --- things that are not policy files ----------------------------------------------------------
def test_pipes_devices_and_directories_are_refused_without_blocking(good, tmp_path):
    fifo = tmp_path / "policy.fifo"
    os.mkfifo(fifo)
    link = tmp_path / "link.npz"
    link.symlink_to(fifo)
    with released_after(fifo) as elapsed:
        refused(load_policy, fifo, r"it is a named pipe \(FIFO\), not a file")
        refused(policy_meta, link, r"it is a named pipe \(FIFO\), not a file")
        refused(lambda p: make("ppo", weights=p), fifo, "named pipe")
        refused(lambda p: net_player(f"ppo@{p}"), fifo, "named pipe")
        assert elapsed() < 2
    refused(load_policy, Path("/dev/null"), r"it is a character device, not a file")
    empty_dir = tmp_path / "run"
    empty_dir.mkdir()
    refused(load_policy, empty_dir, r"it is a directory without a policy.npz")
    (empty_dir / "policy.npz").mkdir()
    refused(load_policy, empty_dir, r"'.*run/policy.npz': it is a directory, not a file")
    assert load_policy(good.parent).meta["seed"] == 1  # a train output directory: its policy


def test_other_files_are_refused(good, tmp_path):
    npy = tmp_path / "w0.npy"
    np.save(npy, np.zeros(3))
    refused(load_policy, npy, r"it is a single .npy array, not an .npz archive of arrays")
    empty = tmp_path / "empty.npz"
    empty.write_bytes(b"")
    refused(load_policy, empty, r"it is not an .npz archive")
    text = tmp_path / "notes.txt"
    text.write_text("not a policy\n")
    refused(load_policy, text, r"it is not an .npz archive")
    other = tmp_path / "other.npz"
    np.savez(other, x=np.zeros(3))
    refused(load_policy, other, r"not a borders_sim.policy/2 \(or borders_sim.policy/1\) file")
    refused(load_policy, tmp_path / "missing.npz", r"it cannot be opened \(No such file")
    long = tmp_path / ("p" * 4000 + ".npz")
    msg = refused(load_policy, long, r"it cannot be opened \(File name too long\)")
    assert len(msg) < 300
    for read in (load_policy, policy_meta, lambda p: make("ppo", weights=p)):
        with pytest.raises(ValueError, match=r"must be a path \(a non-empty str or os.PathLike\), "
                                             r"got '' \(str\)"):
            read("")
    with pytest.raises(TypeError, match=r"must be a path .*got 3 \(int\)"):
        load_policy(3)


def test_a_checkpoint_gets_the_policy_files_of_its_run_named(good, tmp_path):
    run = tmp_path / "run"
    folder = run / "checkpoints"
    folder.mkdir(parents=True)
    checkpoint = folder / "update-000050.pt"
    with zipfile.ZipFile(checkpoint, "w") as z:  # what torch.save writes
        z.writestr("update-000050/data.pkl", b"\x80\x02}q\x00.")
        z.writestr("update-000050/version", b"3\n")
    refused(load_policy, checkpoint, r"it is a PyTorch training checkpoint, not a "
                                     r"policy file; name a policy file instead: "
                                     r"the run's policy.npz or latest.npz")
    save_policy(folder / "update-000050.npz", small_policy())
    save_policy(run / "policy.npz", small_policy())
    refused(load_policy, checkpoint, r"instead: '.*checkpoints/update-000050.npz' or "
                                     r"'.*run/policy.npz'$")
    renamed = folder / "update-000050.npz.bak"
    renamed.write_bytes(checkpoint.read_bytes())
    refused(load_policy, renamed, r"it is a PyTorch training checkpoint")


# --- the commands, and writing -----------------------------------------------------------------
@pytest.mark.parametrize("command", [
    ["tournament", "--players", "3", "--games", "3"],
    ["demos", "--games", "1", "--out", "{tmp}/demos"],
])
def test_commands_show_a_bad_policy_file_in_one_line(good, tmp_path, capsys, command):
    fifo = tmp_path / "pipe.npz"
    os.mkfifo(fifo)
    cut = tmp_path / "cut.npz"
    cut.write_bytes(good.read_bytes()[:5000])
    argv = [a.replace("{tmp}", str(tmp_path)) for a in command]
    for bad in (fifo, cut, tmp_path / "update-000050.pt"):
        with released_after(fifo), pytest.raises(SystemExit) as stop:
            cli.main(argv + ["--bots", f"ppo@{bad},honest,honest"])
        assert stop.value.code == 2
        err = capsys.readouterr().err
        lines = [line for line in err.splitlines() if "error:" in line]
        assert len(lines) == 1 and bad.name in lines[0] and "Traceback" not in err, err


def test_save_policy_is_atomic(good, tmp_path, monkeypatch):
    path = save_policy(tmp_path / "p.npz", small_policy())
    before = path.read_bytes()

    def broken(f, **arrays):
        f.write(b"PK half a file")
        raise OSError("disk full")
    monkeypatch.setattr(np, "savez_compressed", broken)
    with pytest.raises(OSError, match="disk full"):
        save_policy(path, small_policy((5, 5)))
    monkeypatch.undo()
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["p.npz"]
    p = small_policy()
    big = Policy(p.inv_scale, np.zeros((OBS_SIZE, MAX_HIDDEN + 1)), np.zeros(MAX_HIDDEN + 1),
                 np.zeros((MAX_HIDDEN + 1, 3)), p.b1, p.wp, p.bp)
    with pytest.raises(ValueError, match=f"hidden layers of at most {MAX_HIDDEN} units"):
        save_policy(tmp_path / "big.npz", big)
    assert os.listdir(tmp_path) == ["p.npz"]
