"""Demonstration shards are read with bounds and checked against their meta, and a run never
mixes its shards with an earlier run's.

* a damaged shard (cut at many offsets, bits flipped anywhere) loads unchanged or is refused;
* every array's dtype and shape is checked on its header before any data is read (a mask row
  of 3 bytes, 5 actions for 30 rows, a header claiming 3.7 TB), then every row against the meta
  (a legal action of its mask, a recorded seat, a bot of the lineup, a finite reward);
* a named pipe, ``/dev/null``, a directory, an ``.npy``, a policy file, a 4,000-character name,
  an empty path are each one ``ValueError`` naming the file, without blocking;
* ``record_demos`` and ``borders-sim demos`` refuse a directory holding shards unless told to
  overwrite, which removes them first; shards are written atomically.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from borders_sim import cli
from borders_sim.agents.demos import (COLUMNS, FORMAT, load_shard, record_demos,
                                      shard_decisions)
from borders_sim.policies.network import SHIPPED_WEIGHTS
from borders_sim.npzfile import write_npz
from borders_sim.rules.actions import NUM_ACTIONS
from borders_sim.rules.observation import OBS_SIZE as FULL_OBS_SIZE
from borders_sim.rules.observation import OBS_SIZE_V1 as OBS_SIZE  # the columns a shard stores
from borders_sim.rules.observation import fill_rates
from tests.fuzz_files import (bit_flips, check_refusal, npy_bytes, npy_header, npz_with,
                              peak_memory, refused, released_after, truncations)

ROWS = 30
BOTS = ["honest", "bluffer", "collector"]
META = {"format": FORMAT, "bots": BOTS, "lineup": BOTS, "seats": [0, 2], "seed": 7,
        "reward": "win"}


def shard_arrays(rows: int = ROWS) -> dict[str, np.ndarray]:
    """The arrays of a shard of ``rows`` made-up decisions (module docstring of
    ``agents/demos.py``), each action legal under its mask."""
    rng = np.random.default_rng(0)
    action = rng.integers(0, NUM_ACTIONS, rows)
    legal = rng.random((rows, NUM_ACTIONS)) < 0.1
    legal[np.arange(rows), action] = True
    obs = rng.integers(0, 4, (rows, OBS_SIZE)) * (rng.random((rows, OBS_SIZE)) < 0.1)
    return {"obs": obs.astype(np.int16), "mask": np.packbits(legal, axis=1, bitorder="little"),
            "action": action.astype(np.int16), "seat": rng.choice([0, 2], rows).astype(np.int8),
            "bot": rng.integers(0, 3, rows).astype(np.int8),
            "step": np.arange(rows, dtype=np.int32), "game": np.arange(rows) // 10,
            "reward": rng.random(rows).astype(np.float32)}


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    return write_npz(tmp_path_factory.mktemp("shards") / "shard-000000.npz",
                     meta=np.array(json.dumps(META)), **shard_arrays())


def same(a: dict, b: dict) -> bool:
    return a["meta"] == b["meta"] and all(np.array_equal(a[k], b[k]) for k in COLUMNS)


def test_a_shard_loads_as_written(good):
    shard, want = load_shard(good), shard_arrays()
    assert shard["meta"] == META and shard_decisions(good) == ROWS
    assert shard["obs"].dtype == np.float32 and shard["obs"].shape == (ROWS, FULL_OBS_SIZE)
    assert np.array_equal(shard["obs"][:, :OBS_SIZE], want["obs"])
    assert np.array_equal(shard["obs"], fill_rates(shard["obs"].copy()))  # the rates filled
    assert shard["mask"].shape == (ROWS, NUM_ACTIONS) and shard["mask"].dtype == np.bool_
    assert np.array_equal(np.packbits(shard["mask"], axis=1, bitorder="little"), want["mask"])
    assert all(np.array_equal(shard[k], want[k]) for k in COLUMNS if k not in ("obs", "mask"))


# --- damaged and forged shards -----------------------------------------------------------------
def test_truncated_shards_are_refused(good, tmp_path):
    data = good.read_bytes()
    for cut in truncations(len(data)):
        path = tmp_path / f"cut-{cut}.npz"
        path.write_bytes(data[:cut])
        refused(load_shard, path)
        refused(shard_decisions, path)


def test_flipped_bits_load_unchanged_or_are_refused(good, tmp_path):
    original = load_shard(good)
    path = tmp_path / "flipped.npz"
    for data, where in bit_flips(good.read_bytes(), seed=2, count=150):
        path.write_bytes(data)
        try:
            shard = load_shard(path)
        except ValueError as err:
            check_refusal(str(err), path)
        else:
            assert same(shard, original), where


def _with(name: str, change) -> bytes:
    arrays = shard_arrays()
    return npy_bytes(change(arrays[name]))


def _meta(**changes) -> bytes:
    return npy_bytes(np.array(json.dumps({**META, **changes})))


def _set(row: int, value):
    def change(a):
        a = a.copy()
        a[row] = value
        return a
    return change


_ILLEGAL = int(np.flatnonzero(~np.unpackbits(shard_arrays()["mask"][4], count=NUM_ACTIONS,
                                             bitorder="little").astype(bool))[0])
FORGED = {
    "mask rows of 3 bytes": ("mask", _with("mask", lambda a: a[:, :3]),
                             rf"array 'mask' is uint8 of shape \({ROWS}, 3\), expected uint8 of "
                             rf"shape \({ROWS}, 65\)"),
    "5 actions": ("action", _with("action", lambda a: a[:5]),
                  rf"disagree on the number of decisions: obs {ROWS}, mask {ROWS}, action 5"),
    "one action": ("action", npy_bytes(np.int16(3)), r"action none"),
    "float obs": ("obs", _with("obs", lambda a: a.astype(np.float64)),
                  r"array 'obs' is float64 of shape .*, expected int16"),
    "obs claims 3.7 TB": ("obs", npy_header((10**9, OBS_SIZE), "<i2"),
                          rf"array 'obs' claims {10**9 * OBS_SIZE * 2:,} bytes of data"),
    "pickled obs": ("obs", npy_bytes(np.array([None] * 3, dtype=object)),
                    r"array 'obs' holds Python objects \(a pickle\)"),
    "no reward": ("reward", None, r"missing arrays \['reward'\]"),
    "no meta": ("meta", None, rf"not a {FORMAT} shard \(it has no meta record\)"),
    "meta not JSON": ("meta", npy_bytes(np.array("{")), r"its meta is not JSON"),
    "other format": ("meta", _meta(format="borders_sim.demos/0"),
                     r"its meta says format 'borders_sim.demos/0'"),
    "no bots": ("meta", _meta(bots="honest"), r"its meta has no list of bot names"),
    "seats not ints": ("meta", _meta(seats=[0, "2"]), r"its meta has no list of recorded seats"),
    "action beyond the ids": ("action", _with("action", _set(3, 600)),
                              rf"array 'action' holds 600 in row 3, which is not an action id "
                              rf"\(0 to {NUM_ACTIONS - 1}\)"),
    "illegal action": ("action", _with("action", _set(4, _ILLEGAL)),
                       rf"array 'action' holds {_ILLEGAL} in row 4, which is not legal under "
                       r"the row's mask"),
    "unrecorded seat": ("seat", _with("seat", _set(0, 1)),
                        r"array 'seat' holds 1 in row 0, which is not a recorded seat \[0, 2\]"),
    "bot beyond the lineup": ("bot", _with("bot", _set(9, 3)),
                              r"array 'bot' holds 3 in row 9, which is not a bot of the lineup"),
    "NaN reward": ("reward", _with("reward", _set(2, np.nan)),
                   r"array 'reward' holds nan in row 2, which is not finite"),
}


@pytest.mark.parametrize("case", FORGED)
def test_forged_shards_are_refused(good, tmp_path, case):
    member, forged, why = FORGED[case]
    path = npz_with(good, tmp_path / "forged.npz", **{member: forged})
    refused(load_shard, path, why)
    assert peak_memory(lambda: load_shard(path)) < 4 << 20


def test_what_is_not_a_shard_is_refused_without_blocking(good, tmp_path):
    fifo = tmp_path / "shard.fifo"
    os.mkfifo(fifo)
    with released_after(fifo) as elapsed:
        refused(load_shard, fifo, r"it is a named pipe \(FIFO\), not a file")
        refused(shard_decisions, fifo, r"named pipe")
        assert elapsed() < 2
    refused(load_shard, Path("/dev/null"), r"it is a character device, not a file")
    refused(load_shard, tmp_path, r"it is a directory, not a file")
    np.save(tmp_path / "obs.npy", np.zeros((3, OBS_SIZE), np.int16))
    refused(load_shard, tmp_path / "obs.npy", r"a single .npy array, not an .npz archive")
    refused(load_shard, SHIPPED_WEIGHTS, rf"not a {FORMAT} shard \(its meta says format None\)")
    refused(load_shard, tmp_path / "missing.npz", r"No such file")
    refused(load_shard, tmp_path / ("s" * 4000 + ".npz"), r"File name too long")
    with pytest.raises(ValueError, match=r"the shard must be a path \(a non-empty str"):
        load_shard("")


# --- writing: never two data sets in one directory ---------------------------------------------
def test_record_demos_refuses_a_directory_holding_shards(good, tmp_path):
    old = tmp_path / "shard-000003.npz"
    old.write_bytes(good.read_bytes())
    with pytest.raises(ValueError, match=r"already holds 1 shard\(s\) of an earlier run "
                                         r"\(shard-000003.npz, ...\): .*--overwrite"):
        record_demos(tmp_path, BOTS, 1)
    with pytest.raises(ValueError, match="compiled bots"):  # arguments first, then removal
        record_demos(tmp_path, ["ismcts", "honest", "honest"], 1, overwrite=True)
    with pytest.raises(TypeError, match="overwrite must be True or False"):
        record_demos(tmp_path, BOTS, 1, overwrite=1)
    assert old.exists()


def test_the_command_refuses_old_shards_unless_overwrite(tmp_path, capsys):
    def demos(games: int, *extra: str) -> int:
        return cli.main(["demos", "--bots", ",".join(BOTS), "--games", str(games),
                         "--shard-games", "1", "--out", str(tmp_path), "--no-progress", *extra])
    assert demos(3) == 0
    shards = sorted(tmp_path.iterdir())
    assert [p.name for p in shards] == [f"shard-00000{g}.npz" for g in range(3)]
    before = [p.read_bytes() for p in shards]
    capsys.readouterr()
    assert demos(1, "--seed", "5") == 1
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "error:" in line]
    assert len(lines) == 1 and "already holds 3 shard(s)" in lines[0], err
    assert [p.read_bytes() for p in sorted(tmp_path.iterdir())] == before
    assert demos(1, "--seed", "5", "--overwrite") == 0
    assert [p.name for p in tmp_path.iterdir()] == ["shard-000000.npz"]  # no .part left either
    shard = load_shard(tmp_path / "shard-000000.npz")
    assert shard["meta"]["seed"] == 5 and set(shard["game"].tolist()) == {0}
    assert f"{len(shard['action']):,} decisions of 1 games" in capsys.readouterr().out


def test_the_command_refuses_a_directory_a_live_run_holds(tmp_path, capsys):
    """``DIR/.lock`` (:mod:`borders_sim.train.lock`): a live run's lock refuses a second run,
    a killed run's is taken over, and the lock is gone when the command ends."""
    def demos() -> int:
        return cli.main(["demos", "--bots", ",".join(BOTS), "--games", "1", "--out",
                         str(tmp_path), "--no-progress", "--overwrite"])
    lock = tmp_path / ".lock"
    lock.write_text(json.dumps({"pid": os.getpid(), "host": socket.gethostname()}))
    assert demos() == 1
    err = capsys.readouterr().err
    assert "in use by a live run" in err and not list(tmp_path.glob("shard-*"))
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    lock.write_text(json.dumps({"pid": dead.pid, "host": socket.gethostname()}))
    assert demos() == 0
    assert "taking over" in capsys.readouterr().err
    assert not lock.exists() and len(list(tmp_path.glob("shard-*"))) == 1
