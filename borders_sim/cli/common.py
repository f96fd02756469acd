"""What the commands share: argparse types built on :mod:`borders_sim.checks`, the one-line
error, the backend arguments (the tables they print are :mod:`borders_sim.report`'s)."""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path

from ..rules import state as st
from ..checks import SEED_MAX, as_int, shown
from ..install_hints import install_hint

PLAYER_COUNTS = tuple(range(st.MIN_PLAYERS, st.MAX_PLAYERS + 1))
DEFAULT_PLAYERS = 4
INT64_MAX = 2**63 - 1  # step caps are int64 in the kernels


def player_counts(text: str) -> tuple[int, ...]:
    """Player counts from the command line: ``N``, a comma-separated list ``N,M,...`` (each
    from 3 to 8, in the order given, no repeats) or ``all`` (3..8). Shared by ``simulate`` and
    the benchmark script; raises :class:`argparse.ArgumentTypeError` with the reason."""
    if text.strip().lower() == "all":
        return PLAYER_COUNTS
    counts = []
    for item in text.split(","):
        try:
            n = int(item)
        except ValueError:
            n = None
        if n not in PLAYER_COUNTS:
            raise argparse.ArgumentTypeError(
                f"player counts are {PLAYER_COUNTS[0]} to {PLAYER_COUNTS[-1]}, given as N, "
                f"N,M,... or 'all'; got {item.strip()!r} in {text!r}")
        if n in counts:
            raise argparse.ArgumentTypeError(f"player count {n} is listed twice in {text!r}")
        counts.append(n)
    return tuple(counts)


def int_in(lo: int, hi: int, hint: str = "", what: str = "") -> Callable[[str], int]:
    """An argparse type: an integer from ``lo`` to ``hi`` (the rule of
    :func:`~borders_sim.checks.as_int`), else a one-line error saying ``what`` it takes
    (default: the range) plus ``hint``."""
    what = what or f"an integer from {lo:,} to {hi:,}"

    def parse(text: str) -> int:
        try:
            return as_int(int(text), "the value", lo, hi)
        except ValueError:  # not an integer (or too many digits), or out of range
            raise argparse.ArgumentTypeError(f"must be {what}{hint}, got {shown(text)}") from None
    return parse


def float_in(lo: float, hi: float, what: str, above: bool = False) -> Callable[[str], float]:
    """An argparse type: a number from ``lo`` (excluded with ``above``) to ``hi``, else a
    one-line error saying it must be ``what``."""
    def parse(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            v = math.nan
        if not (lo < v if above else lo <= v) or not v <= hi:
            raise argparse.ArgumentTypeError(f"must be {what}, got {shown(text)}")
        return v
    return parse


def seed_arg() -> Callable[[str], int]:
    """An argparse type: a seed (:mod:`borders_sim.checks`), an integer from 0 to
    ``2**64 - 1``."""
    return int_in(0, SEED_MAX, what=f"a seed, an integer from 0 to 2**64 - 1 = {SEED_MAX:,}")


def check_seed_run(parser: argparse.ArgumentParser, seed: int, games: int) -> None:
    """Exit with the argparse error unless ``--seed`` and ``--games`` make a run of seeds
    whose last one, ``S + G - 1``, is at most ``2**64 - 1`` (the rule of
    :func:`~borders_sim.checks.as_seed`)."""
    if seed + games - 1 > SEED_MAX:
        parser.error(f"--seed {seed} with --games {games}: the last game's seed S+G-1 must be "
                     f"at most 2**64-1 = {SEED_MAX}")


def writable_file(text: str) -> Path:
    """An argparse type: a file path whose directory exists and that is not a directory."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a directory, not a file")
    parent = path.parent
    if not parent.is_dir():
        raise argparse.ArgumentTypeError(f"the directory of {text!r} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"cannot write into the directory of {text!r}")
    return path


def fail(parser: argparse.ArgumentParser, message: str, code: int = 1) -> int:
    """Print ``PROG: error: message`` on stderr (one line) and return ``code``."""
    print(f"{parser.prog}: error: {message}", file=sys.stderr)
    return code


def add_backend_args(parser: argparse.ArgumentParser, tasks: str, threads: str) -> None:
    """``--backend``, ``--ray-address`` and ``--threads`` (what runs as Ray ``tasks``, what
    ``threads`` are locally); :func:`backend_of` reads them."""
    parser.add_argument("--backend", choices=("local", "ray"), default=None,
                        help=f"local: this machine's cores (default); ray: {tasks} as Ray tasks "
                             f"(needs Ray: {install_hint('distributed')})")
    parser.add_argument("--ray-address", metavar="ADDR", default=None,
                        help="address of a running Ray cluster (host:port of 'ray start "
                             "--head', or auto); implies --backend ray (default: start a local "
                             "cluster)")
    parser.add_argument("--threads", type=int_in(1, 4096), default=None, metavar="T",
                        help=f"{threads}, or the CPUs of a local Ray cluster (default: all "
                             "cores)")


def backend_of(parser: argparse.ArgumentParser, args: argparse.Namespace) -> str:
    """The backend the arguments of :func:`add_backend_args` ask for, checked: an argparse
    error for ``--ray-address`` with ``--backend local`` or more local threads than numba
    allows, a one-line error (exit status 1) when Ray is asked for but not installed."""
    import numba
    backend = args.backend or ("ray" if args.ray_address else "local")
    if args.ray_address and backend != "ray":
        parser.error("--ray-address needs --backend ray")
    if args.threads is not None and backend == "local" and \
            args.threads > numba.config.NUMBA_NUM_THREADS:
        parser.error(f"argument --threads: at most {numba.config.NUMBA_NUM_THREADS} here (set "
                     "NUMBA_NUM_THREADS before starting to allow more)")
    if backend == "ray":
        from ..arena.ray_backend import import_ray
        try:
            import_ray()
        except RuntimeError as err:
            fail(parser, str(err))
            raise SystemExit(1) from None
    return backend
