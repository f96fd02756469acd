"""Start-up time of borders_sim: a fresh install's first game, and a start with numba's cache.

Usage::

    python benchmarks/startup.py             # cold start, then warm start (a few minutes)
    python benchmarks/startup.py --warm      # only a start with the current cache (seconds)
    python benchmarks/startup.py --no-warmup # stop after the first random_games batch

Each measurement is a new Python process (this script with ``--child``) that imports
borders_sim, plays the first step of a :class:`~borders_sim.Game`, plays the first whole-game
batch of :mod:`borders_sim.rules.rollout` (``make_batch``, ``play_batch``, ``final_scores``)
and, unless ``--no-warmup``, prepares everything else (:func:`borders_sim.cli.warmup.warm_up`, what
``borders-sim warmup`` does). Times are wall seconds from the moment the parent starts the
child (the interpreter's own start included) to the end of each of those points, so each
includes the ones before it.

* cold: ``NUMBA_CACHE_DIR`` points at a new empty directory, so numba compiles every kernel,
  as in a fresh install (numba uses ``NUMBA_CACHE_DIR`` before the package's ``__pycache__``);
* warm: a second child with that same directory, now filled: numba loads every kernel.

The cold child also records numba's ``numba:compile`` events: per function, how often it was
compiled, the seconds inside its compilation (inclusive, with the compilations of the functions
it calls that happened inside it) and the seconds of its own (exclusive: without those nested
compilations). Kernels are compiled lazily, on the first call with new argument types.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARKS = ("import", "game_step", "batch", "warmup")
MARK_NAMES = {"import": "import borders_sim", "game_step": "first Game step",
              "batch": "first random_games batch", "warmup": "every kernel (warmup)"}


class CompileRecorder:
    """Per function: compilations, inclusive and own (exclusive) seconds, from numba's
    ``numba:compile`` events (nested events are the callees compiled inside a compilation)."""

    def __init__(self) -> None:
        from numba.core import event

        self.compiles: dict[str, dict] = {}
        self.events = 0  # compilations so far
        self.seconds = 0.0  # seconds inside outermost compilations so far
        self._stack: list[list] = []  # [name, start, seconds of nested compilations]
        recorder = self

        class Listener(event.Listener):
            def on_start(self, ev):
                disp = ev.data["dispatcher"]
                name = f"{disp.py_func.__module__}.{disp.py_func.__qualname__}"
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


def child(warmup: bool, profile: bool) -> None:
    """The measured process: report absolute times of each mark (and compile events) as JSON."""
    marks = {}
    recorder = CompileRecorder() if profile else None
    compiled = {}  # mark -> [compilations, seconds compiling] since the start

    def mark(name: str) -> None:
        marks[name] = time.time()
        if recorder:
            compiled[name] = [recorder.events, recorder.seconds]
    sys.path.insert(0, str(ROOT))
    import borders_sim
    from borders_sim import Game, GameConfig
    mark("import")
    game = Game(GameConfig(num_players=4), seed=0)
    game.step(game.legal_actions()[0])
    mark("game_step")
    from borders_sim.rules.rollout import final_scores, make_batch, play_batch
    states, seeds = make_batch(GameConfig(num_players=4), 0, 16)
    play_batch(states, seeds, 10**6)
    final_scores(states)
    mark("batch")
    if warmup:
        from borders_sim.cli.warmup import warm_up
        warm_up()
        mark("warmup")
    compiles = list(recorder.compiles.values()) if recorder else []
    print(json.dumps({"marks": marks, "compiles": compiles, "compiled": compiled,
                      "file": borders_sim.__file__}))


def run_child(cache_dir: str | None, warmup: bool, profile: bool, timeout: float = 3600) -> dict:
    """Start a child with ``NUMBA_CACHE_DIR=cache_dir`` (None: this process's setting);
    returns ``{"marks": {mark: seconds since the start}, "compiles": [...]}``."""
    env = {**os.environ, "BORDERS_SIM_QUIET": "1"}
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    argv = [sys.executable, str(Path(__file__).resolve()), "--child"]
    argv += [] if warmup else ["--no-warmup"]
    argv += ["--profile"] if profile else []
    t0 = time.time()
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"start-up child failed:\n{done.stderr}")
    out = json.loads(done.stdout.splitlines()[-1])
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


def measure(cold: bool = True, warmup: bool = True) -> dict:
    """``{"cold": child result or None, "warm": child result}``; cold uses a new empty cache
    (deleted afterwards) and warm the same cache once filled; without ``cold``, warm is a start
    with this process's own cache setting."""
    if not cold:
        return {"cold": None, "warm": run_child(None, warmup, False)}
    where = tempfile.mkdtemp(prefix="borders_sim-coldstart-")
    try:
        first = run_child(where, warmup, True)
        second = run_child(where, warmup, False)
    finally:
        shutil.rmtree(where, ignore_errors=True)
    return {"cold": first, "warm": second}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warm", action="store_true",
                        help="only a start with the current cache (no cold start)")
    parser.add_argument("--no-warmup", action="store_true",
                        help="stop after the first random_games batch")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--profile", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(not args.no_warmup, args.profile)
        return 0
    result = measure(cold=not args.warm, warmup=not args.no_warmup)
    for kind in ("cold", "warm"):
        if result[kind] is not None:
            marks = result[kind]["marks"]
            print(f"{kind}: " + ", ".join(f"{MARK_NAMES[m]} {marks[m]:.1f} s"
                                           for m in MARKS if m in marks))
    if result["cold"] is not None:
        print("compiling per stage of the cold start: " + ", ".join(
            f"{MARK_NAMES[m]}: {n} compilations, {sec:.1f} s"
            for m, (n, sec) in result["cold"]["compiled"].items()))
        print("slowest compilations (own seconds, without nested ones):")
        for c in result["cold"]["compiles"][:15]:
            print(f"  {c['self']:6.1f} s  {c['function']} (x{c['count']}, "
                  f"{c['inclusive']:.1f} s with nested)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
