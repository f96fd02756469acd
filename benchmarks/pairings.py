"""Head-to-head pairings of the compiled bots: who beats whom in seat-rotated games.

Usage::

    python benchmarks/pairings.py                   # 4 players, 2000 games per pairing
    python benchmarks/pairings.py --games 400 --players 6

For every pair of bots (A, B) it plays ``--games`` games with half the seats A and half B
(odd seat counts: the extra seat alternates), the pattern rotated over the seats, and reports A's
share of the wins (a shared win counts 1/k for each of the k winners; 50% is a draw between the
two bots) with a 95% interval, and both bots' mean scores. A last table plays all bots together,
rotated. Games are played by :func:`borders_sim.batch.games.run_bot_games` on all threads.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
import time


import numpy as np

from borders_sim import GameConfig
from borders_sim.agents import COMPILED_BOTS
from borders_sim.batch.games import run_bot_games
from borders_sim.report import markdown_table
from borders_sim.rules.limits import max_game_length
from borders_sim.batch.rollouts import final_scores, make_batch
from borders_sim.rules.state import MAX_PLAYERS
from harness import add_shared, run


def play(config: GameConfig, lineups: list[list[int]], seed: int):
    """Play one game per lineup (bot kinds by seat); (win shares, scores), [G, players]."""
    n = config.num_players
    states, _ = make_batch(config, seed, len(lineups))
    kinds = np.zeros((len(lineups), MAX_PLAYERS), dtype=np.int64)
    kinds[:, :n] = lineups
    run_bot_games(states, kinds, np.arange(seed, seed + len(lineups)), max_game_length(config))
    scores, winners = final_scores(states)
    shares = winners[:, :n] / winners[:, :n].sum(axis=1, keepdims=True)
    return shares, scores[:, :n], kinds[:, :n]


def share_ci(x: np.ndarray) -> str:
    m = x.mean()
    half = 1.96 * x.std(ddof=1) / math.sqrt(len(x))
    return f"{m:.1%} ± {half:.1%}"


def measure(args: argparse.Namespace) -> dict:
    """Every pairing's games and the all-together games: their table rows, and the seconds."""
    n = args.players
    config = GameConfig(num_players=n)
    t0 = time.perf_counter()
    pairs = []
    for a, b in itertools.combinations(range(len(COMPILED_BOTS)), 2):
        print(f"playing {COMPILED_BOTS[a]} against {COMPILED_BOTS[b]} ...", file=sys.stderr,
              flush=True)
        lineups = []
        for g in range(args.games):
            pattern = [a if (i + (g // n) % 2 * (n % 2)) % 2 == 0 else b for i in range(n)]
            pattern.sort(key=lambda k: k != a)  # A's seats together, then rotated
            rot = g % n
            lineups.append(pattern[rot:] + pattern[:rot])
        shares, scores, kinds = play(config, lineups, args.seed)
        share_a = (shares * (kinds == a)).sum(axis=1)
        pairs.append([COMPILED_BOTS[a], COMPILED_BOTS[b], share_ci(share_a),
                      f"{scores[kinds == a].mean():.1f}", f"{scores[kinds == b].mean():.1f}"])
    k = len(COMPILED_BOTS)
    together = None
    if n >= k:
        lineups = []
        for g in range(args.games):
            base = [i % k for i in range(n)]
            rot = g % n
            lineups.append(base[rot:] + base[:rot])
        shares, scores, kinds = play(config, lineups, args.seed)
        together = []
        for i, name in enumerate(COMPILED_BOTS):
            per_game = (shares * (kinds == i)).sum(axis=1)
            together.append([name, str(int((kinds == i).sum(axis=1)[0])), share_ci(per_game),
                             f"{scores[kinds == i].mean():.1f}",
                             f"{scores[kinds == i].std():.1f}"])
    return {"players": n, "games": args.games, "pairs": pairs, "together": together,
            "seconds": time.perf_counter() - t0}


def render(figures: dict, args: argparse.Namespace) -> str:
    lines = [f"# borders_sim bot ladder: {figures['players']} players, {figures['games']} "
             f"seat-rotated games per pairing", "",
             markdown_table(["A", "B", "A's share of wins (95% CI)", "A mean score",
                             "B mean score"], figures["pairs"])]
    if figures["together"] is not None:
        lines += ["", f"## all bots together, {figures['games']} seat-rotated games", "",
                  markdown_table(["bot", "seats", "share of wins (95% CI)", "mean score",
                                  "sd score"], figures["together"])]
    return "\n".join(lines + ["", f"({figures['seconds']:.0f} s)"])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    add_shared(parser, quick=dict(games=40), json=True)
    run(parser, measure, render, argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
