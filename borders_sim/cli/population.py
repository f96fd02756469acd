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
from ..arena.population import POPULATION_SEED, Population, check_pool, population
from .progress import progress_bar
from .common import fail
from ..report import markdown_table, markdown_tables, percent

NOTES = """\
win rate: wins per game the member played, a shared win counting 1/k; 95% CI: Wilson, games as
units. rating: openskill Plackett-Luce over every game's finishing order. alpha-rank: the
member's stationary mass in the pairwise meta-game 'finishes ahead at a shared table' (alpha
{alpha:g}). Head to head, row against column over the games both played: the row's win share
there, and the row's share minus the column's in points with a 95% interval paired by game
(an interval above 0: the row wins more at the tables they share)."""


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


def member_table(result: Population) -> str:
    """One row per member, best win rate first."""
    header = ["member", "games", "win rate [95% CI]", "score", "rating", "alpha-rank"]
    rows = []
    for m in sorted(result.members, key=lambda m: -(m["win_rate"] or 0.0)):
        lo, hi = m["win_rate_ci95"]
        rows.append([m["name"] + (" *" if m["focus"] else ""), str(m["games"]),
                     f"{percent(m['win_rate'])} [{percent(lo)}, {percent(hi)}]"
                     if m["games"] else "-",
                     "-" if m["mean_score"] is None else f"{m['mean_score']:.1f}",
                     f"{m['rating_mu']:.2f} ({m['rating_sigma']:.2f})",
                     f"{m['alpharank']:.3f}"])
    return markdown_table(header, rows)


def head_to_head(result: Population) -> tuple[str, str]:
    """The row's win share at the tables it shared with the column's member, and the
    difference of the two shares in points with its interval."""
    names = [m["name"] for m in sorted(result.members, key=lambda m: -(m["win_rate"] or 0.0))]
    shares, diffs = [], []
    for a in names:
        share_row, diff_row = [a], [a]
        for b in names:
            if a == b:
                share_row.append("-")
                diff_row.append("-")
                continue
            p = result.pair(a, b)
            if not p.games:
                share_row.append("no games")
                diff_row.append("no games")
                continue
            lo, hi = p.difference_ci95
            share_row.append(percent(p.win_rate))
            diff_row.append(f"{100 * p.difference:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]")
        shares.append(share_row)
        diffs.append(diff_row)
    header = ["row vs column", *names]
    return markdown_tables(header, shares), markdown_tables(header, diffs)


def population_text(result: Population) -> str:
    """Every table of ``result`` with its notes, as the command prints it."""
    share, diff = head_to_head(result)
    return (f"{member_table(result)}\n\nHead to head: the row's win share at the tables it "
            f"shared with the column\n\n{share}\n\nHead to head: the row's win share minus the "
            f"column's, in points [95% CI]\n\n{diff}\n\n"
            + NOTES.format(alpha=result.alpha)
            + ("\n* seated at every table (--focus)" if result.focus else ""))


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
