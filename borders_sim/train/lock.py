"""One live writer per output directory: the lock of ``borders-sim train --out`` and ``borders-sim
demos --out``.

While a command writes into a directory, ``DIR/.lock`` holds its process id and host
(:func:`owned`). A second command on the directory is refused while that process lives; the
lock of a command that was killed (its process gone from this host) is taken over with a note;
a lock of another host, or one that does not say whose it is, is refused (remove it by hand once
nothing uses the directory). The lock is removed when the command ends, Ctrl-C included.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

from ..npzfile import write_whole

#: The lock file of an output directory (module docstring).
LOCK_NAME = ".lock"


def lock_owner() -> dict:
    """What this process writes into a lock: its id and host."""
    return {"pid": os.getpid(), "host": socket.gethostname()}


def read_lock(lock: Path) -> dict | None:
    """The owner a lock file names (:func:`lock_owner`), or None if it names none."""
    try:
        owner = json.loads(lock.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(owner, dict) or not isinstance(owner.get("host"), str) or \
            type(owner.get("pid")) is not int or owner["pid"] <= 0:
        return None
    return owner


def process_alive(pid: int) -> bool:
    """Whether process ``pid`` of this host is alive (on Windows, where signal 0 would end it,
    always assumed so)."""
    if os.name == "nt":
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def take_lock(out: Path, say: Callable[[str], None]) -> None:
    """Take ``out/.lock`` for this process (module docstring).

    Raises:
        ValueError: a live run holds it, or a lock this host cannot judge (another host's, or
            one naming no run): one line naming the lock and its owner.
    """
    lock = out / LOCK_NAME
    me = lock_owner()
    try:
        with open(lock, "x") as f:
            f.write(json.dumps(me))
        return
    except FileExistsError:
        pass
    owner = read_lock(lock)
    hint = f"remove {lock} only if no run uses {out}"
    if owner is None:
        raise ValueError(f"{out} is locked by {lock}, which names no run: {hint}")
    held_by = f"pid {owner['pid']} on {owner['host']}"
    if owner["host"] != me["host"]:
        raise ValueError(f"{out} is locked by a run on another host ({held_by}, {lock}), "
                         f"which this one cannot see: {hint}")
    if process_alive(owner["pid"]):
        raise ValueError(f"{out} is in use by a live run ({held_by}, {lock}): wait for it "
                         f"to end or choose another --out ({hint})")
    # (a reader sees the dead run's lock or this one, never a part)
    write_whole(lock, lambda f: f.write(json.dumps(me).encode()), sync=False)
    say(f"taking over {lock}: the run that held it ({held_by}) is no longer alive")


@contextmanager
def owned(out: Path, say: Callable[[str], None]) -> Iterator[None]:
    """Hold the lock of the run directory ``out`` while the block runs (:func:`take_lock`),
    then remove it if it is still this process's."""
    take_lock(out, say)
    try:
        yield
    finally:
        if read_lock(out / LOCK_NAME) == lock_owner():
            (out / LOCK_NAME).unlink(missing_ok=True)
