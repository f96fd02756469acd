"""``borders-sim bench``: the rollout benchmark of a source checkout (``benchmarks/rollouts.py``),
every argument passed on to it. The benchmarks are not part of the installed package."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction) -> None:
    bench = sub.add_parser(
        "bench", add_help=False, usage="borders-sim bench [BENCHMARK OPTIONS ...]",
        help="run benchmarks/rollouts.py of a source checkout (arguments are passed on)",
        description="Run the rollout benchmark, the script benchmarks/rollouts.py of a source "
                    "checkout of borders_sim (looked for in the current directory, then beside "
                    "the imported package); every argument is passed on to it. The script is "
                    "not part of the installed package. In a checkout, 'borders-sim bench "
                    "--help' lists its options (--quick, --players, --games, --repeat, ...).")
    bench.set_defaults(run=run, passthrough=True)


def _bench_script() -> Path | None:
    for root in (Path.cwd(), Path(__file__).resolve().parents[2]):
        path = root / "benchmarks" / "rollouts.py"
        if path.is_file():
            return path
    return None


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    extra = args.extra
    path = _bench_script()
    if path is None:
        if "-h" in extra or "--help" in extra:
            parser.print_help()
            return 0
        parser.exit(2, "borders-sim bench: the benchmarks live in a source checkout "
                       "(benchmarks/rollouts.py), not in the installed package; run this "
                       "command from a checkout of the repository\n")
    spec = importlib.util.spec_from_file_location("borders_sim_benchmark_rollouts", path)
    script = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))  # its sibling modules, as `python SCRIPT` finds them
    try:
        spec.loader.exec_module(script)
    finally:
        sys.path.remove(str(path.parent))
    try:  # named as this command in its usage and errors, not as the script's file
        return script.main(extra, prog=parser.prog)
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
