"""The compile units and the parallel compilation (``borders_sim._compile.units``, ``.parallel``).

* every compile unit compiles exactly the versions the package's callers compile (a wrong
  argument type would compile, in a helper process, a version nobody calls);
* worker processes run their tasks, report a failing task's error, and two workers reaching
  the same kernel at once compile it once (the second waits on the lock file and loads);
* a first use starts helpers for the units missing from every cache, none where there is
  nothing to share the work with.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from borders_sim._compile import notice, parallel, units
from borders_sim._compile.jit import kernel

ROOT = Path(__file__).resolve().parents[1]

FAMILIES_AND_UNITS = """
import json
from functools import partial
from borders_sim.cli.warmup import STEPS
from borders_sim._compile.units import UNITS
for what, run in STEPS:
    if not isinstance(run, partial):  # the families' own first uses, not the units
        run()
out = {}
for name, unit in UNITS.items():
    for dispatcher, args in unit():
        key = dispatcher.py_func.__qualname__
        out.setdefault(key, [sorted(map(str, dispatcher.overloads)), []])[1].append(str(tuple(args)))
print(json.dumps(out))
"""


def test_the_units_compile_the_versions_the_callers_compile():
    """In a new process that ran every first use of the warm-up but no unit, the units'
    kernels hold exactly the versions the units name."""
    run = subprocess.run([sys.executable, "-c", FAMILIES_AND_UNITS], cwd=ROOT,
                         capture_output=True, text=True, timeout=1800,
                         env={**os.environ, "BORDERS_SIM_QUIET": "1",
                              parallel.JOBS_ENV: "1"})
    assert run.returncode == 0, run.stderr
    for name, (compiled, named) in json.loads(run.stdout.splitlines()[-1]).items():
        assert compiled == sorted(named), name


@kernel
def _small(x):
    return x * 3 + 1


def compile_small() -> None:
    """A worker task: compile (or load) ``_small``."""
    assert _small(2) == 7


def compile_small_too() -> None:
    """The same as :func:`compile_small`, as a task of its own."""
    compile_small()


def fail() -> None:
    raise RuntimeError("this task fails")


def test_workers_compile_a_kernel_once_and_report_errors(monkeypatch, tmp_path):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))  # nothing compiled yet
    tasks = [f"call:{__name__}:compile_small", f"call:{__name__}:compile_small_too",
             f"call:{__name__}:fail"]
    seen = []
    results = parallel.Workers(2).run(tasks, seen.append)
    assert [r["task"] for r in results] == tasks
    assert sorted(r["task"] for r in seen) == sorted(tasks)
    assert results[0]["error"] is None and results[1]["error"] is None
    assert results[0]["compiled"] + results[1]["compiled"] == 1  # one compiles, one loads
    assert results[2]["error"] == "RuntimeError: this task fails"


def test_by_default_every_idle_core_compiles(monkeypatch):
    """Unset, the number of processes is the usable cores minus the last minute's load,
    rounded, at least 1 and at most the usable cores."""
    monkeypatch.delenv(parallel.JOBS_ENV, raising=False)
    monkeypatch.delenv(parallel.WORKER_ENV, raising=False)
    monkeypatch.setattr(parallel.os, "sched_getaffinity", lambda pid: {0, 1, 2, 3})
    for load, jobs in ((0.0, 4), (0.4, 4), (1.6, 2), (3.7, 1), (9.0, 1)):
        monkeypatch.setattr(parallel.os, "getloadavg", lambda load=load: (load, 0.0, 0.0))
        assert parallel.default_jobs() == jobs, load
    monkeypatch.setenv(parallel.JOBS_ENV, "3")
    assert parallel.default_jobs() == 3


def test_no_helpers_without_a_second_process(monkeypatch):
    monkeypatch.setenv(parallel.JOBS_ENV, "1")
    with parallel.helpers("game") as processes:
        assert processes == 1
    assert parallel.default_jobs() == 1
    monkeypatch.setenv(parallel.WORKER_ENV, "1")  # a worker never starts workers
    monkeypatch.setenv(parallel.JOBS_ENV, "4")
    assert parallel.default_jobs() == 1


def test_helpers_compile_the_missing_units_but_never_alone(monkeypatch):
    """Helpers start for the units no cache holds but the first (the caller's own), only when
    two or more are missing, and never inside ``alone()`` (``borders-sim warmup --jobs 1``)."""
    started = []

    class Started:
        def __init__(self, groups):
            started.append(groups)
            self.procs = groups

        def wait(self):
            pass

    monkeypatch.setattr(parallel, "_Helpers", Started)
    monkeypatch.setenv(parallel.JOBS_ENV, "2")
    monkeypatch.setattr(units, "is_cached", lambda name: name != "engine: seek")
    with parallel.helpers("game") as processes:
        assert processes == 1  # one unit missing: the caller compiles it
    monkeypatch.setattr(units, "is_cached", lambda name: False)
    with parallel.alone(), parallel.helpers("game") as processes:
        assert processes == 1
    assert started == []
    with parallel.helpers("game") as processes:
        assert processes == 2
    assert started == [[list(units.FAMILIES["game"][1:])]]


def test_the_note_says_how_many_processes_compile():
    assert " in 3 processes (first use" in notice.opening_line("the rules kernels", 3)
    assert notice.opening_line("the rules kernels").startswith(
        "borders_sim: compiling the rules kernels (first use")
