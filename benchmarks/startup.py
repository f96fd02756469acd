"""Start-up time of borders_sim: a fresh install's first game, a start with numba's cache, an
installed wheel's start, the parallel warm-up, and the speed of a portable build.

Usage::

    python benchmarks/startup.py                  # every figure below, in one run (a while)
    python benchmarks/startup.py --only cold      # one part: cold, install, parallel, portable
    python benchmarks/startup.py --warm           # only a start with the current cache (seconds)
    python benchmarks/startup.py --no-warmup      # cold and warm starts stop after the first batch
    python benchmarks/startup.py --only portable --versus DIR  # also DIR's kernels against ours
    python benchmarks/startup.py --write-docs     # every part; the startup section of docs/speed.md

Every measurement is a new Python process (this script with ``--child*``); times are wall
seconds from the moment the parent starts the child (the interpreter's own start included) to
the end of each point, so each includes the ones before it.

* **cold** (a source checkout, ``NUMBA_CACHE_DIR`` a new empty directory, so numba compiles
  every kernel, as in a fresh install without precompiled kernels): the first step of a
  :class:`~borders_sim.Game`, the first whole-game batch of :mod:`borders_sim.batch.rollouts`
  (``make_batch``, ``play_batch``, ``final_scores``), the first ``borders-sim tournament`` game
  (one game of the default lineup) and, unless ``--no-warmup``, everything else
  (:func:`borders_sim.cli.warmup.warm_up`, what ``borders-sim warmup`` does); then **warm**: a
  second child with that same directory, now filled. The cold child compiles in one process
  (``BORDERS_SIM_COMPILE_JOBS=1``: no helper processes of
  :mod:`borders_sim._compile.parallel`, so its profile holds every compilation). It records numba's
  ``numba:compile`` events: per function, how often it was compiled, the seconds inside its
  compilation (inclusive, with the compilations of the functions it calls that happened inside it)
  and the seconds of its own (exclusive: without those nested compilations), and the seconds per
  phase of numba's pipeline. More children on new empty caches repeat the first uses with
  ``--jobs`` processes (helpers), and play a tournament game as their first and only use (what
  a new user's ``borders-sim tournament`` does) in one process and with helpers.
* **install**: ``pip wheel --no-build-isolation`` of a copy of this checkout (the build compiles
  every kernel into the wheel, :mod:`borders_sim.cli.build_kernels`, for
  ``BORDERS_SIM_KERNEL_TARGET``, native by default) and ``pip install --target`` of the wheel
  into a new directory: the seconds of both; then a new process importing that install with an
  empty ``NUMBA_CACHE_DIR``: the first ``Game`` step and the first tournament game, and how many
  kernels it compiled (none, when the shipped kernels load).
* **parallel**: ``warm_up`` on an empty cache in 1 process and in ``--jobs`` (by default as
  many as this process may use, at least 2), one after the other: the gain of compiling in
  parallel.
* **portable**: the random-play and heuristic-bot kernels (1 thread, 5 players) compiled for the
  baseline x86-64 level (``NUMBA_CPU_NAME=x86-64``, what a portable wheel ships) against this
  machine's CPU, in alternating pairs of children (the machine's speed drifts): the speed cost
  of a portable build (and of the x86-64-v3 level, which most x86-64 CPUs of the last decade
  have). With ``--versus DIR`` (another checkout, e.g. ``git archive main``),
  also DIR's kernels against ours for this machine, the same way.

At the end it prints the ``startup`` section of ``docs/speed.md`` made from this run (the table
of start times with the machine, the date and the load, the wheel's size, the gain of compiling
in parallel, the portable build's ratios and where the cold start's seconds go; a part not run
shows ``-`` or no sentence); ``--write-docs`` writes it there, and needs the parts cold,
install and parallel with the warm-up (``--quick`` never writes it).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from freshness import measured_at
from harness import add_shared, load, machine, parse, run, usable_cores

ROOT = Path(__file__).resolve().parents[1]
MARKS = ("import", "game_step", "batch", "tournament", "warmup")
MARK_NAMES = {"import": "import borders_sim", "game_step": "first Game step",
              "batch": "first random_games batch", "tournament": "first tournament game",
              "warmup": "every kernel (warmup)"}
PARTS = ("cold", "install", "parallel", "portable")
#: The phases of numba's pipeline that :meth:`CompileRecorder.phases` reports.
PHASES = ("bytecode to IR, untyped rewrites", "type inference (own)", "typed rewrites",
          "lowering, LLVM optimisation, machine code", "outside the passes (dispatch, cache)")
#: numba's settings for the portable (baseline x86-64) build of the portable figures.
PORTABLE_ENV = {"NUMBA_CPU_NAME": "x86-64", "NUMBA_CPU_FEATURES": ""}
#: The parts ``--write-docs`` needs (portable is optional: its sentence is left out without it).
DOCS_PARTS = ("cold", "install", "parallel")
#: The command that writes the ``startup`` section of docs/speed.md.
DOCS_COMMAND = "python benchmarks/startup.py --write-docs"
#: The start-up targets in seconds (goals the project set, not measurements), by table row.
TARGETS = {"installed game_step": 3, "installed tournament": 10, "cold game_step": 15,
           "cold batch": 30, "tournament first": 30, "warm game_step": 1}
#: The load averages seen so far (at the start, after each part).
LOADS: list[float] = []


class CompileRecorder:
    """Per function: compilations, inclusive and own (exclusive) seconds, from numba's
    ``numba:compile`` events (nested events are the callees compiled inside a compilation)."""

    def __init__(self) -> None:
        from numba.core import event

        self.compiles: dict[str, dict] = {}
        self.events = 0  # compilations so far
        self.seconds = 0.0  # seconds inside outermost compilations so far
        self._stack: list[list] = []  # [name, start, seconds of nested compilations]
        self.dispatchers: dict = {}  # name -> dispatcher
        recorder = self

        class Listener(event.Listener):
            def on_start(self, ev):
                disp = ev.data["dispatcher"]
                name = f"{disp.py_func.__module__}:{disp.py_func.__qualname__}"
                recorder.dispatchers[name] = disp
                recorder._stack.append([name, time.perf_counter(), 0.0])

            def on_end(self, ev):
                name, start, nested = recorder._stack.pop()
                took = time.perf_counter() - start
                recorder.events += 1
                if recorder._stack:
                    recorder._stack[-1][2] += took
                else:
                    recorder.seconds += took
                entry = recorder.compiles.setdefault(
                    name, {"function": name, "count": 0, "inclusive": 0.0, "self": 0.0})
                entry["count"] += 1
                entry["inclusive"] += took
                entry["self"] += took - nested

        event.register("numba:compile", Listener())  # for the rest of the process

    def phases(self) -> dict[str, float]:
        """Seconds per phase of numba's pipeline, over every function compiled so far, own
        seconds only: numba's pass times of each compiled version, with the compilations of
        the callees (nested in its type inference) taken out of that pass."""
        out = dict.fromkeys(PHASES, 0.0)
        for name, disp in self.dispatchers.items():
            passes = dict.fromkeys(PHASES[:-1], 0.0)
            for cres in disp.overloads.values():
                for timings in ((cres.metadata or {}).get("pipeline_times") or {}).values():
                    typed = False
                    for pass_name, t in timings.items():
                        if pass_name.endswith("nopython_type_inference"):
                            phase, typed = PHASES[1], True
                        elif pass_name.endswith("native_lowering"):
                            phase = PHASES[3]
                        else:
                            phase = PHASES[2] if typed else PHASES[0]
                        passes[phase] += t.init + t.run + t.finalize
            entry = self.compiles.get(name)
            if entry is None:
                continue
            nested = entry["inclusive"] - entry["self"]
            passes[PHASES[1]] = max(0.0, passes[PHASES[1]] - nested)
            for phase, sec in passes.items():
                out[phase] += sec
            out[PHASES[-1]] += max(0.0, entry["self"] - sum(passes.values()))
        return out


def _tournament_game() -> None:
    """The first game of ``borders-sim tournament`` (default lineup), its output dropped."""
    import contextlib
    import io

    from borders_sim.cli import main as cli_main
    with contextlib.redirect_stdout(io.StringIO()):
        assert cli_main(["tournament", "--games", "1", "--no-progress"]) == 0


def child(warmup: bool, profile: bool, installed: bool = False,
          tournament_only: bool = False) -> None:
    """The measured process: report absolute times of each mark (and compile events) as JSON.
    ``installed``: import the borders_sim on the path (an install), not this checkout, and stop
    after the first tournament game; ``tournament_only``: the tournament game is the first and
    only use."""
    marks = {}
    recorder = CompileRecorder() if profile else None
    compiled = {}  # mark -> [compilations, seconds compiling] since the start

    def mark(name: str) -> None:
        marks[name] = time.time()
        if recorder:
            compiled[name] = [recorder.events, recorder.seconds]
    import borders_sim
    from borders_sim import Game, GameConfig
    mark("import")
    if tournament_only:
        _tournament_game()
        mark("tournament")
        print(json.dumps({"marks": marks, "compiles": [], "compiled": compiled, "phases": {},
                          "file": borders_sim.__file__}))
        return
    game = Game(GameConfig(num_players=4), seed=0)
    game.step(game.legal_actions()[0])
    mark("game_step")
    if not installed:
        from borders_sim.batch.rollouts import final_scores, make_batch, play_batch
        states, seeds = make_batch(GameConfig(num_players=4), 0, 16)
        play_batch(states, seeds, 10**6)
        final_scores(states)
        mark("batch")
    _tournament_game()
    mark("tournament")
    if warmup and not installed:
        from borders_sim.cli.warmup import warm_up
        warm_up()
        mark("warmup")
    compiles = list(recorder.compiles.values()) if recorder else []
    print(json.dumps({"marks": marks, "compiles": compiles, "compiled": compiled,
                      "phases": recorder.phases() if recorder else {},
                      "file": borders_sim.__file__}))


def speed_child(root: str, games: int) -> None:
    """Decisions per second of random play and of the heuristic bots (mixed lineups), 1 thread,
    5 players, of the borders_sim in ``root``, as JSON; the first call (compile or load) is not
    timed. Only the API that every version of the package has (``root`` is first on
    ``PYTHONPATH``: :func:`with_tree`)."""
    import numba
    import numpy as np

    import borders_sim
    from borders_sim import GameConfig
    from borders_sim.batch.games import run_bot_games
    from borders_sim.rules.limits import max_game_length
    from borders_sim.batch.rollouts import make_batch, play_batch
    from borders_sim.rules.state import MAX_PLAYERS
    assert borders_sim.__file__.startswith(root), borders_sim.__file__
    numba.set_num_threads(1)
    config = GameConfig(num_players=5)
    cap = max_game_length(config)
    template, seeds = make_batch(config, 0, games)
    kinds = np.zeros((games, MAX_PLAYERS), dtype=np.int64)
    for g in range(games):
        kinds[g, :5] = [1 + (g + p) % 3 for p in range(5)]  # honest, bluffer, collector
    bot_seeds = np.arange(games, dtype=np.uint64)
    rates = {}
    for name, play in (("random play", lambda s: play_batch(s, seeds[:len(s)], cap)),
                       ("heuristic bots",
                        lambda s: run_bot_games(s, kinds[:len(s)], bot_seeds[:len(s)], cap))):
        play(template[:1].copy())  # compile or load
        best = 0.0
        for _ in range(3):
            states = template.copy()
            t0 = time.perf_counter()
            decisions = int(play(states).sum())
            best = max(best, decisions / (time.perf_counter() - t0))
        rates[name] = best
    print(json.dumps(rates))


def with_tree(env: dict, root: str | Path) -> dict:
    """``env`` with ``root`` first on ``PYTHONPATH``, so a child imports that tree's
    borders_sim (before any installed one)."""
    rest = env.get("PYTHONPATH")
    return {**env, "PYTHONPATH": str(root) + (os.pathsep + rest if rest else "")}


def _child_json(argv: list[str], env: dict, timeout: float = 3600, cwd: str | None = None) -> dict:
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout, cwd=cwd)
    if done.returncode != 0:
        raise RuntimeError(f"child {argv[2:]} failed:\n{done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])


def _marks(out: dict, t0: float) -> dict:
    """``out`` with its marks in seconds since ``t0`` and its compilations per stage."""
    out["marks"] = {k: v - t0 for k, v in out["marks"].items()}
    # from the cumulative counts: the compilations of each stage alone
    before = [0, 0.0]
    for m in MARKS:
        if m in out["compiled"]:
            now = out["compiled"][m]
            out["compiled"][m] = [now[0] - before[0], now[1] - before[1]]
            before = now
    out["compiles"].sort(key=lambda c: -c["self"])
    return out


def run_child(cache_dir: str | None, warmup: bool, profile: bool, timeout: float = 3600,
              jobs: int | None = None, tournament_only: bool = False) -> dict:
    """Start a child with ``NUMBA_CACHE_DIR=cache_dir`` (None: this process's setting) and
    ``BORDERS_SIM_COMPILE_JOBS=jobs`` (None: this process's setting); returns ``{"marks":
    {mark: seconds since the start}, "compiles": [...]}``."""
    env = with_tree({**os.environ, "BORDERS_SIM_QUIET": "1"}, ROOT)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    if jobs is not None:
        env["BORDERS_SIM_COMPILE_JOBS"] = str(jobs)
    argv = [sys.executable, str(Path(__file__).resolve()), "--child"]
    argv += [] if warmup else ["--no-warmup"]
    argv += ["--profile"] if profile else []
    argv += ["--tournament-only"] if tournament_only else []
    t0 = time.time()
    return _marks(_child_json(argv, env, timeout), t0)


def measure_starts(cold: bool = True, warmup: bool = True) -> dict:
    """``{"cold": child result or None, "warm": child result}``; cold uses a new empty cache
    (deleted afterwards) and warm the same cache once filled; without ``cold``, warm is a start
    with this process's own cache setting."""
    if not cold:
        return {"cold": None, "warm": run_child(None, warmup, False)}
    where = tempfile.mkdtemp(prefix="borders_sim-coldstart-")
    try:
        first = run_child(where, warmup, True, jobs=1)  # (one process: the profile is whole)
        second = run_child(where, warmup, False)
    finally:
        shutil.rmtree(where, ignore_errors=True)
    return {"cold": first, "warm": second}


def measure_install(target: str = "native") -> dict:
    """The install figures (module docstring): ``{"wheel": s, "install": s, "files", "MB",
    "first": child result with marks import, game_step, tournament}``."""
    where = Path(tempfile.mkdtemp(prefix="borders_sim-install-"))
    try:
        src = where / "src"
        shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
            ".git", "build", "dist", "__pycache__", "*.egg-info", "runs", ".pytest_cache",
            ".hypothesis"))
        env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
        env.update(BORDERS_SIM_KERNEL_TARGET=target)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps",
                        "-q", "-w", str(where / "wheels"), str(src)], env=env, check=True,
                       cwd=str(where))
        wheel_s = time.perf_counter() - t0
        wheel = next((where / "wheels").glob("borders_sim-*.whl"))
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target",
                        str(where / "site"), str(wheel)], env=env, check=True, cwd=str(where))
        install_s = time.perf_counter() - t0
        shipped = list((where / "site" / "borders_sim" / "_kernels").rglob("*.nb[ic]"))
        (where / "home").mkdir()
        env.update(PYTHONPATH=str(where / "site"), NUMBA_CACHE_DIR=str(where / "user-cache"),
                   HOME=str(where / "home"), BORDERS_SIM_QUIET="1")
        argv = [sys.executable, str(Path(__file__).resolve()), "--child-installed", "--profile"]
        t0 = time.time()
        first = _marks(_child_json(argv, env, cwd=str(where)), t0)
        assert first["file"].startswith(str(where / "site")), first["file"]
        return {"wheel": wheel_s, "install": install_s, "files": len(shipped),
                "MB": sum(p.stat().st_size for p in shipped) / 1e6,
                "wheel_MB": wheel.stat().st_size / 1e6, "first": first}
    finally:
        shutil.rmtree(where, ignore_errors=True)


def measure_parallel(jobs: int) -> dict:
    """``{1: s, jobs: s}``: ``warm_up`` on an empty cache in 1 process, then in ``jobs``."""
    code = ("import time; t0 = time.time()\n"
            "from borders_sim.cli.warmup import warm_up\n"
            "warm_up(jobs={jobs})\nprint(time.time() - t0)\n")
    out = {}
    for n in (1, jobs):
        where = tempfile.mkdtemp(prefix="borders_sim-warmup-")
        try:
            env = with_tree({**os.environ, "BORDERS_SIM_QUIET": "1", "NUMBA_CACHE_DIR": where},
                            ROOT)
            t0 = time.time()
            subprocess.run([sys.executable, "-c", code.format(jobs=n)], env=env,
                           check=True, capture_output=True, timeout=3600)
            out[n] = time.time() - t0
        finally:
            shutil.rmtree(where, ignore_errors=True)
    return out


def measure_speed(variants: dict[str, tuple[str, dict]], pairs: int, games: int) -> dict:
    """Decisions/s of each variant ``name -> (root, numba settings)``, each in a cache of its
    own (compiled by a first child, not counted), children alternating ``pairs`` times:
    ``{name: [{"random play": r, "heuristic bots": r}, ...]}``."""
    where = Path(tempfile.mkdtemp(prefix="borders_sim-speed-"))
    try:
        def one(name: str) -> dict:
            root, settings = variants[name]
            env = {k: v for k, v in os.environ.items()
                   if k not in ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES")}
            env.update(settings, BORDERS_SIM_QUIET="1", NUMBA_CACHE_DIR=str(where / name))
            env = with_tree(env, root)
            argv = [sys.executable, str(Path(__file__).resolve()), "--child-speed", root,
                    "--games", str(games)]
            return _child_json(argv, env)
        for name in variants:
            one(name)  # compile
        runs: dict[str, list] = {name: [] for name in variants}
        for _ in range(pairs):
            for name in variants:
                runs[name].append(one(name))
        return runs
    finally:
        shutil.rmtree(where, ignore_errors=True)


def _ratios(runs: dict, ours: str, other: str) -> str:
    parts = []
    for what in runs[ours][0]:
        r = sorted(a[what] / b[what] for a, b in zip(runs[ours], runs[other]))
        parts.append(f"{what} {r[len(r) // 2]:.3f}x (pairs {r[0]:.3f}-{r[-1]:.3f}x; "
                     f"{ours} {statistics.median(x[what] for x in runs[ours]) / 1e6:.2f}M, "
                     f"{other} {statistics.median(x[what] for x in runs[other]) / 1e6:.2f}M "
                     f"decisions/s)")
    return "; ".join(parts)


def _load() -> str:
    LOADS.append(load())
    return f"load average {LOADS[-1]:.2f}"


def run_line(started: str, minutes: float) -> str:
    """The run's date, machine, load (at the start, then the range during the run), Python,
    numba and commit, as the section's first sentence states them."""
    import numba
    loads = "load n/a"
    if LOADS and not math.isnan(LOADS[0]):
        lo, hi = (f"{f(LOADS[1:] or LOADS):.1f}" for f in (min, max))
        loads = (f"load average {LOADS[0]:.1f} at the start, "
                 f"{lo if lo == hi else f'{lo} to {hi}'} during the run")
    return (f"{started}; {machine()}, {loads}; Python "
            f"{platform.python_version()}, numba {numba.__version__}; {minutes:.{0 if minutes >= 10 else 1}f} min")


def _sec(x: float | None) -> str:
    """Seconds as the table shows them: one decimal below 100, none above, ``-`` if absent."""
    if x is None:
        return "-"
    return f"{x:.1f}" if x < 100 else f"{x:.0f}"


def _short(function: str) -> str:
    """A compiled function's name as the section shows it: its module's last part and its
    qualified name (``borders_sim.rules.main_resources:_search`` -> ``main_resources._search``;
    the profile's names are ``module:qualname``)."""
    module, qualname = function.split(":", 1) if ":" in function else ("", function)
    return f"{module.rsplit('.', 1)[-1]}.{qualname}" if module else qualname


def _ratio_figures(runs: dict, ours: str, other: str) -> dict[str, tuple[float, float, float]]:
    """Per measure: the median of the pairs' ratios ``ours / other`` and the pairs' range."""
    out = {}
    for what in runs[ours][0]:
        r = sorted(a[what] / b[what] for a, b in zip(runs[ours], runs[other]))
        out[what] = (r[len(r) // 2], r[0], r[-1])
    return out


def startup_text(data: dict) -> str:
    """The ``startup`` section of docs/speed.md from one run's ``data`` (``main`` collects it):
    keys ``machine`` (:func:`machine_line`), ``jobs``, ``target`` (the wheel's kernel target)
    and the results of each part that ran: ``cold`` and ``warm`` (:func:`measure_starts`),
    ``helpers`` (``[{"jobs", "tournament_only", "marks"}]``), ``install`` (:func:`measure_install`),
    ``parallel`` (:func:`measure_parallel`), ``portable`` (:func:`measure_speed`, with
    ``pairs``, ``games`` and ``versus``). A figure of a part that did not run is ``-``, a
    sentence of one is left out."""
    jobs = data["jobs"]
    cold, warm = data.get("cold"), data.get("warm")
    helpers = {(h["jobs"], h["tournament_only"]): h["marks"] for h in data.get("helpers", [])}
    install, parallel = data.get("install"), data.get("parallel")

    def mark(run: dict | None, name: str) -> float | None:
        return None if run is None else run["marks"].get(name)

    def helper(tournament_only: bool, name: str) -> float | None:
        marks = helpers.get((jobs, tournament_only))
        return None if marks is None else marks.get(name)

    first = install["first"] if install else None
    wheel = "`pip wheel --no-build-isolation .` (all kernels" + (
        f", {data['target']} target)" if data.get("target", "native") != "native" else ")")
    rows = [
        ("installed wheel, empty user cache: first `Game` step", mark(first, "game_step"), None,
         "installed game_step"),
        ("installed wheel, empty user cache: first tournament game", mark(first, "tournament"),
         None, "installed tournament"),
        (wheel, install and install["wheel"], None, None),
        ("`pip install` of that wheel (1)", install and install["install"], None, None),
        ("source checkout, empty numba cache: first `Game` step", mark(cold, "game_step"),
         helper(False, "game_step"), "cold game_step"),
        ("... then the first whole-game batch", mark(cold, "batch"), helper(False, "batch"),
         "cold batch"),
        ("... then the first tournament game", mark(cold, "tournament"),
         helper(False, "tournament"), None),
        ("a tournament game as the first use, empty numba cache",
         helpers.get((1, True), {}).get("tournament"), helper(True, "tournament"),
         "tournament first"),
        ("every kernel (`borders-sim warmup`), empty numba cache",
         parallel and parallel.get(1), parallel and parallel.get(jobs), None),
        ("warm start (numba's cache filled): first `Game` step", mark(warm, "game_step"), None,
         "warm game_step"),
    ]
    cells = [["start", "one process", f"{jobs} processes", "target"]]
    cells += [[what, _sec(one), _sec(many), str(TARGETS.get(key, "-"))]
              for what, one, many, key in rows]
    widths = [max(len(r[j]) for r in cells) for j in range(4)]
    lines = ["| " + " | ".join(c.ljust(w) if j == 0 else c.rjust(w)
                               for j, (c, w) in enumerate(zip(r, widths))) + " |" for r in cells]
    rule = "|:" + "-" * (widths[0] + 1) + "|" + "|".join("-" * (w + 1) + ":" for w in widths[1:])
    table = "\n".join([lines[0], rule + "|", *lines[1:]])
    parts = [f"**Start-up**: one run of `{DOCS_COMMAND}`, {data['machine']}. Seconds from a "
             "new process, the interpreter's start included:", "", table, ""]
    if install:
        compiled = sum(first["compiled"][k][0] for k in ("import", "game_step", "tournament")
                       if k in first["compiled"])
        what = ("compile nothing (0 compilations)" if compiled == 0 else
                f"compile {compiled} times: the shipped kernels did not load")
        parts += [f"(1) A {install['wheel_MB']:.1f} MB wheel: {install['files']} cache files, "
                  f"{install['MB']:.1f} MB, in `_kernels/`. The installed wheel's first `Game` "
                  f"step and first tournament game {what}.", ""]
    parts += [f"\"{jobs} processes\" is the first use with helper processes compiling the other "
              f"kernels it needs (`_compile/parallel.py`, `BORDERS_SIM_COMPILE_JOBS={jobs}`), "
              f"or `warmup --jobs {jobs}`."]
    bullets = []
    if parallel and mark(cold, "game_step") and helper(False, "game_step"):
        bullets.append(
            f"**Parallel compilation, this run**: {jobs} processes compiled every kernel "
            f"{parallel[1] / parallel[jobs]:.2f}x as fast as one, and reached the first `Game` "
            f"step {mark(cold, 'game_step') / helper(False, 'game_step'):.2f}x as fast.")
    if data.get("portable"):
        runs, native = data["portable"], "native"

        def ratios(ours: str, other: str) -> str:
            return " and ".join(f"{what} {m:.3f}x (pairs {lo:.3f}-{hi:.3f}x)" for what, (m, lo, hi)
                                in _ratio_figures(runs, ours, other).items())
        text = (f"**Portable build**, 1 thread, 5 players, {data['pairs']} alternating pairs of "
                f"{data['games']} games: kernels for the baseline x86-64 level (any x86-64 "
                f"host loads them) against this machine's own: "
                f"{ratios('portable x86-64', native)}; the x86-64-v3 level: "
                f"{ratios('x86-64-v3', native)}.")
        if "versus" in runs:
            text += f" This checkout against `{data['versus']}`: {ratios(native, 'versus')}."
        bullets.append(text)
    if cold and cold.get("compiles") and "warmup" in cold["marks"]:
        stages = cold["compiled"]
        count = sum(c["count"] for c in cold["compiles"])
        seconds = sum(sec for _, sec in stages.values())
        before = [sum(stages[k][i] for k in ("import", "game_step") if k in stages)
                  for i in (0, 1)]
        phases = ", ".join(f"{phase} {sec:.1f} s" for phase, sec in
                           sorted(cold["phases"].items(), key=lambda kv: -kv[1]))
        top = cold["compiles"][:6]
        rest = cold["compiles"][6:]
        largest = ", ".join(f"`{_short(c['function'])}` {c['self']:.1f} s" for c in top)
        more = (f", then {len(rest)} functions under {rest[0]['self']:.1f} s each"
                if rest else "")
        bullets.append(
            f"**Where the cold seconds go** (this run, one process, to every kernel: {count} "
            f"compilations of {len(cold['compiles'])} functions, {seconds:.0f} s of compiling): "
            f"{before[0]} compilations before the first `Game` step ({before[1]:.1f} s); per "
            f"phase of numba's pipeline (the callees' compilations taken out of their "
            f"callers' type inference): {phases}. The largest own times: {largest}{more}.")
    if bullets:
        parts += [""] + [f"- {b}" for b in bullets]
    return "\n".join(parts)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=",".join(PARTS),
                        help=f"comma-separated parts to measure, of {', '.join(PARTS)} "
                             "(default: all)")
    parser.add_argument("--warm", action="store_true",
                        help="only a start with the current cache (no cold start)")
    parser.add_argument("--no-warmup", action="store_true",
                        help="cold and warm starts stop after the first tournament game")
    parser.add_argument("--target", default="native",
                        help="BORDERS_SIM_KERNEL_TARGET of the install's build (default native)")
    parser.add_argument("--jobs", type=int, default=None,
                        help="processes of the parallel warm-up and of the cold first uses "
                             "with helpers (default: the usable cores, at least 2)")
    parser.add_argument("--pairs", type=int, default=5, help="pairs of the speed figures")
    parser.add_argument("--games", type=int, default=400, help="games per speed figure")
    parser.add_argument("--versus", metavar="DIR", default=None,
                        help="portable: also the kernels of the checkout DIR against ours")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child-installed", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child-speed", metavar="ROOT", help=argparse.SUPPRESS)
    parser.add_argument("--profile", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--tournament-only", action="store_true", help=argparse.SUPPRESS)
    add_shared(parser, quick=dict(warm=True, no_warmup=True, pairs=1, games=20),
               docs="write the startup section of docs/speed.md from this run (needs "
                    f"the parts {', '.join(DOCS_PARTS)} and the warm-up)", json=True)
    if {"--child", "--child-installed", "--child-speed"} & set(sys.argv[1:] if argv is None
                                                            else argv):
        return child_main(parse(parser, argv))
    run(parser, measure, render, argv, section="startup", check=settle)
    return 0


def child_main(args: argparse.Namespace) -> int:
    """A measured child process (``--child*``): one start, or one speed figure."""
    if args.child or args.child_installed:
        child(not args.no_warmup, args.profile, installed=args.child_installed,
              tournament_only=args.tournament_only)
        return 0
    if args.child_speed:
        speed_child(args.child_speed, args.games)
    return 0


def say(text: str) -> None:
    """A line of the run's progress (stderr: stdout holds the section)."""
    print(text, file=sys.stderr, flush=True)


def settle(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The parts to measure (``args.parts``), checked, and whether they can write the docs."""
    args.parts = PARTS[:1] if args.warm else [p.strip() for p in args.only.split(",") if p.strip()]
    unknown = set(args.parts) - set(PARTS)
    if unknown:
        parser.error(f"--only: unknown part(s) {', '.join(sorted(unknown))}")
    missing = [p for p in DOCS_PARTS if p not in args.parts]
    if args.write_docs and (missing or args.warm or args.no_warmup):
        parser.error("--write-docs needs the parts " + ", ".join(DOCS_PARTS) + " (--only) and "
                     "the warm-up (no --warm, no --no-warmup): the section holds every figure")


def measure(args: argparse.Namespace) -> dict:
    """Every part of ``args.parts``: its figures, as :func:`startup_text` reads them."""
    jobs = args.jobs or max(2, usable_cores())
    started, t_start = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), time.perf_counter()
    started += f", {measured_at('startup')}"
    data: dict = {"jobs": jobs, "target": args.target}
    say(f"{os.cpu_count()} cores, {_load()} at start")
    if "cold" in args.parts:
        result = measure_starts(cold=not args.warm, warmup=not args.no_warmup)
        data.update(result)
        for kind in ("cold", "warm"):
            if result[kind] is not None:
                marks = result[kind]["marks"]
                how = " (one process)" if kind == "cold" else ""
                say(f"{kind}{how}: " + ", ".join(f"{MARK_NAMES[m]} {marks[m]:.1f} s"
                                               for m in MARKS if m in marks))
        if result["cold"] is not None:
            cold = result["cold"]
            say("compiling per stage of the cold start: " + ", ".join(
                f"{MARK_NAMES[m]}: {n} compilations, {sec:.1f} s"
                for m, (n, sec) in cold["compiled"].items()))
            say("slowest compilations (own seconds, without nested ones):")
            for c in cold["compiles"][:15]:
                say(f"  {c['self']:6.1f} s  {c['function']} (x{c['count']}, "
                      f"{c['inclusive']:.1f} s with nested)")
            say("its compilation per phase of numba's pipeline: " + ", ".join(
                f"{phase} {sec:.1f} s" for phase, sec in cold["phases"].items()))
        say(f"({_load()})")
    if "cold" in args.parts and not args.warm:
        # the first uses again with helper processes, and a tournament game as the first use
        # with and without them
        data["helpers"] = []
        for n, tournament_only in ((jobs, False), (1, True), (jobs, True)):
            where = tempfile.mkdtemp(prefix="borders_sim-coldstart-")
            try:
                first = run_child(where, False, False, jobs=n,
                                  tournament_only=tournament_only)
            finally:
                shutil.rmtree(where, ignore_errors=True)
            data["helpers"].append({"jobs": n, "tournament_only": tournament_only,
                                    "marks": first["marks"]})
            how = ("in one process" if n == 1 else
                   f"with helpers (BORDERS_SIM_COMPILE_JOBS={n})")
            what = "a tournament game as the first use" if tournament_only else "first uses"
            say(f"cold, {what}, {how}: " + ", ".join(
                f"{MARK_NAMES[m]} {first['marks'][m]:.1f} s" for m in MARKS
                if m in first["marks"] and m != "import") + f" ({_load()})")
    if "install" in args.parts:
        r = data["install"] = measure_install(args.target)
        m, n = r["first"]["marks"], r["first"]["compiled"]
        say(f"install ({args.target} kernels): pip wheel {r['wheel']:.0f} s (with the kernels' "
              f"compilation), pip install of the wheel {r['install']:.1f} s; {r['files']} shipped "
              f"cache files, {r['MB']:.1f} MB (wheel {r['wheel_MB']:.1f} MB)")
        say("installed, empty user cache: " + ", ".join(
            f"{MARK_NAMES[k]} {m[k]:.1f} s ({n[k][0]} compilations)"
            for k in ("import", "game_step", "tournament")))
        say(f"({_load()})")
    if "parallel" in args.parts:
        r = data["parallel"] = measure_parallel(jobs)
        say(f"warm-up on an empty cache: 1 process {r[1]:.0f} s, {jobs} processes "
              f"{r[jobs]:.0f} s: {r[1] / r[jobs]:.2f}x ({_load()})")
    if "portable" in args.parts:
        variants = {"native": (str(ROOT), {}), "portable x86-64": (str(ROOT), PORTABLE_ENV),
                    "x86-64-v3": (str(ROOT), {**PORTABLE_ENV, "NUMBA_CPU_NAME": "x86-64-v3"})}
        if args.versus:
            variants["versus"] = (str(Path(args.versus).resolve()), {})
        runs = measure_speed(variants, args.pairs, args.games)
        data.update(portable=runs, pairs=args.pairs, games=args.games, versus=args.versus)
        say("portable x86-64 / native, 1 thread, 5 players: "
              + _ratios(runs, "portable x86-64", "native"))
        say("x86-64-v3 / native, 1 thread, 5 players: " + _ratios(runs, "x86-64-v3", "native"))
        if args.versus:
            say(f"this checkout / {args.versus}, 1 thread, 5 players: "
                  + _ratios(runs, "native", "versus"))
        say(f"({_load()})")
    _load()
    data["machine"] = run_line(started, (time.perf_counter() - t_start) / 60)
    return data


def render(data: dict, args: argparse.Namespace) -> str:
    return startup_text(data)


if __name__ == "__main__":
    sys.exit(main())
