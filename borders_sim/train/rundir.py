"""The run directory of :func:`~.trainer.train`: its files and its checkpoints.

**The run directory** is the run's own. :func:`~.trainer.train` refuses a directory that holds
another run's files (``policy.npz``, ``latest.npz``, ``curve.*``, the checkpoints) unless
``resume`` (continue it) or ``overwrite`` (delete those files first; nothing else in the
directory) is given, and an empty name (which would train into the working directory). While it
runs, ``DIR/.lock`` says so (:mod:`.lock`: one live writer per directory).

**Files a reader can trust.** Every file is written whole or not at all (into ``NAME.part``,
flushed to disk, then renamed over ``NAME``); a failed write (a full disk) is one ``OSError``
line naming the file. A checkpoint (format :data:`CHECKPOINT_FORMAT`) holds tensors and plain
values only (numbers, strings, None, lists and dicts of them: numpy arrays are stored as
tensors, the policy's meta and the curve as plain values), and is read with ``torch.load(...,
weights_only=True)``, which runs no code from the file: a file holding anything else (a crafted
pickle, a checkpoint of an older borders_sim) is refused, and so is a truncated or damaged one,
each in one line naming the file.

**Resume** continues from the checkpoint with the highest update number
(``checkpoints/update-N.pt``, ordered by ``N``, not by the text; other names are ignored), and
only with the settings that shape the run unchanged (:meth:`~.config.TrainConfig.shaping`:
everything but :data:`~.config.RESUMABLE`; ``max_updates`` too while ``anneal_lr`` makes it the
learning rate's horizon), the same algorithm and the same settings of it (a checkpoint's
``algorithm`` and ``exploiter_algorithm`` records; one written before them is PPO's with its
``ppo`` settings): a difference is refused naming the setting and both values. Resumed, a run is
the one it would have been uninterrupted, update for update (on the same device and threads).
"""

from __future__ import annotations

import json
import os
import pickle
import re
import warnings
from contextlib import suppress
from pathlib import Path
from typing import Any, BinaryIO, Callable

import torch

from ..policies.network import Policy, save_policy
from ..npzfile import write_whole
from .algorithm import record
from .config import RESUMABLE, TrainConfig, option_of
from .ppo import PPOSettings, rule_option

#: The layout of a checkpoint this trainer writes and resumes: tensors and plain values only
#: (module docstring). Format 2 (borders_sim before it) pickled numpy arrays and objects.
CHECKPOINT_FORMAT = 3
#: The files of a run at the top of its directory (``checkpoints/`` holds the others).
RUN_FILES = ("policy.npz", "latest.npz", "curve.csv", "curve.json", "curve.png")
#: A checkpoint's name, ``update-N.pt`` (``N``: the updates made before it).
CHECKPOINT_NAME = re.compile(r"update-(\d+)\.pt")
#: The files the trainer writes into ``checkpoints/`` (and their part files while written).
CHECKPOINT_FILE = re.compile(r"update-\d+\.(pt|npz)(\.part)?")


def one_line(err: BaseException) -> str:
    """An exception's message on one line (torch's span several)."""
    return " ".join(str(err).split()) or type(err).__name__


def plain(value: Any) -> Any:
    """``value`` (settings, curve rows: JSON values, tuples and numpy numbers included) as
    plain values: dicts, lists, str, int, float, bool and None."""
    return json.loads(json.dumps(value, default=lambda x: x.item()))


def write_atomically(path: Path, write: Callable[[BinaryIO], object]) -> Path:
    """Write ``path`` by ``write(file)``, whole or not at all and forced to disk
    (:func:`~borders_sim.npzfile.write_whole`). Returns ``path``.

    Raises:
        OSError: the write failed (a full disk, ...): one line naming ``path``.
    """
    try:
        return write_whole(path, write)
    except (OSError, RuntimeError) as err:  # (torch's writer reports a failed write so)
        raise OSError(f"cannot write {path}: {one_line(err)}") from None


def write_policy(path: Path, policy: Policy) -> Path:
    """:func:`~borders_sim.policies.network.save_policy` (atomic), a failed write reported as
    :func:`write_atomically` reports it."""
    try:
        return save_policy(path, policy)
    except OSError as err:
        raise OSError(f"cannot write {path}: {one_line(err)}") from None


def checkpoint_number(path: Path) -> int | None:
    """``N`` of a checkpoint named ``update-N.pt``; None for another name."""
    found = CHECKPOINT_NAME.fullmatch(path.name)
    return int(found.group(1)) if found else None


def latest_checkpoint(out: str | os.PathLike) -> Path | None:
    """The checkpoint of the highest update number in ``out/checkpoints`` (``update-N.pt``,
    ordered by ``N``; other names are ignored), or None."""
    found = [(n, path) for path in Path(out).glob("checkpoints/update-*.pt")
             if (n := checkpoint_number(path)) is not None]
    return max(found)[1] if found else None


def load_checkpoint(path: Path) -> dict:
    """The checkpoint ``path``, read by torch's weights-only loader (tensors and plain values;
    nothing in the file is run) onto the CPU.

    Raises:
        ValueError: a file holding anything else (a crafted pickle, an older borders_sim's
            checkpoint), a truncated or damaged file, or a checkpoint of another format: one
            line naming ``path``.
    """
    try:
        with warnings.catch_warnings():  # (torch warns of odd pickles it then refuses)
            warnings.simplefilter("ignore")
            state = torch.load(path, map_location="cpu", weights_only=True)
    except OSError:  # (the file cannot be opened: the error names it)
        raise
    except pickle.UnpicklingError:
        raise ValueError(
            f"{path}: refused: not a checkpoint of tensors and plain values only (it holds "
            f"other objects, which could run code, as a checkpoint of a borders_sim older than "
            f"format {CHECKPOINT_FORMAT} or a crafted file does, or it is no checkpoint at "
            f"all); nothing in it was run") from None
    except Exception as err:  # noqa: BLE001 - a truncated or junk file fails in many ways
        raise ValueError(f"{path}: not a readable checkpoint (truncated or damaged: "
                         f"{one_line(err)}); remove it to resume from an earlier one") from None
    if not isinstance(state, dict) or "format" not in state:
        raise ValueError(f"{path}: not a checkpoint of the trainer (no format number)")
    if state["format"] != CHECKPOINT_FORMAT:
        raise ValueError(f"{path} is a checkpoint of another borders_sim (format "
                         f"{state['format']!r}, this one reads {CHECKPOINT_FORMAT})")
    return state


def saved_algorithms(state: dict) -> dict:
    """The ``algorithm`` and ``exploiter_algorithm`` records of a checkpoint (module
    docstring); one written before they were recorded trained with PPO and the settings its
    config kept under ``ppo``."""
    if "algorithm" in state:
        return {"algorithm": state["algorithm"],
                "exploiter_algorithm": state.get("exploiter_algorithm")}
    ppo = record("ppo", PPOSettings(**state["config"]["ppo"]))
    return {"algorithm": ppo,
            "exploiter_algorithm": ppo if state["config"].get("exploiter_every") else None}


def check_resume(state: dict, config: TrainConfig, path: Path) -> None:
    """Refuse to continue the checkpoint ``state`` (read from ``path``) with ``config`` unless
    every setting that shapes the run (:meth:`TrainConfig.shaping`) is the checkpoint's, its
    algorithms too, with the same settings.

    Raises:
        ValueError: the first setting that differs, named with both values.
    """
    try:
        saved = {name: value for name, value in state["config"].items()
                 if name not in ("ppo", "settings")}  # (compared as resolved, below)
        saved = TrainConfig(**saved).shaping()
        algorithms = saved_algorithms(state)
    except (KeyError, TypeError, ValueError) as err:
        raise ValueError(f"{path}: not a checkpoint of the trainer (its settings: "
                         f"{one_line(err)})") from None
    for name, value in config.shaping().items():
        # (a setting one side leaves free, max_updates, differs with anneal_lr, named then)
        if name in saved and saved[name] != value:
            option = option_of(name)
            label = f"{name} ({option})" if option else name
            raise ValueError(
                f"--resume: {path} is of a run with {label} {shown_setting(saved[name])}, "
                f"this run has {shown_setting(value)}; a resumed run keeps every setting that "
                f"shapes it (only {', '.join(sorted(map(option_of, RESUMABLE)))} may change)")
    ours = {"algorithm": record(config.algorithm, config.algorithm_settings()),
            "exploiter_algorithm": record(config.exploiter_spec(), config.exploiter_settings())
            if config.exploiter_every else None}
    for role, option in (("algorithm", "--algorithm"),
                         ("exploiter_algorithm", "--exploiter-algorithm")):
        theirs, mine = algorithms.get(role), ours[role]
        if theirs is None or mine is None:
            continue
        if theirs.get("name") != mine["name"]:
            raise ValueError(f"--resume: {path} was trained by the {role.replace('_', ' ')} "
                             f"{theirs.get('name')} ({option}), this run's is {mine['name']}; "
                             f"a resumed run keeps its algorithm and its settings")
        settings = theirs.get("settings") or {}
        for key, value in mine["settings"].items():
            if key in settings and settings[key] != value:
                label = (rule_option(key) if role == "algorithm" else None) or \
                    f"{option}-arg {key}=..."
                raise ValueError(f"--resume: {path} is of a run whose {role.replace('_', ' ')} "
                                 f"{mine['name']} has {key} ({label}) {shown_setting(settings[key])}"
                                 f", this run has {shown_setting(value)}; a resumed run keeps "
                                 f"its algorithm and its settings")


def shown_setting(value: Any) -> str:
    """A setting's value as a message shows it (``256 256``, ``honest,bluffer``, ``none``)."""
    if value is None:
        return "none"
    if isinstance(value, list):
        return ",".join(value) if all(isinstance(v, str) for v in value) else \
            " ".join(map(str, value))
    return str(value)


def run_files(out: Path) -> list[Path]:
    """The files of a run in ``out`` (:data:`RUN_FILES`, their part files, the checkpoints')."""
    names = [name + part for name in RUN_FILES for part in ("", ".part")]
    found = [out / name for name in names if (out / name).exists()]
    folder = out / "checkpoints"
    if folder.is_dir():
        found += sorted(p for p in folder.iterdir() if CHECKPOINT_FILE.fullmatch(p.name))
    return found


def run_directory(out: str | os.PathLike, resume: bool) -> Path:
    """``out`` as a run directory, made if missing (unless ``resume``, which needs it).

    Raises:
        ValueError: an empty name (which would train into the working directory), a path that
            is there but not a directory, or none to resume.
    """
    if not isinstance(out, (str, os.PathLike)) or not str(os.fspath(out)).strip():
        raise ValueError(f"out must name a directory, got {out!r}")
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise ValueError(f"out {str(path)!r} is a file, not a directory")
    if resume and not path.exists():
        raise ValueError(f"--resume: there is no run directory {path}")
    path.mkdir(parents=True, exist_ok=True)
    return path


def claim(out: Path, resume: bool, overwrite: bool, say: Callable[[str], None]) -> Path | None:
    """Make ``out`` this run's (module docstring): with ``resume`` return its newest checkpoint;
    with ``overwrite`` delete another run's files there first; else refuse another run's.

    Raises:
        ValueError: no checkpoint to resume, or another run's files without ``overwrite``.
    """
    if resume:
        found = latest_checkpoint(out)
        if found is None:
            raise ValueError(f"--resume: no checkpoint (update-N.pt) in {out / 'checkpoints'}")
        return found
    held = run_files(out)
    if held and not overwrite:
        names = sorted({p.relative_to(out).parts[0] for p in held})
        raise ValueError(f"{out} holds another run ({', '.join(names)}): --resume continues "
                         f"it, --overwrite deletes its files first, or choose another --out")
    for p in held:
        p.unlink()
    if held:
        with suppress(OSError):  # (a checkpoints folder that holds other files stays)
            (out / "checkpoints").rmdir()
        say(f"--overwrite: deleted the {len(held)} files of the run in {out}")
    return None
