"""How long a replay page takes to write, today and at an earlier commit, in one run.

Usage::

    python benchmarks/replay.py                       # this checkout alone
    python benchmarks/replay.py --against 6a37606     # and that commit, on the same games
    python benchmarks/replay.py --against 6a37606 --write-docs   # the section in docs/speed.md
    python benchmarks/replay.py --quick

Records ``--games`` games of 4 players (the default lineup, ``borders-sim tournament --record``),
then, in a fresh process per side, writes every game's page as ``borders-sim replay FILE
--html`` does (:func:`borders_sim.arena.viewer.replay_page` of the read trace: the game replayed
with every decision checked, every step drawn from every seat's view and the whole table, packed
into one HTML file), one page after another, the whole loop on the clock. The process start and
the kernels' loading are not timed (they are paid once per command, whatever the number of
pages). A second row times the same pages as ``tournament --record DIR --html`` writes them,
by worker processes (:func:`borders_sim.arena.viewer.write_pages_beside`), their start
included. ``--against COMMIT`` times the same pages with that commit's code, from a ``git
worktree`` of it with a numba cache of its own (its kernels compile first, untimed), one page
after another in one process, and states the ratios.

A page of this checkout holds each picture's *scene* and the browser paints the picture of the
step shown (:func:`borders_sim.game.drawing.paint.painter_script`), where an earlier page held
every picture drawn: that work moved to the browser, so it is timed too, in headless Chromium
(Debian's ``chromium`` and ``chromium-driver``, Selenium from the ``test`` extra): every picture
of the first game painted one after another, each on the browser's clock. Where no browser is
found, the section says so.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from borders_sim.arena.records import read_trace
from borders_sim.arena.viewer import PAGES_A_WORKER, draw_replay
from borders_sim.game.drawing import painter_script
from borders_sim.report import markdown_table
from freshness import measured_at
from harness import add_shared, load, machine_line, run

ROOT = Path(__file__).resolve().parents[1]

#: What one side runs, in a fresh process whose ``sys.path`` starts at the tree timed: every
#: trace's page, one after another, after one untimed page that loads the kernels.
TIMER = """
import json, sys, time
from pathlib import Path
from borders_sim.arena.records import read_trace
from borders_sim.arena.viewer import replay_page
files = sorted(Path(sys.argv[1]).glob("game-*.jsonl"))
replay_page(read_trace(files[0]))  # loads the kernels (untimed)
seconds, sizes = [], []
for f in files:
    start = time.perf_counter()
    page = replay_page(read_trace(f))
    seconds.append(time.perf_counter() - start)
    sizes.append(len(page))
print(json.dumps({"seconds": seconds, "bytes": sizes}))
"""

#: The same pages written as ``tournament --record DIR --html`` writes them: by worker processes
#: (:func:`borders_sim.arena.viewer.write_pages_beside`: one a core, each with
#: ``PAGES_A_WORKER`` pages at least), their start timed.
TIMER_WORKERS = """
import json, os, sys, time
from pathlib import Path
from borders_sim.arena.viewer import PAGES_A_WORKER, write_pages_beside
if __name__ == "__main__":
    files = sorted(Path(sys.argv[1]).glob("game-*.jsonl"))
    workers = max(1, min(os.cpu_count() or 1, len(files) // PAGES_A_WORKER))
    start = time.perf_counter()
    sizes = [page.stat().st_size for page, _ in write_pages_beside(files, workers)]
    print(json.dumps({"seconds": [time.perf_counter() - start], "bytes": sizes,
                      "workers": workers}))
"""


def record(directory: Path, games: int, seed: int) -> list[int]:
    """``games`` games of 4 players recorded into ``directory``; their decisions, by game."""
    subprocess.run([sys.executable, "-m", "borders_sim.cli", "tournament", "--players", "4",
                    "--games", str(games), "--seed", str(seed), "--record", str(directory),
                    "--no-progress"], check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
    return [len(read_trace(f).actions) for f in sorted(directory.glob("game-*.jsonl"))]


def time_pages(tree: Path, traces: Path, cache: Path | None = None, timer: str = TIMER) -> dict:
    """``timer`` (:data:`TIMER`) run with ``tree``'s code (its numba cache ``cache``, if
    given)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as script:
        script.write(timer)  # a file, not -c: spawned workers import the main module's path
    try:
        done = subprocess.run([sys.executable, script.name, str(traces)], env=env, cwd=tree,
                              capture_output=True, text=True)
    finally:
        os.unlink(script.name)
    if done.returncode:
        raise SystemExit(f"timing the pages at {tree} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def paint_in_browser(trace_file: Path) -> dict | str:
    """Every picture of the trace's page painted in headless Chromium, one after another:
    ``{"pictures", "ms": [each picture's milliseconds]}``, or why no browser ran."""
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not (chromium and driver):
        return "no chromium and chromedriver on the PATH"
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        return "selenium is not installed (the test extra)"
    table, _log, _game = draw_replay(read_trace(trace_file))
    scenes = [table.scene(v, k) for v in range(len(table.frames))
              for k in range(len(table.frames[v]))]
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "painter.html"
        page.write_text(f"<!DOCTYPE html><html><body><script>{painter_script()}</script>"
                        "</body></html>", encoding="utf-8")
        options = webdriver.ChromeOptions()
        options.binary_location = chromium
        for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--user-data-dir={Path(tmp) / 'profile'}"):
            options.add_argument(flag)
        browser = webdriver.Chrome(service=Service(driver), options=options)
        try:
            browser.get(page.as_uri())
            ms = browser.execute_script(
                "const ms = [];"
                "for (const scene of JSON.parse(arguments[0])) {"
                "  const start = performance.now(); paintScene(scene);"
                "  ms.push(performance.now() - start); }"
                "return ms;", json.dumps(scenes))
        finally:
            browser.quit()
    return {"pictures": len(scenes), "ms": ms}


def worktree(commit: str, where: Path) -> Path:
    """A detached ``git worktree`` of ``commit`` at ``where``."""
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(where),
                    commit], check=True)
    return where


def measure(args: argparse.Namespace) -> dict:
    """The games recorded, then each side's seconds and bytes a page (:func:`time_pages`)."""
    stamp = measured_at("replay-pages")
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    start = load()
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        traces = Path(tmp) / "games"
        decisions = record(traces, args.games, args.seed)
        print(f"{len(decisions)} games recorded, {sum(decisions):,} decisions; timing the pages",
              file=sys.stderr, flush=True)
        sides = {"this checkout": time_pages(ROOT, traces)}
        workers = time_pages(ROOT, traces, timer=TIMER_WORKERS)
        count = workers["workers"]
        sides[f"this checkout, {count} worker{'s' if count != 1 else ''}"] = workers
        print("painting the first game's pictures in headless Chromium", file=sys.stderr,
              flush=True)
        browser = paint_in_browser(sorted(traces.glob("game-*.jsonl"))[0])
        if args.against:
            commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short",
                                     args.against], check=True, capture_output=True,
                                    text=True).stdout.strip()
            print(f"compiling the kernels of {commit} in a worktree (untimed)", file=sys.stderr,
                  flush=True)
            tree = worktree(commit, Path(tmp) / "against")
            try:
                sides[commit] = time_pages(tree, traces, Path(tmp) / "cache")
            finally:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                                str(tree)], check=False)
    return {"decisions": decisions, "sides": sides, "browser": browser, "stamp": stamp,
            "started": started, "load": start, "minutes": (time.perf_counter() - t0) / 60}


def render(figures: dict, args: argparse.Namespace) -> str:
    decisions, sides = figures["decisions"], figures["sides"]
    pictures = sum((d + 1) * 5 for d in decisions)  # every step, 4 seats' views and the table
    rows = []
    for name, side in sides.items():
        total = sum(side["seconds"])
        one_by_one = len(side["seconds"]) > 1
        rows.append([name, f"{len(side['bytes'])}", f"{total:.1f}",
                     f"{statistics.median(side['seconds']):.2f}" if one_by_one else "-",
                     f"{pictures / total:,.0f}", f"{statistics.median(side['bytes']) / 1000:,.0f}"])
    ours = sum(sides["this checkout"]["seconds"])
    text = (f"**Replay pages** (`python benchmarks/replay.py"
            f"{' --against ' + args.against if args.against else ''} --write-docs`, "
            f"{figures['started']}, {figures['stamp']}; {machine_line(figures['load'])}; "
            f"{figures['minutes']:.1f} min). "
            f"{len(decisions)} recorded 4-player games ({sum(decisions):,} decisions), each "
            f"written as `borders-sim replay FILE --html` writes it (the game replayed and "
            f"checked, every step taken from each seat's view and the whole table: "
            f"{pictures:,} pictures, packed into one page), one process, one page after "
            f"another, the process start and the kernels' loading not timed; and, in the "
            f"workers row, all of them as `tournament --record DIR --html` writes "
            f"them, by worker processes (one a core, each with {PAGES_A_WORKER} pages at "
            f"least), the workers' start timed:\n\n"
            + markdown_table(["code", "pages", "seconds", "s/page (median)", "pictures/s",
                              "kB/page (median)"], rows))
    pooled = next(name for name in sides if name.startswith("this checkout, "))
    with_workers = sum(sides[pooled]["seconds"])
    text += (f"\n\nWith {pooled.removeprefix('this checkout, ')} (worker processes) this "
             f"checkout writes them "
             f"{ours / with_workers:.1f} times as fast as in one process (each worker's start "
             f"costs about a page, so the gain grows with the pages).")
    for name, side in sides.items():
        if not name.startswith("this checkout"):
            theirs = sum(side["seconds"])
            text += (f" {name}, in one process: this checkout writes the same pages "
                     f"{theirs / ours:.1f} times as fast in one process, "
                     f"{theirs / with_workers:.1f} times with its workers.")
    browser = figures["browser"]
    if isinstance(browser, str):
        text += (f"\n\nThis checkout's page paints the picture of the step shown in the browser; "
                 f"that was not timed here: {browser}.")
    else:
        ms = browser["ms"]
        text += (f"\n\nThis checkout's page holds each picture's scene and paints the picture "
                 f"of the step shown in the browser (the same SVG, byte for byte): in headless "
                 f"Chromium, {statistics.median(ms):.2f} ms a picture (median; the slowest "
                 f"{max(ms):.1f} ms) over the {browser['pictures']:,} pictures of the first "
                 f"game, {sum(ms) / 1000:.2f} s for all of them, which a person stepping "
                 f"through a game never asks for at once.")
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=12, help="games recorded (default 12)")
    parser.add_argument("--seed", type=int, default=0, help="the tournament's seed (default 0)")
    parser.add_argument("--against", metavar="COMMIT",
                        help="also time the pages with this commit's code")
    add_shared(parser, quick=dict(games=2),
               docs="put the table in the replay-pages section of docs/speed.md", json=True)
    run(parser, measure, render, argv, section="replay-pages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
