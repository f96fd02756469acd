"""``borders-sim simulate``: seeded games of uniformly random play, a summary row per player count.

It plays ``G`` games (default 1000) per player count with the compiled whole-game kernels of
:func:`borders_sim.batch.rollouts.random_games` (batches of games, each cut into chunks played
on all numba threads), with a progress bar on stderr, then prints one row per player count
(``--players all`` runs 3..8):

* ``decisions``: decisions per game (the state's ``steps``; forced moves applied by the engine
  under ``skip_forced`` are not decisions), mean, min and max;
* ``rounds``: rounds played, mean, min and max;
* ``win score``: mean winning score; ``spread``: mean of (max score - min score) per game;
  ``winners``: mean number of winners (ties that survive every tie-break share the victory);
* ``main res.`` / ``fallback``: games ended because the main resources ran out (6-1) or by the
  fallback rule, the draw pile running out a second time (6-6); ``unfinished`` appears only if
  some game hit the cap on decisions: ``--max-steps``, or by default the proven bound
  ``max_game_length`` of P-0.4 (then it is an engine bug and the command exits with status 1);
* ``games/s`` and ``decisions/s`` of the whole job (dealing, playing, scoring), excluding the
  one-off compilation (or cache load) of the kernels, which is reported on stderr.

Game ``i`` of a run is dealt from seed ``S + i`` and played with a policy generator derived from
the same number, so a run is reproducible and its results do not depend on ``--threads`` or
the batch size. Seeds follow :mod:`borders_sim.checks`: ``0 <= S`` and
``S + G - 1 <= 2**64 - 1``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numba

from .. import __version__
from .._compile.notice import quiet
from ..rules import state as st
from ..checks import as_int, as_seed
from ..rules.config import GameConfig
from ..rules.limits import max_game_length
from ..batch.rollouts import final_scores, make_batch, play_batch, random_chunk
from .progress import progress_bar
from .common import INT64_MAX, check_seed_run, int_in, player_counts, seed_arg
from ..report import markdown_table, si

DEFAULT_MAX_STEPS = 10**9  # far above max_game_length of any config
MAX_GAMES = 10**9  # per player count: days of computing at the kernel's speed
MAX_BATCH = 2**14  # games per kernel call: 16384 states of 9.5 kB (STATE_DTYPE), 155 MB


def warm_up() -> tuple[float, str]:
    """Compile (or load from the cache) the kernels that :func:`simulate` calls: setup, the
    rollout and scoring; returns (seconds, how)."""
    t0 = time.perf_counter()
    with quiet():  # this command reports the preparation itself
        states, seeds = make_batch(GameConfig(num_players=st.MIN_PLAYERS), 0, 1)
        play_batch(states, seeds, DEFAULT_MAX_STEPS)
        final_scores(states)
    dt = time.perf_counter() - t0
    stats = random_chunk.stats
    how = "compiled" if sum(stats.cache_misses.values()) else (
        "loaded from cache" if sum(stats.cache_hits.values()) else "ready")
    return dt, how


def simulate(num_players: int, games: int, seed: int = 0, action_cards: bool = True,
             batch_size: int = 256, max_steps: int | None = None,
             progress: bool = True) -> dict:
    """Play ``games`` random games with ``num_players``; returns the summary row as a dict.

    ``max_steps`` caps the decisions of a game (default: the config's proven bound
    :func:`~borders_sim.rules.limits.max_game_length`, so an unfinished game is a bug). The
    statistics are summed batch by batch, so memory does not grow with ``games``. Game ``i`` is
    dealt from seed ``seed + i`` (a run of seeds, :func:`~borders_sim.checks.as_seed`).

    Raises:
        ValueError: a bad argument, named.
    """
    games = as_int(games, "games", lo=1)
    seed = as_seed(seed, span=games)
    batch_size = as_int(batch_size, "batch_size", 1, MAX_BATCH)
    config = GameConfig(num_players=num_players, action_cards=action_cards)
    if max_steps is None:
        max_steps = max_game_length(config)
    n = num_players
    total = {"steps": 0, "rounds": 0, "best": 0, "spread": 0, "winners": 0,
             "end_main": 0, "end_fallback": 0, "unfinished": 0}
    lows = {"steps": INT64_MAX, "rounds": INT64_MAX}
    highs = {"steps": 0, "rounds": 0}
    t0 = time.perf_counter()
    with progress_bar(total=games, unit="game", desc=f"{n} players", disable=not progress,
              file=sys.stderr, leave=False) as bar:
        for lo in range(0, games, batch_size):
            k = min(batch_size, games - lo)
            states, pseeds = make_batch(config, seed + lo, k)
            play_batch(states, pseeds, max_steps)
            sc, win = final_scores(states)
            done = states["phase"] == st.PH_GAME_OVER
            reason = states["end_reason"]
            batch = {"steps": states["steps"], "rounds": states["round"],
                     "best": sc[:, :n].max(axis=1),
                     "spread": sc[:, :n].max(axis=1) - sc[:, :n].min(axis=1),
                     "winners": win[:, :n].sum(axis=1),
                     "end_main": done & (reason == st.END_MAIN_RESOURCES),
                     "end_fallback": done & (reason == st.END_FALLBACK),
                     "unfinished": ~done}
            for key, values in batch.items():
                total[key] += int(values.sum())
            for key in lows:
                lows[key] = min(lows[key], int(batch[key].min()))
                highs[key] = max(highs[key], int(batch[key].max()))
            bar.update(k)
    seconds = time.perf_counter() - t0
    return {
        "players": n, "games": games,
        "steps_mean": total["steps"] / games, "steps_min": lows["steps"],
        "steps_max": highs["steps"],
        "rounds_mean": total["rounds"] / games, "rounds_min": lows["rounds"],
        "rounds_max": highs["rounds"],
        "win_score": total["best"] / games, "spread": total["spread"] / games,
        "winners": total["winners"] / games,
        "end_main": total["end_main"], "end_fallback": total["end_fallback"],
        "unfinished": total["unfinished"],
        "seconds": seconds, "games_per_s": games / seconds,
        "decisions_per_s": total["steps"] / seconds,
    }


def summary_table(results: list[dict]) -> str:
    unfinished = any(r["unfinished"] for r in results)
    headers = ["players", "games", "decisions: mean (min-max)", "rounds: mean (min-max)",
               "win score", "spread", "winners", "main res.", "fallback"]
    headers += ["unfinished"] if unfinished else []
    headers += ["games/s", "decisions/s"]
    rows = []
    for r in results:
        row = [str(r["players"]), str(r["games"]),
               f"{r['steps_mean']:.1f} ({r['steps_min']}-{r['steps_max']})",
               f"{r['rounds_mean']:.2f} ({r['rounds_min']}-{r['rounds_max']})",
               f"{r['win_score']:.1f}", f"{r['spread']:.1f}",
               f"{r['winners']:.3f}", str(r["end_main"]), str(r["end_fallback"])]
        row += [str(r["unfinished"])] if unfinished else []
        row += [f"{r['games_per_s']:,.0f}", si(r["decisions_per_s"])]
        rows.append(row)
    return markdown_table(headers, rows)


def add_parser(sub: argparse._SubParsersAction) -> None:
    max_threads = numba.config.NUMBA_NUM_THREADS
    sim = sub.add_parser(
        "simulate", help="play seeded random games and print a summary table",
        description="Play seeded games with uniformly random legal actions in the compiled "
                    "rollout kernel and print a summary per player count.")
    sim.add_argument("--players", required=True, type=player_counts, metavar="N",
                     help="number of players, 3..8, a list such as 3,4 (one row each), or "
                          "'all' for 3..8")
    sim.add_argument("--games", type=int_in(1, MAX_GAMES), default=1000, metavar="G",
                     help=f"games per player count, 1 to {MAX_GAMES:,} (default: 1000)")
    sim.add_argument("--seed", type=seed_arg(), default=0, metavar="S",
                     help="game i is dealt from seed S+i; 0 <= S and S+G-1 <= 2**64-1 "
                          "(default: 0)")
    sim.add_argument("--no-action-cards", action="store_true",
                     help="play without the 22 action cards (variant action_cards=False)")
    sim.add_argument("--threads", default=None, metavar="T",
                     type=int_in(1, max_threads, " (numba's maximum here; set NUMBA_NUM_THREADS "
                                                 "before starting to allow more)"),
                     help=f"numba threads, 1 to {max_threads} here (default: all of them)")
    sim.add_argument("--batch-size", type=int_in(1, MAX_BATCH), default=256, metavar="B",
                     help=f"games per kernel call, 1 to {MAX_BATCH} (default: 256); results do "
                          "not depend on it")
    sim.add_argument("--max-steps", type=int_in(1, INT64_MAX), default=None, metavar="M",
                     help="cap on decisions per game, 1 to 2**63-1 (default: the config's "
                          "proven bound max_game_length, P-0.4)")
    sim.add_argument("--no-progress", action="store_true", help="no progress bar")
    sim.set_defaults(run=run)


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    check_seed_run(parser, args.seed, args.games)
    if args.threads is not None:
        numba.set_num_threads(args.threads)
    threads = numba.get_num_threads()
    action_cards = not args.no_action_cards
    err = sys.stderr
    print(f"borders-sim {__version__} simulate: {args.games} random games per player count, "
          f"seed {args.seed}, action cards {'on' if action_cards else 'off'}, "
          f"{threads} thread(s)", file=err)
    print("preparing the kernels (a fresh install compiles them once; later runs load numba's "
          "cache in about a second) ...", file=err, flush=True)
    seconds, how = warm_up()
    print(f"kernels {how} in {seconds:.1f} s", file=err, flush=True)
    results = []
    interrupted = False
    try:
        for n in args.players:
            results.append(simulate(n, args.games, args.seed, action_cards, args.batch_size,
                                    args.max_steps, progress=not args.no_progress))
    except KeyboardInterrupt:
        interrupted = True
        print("interrupted", file=err)
        if not results:
            return 130
    print(summary_table(results))
    total = sum(r["seconds"] for r in results)
    print(f"\n{sum(r['games'] for r in results)} games in {total:.1f} s "
          f"(kernel preparation {seconds:.1f} s not included); {threads} thread(s) on "
          f"{os.cpu_count()} CPU(s)")
    if any(r["unfinished"] for r in results):
        if args.max_steps is not None:
            print(f"note: some games were cut at --max-steps {args.max_steps}; the other "
                  "columns include them as they stood", file=err)
        else:
            print("error: some games did not end within max_game_length, the proven bound "
                  "on decisions (P-0.4): an engine bug", file=err)
            return 1
    return 130 if interrupted else 0
