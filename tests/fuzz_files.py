"""Damaged, forged and misplaced files for the readers of policy files and demonstration shards
(:class:`borders_sim.npzfile.NpzFile`), used by :mod:`tests.test_policy_files` and
:mod:`tests.test_shards`.

* :func:`truncations` and :func:`bit_flips`: a good file cut at many offsets, or with a few bits
  flipped anywhere (zip headers, ``.npy`` headers, compressed data, the central directory);
* :func:`npz_with`: a copy of a good ``.npz`` with members replaced by forged bytes, e.g. an
  ``.npy`` header (:func:`npy_header`) claiming a giant shape over a little data;
* :func:`refused` (:func:`check_refusal`): the reader raises one ``ValueError`` on one line
  naming the file, without numpy's ``allow_pickle`` advice;
* :func:`peak_memory`: the most memory a call allocated (numpy's arrays included), to show a
  forged header costs nothing;
* :func:`released_after`: a named pipe a blocked reader is released from after a few seconds,
  so a reader that blocks fails its test instead of hanging the test run.
"""

from __future__ import annotations

import io
import os
import random
import re
import struct
import threading
import time
import tracemalloc
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from numpy.lib import format as npy_format


def npy_bytes(array: np.ndarray) -> bytes:
    """``array`` as the bytes of an ``.npy`` member (pickles allowed: a forged file may hold
    them)."""
    out = io.BytesIO()
    npy_format.write_array(out, array, allow_pickle=True)
    return out.getvalue()


def npy_header(shape: tuple[int, ...], descr: str = "<f4", version: tuple[int, int] = (1, 0),
               length: int | None = None) -> bytes:
    """An ``.npy`` header claiming an array of ``shape`` and ``descr`` (no data after it);
    ``length`` forges the header's length field."""
    text = repr({"descr": descr, "fortran_order": False, "shape": shape}).encode("latin1") + b"\n"
    size = struct.pack("<H" if version == (1, 0) else "<I",
                       len(text) if length is None else length)
    return npy_format.magic(*version) + size + text


def npz_with(good: Path, out: Path, **members: bytes | None) -> Path:
    """A copy of the ``.npz`` file ``good`` at ``out`` with the ``.npy`` member of each name of
    ``members`` replaced by its bytes (added where new), or left out where None."""
    with zipfile.ZipFile(good) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for name in src.namelist():
            if name[:-4] not in members:
                dst.writestr(name, src.read(name))
        for name, data in members.items():
            if data is not None:
                dst.writestr(name + ".npy", data)
    return out


def truncations(size: int, count: int = 60) -> list[int]:
    """``count`` lengths to cut a file of ``size`` bytes to, spread over the file, with the
    first and last few bytes."""
    cuts = {0, 1, 4, 30, size - 22, size - 1} | {size * k // count for k in range(1, count)}
    return sorted(c for c in cuts if 0 <= c < size)


def bit_flips(data: bytes, seed: int, count: int) -> Iterator[tuple[bytes, str]]:
    """``count`` copies of ``data`` with 1 to 8 bits flipped at random places, each with the
    places (for the failure message)."""
    rng = random.Random(seed)
    for _ in range(count):
        b = bytearray(data)
        places = [(rng.randrange(len(b)), rng.randrange(8))
                  for _ in range(rng.choice((1, 1, 2, 8)))]
        for at, bit in places:
            b[at] ^= 1 << bit
        yield bytes(b), f"bits flipped at {places}"


def refused(read: Callable[[Path], object], path: Path, pattern: str = "") -> str:
    """``read(path)`` raises one ValueError: one line naming the file (its name at least),
    matching ``pattern``, without numpy's advice to load pickles; returns the message."""
    with pytest.raises(ValueError) as err:
        read(path)
    return check_refusal(str(err.value), path, pattern)


def check_refusal(msg: str, path: Path, pattern: str = "") -> str:
    """The message refusing ``path`` is one line naming the file (its name at least), matches
    ``pattern`` and gives no advice to load pickles; returns it."""
    assert "\n" not in msg and path.name[-60:] in msg, msg
    assert "allow_pickle" not in msg and "trust" not in msg, msg
    assert re.search(pattern, msg), msg
    return msg


def peak_memory(call: Callable[[], object]) -> int:
    """The most memory ``call()`` allocated at once (Python's and numpy's), in bytes; a
    ValueError it raises is swallowed (the caller checks it with :func:`refused`)."""
    tracemalloc.start()
    try:
        call()
    except ValueError:
        pass
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    return peak


@contextmanager
def released_after(fifo: Path, seconds: float = 5.0) -> Iterator[Callable[[], float]]:
    """Run the block while a thread, after ``seconds``, keeps opening the named pipe ``fifo``
    for writing and closing it, which releases a reader blocked on it (it then reads an empty
    file). Yields the seconds since the block began, for the test to show nothing blocked."""
    done = threading.Event()

    def release() -> None:
        if done.wait(seconds):
            return
        while not done.is_set():
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:  # no reader yet
                pass
            done.wait(0.05)

    thread = threading.Thread(target=release, daemon=True)
    start = time.perf_counter()
    thread.start()
    try:
        yield lambda: time.perf_counter() - start
    finally:
        done.set()
        thread.join()
