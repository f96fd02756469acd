"""The bot ladder: tournaments between the registered bots, as markdown tables for the README.

Usage::

    python benchmarks/ladder.py                      # print the tables
    python benchmarks/ladder.py --write-readme       # and put them into README.md
    python benchmarks/ladder.py --games 8400 --slow-games 40 --seed 1

Two tables, both reproducible from the command above (same seeds, same games, any machine):

1. **All compiled bots together**: one 4-player tournament of the lineup of every compiled bot
   (:data:`borders_sim.agents.COMPILED_BOTS`, repeated to fill 4 seats), ``--games`` games
   (seats rotating). The ladder: each bot's win rate with its 95% interval, score and rating.
2. **Each Python-only bot against each compiled bot** (for example ``ismcts``): 4-player
   games of the lineup ``[bot, X, X, X]``, ``--slow-games`` games per opponent ``X``. The bot
   beats ``X`` with significance when the lower end of its win-rate interval is above 1/4,
   the rate of a bot no better than the three others.

``--write-readme`` replaces the text between the markers ``<!-- ladder:start -->`` and
``<!-- ladder:end -->`` of the README of this checkout with the tables and the command line.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from pathlib import Path

# The ladder of the checkout this script belongs to, installed or not.
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from borders_sim.agents import COMPILED_BOTS, REGISTRY  # noqa: E402
from borders_sim.cli.common import int_in, markdown_table, percent  # noqa: E402
from borders_sim.arena import default_lineup, run_tournament  # noqa: E402

PLAYERS = 4
START, END = "<!-- ladder:start -->", "<!-- ladder:end -->"


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int_in(1, 10**8), default=8400,
                        help="games of the compiled bots' tournament (default: 8400)")
    parser.add_argument("--slow-games", type=int_in(1, 10**6), default=40,
                        help="games of each Python-only bot against each compiled bot "
                             "(default: 40)")
    parser.add_argument("--seed", type=int_in(0, 2**62), default=0, help="first seed")
    parser.add_argument("--write-readme", action="store_true",
                        help="replace the ladder section of README.md")
    return parser.parse_args(argv)


def ladder_rows(results) -> list[list[str]]:
    rows = []
    for b in sorted(results.bots, key=lambda b: -b["win_rate"]):
        lo, hi = b["win_rate_ci95"]
        rows.append([b["name"], f"{percent(b['win_rate'])} [{percent(lo)}, {percent(hi)}]",
                     f"{b['mean_score']:.1f} ({b['sd_score']:.1f})",
                     f"{b['rating_mu']:.2f} ({b['rating_sigma']:.2f})",
                     percent(b["behaviour"]["lies_when_opened"]),
                     percent(b["behaviour"]["open_rate"]),
                     percent(b["behaviour"]["bribed_rate"])])
    return rows


def main(argv=None) -> int:
    args = parse_args(argv)
    lineup = default_lineup(PLAYERS)
    t0 = time.perf_counter()
    results = run_tournament(PLAYERS, lineup, args.games, args.seed)
    parts = [f"All compiled bots, {PLAYERS} players, lineup {','.join(lineup)}, "
             f"{args.games} games (seats rotating):", "",
             markdown_table(["bot", "win rate [95% CI]", "score mean (sd)",
                             "rating mu (sigma)", "lies when opened", "opens", "bribed"],
                            ladder_rows(results))]
    slow = [name for name in REGISTRY if name not in COMPILED_BOTS]
    rows = []
    t_slow = time.perf_counter()
    for name in slow:
        for other in COMPILED_BOTS:
            r = run_tournament(PLAYERS, (name,) + (other,) * (PLAYERS - 1), args.slow_games,
                               args.seed)
            b = r.bots[0]
            lo, hi = b["win_rate_ci95"]
            rows.append([name, other, str(args.slow_games),
                         f"{percent(b['win_rate'])} [{percent(lo)}, {percent(hi)}]",
                         "yes" if lo > 1 / PLAYERS else "no"])
    if rows:
        workers = os.cpu_count() or 1  # run_tournament's worker processes on the Python path
        per_game = (time.perf_counter() - t_slow) * workers / (len(rows) * args.slow_games)
        parts += ["", f"Python-only bots against {PLAYERS - 1} copies of each compiled bot:", "",
                  markdown_table(["bot", "against", "games", "win rate [95% CI]",
                                  "beats it (CI above 25%)"], rows), "",
                  f"A game took {per_game:.1f} s on average here (wall clock, {workers} games at "
                  "a time in worker processes)."]
    command = (f"python benchmarks/ladder.py --games {args.games} --slow-games "
               f"{args.slow_games} --seed {args.seed}")
    parts += ["", f"Made by `{command}` ({time.perf_counter() - t0:.0f} s here)."]
    text = "\n".join(parts)
    print(text)
    if args.write_readme:
        readme = ROOT / "README.md"
        old = readme.read_text(encoding="utf-8")
        if START not in old or END not in old:
            print(f"README.md has no {START} ... {END} section", file=sys.stderr)
            return 1
        new = re.sub(re.escape(START) + ".*?" + re.escape(END),
                     lambda _: f"{START}\n{text}\n{END}", old, flags=re.S)
        readme.write_text(new, encoding="utf-8")
        print("README.md updated", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
