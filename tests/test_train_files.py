"""The trainer's files and run directory (``borders_sim/train/trainer.py``, ``borders-sim
train``): checkpoints that run no code from the file, a run directory that is the run's own
(another run's files, the lock), resume only with the settings that shaped the run, checkpoints
ordered by their number, damaged files and failed writes as one line, the memory check, and
the help's defaults. Tiny runs (a few updates of a few games). Needs torch (the ``rl`` extra)."""

from __future__ import annotations

import dataclasses
import errno
import functools
import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from borders_sim import cli  # noqa: E402
from borders_sim.policies.network import load_policy  # noqa: E402
from borders_sim.train import PPOSettings, TrainConfig, train  # noqa: E402
from borders_sim.train import config as config_module  # noqa: E402
from borders_sim.train.rundir import CHECKPOINT_FORMAT, latest_checkpoint, load_checkpoint  # noqa: E402,E501
from borders_sim.train.trainer import Trainer  # noqa: E402

torch.set_num_threads(1)
SMALL = TrainConfig(players=3, opponents=("honest", "random"), num_envs=4, steps=8,
                    hidden=(8, 8), snapshots=0, eval_every=0, checkpoint_every=1, max_updates=2,
                    seed=11, minutes=10.0)
#: ``SMALL`` on the command line.
SMALL_ARGS = ["--players", "3", "--opponents", "honest,random", "--num-envs", "4", "--steps",
              "8", "--hidden", "8", "8", "--snapshots", "0", "--eval-every", "0",
              "--checkpoint-every", "1", "--max-updates", "2", "--seed", "11", "--no-progress"]


def quiet(line: str) -> None:
    """An ``echo`` that drops the trainer's lines."""


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """A finished run of ``SMALL``: checkpoints after updates 1 and 2 (tests that change it
    copy it first)."""
    out = tmp_path_factory.mktemp("run") / "run"
    train(SMALL, out, progress=False, echo=quiet)
    return out


def copy_of(run: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(run, tmp_path / "copy"))


def cli_run(capsys, args: list[str]) -> tuple[int, str, str]:
    code = cli.main(["train", *args])
    out, err = capsys.readouterr()
    return code, out, err


# --- 1. no code from data ----------------------------------------------------------------------
class MakesAFile:
    """Unpickled, opens (creates) the file ``marker``: what a crafted checkpoint could run."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return open, (str(self.marker), "w")


def test_a_crafted_checkpoint_is_refused_and_runs_nothing(tmp_path, capsys):
    out, marker = tmp_path / "run", tmp_path / "pwned"
    (out / "checkpoints").mkdir(parents=True)
    crafted = out / "checkpoints" / "update-000003.pt"
    torch.save({"format": CHECKPOINT_FORMAT, "config": MakesAFile(marker)}, crafted)
    with pytest.raises(ValueError, match="refused: not a checkpoint of tensors") as err:
        train(SMALL, out, resume=True, progress=False, echo=quiet)
    assert str(crafted) in str(err.value) and "\n" not in str(err.value)
    code, _, stderr = cli_run(capsys, SMALL_ARGS + ["--out", str(out), "--resume"])
    assert code == 1 and "refused" in stderr and len(stderr.strip().splitlines()) == 1
    assert not marker.exists()
    torch.load(crafted, weights_only=False)  # the file is what it claims: unpickled, it runs
    assert marker.exists()


def test_checkpoints_hold_tensors_and_plain_values_only(run_dir):
    """A weights-only load reads a checkpoint whole (no numpy arrays, no objects)."""
    state = load_checkpoint(latest_checkpoint(run_dir))
    assert state["format"] == CHECKPOINT_FORMAT == 3 and state["update"] == 2

    def kinds(value) -> set[type]:
        if isinstance(value, dict):
            return {t for k, v in value.items() for t in kinds(k) | kinds(v)}
        if isinstance(value, (list, tuple)):
            return {t for v in value for t in kinds(v)}
        return {type(value)}
    assert kinds(state) <= {dict, list, tuple, str, int, float, bool, type(None), torch.Tensor}


def test_other_formats_and_damaged_files_are_one_line(tmp_path, run_dir):
    good = latest_checkpoint(run_dir)
    cases = {"old.pt": None, "format2.pt": None, "truncated.pt": good.read_bytes()[:2000],
             "junk.pt": b"not a checkpoint at all " * 40, "empty.pt": b""}
    torch.save({"format": 2, "main": {"obs": np.zeros(3)}}, tmp_path / "old.pt")  # numpy inside
    torch.save({"format": 2, "update": 1}, tmp_path / "format2.pt")
    for name, data in cases.items():
        if data is not None:
            (tmp_path / name).write_bytes(data)
    damaged = ("not a readable checkpoint", "refused: not a checkpoint")  # (junk may be either)
    want = {"old.pt": ("refused: not a checkpoint of tensors and plain values",),
            "format2.pt": ("format 2, this one reads 3",), "truncated.pt": damaged,
            "junk.pt": damaged, "empty.pt": damaged}
    for name, phrases in want.items():
        with pytest.raises(ValueError) as err:
            load_checkpoint(tmp_path / name)
        message = str(err.value)
        assert any(phrase in message for phrase in phrases), message
        assert str(tmp_path / name) in message and "\n" not in message


def test_a_checkpoint_of_other_contents_is_one_line(tmp_path, run_dir):
    """A file the weights-only loader reads, with the format number but not the trainer's
    state, is refused in one line before the run goes on."""
    out = copy_of(run_dir, tmp_path)
    path = latest_checkpoint(out)
    state = load_checkpoint(path)
    state["main"]["obs"] = torch.zeros(3)
    torch.save(state, path)
    with pytest.raises(ValueError, match="not a checkpoint this run can continue") as err:
        train(SMALL, out, resume=True, progress=False, echo=quiet)
    assert "obs" in str(err.value) and "\n" not in str(err.value)


# --- 2. the run directory is the run's own ----------------------------------------------------
@pytest.mark.parametrize("held", ["policy.npz", "curve.csv", "checkpoints/update-000007.pt"])
def test_a_directory_holding_another_run_is_refused(tmp_path, held):
    out = tmp_path / "run"
    (out / held).parent.mkdir(parents=True, exist_ok=True)
    (out / held).write_bytes(b"x")
    with pytest.raises(ValueError, match="holds another run .*--resume continues it, "
                                         "--overwrite deletes"):
        train(SMALL, out, progress=False, echo=quiet)
    assert (out / held).read_bytes() == b"x" and not (out / ".lock").exists()


def test_overwrite_deletes_the_runs_files_only(tmp_path, capsys):
    out = tmp_path / "run"
    (out / "checkpoints").mkdir(parents=True)
    for name in ("curve.csv", "latest.npz", "notes.txt", "checkpoints/update-000007.pt",
                 "checkpoints/update-000007.npz", "checkpoints/README"):
        (out / name).write_text("old")
    code, _, err = cli_run(capsys, SMALL_ARGS + ["--out", str(out), "--max-updates", "1",
                                                 "--overwrite"])
    assert code == 0, err
    assert "--overwrite: deleted the 4 files" in err
    assert not (out / "latest.npz").exists() and not (out / "checkpoints/update-000007.pt").exists()
    assert (out / "notes.txt").read_text() == "old" and (out / "checkpoints/README").exists()
    assert (out / "curve.csv").read_text() != "old" and (out / "policy.npz").exists()
    with pytest.raises(SystemExit) as exit_:
        cli.main(["train", *SMALL_ARGS, "--out", str(out), "--resume", "--overwrite"])
    assert exit_.value.code == 2 and "not allowed with argument" in capsys.readouterr().err
    with pytest.raises(ValueError, match="give one of them"):
        train(SMALL, out, resume=True, overwrite=True)


def test_an_empty_or_wrong_out_is_refused(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="out must name a directory"):
        train(SMALL, "", progress=False, echo=quiet)
    with pytest.raises(SystemExit) as exit_:
        cli.main(["train", "--out", ""])
    assert exit_.value.code == 2 and "--out: must name a directory" in capsys.readouterr().err
    with pytest.raises(ValueError, match="--resume: there is no run directory"):
        train(SMALL, tmp_path / "missing", resume=True, progress=False, echo=quiet)
    with pytest.raises(ValueError, match="is a file, not a directory"):
        train(SMALL, Path(__file__), progress=False, echo=quiet)
    assert list(tmp_path.iterdir()) == []


def lock(out: Path, owner: object) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    (out / ".lock").write_text(json.dumps(owner) if not isinstance(owner, str) else owner)
    return out / ".lock"


def test_a_live_runs_lock_is_refused(tmp_path):
    host = socket.gethostname()
    cases = [({"pid": os.getpid(), "host": host}, f"in use by a live run \\(pid {os.getpid()}"),
             ({"pid": 1234, "host": host + "-elsewhere"}, "a run on another host"),
             ("half-written", "which names no run")]
    for k, (owner, phrase) in enumerate(cases):
        path = lock(tmp_path / f"run{k}", owner)
        before = path.read_text()
        with pytest.raises(ValueError, match=phrase) as err:
            train(SMALL, path.parent, progress=False, echo=quiet)
        assert str(path) in str(err.value) and "\n" not in str(err.value)
        assert path.read_text() == before  # the lock stays its owner's


def test_a_killed_runs_lock_is_taken_over(tmp_path):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # ended and reaped: its pid names no process now
    path = lock(tmp_path / "run", {"pid": dead.pid, "host": socket.gethostname()})
    lines: list[str] = []
    seen: list[dict] = []
    original = Trainer.step

    def step(self):  # the lock while the run runs
        seen.append(json.loads(path.read_text()))
        return original(self)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Trainer, "step", step)
        run = train(dataclasses.replace(SMALL, max_updates=1), path.parent, progress=False,
                    echo=lines.append)
    assert run.updates == 1
    assert any(f"taking over {path}" in line and f"pid {dead.pid}" in line for line in lines)
    assert seen == [{"pid": os.getpid(), "host": socket.gethostname()}]
    assert not path.exists()  # released at the end


# --- 3. resume only with the settings that shaped the run -------------------------------------
@pytest.mark.parametrize("change, phrase", [
    ({"players": 4}, "players (--players) 3, this run has 4"),
    ({"hidden": (16, 16)}, "hidden (--hidden) 8 8, this run has 16 16"),
    ({"num_envs": 5}, "num_envs (--num-envs) 4, this run has 5"),
    ({"opponents": ("honest",)}, "opponents (--opponents) honest,random, this run has honest"),
    ({"dense": False}, "dense (--sparse) True, this run has False"),
    ({"reward": "score"}, "reward (--reward) win, this run has score"),
    ({"mixed": 0.0}, "mixed (--mixed) 0.5, this run has 0.0"),
    ({"seed": 12}, "seed (--seed) 11, this run has 12"),
    ({"steps": 16}, "steps (--steps) 8, this run has 16"),
    ({"lr": 1e-3}, "lr (--lr) 0.0003, this run has 0.001"),
    ({"max_updates": 5}, "max_updates (--max-updates) 2, this run has 5"),
    ({"anneal_lr": False, "max_updates": 5},
         "anneal_lr (--constant-lr) True, this run has False"),
    ({"exploiter_every": 2}, "exploiter_every (--exploiter-every) 0, this run has 2"),
    ({"settings": PPOSettings(epochs=3)}, "ppo has epochs (--epochs) 2, this run has 3"),
    ({"settings": PPOSettings(minibatches=2)},
     "ppo has minibatches (--minibatches) 4, this run has 2"),
    ({"settings": PPOSettings(anchor_coef=0.5, anchor_every=2)},
     "ppo has anchor_coef (--anchor) 0.0, this run has 0.5"),
])
def test_resume_refuses_another_setting_naming_it(run_dir, change, phrase):
    with pytest.raises(ValueError) as err:
        train(dataclasses.replace(SMALL, **change), run_dir, resume=True, progress=False,
              echo=quiet)
    assert phrase in str(err.value) and "\n" not in str(err.value)


def test_resume_on_the_command_line(tmp_path, run_dir, capsys):
    """A setting that shapes the run is refused in one line; those that do not may change."""
    out = copy_of(run_dir, tmp_path)
    code, _, err = cli_run(capsys, SMALL_ARGS + ["--out", str(out), "--resume", "--players", "4"])
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert "players (--players) 3, this run has 4" in err
    code, _, err = cli_run(capsys, SMALL_ARGS + ["--out", str(out), "--resume", "--minutes", "3",
                                                 "--checkpoint-every", "5", "--eval-every",
                                                 "7", "--eval-games", "3", "--torch-threads",
                                                 "1", "--device", "cpu"])
    assert code == 0, err


def test_interrupted_then_resumed_is_the_uninterrupted_run(tmp_path, capsys):
    """Ctrl-C after the checkpoint of update 2 of 4, then ``--resume``: the policy and the
    curve of a run that was never interrupted (timings aside). Ctrl-C before the first
    checkpoint says there is nothing to resume."""
    args = SMALL_ARGS + ["--max-updates", "4", "--checkpoint-every", "2"]
    whole = train(dataclasses.replace(SMALL, max_updates=4, checkpoint_every=2),
                  tmp_path / "whole", progress=False, echo=quiet)
    original, calls = Trainer.step, []

    def interrupted_step(after: int):
        def step(self):
            calls.append(self.update)
            if len(calls) > after:
                raise KeyboardInterrupt
            return original(self)
        return step
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Trainer, "step", interrupted_step(0))
        code, out, _ = cli_run(capsys, args + ["--out", str(tmp_path / "early")])
        assert code == 130 and "before the first checkpoint: nothing to resume" in out
        assert "--resume" not in out and not (tmp_path / "early" / ".lock").exists()
        calls.clear()
        mp.setattr(Trainer, "step", interrupted_step(3))
        code, out, _ = cli_run(capsys, args + ["--out", str(tmp_path / "part")])
    part = tmp_path / "part"
    assert code == 130 and f"{part / 'checkpoints' / 'update-000002.pt'} (update 2)" in out
    assert "--resume" in out
    code, _, err = cli_run(capsys, args + ["--out", str(part), "--resume"])
    assert code == 0, err
    a, b = load_policy(whole.policy), load_policy(part / "policy.npz")
    for name in ("w0", "b0", "w1", "b1", "wp", "bp"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    curve = json.loads((part / "curve.json").read_text())

    def untimed(row: dict) -> dict:
        return {k: v for k, v in row.items() if not k.startswith("seconds") and
                k != "steps_per_s"}
    assert [untimed(r) for r in curve] == [untimed(r) for r in whole.curve]


# --- 4. checkpoints in the order of their numbers ----------------------------------------------
def test_the_newest_checkpoint_is_the_highest_number(tmp_path):
    folder = tmp_path / "checkpoints"
    folder.mkdir()
    for name in ("update-999999.pt", "update-1000000.pt", "update-000002.pt",
                 "update-abc.pt", "update-2000000.pt.part", "update-3000000.pt.bak",
                 "update--4.pt", "notes.pt"):
        (folder / name).write_bytes(b"")
    assert latest_checkpoint(tmp_path) == folder / "update-1000000.pt"
    assert latest_checkpoint(tmp_path / "none") is None


# --- 5. failed writes, the learning rate ------------------------------------------------------
def test_a_full_disk_while_checkpointing_is_one_line(tmp_path, monkeypatch, capsys):
    trainer = Trainer(SMALL, tmp_path / "run")
    first = trainer.checkpoint()
    kept = first.read_bytes()

    def full(*args, **kwargs):  # torch.save(obj, file), np.savez_compressed(file, ...)
        next(a for a in args if hasattr(a, "write")).write(b"part of a file")
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(torch, "save", full)
    with pytest.raises(OSError) as err:
        trainer.checkpoint()
    assert str(err.value) == f"cannot write {first}: [Errno 28] No space left on device"
    assert first.read_bytes() == kept and not list(first.parent.glob("*.part"))
    code, _, stderr = cli_run(capsys, SMALL_ARGS + ["--out", str(tmp_path / "cli"),
                                                    "--max-updates", "1"])
    assert code == 1 and len(stderr.strip().splitlines()) == 1
    assert "No space left on device" in stderr
    monkeypatch.setattr(np, "savez_compressed", full)  # the checkpoint's policy file
    with pytest.raises(OSError, match="^cannot write .*update-000000.npz: \\[Errno 28\\]"):
        trainer.checkpoint()
    assert not list(first.parent.glob("*.part"))


@pytest.mark.parametrize("option, value", [("--lr", "inf"), ("--lr", "nan"), ("--lr", "0"),
                                           ("--lr", "-1e-3"), ("--anchor", "inf"),
                                           ("--mixed", "nan"), ("--minutes", "inf")])
def test_non_finite_numbers_are_refused_at_parse_time(tmp_path, capsys, option, value):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["train", "--out", str(tmp_path / "run"), f"{option}={value}"])
    assert exit_.value.code == 2 and f"argument {option}: must be" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("change, name", [({"lr": float("inf")}, "lr"),
                                          ({"lr": float("nan")}, "lr"),
                                          ({"mixed": float("nan")}, "mixed"),
                                          ({"minutes": float("nan")}, "minutes"),
                                          ({"settings": PPOSettings(anchor_coef=float("inf"),
                                                               anchor_every=1)}, "anchor_coef"),
                                          ({"settings": PPOSettings(gamma=float("nan"))}, "gamma"),
                                          ({"hidden": (8,)}, "hidden"),
                                          ({"num_envs": 0}, "num_envs")])
def test_the_settings_are_checked_in_python_too(tmp_path, change, name):
    with pytest.raises(ValueError, match=f"^{name}"):
        train(dataclasses.replace(SMALL, **change), tmp_path / "run", progress=False)
    assert not (tmp_path / "run").exists()


# --- 6. memory ---------------------------------------------------------------------------------
def test_a_run_larger_than_the_memory_is_refused_before_allocating(tmp_path, monkeypatch,
                                                                   capsys):
    monkeypatch.setattr(config_module, "machine_memory", lambda: 64 * 2**30)
    huge = dataclasses.replace(SMALL, num_envs=16384, steps=4096, hidden=(256, 256))
    with pytest.raises(ValueError) as err:
        train(huge, tmp_path / "run", progress=False)
    message = str(err.value)
    assert message.startswith("num_envs x steps = 16384 x 4096 with hidden 256 256 needs about")
    storage = config_module.gib(16384 * 4096 * config_module.DECISION_BYTES)
    assert f"rollout storage {storage}" in message and "this machine's 64 GiB" in message
    assert "\n" not in message and not (tmp_path / "run").exists()
    code, _, stderr = cli_run(capsys, ["--num-envs", "16384", "--steps", "4096", "--out",
                                       str(tmp_path / "run")])
    assert code == 1 and len(stderr.strip().splitlines()) == 1 and "16384 x 4096" in stderr
    monkeypatch.setattr(config_module, "machine_memory", lambda: 2**20)
    with pytest.raises(ValueError, match="more than this machine's"):
        SMALL.check()
    monkeypatch.setattr(config_module, "machine_memory", lambda: None)
    huge.check()  # no figure for the machine: no check


def test_the_machine_memory_is_read():
    memory = config_module.machine_memory()
    assert memory is None or memory > 2**20


# --- 7. the help ---------------------------------------------------------------------------------
def test_the_help_shows_the_true_defaults(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")  # (no line breaks inside option names)
    with pytest.raises(SystemExit):
        cli.main(["train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: None)" not in text and "(default: False)" not in text
    assert "(default: league)" in text and "(default: 256 256)" in text
    assert f"passes over each rollout (default: {PPOSettings().epochs})" in text
    assert "--max-updates U stop after U updates" in text and "default: no cap" in text
    assert "only --checkpoint-every, --device, --eval-every" in text
    assert f"(default: {TrainConfig().seed})" in text and f"(default: {TrainConfig().mixed})" in text
    assert "--out DIR the run's directory" in text and "--out DIR (default" not in text
    assert "--sparse only the terminal reward (default: spread over the learner" in text
    assert "same sum) (default" not in text and "minutes) (default" not in text  # one each
    assert "default: 4 a run, after the update that completes each quarter of the budget" \
        in text
    assert "(default: 200, or 50 for a budget under 10 minutes)" in text


def test_an_exploiter_replaces_its_own_earlier_run(tmp_path, monkeypatch):
    """``exploit`` trains into its own directory: run again, it replaces the run there."""
    from borders_sim.train import exploiter
    tiny = functools.partial(TrainConfig, num_envs=4, steps=8, hidden=(8, 8))
    monkeypatch.setattr(exploiter, "TrainConfig", tiny)  # (the recipe's network is larger)
    out = tmp_path / "honest-fresh"
    for _ in range(2):
        found = exploiter.exploit("honest", out, minutes=5.0, players=3, games=2, seed=1,
                                  max_updates=1)
        assert found.updates == 1
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == [
        "update-000001.npz", "update-000001.pt"]
