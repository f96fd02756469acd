"""Times the README's two first-screen commands as a new user runs them, on a fresh copy of the
checkout in a fresh virtual environment, and prints the table the README shows beside them.

    python benchmarks/first_screen.py                  # print the table
    python benchmarks/first_screen.py --write-docs   # also put it in README.md
    python benchmarks/first_screen.py --slow           # also time `python -m pytest -m slow`

1. Extract the committed tree (``git archive HEAD``) into a temporary directory and create a
   virtual environment there.
2. Run command (a), ``pip install . && borders-sim tournament``, then command (b), ``pip
   install torch==2.13.0 && pip install ".[test,distributed,plot,rl,bench,render,tianshou]" && python -m
   pytest``, each in a shell from the copy's root, exactly as the README writes them, and time
   each part: an install, the tournament, the tests (their count from pytest's summary line).
3. Print a markdown table with what it ran on (the commit, the machine, the load average before
   it started) and, with ``--write-docs``, put it between ``<!-- first-screen:start -->`` and
   ``<!-- first-screen:end -->`` of README.md.

The test that checks this section (``tests/test_readme_tables.py``) skips itself in the measured
run (``BORDERS_FIRST_SCREEN=1``), which writes the section only afterwards; a test that fails
is counted in the table, not hidden. The package's kernel build cache points at an empty directory of the run
(``BORDERS_SIM_BUILD_CACHE``), so command (a) compiles every kernel as on a fresh machine and
command (b) reuses them as it would after (a). pip's own download cache is used as it is: the
package registries of the machine decide how long downloads take. Takes as long as the two
commands (minutes); nothing here asserts a speed.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from itertools import groupby
from pathlib import Path

from harness import add_shared, load, machine_line, run


REPO = Path(__file__).resolve().parents[1]
#: The README's two commands, split where the table times them (each part runs in the shell of
#: the copy's root with the venv active; the parts of one command run one after the other).
COMMAND_A = ("pip install .", "borders-sim tournament")
COMMAND_B = ("pip install torch==2.13.0",
             'pip install ".[test,distributed,plot,rl,bench,render,tianshou]"', "python -m pytest")
SLOW = "python -m pytest -m slow"
#: ``--quick``: command (a) alone, its tournament short (every part of this script runs once).
QUICK = (("(a)", ("pip install .", "borders-sim tournament --games 40")),)
#: pytest's summary line, e.g. "2062 passed, 11 skipped, 4 warnings in 263.51s (0:04:23)",
#: and the counts in it.
SUMMARY = re.compile(r" in [\d.]+s\b")
COUNTS = re.compile(r"(\d+) (passed|failed|skipped|errors?|xfailed|xpassed)")


def copy_checkout(dest: Path) -> str:
    """Extract the committed tree (``HEAD``) into ``dest``; the commit, as text. A copy of
    the source without git (CI's) is copied as its files are, and says so."""
    if subprocess.run(["git", "-C", str(REPO), "rev-parse", "--git-dir"],
                      capture_output=True).returncode:
        shutil.copytree(REPO, dest, dirs_exist_ok=True, ignore=shutil.ignore_patterns(
            ".venv", "venv", "runs", "build", "dist", "*.egg-info", "__pycache__", "_build"))
        return f"the files of {REPO} (no git)"
    archive = subprocess.run(["git", "-C", str(REPO), "archive", "--format=tar", "HEAD"],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-C", str(dest), "-xf", "-"], input=archive, check=True)
    return subprocess.run(["git", "-C", str(REPO), "log", "-1", "--format=%h"],
                          check=True, capture_output=True, text=True).stdout.strip()


def run_part(command: str, cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    """Run one part in bash from ``cwd``; its seconds and its output. Raises SystemExit
    naming the part when it fails, except a test run, whose failures the table shows."""
    print(f"$ {command}", file=sys.stderr, flush=True)
    start = time.perf_counter()
    done = subprocess.run(["bash", "-c", command], cwd=cwd, env=env, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    seconds = time.perf_counter() - start
    tail = "\n".join(done.stdout.strip().splitlines()[-5:])
    print(f"  {seconds:.0f} s\n{tail}", file=sys.stderr, flush=True)
    if done.returncode and not (" pytest" in command and tests_of(done.stdout)):
        raise SystemExit(f"`{command}` failed (exit {done.returncode}):\n{done.stdout[-3000:]}")
    return seconds, done.stdout


def clock(seconds: float) -> str:
    """``m min ss s`` (or ``ss s`` under a minute)."""
    m, s = divmod(round(seconds), 60)
    return f"{m} min {s:02d} s" if m else f"{s} s"


def tests_of(output: str) -> str:
    """The counts of pytest's summary line in ``output`` ("2062 passed, 11 skipped"), or ""
    (the line is ``=== ... in 12.3s ===``, or bare under ``-q``)."""
    lines = [line for line in output.splitlines()
             if SUMMARY.search(line) and COUNTS.search(line)]
    if not lines:
        return ""
    return ", ".join(f"{n} {what}" for n, what in COUNTS.findall(lines[-1]))


def section(rows: list[tuple[str, str, float, str]], stamp: str) -> str:
    """The README section: a row per part (command, part, seconds, tests), after each command
    of several parts its total, then ``stamp``."""
    table = ["| command | part | wall clock | tests |", "|---|---|---:|---|"]
    for label, parts in groupby(rows, key=lambda row: row[0]):
        parts = list(parts)
        table += [f"| {label} | `{part}` | {clock(seconds)} | {tests} |"
                  for _, part, seconds, tests in parts]
        if len(parts) > 1:
            total = clock(sum(seconds for _, _, seconds, _ in parts))
            table.append(f"| {label} | **all of it** | **{total}** | |")
    return "\n".join(table) + "\n\n" + stamp


def measure(args: argparse.Namespace) -> dict:
    """Run the commands on a fresh copy (``--quick``: :data:`QUICK` instead; ``--slow``: the
    slow tests too): each part's seconds and test counts, and the stamp's facts."""
    slow, quick = args.slow, args.quick
    start = load()
    with tempfile.TemporaryDirectory(prefix="borders-first-screen-") as tmp:
        work = Path(tmp)
        src = work / "src"
        src.mkdir()
        commit = copy_checkout(src)
        subprocess.run([sys.executable, "-m", "venv", str(work / "venv")], check=True)
        env = {**os.environ, "VIRTUAL_ENV": str(work / "venv"),
               "PATH": f"{work / 'venv' / 'bin'}{os.pathsep}{os.environ['PATH']}",
               "BORDERS_SIM_BUILD_CACHE": str(work / "build-cache"),
               "PIP_DISABLE_PIP_VERSION_CHECK": "1",
               # the one test that reads this section skips itself: it is being measured
               "BORDERS_FIRST_SCREEN": "1"}
        for name in ("PYTHONPATH", "NUMBA_CACHE_DIR"):  # a new user has neither
            env.pop(name, None)
        rows = []
        for label, parts in QUICK if quick else (("(a)", COMMAND_A), ("(b)", COMMAND_B)):
            for part in parts:
                seconds, out = run_part(part, src, env)
                rows.append((label, part, seconds, tests_of(out)))
        if slow:
            seconds, out = run_part(SLOW, src, env)
            rows.append(("", SLOW, seconds, tests_of(out)))
    return {"rows": rows, "commit": commit, "load": start,
            "date": time.strftime('%Y-%m-%d', time.gmtime())}


def render(figures: dict, args: argparse.Namespace) -> str:
    """The README section's text."""
    stamp = (f"Made by `python benchmarks/first_screen.py{' --slow' if args.slow else ''} "
             f"--write-docs` on {figures['date']} from {figures['commit']}: "
             f"{machine_line(figures['load'])}, Python {platform.python_version()}; a fresh "
             f"copy and venv, an empty kernel build cache, pip's download cache as it was.")
    return section([tuple(row) for row in figures["rows"]], stamp)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python benchmarks/first_screen.py",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--slow", action="store_true",
                        help="also time the slow tests, python -m pytest -m slow")
    add_shared(parser, quick=dict(slow=False),
               docs="put the table in README.md's first-screen section", json=True)
    run(parser, measure, render, argv, section="first-screen")
    return 0


if __name__ == "__main__":
    sys.exit(main())
