"""The bot ladder: tournaments between the registered bots, as markdown tables for docs/bots.md.

Usage::

    python benchmarks/ladder.py                      # print the tables
    python benchmarks/ladder.py --write-docs       # and put them into docs/bots.md
    python benchmarks/ladder.py --games 8400 --strong-games 1000 --search-games 40 --slow-games 40

Three tables, every game 4 players with seats rotating, all reproducible from the command
above (same seeds, same games, any machine):

1. **The compiled bots together**: one tournament of ``random``, ``honest``, ``bluffer`` and
   ``collector``, ``--games`` games: each bot's win rate with its 95% interval, score, rating.
2. **Each strong bot against three copies of each other bot** (the lineup ``[bot, X, X, X]``):
   ``ppo`` (the shipped policy) against each heuristic and ``strict`` in ``--strong-games``
   games (compiled, seconds), the Python search bots against each heuristic (``ismcts`` in
   ``--search-games`` games, OpenSpiel's IS-MCTS when installed at ``--openspiel-sims``
   simulations with honest rollouts in ``--openspiel-games`` games) and ``ppo`` against
   ``ismcts`` in ``--slow-games`` games (a game of three searching bots takes most of a
   minute here). A bot beats ``X`` with
   significance when the lower end of its interval is above 1/4, the rate of a bot no better
   than the three others.
3. The time a game of each slow matchup took.

The tournaments' seeds start at ``--seed`` (no training run deals a tournament seed:
:data:`borders_sim.train.trainer.EVAL_SEED` and the training env's hashed seeds are elsewhere).
``--write-docs`` replaces the text between ``<!-- ladder:start -->`` and
``<!-- ladder:end -->`` of docs/bots.md in this checkout.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time

from borders_sim.arena import default_lineup, run_tournament
from borders_sim.cli.common import int_in
from borders_sim.report import markdown_table, percent
from harness import add_shared, run, stamp

PLAYERS = 4
HEURISTICS = ("honest", "bluffer", "collector")


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int_in(1, 10**8), default=8400,
                        help="games of the compiled bots' tournament (default: 8400)")
    parser.add_argument("--strong-games", type=int_in(1, 10**8), default=1000,
                        help="games of ppo against 3 of each heuristic (default: 1000)")
    parser.add_argument("--search-games", type=int_in(1, 10**6), default=40,
                        help="games of ismcts against 3 of each heuristic (default: 40)")
    parser.add_argument("--slow-games", type=int_in(1, 10**6), default=40,
                        help="games of ppo against 3 ismcts (default: 40)")
    parser.add_argument("--openspiel-games", type=int_in(1, 10**6), default=12,
                        help="games of OpenSpiel's IS-MCTS against each heuristic (default: 12)")
    parser.add_argument("--openspiel-sims", type=int_in(1, 10**6), default=50,
                        help="simulations per decision of OpenSpiel's IS-MCTS (default: 50)")
    parser.add_argument("--no-openspiel", action="store_true",
                        help="leave OpenSpiel's IS-MCTS out")
    parser.add_argument("--seed", type=int_in(0, 2**62), default=0, help="first seed")
    add_shared(parser, quick=dict(games=84, strong_games=8, search_games=1, slow_games=1,
                                  openspiel_games=1, openspiel_sims=5),
               docs="replace the ladder section of docs/bots.md", json=True)
    return parser


def ladder_table(bots: list[dict]) -> str:
    """The compiled bots' tournament (its results' ``bots``): one row per bot, best win rate
    first, with a line that explains the short headers."""
    rows = []
    for b in sorted(bots, key=lambda b: -b["win_rate"]):
        lo, hi = b["win_rate_ci95"]
        rows.append([b["name"], f"{percent(b['win_rate'])} [{percent(lo)}, {percent(hi)}]",
                     f"{b['mean_score']:.1f} ({b['sd_score']:.1f})",
                     f"{b['rating_mu']:.2f} ({b['rating_sigma']:.2f})",
                     percent(b["behaviour"]["lies_when_opened"]),
                     percent(b["behaviour"]["open_rate"]),
                     percent(b["behaviour"]["bribed_rate"])])
    return "\n".join([
        markdown_table(["bot", "win rate [95% CI]", "score (sd)", "rating", "lies", "opens",
                        "bribed"], rows), "",
        "score: mean (sd); rating: mu (sigma) of openskill Plackett-Luce; lies: share of its "
        "opened crates that held a lie; opens, bribed: share of the crates it inspected that it "
        "opened, on which it took a deal."])


def label(bot: str) -> str:
    """A bot's name in the matchup tables: an OpenSpiel bot without its options."""
    return bot.split(":")[0] if bot.startswith("openspiel-") else bot


def matchup(bot: str, other: str, games: int, seed: int) -> tuple[list[str], float]:
    """The row of ``bot`` against 3 ``other`` and the wall seconds it took."""
    t0 = time.perf_counter()
    r = run_tournament(PLAYERS, (bot,) + (other,) * (PLAYERS - 1), games, seed)
    b = r.bots[0]
    lo, hi = b["win_rate_ci95"]
    row = [label(bot), other, str(r.games_played),
           f"{percent(b['win_rate'])} [{percent(lo)}, {percent(hi)}]",
           f"{b['mean_score']:.1f}", "yes" if lo > 1 / PLAYERS else "no"]
    return row, time.perf_counter() - t0


def matchup_table(rows: list[list[str]], players: int = PLAYERS) -> str:
    """The rows of :func:`matchup` as a table, with a line saying when a bot beats another."""
    return "\n".join([
        markdown_table(["bot", "against", "games", "win rate [95% CI]", "mean score",
                        "beats it"], rows), "",
        f"beats it: the interval's lower end is above {100 / players:.0f}%, the share of a bot "
        f"no better than the {players - 1} others."])


def measure(args: argparse.Namespace) -> dict:
    """The compiled bots' tournament and every matchup: rows, and the slow ones' seconds."""
    lineup = default_lineup(PLAYERS)
    t0 = time.perf_counter()
    print(f"the compiled bots' tournament, {args.games} games ...", file=sys.stderr, flush=True)
    results = run_tournament(PLAYERS, lineup, args.games, args.seed)
    fast = [("ppo", other, args.strong_games) for other in HEURISTICS + ("strict",)]
    slow = [("ismcts", other, args.search_games) for other in HEURISTICS]
    if not args.no_openspiel and importlib.util.find_spec("pyspiel") is not None:
        spiel = f"openspiel-ismcts:sims={args.openspiel_sims}:rollout=honest"
        slow += [(spiel, other, args.openspiel_games) for other in HEURISTICS]
    slow.append(("ppo", "ismcts", args.slow_games))
    rows, times = [], []
    for bot, other, games in fast + slow:
        row, seconds = matchup(bot, other, games, args.seed)
        rows.append(row)
        if (bot, other, games) in slow:
            workers = os.cpu_count() or 1  # the Python path's worker processes
            times.append([label(bot), other, f"{seconds * workers / games:.1f}"])
        print(f"  {row[0]} vs 3 {row[1]}: {row[3]}", file=sys.stderr, flush=True)
    return {"lineup": lineup, "bots": results.bots, "matchups": rows, "slow": times,
            "spiels": sorted({bot for bot, _, _ in slow if bot != label(bot)}),
            "workers": os.cpu_count() or 1, "minutes": (time.perf_counter() - t0) / 60,
            "stamp": stamp()}


def render(figures: dict, args: argparse.Namespace) -> str:
    parts = [f"The compiled heuristics and random play, {PLAYERS} players, lineup "
             f"{','.join(figures['lineup'])}, {args.games} games (seats rotating):", "",
             ladder_table(figures["bots"])]
    parts += ["", f"Each bot against {PLAYERS - 1} copies of another"
              + "".join(f" ({label(bot)} is `{bot}`)" for bot in figures["spiels"]) + ":", "",
              matchup_table(figures["matchups"]), "",
              f"Seconds a game took in the slow matchups ({figures['workers']} games at a time "
              "in worker processes):", "",
              markdown_table(["bot", "against", "s per game"], figures["slow"])]
    command = (f"python benchmarks/ladder.py --games {args.games} --strong-games "
               f"{args.strong_games} --search-games {args.search_games} --slow-games "
               f"{args.slow_games} --openspiel-games "
               f"{args.openspiel_games} --openspiel-sims {args.openspiel_sims} --seed "
               f"{args.seed}")
    parts += ["", f"Made by `{command}` ({figures['minutes']:.0f} min here); "
              f"{figures['stamp']}"]
    return "\n".join(parts)


def main(argv=None) -> int:
    run(parser(), measure, render, argv, section="ladder")
    return 0


if __name__ == "__main__":
    sys.exit(main())
