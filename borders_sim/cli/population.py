"""``borders-sim tournament --pool a,b,c,...``: the population evaluation as tables.

Each game seats a table of different members drawn from the pool (``--focus X`` seats X at
every table), seats rotating (:mod:`borders_sim.arena.population`). It prints one row per
member (win share with its 95% interval, score, openskill rating, α-Rank mass) and the
head-to-head tables: each member's win share at the tables it shared with each other member,
and the difference of the two shares with its interval; ``--json`` writes every figure.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time

from .. import __version__
from ..arena.population import POPULATION_SEED, check_pool, population
from ..arena.population_tables import population_text
from .progress import progress_bar
from .common import fail

def names_arg(text: str) -> tuple[str, ...]:
    """An argparse type: comma-separated names (members of ``--pool``, checked against it)."""
    names = tuple(name.strip() for name in text.split(","))
    if any(not name for name in names):
        raise argparse.ArgumentTypeError(f"empty name in {text!r}; give names separated by "
                                         "commas")
    return names


def add_population_args(parser: argparse.ArgumentParser, seats_arg) -> None:
    """``--pool`` (read by ``seats_arg``: names, specs and ``MODULE:NAME``) and ``--focus`` of
    ``borders-sim tournament``."""
    parser.add_argument("--pool", type=seats_arg, default=None, metavar="a,b,...",
                        help="a population evaluation instead of one lineup: each game seats "
                             "a table of different members drawn from this pool (at least "
                             "--players of them), seats rotating; tables of win shares, "
                             "head-to-head shares, ratings and alpha-rank (default --seed: "
                             f"{POPULATION_SEED}, a range no training run deals)")
    parser.add_argument("--focus", type=names_arg, default=None, metavar="X[,Y]",
                        help="with --pool: seat these members at every table")


def command_line(args: argparse.Namespace) -> str:
    """The command that makes ``result`` again."""
    parts = ["borders-sim", "tournament", "--players", str(args.players), "--pool",
             ",".join(seat.name for seat in args.pool), "--games", str(args.games), "--seed",
             str(args.seed)]
    if args.focus:
        parts += ["--focus", ",".join(args.focus)]
    return shlex.join(parts)


def run_population(parser: argparse.ArgumentParser, args: argparse.Namespace,
                   backend: str) -> int:
    """Play and print the population evaluation the arguments ask for."""
    for flag in ("bots", "csv", "plot", "record"):
        if getattr(args, flag) is not None:
            parser.error(f"argument --{flag}: not with --pool (a population writes --json)")
    if args.no_action_cards:
        parser.error("argument --no-action-cards: not with --pool (the rulebook's tables)")
    if args.seed is None:
        args.seed = POPULATION_SEED
    try:
        check_pool(args.pool, args.focus, args.players)
    except ValueError as err:
        parser.error(str(err))
    err = sys.stderr
    print(f"borders-sim {__version__} population: {args.games} games, tables of "
          f"{args.players} drawn from {', '.join(seat.name for seat in args.pool)}"
          + (f", {', '.join(args.focus)} at every table" if args.focus else "")
          + f", seed {args.seed}, {backend} backend", file=err)
    start = time.perf_counter()
    with progress_bar(total=args.games, unit="game", desc="population", disable=args.no_progress,
              file=err, leave=False) as bar:
        try:
            result = population(args.pool, args.players, args.games, args.seed,
                                focus=args.focus, backend=backend, threads=args.threads,
                                ray_address=args.ray_address, progress=bar.update)
        except (RuntimeError, ValueError, OSError) as error:
            return fail(parser, str(error))
    print(population_text(result))
    print(f"\n{args.games} games at {len(result.tables)} seatings in "
          f"{time.perf_counter() - start:.1f} s; made by {command_line(args)}")
    if args.json is not None:
        try:
            document = result.to_dict()
            document["config"]["command"] = command_line(args)
            args.json.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        except OSError as error:
            return fail(parser, f"cannot write: {error}")
        print(f"results written to {args.json}", file=err)
    return 0
