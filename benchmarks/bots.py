"""Rollout speed with the compiled bots: whole games inside one compiled call, each seat's
decision taken by its bot's policy kernel from the seat's observation and legal mask.

Usage::

    python benchmarks/bots.py                    # 3..8 players, 1000 games, median of 3
    python benchmarks/bots.py --quick            # a rough table in about a minute (when cached)
    python benchmarks/bots.py --players 4,8 --games 2000 --repeat 5

For each player count and each bot of :data:`borders_sim.agents.COMPILED_BOTS` it times
:func:`borders_sim.batch.games.run_bot_games` with every seat played by that bot (the ``random``
row is the baseline: the same harness, uniform over the legal actions), with one numba thread and
with all of them: games/s and decisions/s. Every decision observes (writes the seat's
observation vector) and then asks the policy, so the ``random`` row also shows the cost of the
observation itself. A last row per player count plays the heuristic bots and random together,
rotated. States are dealt before the clock starts; each timed call plays a fresh copy of the
same batch; the first call (compilation or cache load) is excluded. Decisions are player
decisions (``skip_forced`` moves are not counted). The table is markdown.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time


import numba
import numpy as np

from borders_sim import GameConfig
from borders_sim.agents import COMPILED_BOTS
from borders_sim.batch.games import run_bot_games
from borders_sim.cli.common import check_seed_run, int_in, player_counts, seed_arg
from borders_sim.report import markdown_table, si
from borders_sim.cli.simulate import MAX_BATCH
from borders_sim.rules.limits import max_game_length
from borders_sim.batch.rollouts import make_batch
from borders_sim.rules.state import MAX_PLAYERS, PH_GAME_OVER
from harness import add_shared, load, machine_line, run

MIXED = "mixed"


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int_in(1, MAX_BATCH), default=None,
                        help="games per player count and bot (default 1000; --quick 200)")
    parser.add_argument("--players", default="all", type=player_counts,
                        help="'all' (3..8) or a comma-separated list, e.g. 4,8 (default: all)")
    parser.add_argument("--repeat", type=int_in(1, 1000), default=None,
                        help="timed runs per measurement, the median is reported "
                             "(default 3; --quick 1)")
    parser.add_argument("--seed", type=seed_arg(), default=0,
                        help="first deal seed, 0 <= S and S+games-1 <= 2**64-1 (default 0)")
    add_shared(parser, json=True)  # --quick: fewer games and repeats
    return parser


def settle(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The defaults that depend on ``--quick``, and the seeds' range checked."""
    if args.games is None:
        args.games = 200 if args.quick else 1000
    if args.repeat is None:
        args.repeat = 1 if args.quick else 3
    check_seed_run(parser, args.seed, args.games)


def lineups(bot: str, games: int, n: int) -> np.ndarray:
    """Bot kinds per seat: all ``bot``, or (``mixed``) every bot in turn, rotated per game."""
    kinds = np.zeros((games, MAX_PLAYERS), dtype=np.int64)
    if bot == MIXED:
        k = len(COMPILED_BOTS)
        for g in range(games):
            kinds[g, :n] = [(g + p) % k for p in range(n)]
    else:
        kinds[:, :n] = COMPILED_BOTS.index(bot)
    return kinds


def time_bots(template, kinds, seeds, threads: int, repeat: int, cap: int):
    """Median seconds of ``repeat`` plays of fresh copies of ``template``; decisions; states."""
    numba.set_num_threads(threads)
    times = []
    for _ in range(repeat):
        states = template.copy()
        t0 = time.perf_counter()
        out = run_bot_games(states, kinds, seeds, cap)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), int(out.sum()), states


def measure(args: argparse.Namespace) -> dict:
    """Every bot's (and the mixed lineup's) games at each player count, on one thread and on
    all: the table's rows, whether both gave the same games, the unfinished games."""
    all_threads = numba.config.NUMBA_NUM_THREADS
    start = load()
    t0 = time.perf_counter()
    states, seeds = make_batch(GameConfig(num_players=3), 0, 1)
    for kind in range(len(COMPILED_BOTS)):
        run_bot_games(states.copy(), np.full((1, MAX_PLAYERS), kind),
                      np.zeros(1, dtype=np.uint64), 10**6)
    first = time.perf_counter() - t0
    rows, same, unfinished = [], True, 0
    for n in args.players:
        config = GameConfig(num_players=n)
        template, _ = make_batch(config, args.seed, args.games)
        seeds = np.arange(args.seed, args.seed + args.games, dtype=np.uint64)
        cap = max_game_length(config)
        base = None
        for bot in (*COMPILED_BOTS, MIXED):
            print(f"  {n} players, {bot} ...", file=sys.stderr, flush=True)
            kinds = lineups(bot, args.games, n)
            t1, dec, s1 = time_bots(template, kinds, seeds, 1, args.repeat, cap)
            tn, dec_n, sn = time_bots(template, kinds, seeds, all_threads, args.repeat, cap)
            same &= dec == dec_n and s1.tobytes() == sn.tobytes()
            unfinished += int(np.sum(s1["phase"] != PH_GAME_OVER))
            rate1 = dec / t1
            if base is None:
                base = rate1
            rows.append([str(n), bot, f"{dec / args.games:.0f}", f"{args.games / t1:,.0f}",
                         si(rate1), f"{args.games / tn:,.0f}", si(dec_n / tn),
                         f"{rate1 / base:.2f}"])
    return {"threads": all_threads, "load": start, "first_call": first, "rows": rows,
            "same": bool(same), "unfinished": unfinished,
            "threading_layer": numba.threading_layer()}


def render(figures: dict, args: argparse.Namespace) -> str:
    threads = figures["threads"]
    headers = ["players", "bots", "decisions/game", "1 thread games/s", "1 thread decisions/s",
               f"{threads} threads games/s", f"{threads} threads decisions/s",
               "decisions/s vs random"]
    lines = [
        "# borders_sim bot rollout benchmark", "",
        f"- machine: {machine_line(figures['load'])} (other work on the machine skews the "
        f"figures)",
        f"- Python {platform.python_version()}, numpy {np.__version__}, numba "
        f"{numba.__version__} ({threads} threads)",
        f"- {args.games} games per player count and bot, median of {args.repeat} runs, "
        f"seeds from {args.seed}; rulebook rules",
        f"- first call, excluded below: {figures['first_call']:.1f} s (compile or cache load)",
        "", markdown_table(headers, figures["rows"]), "",
        f"- threading layer: {figures['threading_layer']}; same games with 1 and {threads} "
        f"threads: {'yes' if figures['same'] else 'NO (batch results depend on threads!)'}"]
    if figures["unfinished"]:
        lines.append(f"- ERROR: {figures['unfinished']} games hit max_game_length without "
                     f"ending")
    return "\n".join(lines)


def main(argv=None) -> int:
    figures = run(parser(), measure, render, argv, check=settle)
    return 0 if figures["same"] and not figures["unfinished"] else 1


if __name__ == "__main__":
    sys.exit(main())
