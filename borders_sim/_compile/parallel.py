"""Compile kernels in several processes at once, into the cache they share.

numba compiles in one thread per process (under a global lock), so a machine with more cores
compiles a fresh install faster only with more processes. Worker processes
(``python -m borders_sim._compile.parallel``) import the package, compile what they are given
and exit; what they compile lands in numba's on-disk cache, where every other process loads it.
Kernels are compiled under a lock file each (:meth:`~borders_sim._compile.shipped.KernelCache
.compile_lock`), so two processes never compile the same kernel: the second waits and loads.

* :class:`Workers` runs a list of tasks on ``jobs`` workers, each task a compile unit
  (:mod:`borders_sim._compile.units`) or a function of the package (``borders-sim warmup``
  runs its steps this way); a worker takes the next task when it finishes one. A unit's task
  names the module that registered it (:func:`unit_task`): the worker imports that module,
  which registers the unit there too, before compiling it.
* :func:`helpers` is for a first use in a user's process (the first :class:`~borders_sim.Game`,
  whole-game batch, bot game or vector env): while that process compiles what its first call
  reaches first, helper workers compile the other units the family needs, which the first call
  then loads from the cache. Only units missing from every cache are compiled, and only when at
  least two are missing and more than one process is allowed.

``BORDERS_SIM_COMPILE_JOBS`` sets the number of processes; by default it is the cores idle at
the moment (the usable cores minus the last minute's load average, :func:`idle_cores`). On the
project's idle 2-core machine two processes compiled the warm-up 1.8x faster than one and the
first ``Game`` step 1.75x faster (docs/speed.md, Start-up); with the second core busy they were 10 to
20% slower than one (most kernels sit below the engine's ``_apply`` and ``_seek``, which the
processes then wait for each other to compile), which is why a busy core does not count.
Workers never start workers of their own.
"""

from __future__ import annotations

import importlib
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from . import units

JOBS_ENV = "BORDERS_SIM_COMPILE_JOBS"
WORKER_ENV = "BORDERS_SIM_COMPILE_WORKER"
PACKAGE_DIR = Path(__file__).resolve().parents[1]


def idle_cores() -> int:
    """The cores this process may use that are idle now: the usable cores minus the load
    average of the last minute, rounded (at least 1)."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # (no affinity on this platform)
        usable = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        load = 0.0
    return max(1, min(usable, int(usable - load + 0.5)))


def default_jobs() -> int:
    """Processes to compile in: ``BORDERS_SIM_COMPILE_JOBS`` if set, else the idle cores
    (:func:`idle_cores`; module docstring); 1 inside a worker."""
    if os.environ.get(WORKER_ENV):
        return 1
    value = os.environ.get(JOBS_ENV, "").strip()
    if not value:
        return idle_cores()
    try:
        return max(1, int(value))
    except ValueError:
        raise ValueError(f"{JOBS_ENV} must be a number of processes, got {value!r}") from None


def _worker_env() -> dict[str, str]:
    """The environment of a worker: this one, with this package first on the path, quiet."""
    path = [str(PACKAGE_DIR.parent)] + [p for p in os.environ.get("PYTHONPATH", "").split(
        os.pathsep) if p]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(path), WORKER_ENV: "1",
            "BORDERS_SIM_QUIET": "1"}


def _start_worker(answers: bool = True) -> subprocess.Popen:
    """A worker reading tasks on its stdin; with ``answers``, its results come back on a pipe
    and its stderr goes to a temporary file (``proc.stderr``, read when it exits: a pipe left
    unread could fill and stall the worker), else both are dropped (a helper's failure only
    leaves its work to the caller)."""
    out = subprocess.PIPE if answers else subprocess.DEVNULL
    err = tempfile.TemporaryFile(mode="w+") if answers else subprocess.DEVNULL
    proc = subprocess.Popen([sys.executable, "-m", "borders_sim._compile.parallel"],
                            stdin=subprocess.PIPE, stdout=out, stderr=err, text=True,
                            env=_worker_env(), cwd=str(PACKAGE_DIR.parent))
    if answers:
        proc.stderr = err
    return proc


def _stderr_tail(proc: subprocess.Popen) -> str:
    """The end of what a worker wrote on stderr (it has exited)."""
    proc.wait()
    proc.stderr.seek(0)
    return proc.stderr.read()[-2000:]


def unit_task(name: str) -> str:
    """The task of :class:`Workers` that compiles unit ``name``: ``"unit:<module>:<name>"``,
    ``<module>`` the unit's owner (:func:`~borders_sim._compile.units.owner`)."""
    return f"unit:{units.owner(name)}:{name}"


class Workers:
    """``jobs`` worker processes running tasks from one queue (module docstring). A task is
    ``"unit:<module>:<name>"`` (a compile unit, :func:`unit_task`) or
    ``"call:<module>:<function>"`` (a function of the package, called without arguments)."""

    def __init__(self, jobs: int) -> None:
        self.jobs = jobs

    def run(self, tasks: Sequence[str],
            on_done: Callable[[dict], None] | None = None) -> list[dict]:
        """Run every task; returns one result per task, in the order of ``tasks``:
        ``{"task", "seconds", "compiled", "error"}`` (``compiled``: numba compilations in it,
        ``error``: None or the worker's message). ``on_done`` is called with each result as
        it comes."""
        pending: queue.Queue[str] = queue.Queue()
        for task in tasks:
            pending.put(task)
        results: dict[str, dict] = {}
        lock = threading.Lock()

        def serve() -> None:
            worker = _start_worker()
            try:
                while True:
                    try:
                        task = pending.get_nowait()
                    except queue.Empty:
                        break
                    worker.stdin.write(task + "\n")
                    worker.stdin.flush()
                    line = worker.stdout.readline()
                    result = (json.loads(line) if line else
                              {"task": task, "seconds": 0.0, "compiled": 0,
                               "error": "the worker exited: " + _stderr_tail(worker)})
                    with lock:
                        results[task] = result
                        if on_done:
                            on_done(result)
                    if not line:
                        break
            finally:
                worker.stdin.close()
                worker.wait()
                worker.stderr.close()

        threads = [threading.Thread(target=serve) for _ in range(min(self.jobs, len(tasks)))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return [results.get(task, {"task": task, "seconds": 0.0, "compiled": 0,
                                   "error": "not run: every worker exited"}) for task in tasks]


class _Helpers:
    """Worker processes compiling units in the background (:func:`helpers`)."""

    def __init__(self, groups: list[list[str]]) -> None:
        self.procs = []
        for group in groups:
            try:
                proc = _start_worker(answers=False)
                proc.stdin.write("".join(unit_task(name) + "\n" for name in group))
                proc.stdin.close()
            except OSError:  # no helper (no interpreter to start, a dead pipe): work alone
                continue
            self.procs.append(proc)

    def wait(self) -> None:
        for proc in self.procs:
            proc.wait()


_alone = False  # inside alone(): first uses start no helpers


@contextmanager
def alone() -> Iterator[None]:
    """First uses inside the block compile in this process only, without helpers
    (``borders-sim warmup --jobs 1``)."""
    global _alone
    before, _alone = _alone, True
    try:
        yield
    finally:
        _alone = before


@contextmanager
def helpers(family: str) -> Iterator[int]:
    """Run the block (a first use of the kernel family ``family`` of
    :data:`~borders_sim._compile.units.FAMILIES`) while helper workers compile the family's
    other units that no cache holds (module docstring); waits for them at the end. Yields the
    number of processes compiling (1: this one only)."""
    from . import cache
    jobs = 1 if _alone else default_jobs()
    missing = [] if jobs < 2 or cache.location == cache.NOWHERE else [
        name for name in units.FAMILIES[family] if not units.is_cached(name)]
    if len(missing) < 2:
        yield 1
        return
    rest = missing[1:]  # the first call compiles missing[0] itself
    groups = [rest[i::jobs - 1] for i in range(min(jobs - 1, len(rest)))]
    started = _Helpers(groups)
    try:
        yield 1 + len(started.procs)
    finally:
        started.wait()


# --- the worker ------------------------------------------------------------------------------------
def _run_task(task: str) -> dict:
    """Run one task in this worker (see :class:`Workers`) and say how it went."""
    from numba.core import event

    class Count(event.Listener):
        compiled = 0

        def on_start(self, ev: event.Event) -> None:
            Count.compiled += 1

        def on_end(self, ev: event.Event) -> None:
            pass

    t0 = time.perf_counter()
    error = None
    try:
        with event.install_listener("numba:compile", Count()):
            kind, _, rest = task.partition(":")
            module, _, name = rest.partition(":")
            if kind == "unit":
                importlib.import_module(module)
                units.compile_unit(name)
            elif kind == "call":
                getattr(importlib.import_module(module), name)()
            else:
                raise ValueError(f"unknown task {task!r}")
    except Exception as exc:  # reported to the parent, which compiles the rest itself
        error = f"{type(exc).__name__}: {exc}"
    return {"task": task, "seconds": time.perf_counter() - t0, "compiled": Count.compiled,
            "error": error}


def main() -> int:
    """A worker: run each task named on a line of stdin, answer a JSON line on stdout each.
    Run as ``python -m borders_sim._compile.parallel``, so the package's ``__init__`` (its cache
    set-up) ran before this module; the worker's environment keeps it quiet (:func:`_worker_env`)."""
    for line in sys.stdin:
        task = line.strip()
        if task:
            print(json.dumps(_run_task(task)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
