"""Rollout speed of borders_sim: the compiled whole-game kernel against the Python API loop.

Usage::

    python benchmarks/rollouts.py                 # 3..8 players, 1000 games, median of 5
    python benchmarks/rollouts.py --quick         # a rough table in about a minute (when cached)
    python benchmarks/rollouts.py --players 4,8 --games 4000 --repeat 7

For each player count it measures, in one run on the same machine:

* :func:`borders_sim.batch.rollouts.random_games` (uniformly random legal play, chunks of
  the games of a batch on threads) with one numba thread and with all of them: games/s and decisions/s.
  States are dealt before the clock starts; each timed call plays a fresh copy of the same batch.
  The first call (compilation, or loading numba's cache) is timed apart and excluded;
* the same random play through the Python API (:meth:`borders_sim.Game.step` with a random
  element of :meth:`~borders_sim.Game.legal_actions`) on a few games, as the baseline;
* if ``open_spiel`` (``pyspiel``) is importable, random play of OpenSpiel's two-player
  ``sheriff`` through a Python loop over ``pyspiel`` (its C++ game logic, a Python driver; the
  same calls per decision as the ``Game`` loop), and through OpenSpiel's fastest loop of random
  games, its C++ ``RandomRolloutEvaluator`` playing ``--per-call`` whole games per Python call
  (:func:`openspiel_cpp_rollouts`), paired with the kernel at 5 players on one thread, the deal
  inside our clock: ``--pairs`` back-to-back runs, the peer's then ours, and the median of the
  pairs' ratios with their range (this shared machine's speed drifts within minutes, so a
  ratio is only fair between runs taken together). The two sides play different games
  (BORDERS at 5 players, hundreds of decisions a game; sheriff, 2 players and a handful), so
  the ratio compares throughput of random play in one unit, player decisions per second, not
  two engines doing the same work. OpenSpiel is not a dependency.

Every figure is the median of ``--repeat`` runs. Decisions are player decisions (the state's
``steps``); moves the engine applies itself (``skip_forced``) are not counted. The table is
markdown, ready for the performance section of ``docs/speed.md``.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import sys
import time
from pathlib import Path

import numba
import numpy as np

import borders_sim
from borders_sim import Game, GameConfig
from borders_sim.cli.simulate import DEFAULT_MAX_STEPS, MAX_BATCH
from borders_sim.cli.common import check_seed_run, int_in, player_counts, seed_arg
from borders_sim.report import markdown_table, si
from borders_sim.rules.limits import max_game_length
from borders_sim.batch.rollouts import make_batch, play_batch, random_chunk
from borders_sim.rules.state import PH_GAME_OVER
from harness import add_shared, load, machine_line, parse, run

GOAL = 10e6  # decisions/s per core


def parser(prog: str | None = None) -> argparse.ArgumentParser:
    """The command line's options; ``prog`` names the command in usage lines and errors (the
    script's file name unless given: ``borders-sim bench`` passes its own)."""
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int_in(1, MAX_BATCH), default=None,
                        help=f"games per player count for the kernel, one batch of 1 to "
                             f"{MAX_BATCH} (default 1000; --quick 200)")
    parser.add_argument("--players", default="all", type=player_counts,
                        help="'all' (3..8) or a comma-separated list, e.g. 4,8 (default: all)")
    parser.add_argument("--repeat", type=int_in(1, 1000), default=None,
                        help="timed runs per measurement, the median is reported "
                             "(default 5; --quick 3)")
    parser.add_argument("--py-games", type=int_in(1, 1000), default=None,
                        help="games per player count for the Python API loop (default 3; "
                             "--quick 1)")
    parser.add_argument("--seed", type=seed_arg(), default=0,
                        help="first deal seed, 0 <= S and S+games-1 <= 2**64-1 (default 0)")
    parser.add_argument("--pairs", type=int_in(1, 100), default=None,
                        help="back-to-back runs of OpenSpiel's sheriff C++ rollout loop and "
                             "the kernel at 5 players on one thread (default 7; --quick 2)")
    parser.add_argument("--no-action-cards", action="store_true",
                        help="play with a goods-only deck (action_cards=False) to see their cost")
    add_shared(parser, json=True)  # --quick: fewer games and repeats
    return parser


def settle(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The defaults that depend on ``--quick``, and the seeds' range checked."""
    quick = args.quick
    if args.games is None:
        args.games = 200 if quick else 1000
    if args.repeat is None:
        args.repeat = 3 if quick else 5
    if args.py_games is None:
        args.py_games = 1 if quick else 3
    if args.pairs is None:
        args.pairs = 2 if quick else 7
    check_seed_run(parser, args.seed, max(args.games, args.py_games))


def parse_args(argv: list[str] | None = None, prog: str | None = None) -> argparse.Namespace:
    """The options of ``argv`` as :func:`main` reads them (:func:`parser`, :func:`settle`)."""
    options = parser(prog)
    args = parse(options, argv)
    settle(options, args)
    return args


def first_calls() -> tuple[float, str, float]:
    """Time the first rollout-kernel call and the first Game API step (compile or cache load)."""
    t0 = time.perf_counter()
    states, seeds = make_batch(GameConfig(num_players=3), 0, 1)
    play_batch(states, seeds, DEFAULT_MAX_STEPS)
    kernel = time.perf_counter() - t0
    st = random_chunk.stats  # the compiled kernel random_games runs
    how = ("compiled" if sum(st.cache_misses.values())
           else "loaded from cache" if sum(st.cache_hits.values()) else "already loaded")
    t0 = time.perf_counter()
    game = Game(GameConfig(num_players=3), seed=0)
    game.step(game.legal_actions()[0])
    game.scores()
    api = time.perf_counter() - t0
    return kernel, how, api


def time_deal_and_play(config: GameConfig, first_seed: int, games: int, threads: int,
                       repeat: int) -> tuple[float, int]:
    """Median seconds of ``repeat`` runs of dealing ``games`` games (:func:`make_batch`, one
    compiled call) and playing them (:func:`play_batch`), both inside the clock, and the
    decisions of one run: what a user of the two pays for a batch of random games."""
    numba.set_num_threads(threads)
    cap = max_game_length(config)
    times, decisions = [], 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        states, seeds = make_batch(config, first_seed, games)
        decisions = int(play_batch(states, seeds, cap).sum())
        times.append(time.perf_counter() - t0)
    return statistics.median(times), decisions


def time_kernel(template: np.ndarray, seeds: np.ndarray, threads: int, repeat: int, cap: int):
    """Median seconds of ``repeat`` plays of fresh copies of ``template``; decisions; states."""
    numba.set_num_threads(threads)
    times = []
    for _ in range(repeat):
        states = template.copy()
        t0 = time.perf_counter()
        out = play_batch(states, seeds, cap)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), int(out.sum()), states


def time_python_loop(config: GameConfig, games: int, seed: int,
                     repeat: int) -> tuple[float, int]:
    """Median seconds of ``repeat`` runs of ``games`` random games through :class:`Game`."""
    times, decisions = [], 0
    for _ in range(repeat):
        decisions = 0
        t0 = time.perf_counter()
        for g in range(games):
            rng = random.Random(seed + g)
            game = Game(config, seed=seed + g)
            while not game.is_terminal:
                game.step(rng.choice(game.legal_actions()))
                decisions += 1
        times.append(time.perf_counter() - t0)
    return statistics.median(times), decisions


def openspiel_python_loop(name, repeat: int, budget: float = 1.0,
                          seed: int = 0) -> tuple[float, float]:
    """(games/s, decisions/s) of uniformly random play of the OpenSpiel game ``name`` (a name,
    or a loaded ``pyspiel.Game``) through the loop a user writes over pyspiel, with the calls
    per decision of :func:`time_python_loop`'s loop over ``Game`` (``is_terminal``,
    ``legal_actions``, ``apply_action``); a game with chance nodes also asks
    ``is_chance_node`` and samples each from its ``chance_outcomes()``. The median of
    ``repeat`` runs of ``budget`` seconds. Raises ImportError if OpenSpiel is not installed."""
    import pyspiel
    game = pyspiel.load_game(name) if isinstance(name, str) else name
    chance = game.get_type().chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC
    rng = random.Random(seed)
    rates = []
    for _ in range(repeat):
        games = steps = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < budget:
            state = game.new_initial_state()
            if chance:
                while not state.is_terminal():
                    if state.is_chance_node():
                        actions, probs = zip(*state.chance_outcomes())
                        state.apply_action(rng.choices(actions, probs)[0])
                    else:
                        state.apply_action(rng.choice(state.legal_actions()))
                        steps += 1
            else:
                while not state.is_terminal():
                    state.apply_action(rng.choice(state.legal_actions()))
                    steps += 1
            games += 1
        dt = time.perf_counter() - t0
        rates.append((games / dt, steps / dt))
    return statistics.median(r[0] for r in rates), statistics.median(r[1] for r in rates)


#: Whole games per Python call of OpenSpiel's C++ random-rollout loop.
PER_CALL = 1000


def decisions_per_game(name: str, games: int = 2000) -> float:
    """Player decisions per game of uniformly random play of the OpenSpiel game ``name``
    (``pyspiel.evaluate_bots`` with random bots, the same play as the rollouts), untimed."""
    import pyspiel
    game = pyspiel.load_game(name)
    bots = [pyspiel.make_uniform_random_bot(p, 1 + p) for p in range(game.num_players())]
    decisions = 0
    for seed in range(games):
        state = game.new_initial_state()
        pyspiel.evaluate_bots(state, bots, seed)
        decisions += sum(1 for pa in state.full_history() if pa.player >= 0)
    return decisions / games


def openspiel_cpp_rollouts(name: str, repeat: int, budget: float = 1.0,
                           per_call: int = PER_CALL) -> tuple[float, float]:
    """(games/s, decisions/s) of uniformly random play of the OpenSpiel game ``name`` in
    OpenSpiel's fastest loop of random games a user can write: its C++
    ``RandomRolloutEvaluator``, reached through ``pyspiel.MCTSBot`` with one simulation, plays
    ``per_call`` whole games from the initial state per Python call (bots' choices and chance
    sampled in C++; the game must not start at a chance node, where ``MCTSBot`` crashes).
    Decisions per game come from :func:`decisions_per_game`, untimed. The
    median of ``repeat`` runs of ``budget`` seconds. Raises ImportError if OpenSpiel is not
    installed."""
    import pyspiel
    game = pyspiel.load_game(name)
    bot = pyspiel.MCTSBot(game, pyspiel.RandomRolloutEvaluator(per_call, 0), 2.0, 1, 1000,
                          False, 0, False)
    initial = game.new_initial_state()
    bot.step(initial)  # the first call, apart
    rates = []
    for _ in range(repeat):
        calls = 0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < budget:
            bot.step(initial)
            calls += 1
        rates.append(calls * per_call / (time.perf_counter() - t0))
    g = statistics.median(rates)
    return g, g * decisions_per_game(name)


def sheriff_cpp_pairs(pairs: int, games: int, seed: int, action_cards: bool) -> str:
    """The kernel's random play at 5 players on one thread, the deal inside the clock
    (:func:`time_deal_and_play`), against OpenSpiel's ``sheriff`` in its C++ rollout loop
    (:func:`openspiel_cpp_rollouts`), in ``pairs`` back-to-back pairs (the peer for one
    second, then ours: the median of five batches), or why not."""
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        return "OpenSpiel: not installed; the C++ loop comparison is skipped"
    config = GameConfig(num_players=5, action_cards=action_cards)
    ratios, ours, theirs = [], [], []
    decisions = 0
    for _ in range(pairs):
        theirs.append(openspiel_cpp_rollouts("sheriff", 1, 1.0)[1])
        seconds, decisions = time_deal_and_play(config, seed, games, 1, 5)
        ours.append(decisions / seconds)
        ratios.append(ours[-1] / theirs[-1])
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    ratio = statistics.median(ratios)
    return (f"random play on one thread, {pairs} pairs back to back: borders_sim's kernel, "
            f"BORDERS at 5 players ({decisions / games:.0f} decisions a game, the deal "
            f"included), {si(statistics.median(ours))} decisions/s; OpenSpiel's C++ "
            f"RandomRolloutEvaluator, `sheriff` (2 players, {decisions_per_game('sheriff'):.1f} "
            f"decisions a game, {PER_CALL:,} games per call), {si(statistics.median(theirs))} "
            f"decisions/s: **{ratio:.2f}x** (pairs {min(ratios):.2f}-{max(ratios):.2f}x), "
            f"throughput of two different games, not the same work. Goal: "
            f"{si(GOAL)} decisions/s per core at 5 players, "
            f"{'met' if statistics.median(ours) >= GOAL else 'not met'}")


def time_sheriff(repeat: int, budget: float = 1.0) -> str:
    """OpenSpiel sheriff random play through a Python loop over pyspiel, or why not."""
    try:
        import pyspiel
        g, s = openspiel_python_loop("sheriff", repeat, budget)
    except ImportError:
        return ("OpenSpiel: not installed (pip install open_spiel to add its `sheriff`, a "
                "two-player abstraction of this game, to this run); skipped")
    return (f"OpenSpiel {getattr(pyspiel, '__version__', '')} `sheriff` (2 players, default "
            f"parameters), random play, Python loop over pyspiel: {g:,.0f} games/s, "
            f"{si(s)} decisions/s")


def measure(args: argparse.Namespace) -> dict:
    """The first calls, then each player count's kernel (1 thread and all) and Python loop,
    then OpenSpiel's sheriff beside the kernel."""
    start = load()
    kernel_first, how, api_first = first_calls()
    all_threads = numba.config.NUMBA_NUM_THREADS
    rows, same, unfinished = [], True, 0
    for n in args.players:
        print(f"  {n} players ...", file=sys.stderr, flush=True)
        config = GameConfig(num_players=n, action_cards=not args.no_action_cards)
        template, seeds = make_batch(config, args.seed, args.games)
        cap = max_game_length(config)
        t1, dec, s1 = time_kernel(template, seeds, 1, args.repeat, cap)
        tn, dec_n, sn = time_kernel(template, seeds, all_threads, args.repeat, cap)
        same &= dec == dec_n and s1.tobytes() == sn.tobytes()
        unfinished += int(np.sum(s1["phase"] != PH_GAME_OVER))
        tp, dec_p = time_python_loop(config, args.py_games, args.seed, args.repeat)
        rows.append({"players": n, "decisions": int(dec), "seconds_1": t1,
                     "decisions_all": int(dec_n), "seconds_all": tn, "python_decisions": dec_p,
                     "python_seconds": tp})
    print("  OpenSpiel's sheriff ...", file=sys.stderr, flush=True)
    return {"load": start, "threads": all_threads, "kernel_first": kernel_first, "how": how,
            "api_first": api_first, "rows": rows, "same": bool(same), "unfinished": unfinished,
            "threading_layer": numba.threading_layer(),
            "sheriff": time_sheriff(args.repeat),
            "sheriff_pairs": sheriff_cpp_pairs(args.pairs, args.games, args.seed,
                                               not args.no_action_cards)}


def render(figures: dict, args: argparse.Namespace) -> str:
    threads = figures["threads"]
    rows, best = [], 0.0
    for r in figures["rows"]:
        rate1 = r["decisions"] / r["seconds_1"]
        rate_n = r["decisions_all"] / r["seconds_all"]
        rate_p = r["python_decisions"] / r["python_seconds"]
        best = max(best, rate1)
        rows.append([str(r["players"]), str(args.games), f"{r['decisions'] / args.games:.0f}",
                     f"{args.games / r['seconds_1']:,.0f}", si(rate1),
                     f"{args.games / r['seconds_all']:,.0f}", si(rate_n),
                     f"{rate_n / rate1:.2f}x", si(rate_p), f"{rate1 / rate_p:,.0f}x"])
    headers = ["players", "games", "decisions/game", "1 thread games/s", "1 thread decisions/s",
               f"{threads} threads games/s", f"{threads} threads decisions/s", "scaling",
               "Python loop decisions/s", "kernel (1 thread) / Python loop"]
    lines = [
        "# borders_sim rollout benchmark", "",
        f"- machine: {machine_line(figures['load'])} (other work on the machine skews the "
        f"figures)",
        f"- Python {platform.python_version()}, numpy {np.__version__}, numba "
        f"{numba.__version__} ({threads} threads), borders_sim {borders_sim.__version__} "
        f"from {Path(borders_sim.__file__).parent}",
        f"- action cards: {'off' if args.no_action_cards else 'on'}",
        f"- {args.games} games per player count for the kernel, {args.py_games} for the "
        f"Python loop; median of {args.repeat} runs; seeds from {args.seed}",
        f"- first call, excluded below: rollout kernel {figures['kernel_first']:.1f} s "
        f"({figures['how']}), Game API {figures['api_first']:.1f} s", "",
        markdown_table(headers, rows), "",
        f"- threading layer: {figures['threading_layer']}; same games with 1 and {threads} "
        f"threads: {'yes' if figures['same'] else 'NO (batch results depend on threads!)'}",
        "- project goal: >= 10M decisions/s per core",
        f"- best single-thread rate here: {si(best)} decisions/s ({best / GOAL:.1%} of the "
        f"goal)",
        f"- {figures['sheriff']}",
        f"- {figures['sheriff_pairs']}"]
    if figures["unfinished"]:
        lines.append(f"- ERROR: {figures['unfinished']} games hit max_game_length without "
                     f"ending")
    return "\n".join(lines)


def main(argv: list[str] | None = None, prog: str | None = None) -> int:
    """Run the benchmark with ``argv`` (``sys.argv[1:]`` if None), print its table; the exit
    status (1 where the threads changed a game or a game did not end)."""
    figures = run(parser(prog), measure, render, argv, check=settle)
    return 0 if figures["same"] and not figures["unfinished"] else 1


if __name__ == "__main__":
    sys.exit(main())
