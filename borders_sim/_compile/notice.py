"""A one-line note on stderr while numba compiles borders_sim's kernels on first use.

The kernels are cached numba functions (``@kernel``, :mod:`borders_sim._compile.jit`): the first use
in a fresh install compiles them, which takes tens of seconds to minutes, and later runs load
numba's on-disk cache in about a second. Without a word, a notebook's first ``Game(...)`` just
hangs for that long. So the first use of
each kind (the first :class:`~borders_sim.Game`, the first whole-game batch of
:mod:`borders_sim.batch.rollouts`) runs inside :func:`compile_notice`, which prints::

    borders_sim: compiling the rules kernels in 2 processes (first use; the precompiled kernels
    are for CPU znver4, this process compiles for CPU znver5; cached for later runs) ...
    borders_sim: the rules kernels compiled in 14 s

How it knows that numba compiles: numba broadcasts a ``"numba:compile"`` event
(:mod:`numba.core.event`) only when a dispatcher really compiles, after a miss in its on-disk
cache; loading from the cache broadcasts nothing. A listener on that event, installed only for
the duration of the first call, prints the first line when the first compilation starts, so the
note is exact: it appears whenever numba compiles (however fast the machine) and never when the
kernels load from the cache (however slow the machine). A timer would have to guess from the
duration. The first line says why the kernels shipped with the package, if any, could not be used
(:mod:`borders_sim._compile.shipped`: another CPU, numba version or numba setting), in how many
processes they compile (a first use with a ``family`` starts helper processes when more than
one process may compile: :func:`borders_sim._compile.parallel.default_jobs`,
:func:`borders_sim._compile.parallel.helpers`), and, where numba has no writable cache
directory at all (:mod:`borders_sim._compile.cache`), says so instead of promising a cache. The
notes go to ``sys.stderr`` as it is at that moment, so a notebook shows them in the cell, and
through ``tqdm.write`` once tqdm is loaded: it clears any progress bar on the terminal, prints
the note on a line of its own and draws the bar again (``borders-sim tournament`` compiles the
bots' kernels under its bar).
Callers check their own "already prepared" flag once per game or batch, never on the per-step
path.

Silence the notes with the environment variable ``BORDERS_SIM_QUIET=1`` (read at each first use)
or with :func:`set_compile_messages` (``borders_sim.set_compile_messages(False)``), which
overrides the variable.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext

import numpy as np
from numba.core import event

from . import cache, shipped
from .parallel import helpers

QUIET_ENV = "BORDERS_SIM_QUIET"
PREFIX = "borders_sim: "

_switch: bool | None = None  # set_compile_messages; None: follow QUIET_ENV


def set_compile_messages(enabled: bool) -> None:
    """Turn the first-use compile notes on or off for this process. The switch overrides the
    environment variable ``BORDERS_SIM_QUIET``."""
    global _switch
    if not isinstance(enabled, (bool, np.bool_)):
        raise TypeError(f"set_compile_messages takes True or False, got {enabled!r}")
    _switch = bool(enabled)


def compile_messages_enabled() -> bool:
    """Whether the compile notes are on: the :func:`set_compile_messages` switch if it was
    used, else on unless ``BORDERS_SIM_QUIET`` is set to something other than ``0``/``false``."""
    if _switch is not None:
        return _switch
    return os.environ.get(QUIET_ENV, "").strip().lower() in ("", "0", "false", "no")


@contextmanager
def quiet() -> Iterator[None]:
    """No compile notes inside the block, for callers that report the compilation themselves
    (the command line); the setting before the block is restored after it."""
    global _switch
    saved = _switch
    _switch = False
    try:
        yield
    finally:
        _switch = saved


def _say(line: str) -> None:
    """Print ``line`` on ``sys.stderr`` (as it is now), leaving any tqdm progress bar intact:
    with tqdm loaded (else no bar can be showing), through ``tqdm.write``, which clears the bars
    on that stream, prints the line and draws them again."""
    err = sys.stderr
    tqdm_module = sys.modules.get("tqdm")
    if tqdm_module is None:
        print(line, file=err, flush=True)
        return
    tqdm_module.tqdm.write(line, file=err)
    err.flush()


def opening_line(what: str, processes: int = 1) -> str:
    """The note printed when numba starts compiling ``what`` in ``processes`` processes."""
    where = f" in {processes} processes" if processes > 1 else ""
    why = "first use"
    if shipped.shipped is not None and shipped.shipped.manifest is not None:
        why += "; " + (shipped.shipped.why_not() or "not among the precompiled kernels")
    later = ("cached for later runs" if cache.location != cache.NOWHERE
             else "not cached: no writable cache directory, set NUMBA_CACHE_DIR")
    return f"{PREFIX}compiling {what}{where} ({why}; {later}) ..."


class _FirstCompile(event.Listener):
    """Prints the opening note when numba starts its first compilation."""

    def __init__(self, what: str, processes: int) -> None:
        self.what = what
        self.processes = processes
        self.compiled = False

    def on_start(self, ev: event.Event) -> None:
        if not self.compiled:
            self.compiled = True
            _say(opening_line(self.what, self.processes))

    def on_end(self, ev: event.Event) -> None:
        pass


@contextmanager
def compile_notice(what: str, family: str | None = None) -> Iterator[None]:
    """Run the block (a first call of kernels) and, if numba compiles anything in it, say so on
    stderr when the compilation starts and how long the block took when it ends. Prints nothing
    when every kernel loads from the cache, when notes are off, or if the block raises.

    Args:
        what: the kernels, for the message, e.g. ``"the rules kernels"``.
        family: the kernel family of the block
            (:data:`~borders_sim._compile.units.FAMILIES`): helper processes compile the units
            it needs while the block runs (:func:`~borders_sim._compile.parallel.helpers`).
    """
    with helpers(family) if family else nullcontext(1) as processes:
        if not compile_messages_enabled():
            yield
            return
        listener = _FirstCompile(what, processes)
        t0 = time.perf_counter()
        with event.install_listener("numba:compile", listener):
            yield
        if listener.compiled:
            _say(f"{PREFIX}{what} compiled in {time.perf_counter() - t0:.0f} s")
