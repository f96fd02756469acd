"""Every speed figure of borders_sim and of its peers, from one run on the machine at hand.

Usage::

    python benchmarks/run_all.py                          # everything (about 10-15 minutes)
    python benchmarks/run_all.py --json out.json > out.md  # the figures, and the report
    python benchmarks/run_all.py --write-docs           # and docs/speed.md, docs/performance.md
    python benchmarks/run_all.py --quick                  # 5 players, short runs, no cold start
    python benchmarks/run_all.py --from-json out.json --write-docs   # render a saved run

One table, one row per measure and player count:

* the whole-game rollout kernel (:func:`borders_sim.batch.rollouts.random_games`, uniformly
  random play) and the bot kernel (:func:`borders_sim.batch.games.run_bot_games`) with every
  compiled bot of :data:`borders_sim.agents.COMPILED_BOTS` in every seat (every decision writes
  the seat's observation, then asks the bot), 3..8 players: games/s and decisions/s with one
  numba thread and with all of them, and the scaling factor (``benchmarks/rollouts.py``,
  ``benchmarks/bots.py``), from ``--repeat`` back-to-back pairs of a one-thread and an
  all-thread run: medians of each, and the scaling is the median of the pairs' own ratios;
* :meth:`borders_sim.Game.step` through a Python loop (random legal actions);
* the PettingZoo AEC env ``borders_v0`` raw and wrapped, :func:`borders_sim.envs.observe`, and
  :class:`borders_sim.envs.VectorEnv` with observations and masks, and with every seat's view
  and the credit of each seat's last decision as well, on one thread and on all (medians of ``--repeat`` back-to-back pairs of runs; ``benchmarks/envs.py``);
* peers, each where installed (the ``bench`` extra): OpenSpiel's ``sheriff`` and
  ``leduc_poker`` with random play through a Python loop over pyspiel (the same calls per
  decision as our ``Game`` loop) and, for ``sheriff``, through OpenSpiel's fastest loop of
  random games, its C++ ``RandomRolloutEvaluator`` playing 1,000 games per Python call
  (``rollouts.openspiel_cpp_rollouts``; ``MCTSBot``, its door from Python, crashes when asked
  to start at a chance node, which is where ``leduc_poker`` starts), PettingZoo's ``texas_holdem_v4`` and
  ``leduc_holdem_v4`` through the same AEC loop as ours; the column ``ours / peer`` is the
  paired ratio (below) for that player count;
* start-up (``benchmarks/startup.py``): seconds from a new process with an empty numba cache (a
  fresh install) to the first ``Game`` step, to the first finished ``random_games`` batch and to
  every kernel prepared (``borders-sim warmup``), and the same with that cache filled; the cold
  start also gives numba's compile time per function (``--profile-compile N`` rows of it);
* memory: bytes of one game state record and of one observation.

Paired ratios: the machine's speed drifts by a factor of up to 2 within minutes (a shared
host), so a ratio of two figures measured minutes apart can be off by as much. So every ratio
to a peer (``ours / peer``) comes from ``--pairs`` pairs of runs per player count that
alternate the peer and ours, each pair back to back (about a second each, one numba thread):
the median of the pairs' ratios, shown with its lowest and highest.

Under the tables: the headline, the few ratios a user compares (ours against each peer at 5
players, and the start-up times), which ``--write-docs`` also puts in the Performance
section of ``docs/speed.md`` (the whole report goes to ``docs/performance.md``).
Every rate is the median of ``--repeat`` timed runs. Figures on a shared machine are noisy:
compare figures of one run (the ratios), not figures of different runs. ``--quick`` is the
CI's setting: it proves that every part runs and asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata as md
import importlib.util
import json
import math
import os
import platform
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

import numba
import numpy as np

import borders_sim
from borders_sim import GameConfig
from borders_sim.agents import COMPILED_BOTS
from borders_sim.cli.common import player_counts
from borders_sim.report import markdown_table, si
from borders_sim.rules.limits import max_game_length
from borders_sim.rules.observation import OBS_SIZE
from borders_sim.batch.rollouts import make_batch
from borders_sim.rules.state import PH_GAME_OVER, STATE_DTYPE
from borders_sim.cli.warmup import warm_up

import bots as bots_bench
import envs as envs_bench
import rollouts as rollouts_bench
import startup
from freshness import measured_at
from harness import add_shared, cpu_model, load, run, usable_cores

FULL_REPORT = ROOT / "docs" / "performance.md"
START, END = "<!-- performance:start -->", "<!-- performance:end -->"
HEADLINE_PLAYERS = 5  # the player count of the headline table
TARGET = 10_000_000  # decisions/s of random games on one core at 5 players: the project's goal
HEURISTICS = tuple(b for b in COMPILED_BOTS if b != "random")


# --- settings -------------------------------------------------------------------------------
def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=player_counts, default=None,
                        help="'all' (3..8) or a list such as 4,8 (default all; --quick 5)")
    parser.add_argument("--games", type=int, default=None,
                        help="games per kernel measurement (default 500; --quick 40)")
    parser.add_argument("--py-games", type=int, default=None,
                        help="games per Python-loop measurement (default 3; --quick 1)")
    parser.add_argument("--repeat", type=int, default=None,
                        help="timed runs per figure, the median is kept (default 3; --quick 1)")
    parser.add_argument("--seconds", type=float, default=None,
                        help="seconds per timed run of the env and peer loops (default 1; "
                             "--quick 0.2)")
    parser.add_argument("--vector-envs", type=int, default=None,
                        help="games stepped together by VectorEnv (default 1024; --quick 256)")
    parser.add_argument("--pairs", type=int, default=None,
                        help="alternating peer/ours pairs per ratio and player count (default 5; "
                             "--quick 1)")
    parser.add_argument("--cold-start", action=argparse.BooleanOptionalAction, default=None,
                        help="measure the start from an empty numba cache, which compiles "
                             "every kernel in a subprocess (minutes; default on, off with "
                             "--quick)")
    parser.add_argument("--profile-compile", type=int, default=12, metavar="N",
                        help="rows of the per-function compile times of the cold start "
                             "(default 12)")
    parser.add_argument("--from-json", type=Path, metavar="FILE",
                        help="measure nothing: report the results saved by --json FILE")
    # --quick: 5 players, few games, short runs, no cold start (the defaults below)
    add_shared(parser, docs=f"replace the text between {START} and {END} of docs/speed.md",
               json=True)
    return parser


def settle(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The defaults that depend on ``--quick``, and the bounds checked."""
    quick = args.quick
    defaults = {"players": (HEADLINE_PLAYERS,) if quick else tuple(range(3, 9)),
                "games": 40 if quick else 500, "py_games": 1 if quick else 3,
                "repeat": 1 if quick else 3, "seconds": 0.2 if quick else 1.0,
                "vector_envs": 256 if quick else 1024, "cold_start": not quick,
                "pairs": 1 if quick else 5}
    for key, value in defaults.items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    if not (1 <= args.games <= 1 << 14 and 1 <= args.py_games <= 1000
            and 1 <= args.repeat <= 100 and 0 < args.seconds <= 600
            and 1 <= args.vector_envs <= 1 << 16 and 0 <= args.profile_compile <= 1000
            and 1 <= args.pairs <= 100):
        parser.error("out of range: --games 1..16384, --py-games 1..1000, --repeat 1..100, "
                     "--seconds (0, 600], --vector-envs 1..65536, --profile-compile 0..1000, "
                     "--pairs 1..100")


def load_or_none() -> float | None:
    """The load average (:func:`harness.load`), None where the system has none (JSON)."""
    value = load()
    return None if math.isnan(value) else value


def version(name: str) -> str | None:
    try:
        return md.version(name)
    except md.PackageNotFoundError:
        return None


def header() -> dict:
    """Date, machine and versions."""
    try:
        commit = measured_at("performance")
    except (OSError, RuntimeError):
        commit = ""
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cpu": cpu_model(), "cores": os.cpu_count(), "usable_cores": usable_cores(),
        "load_average": load_or_none(),
        "system": f"{platform.system()} {platform.machine()}",
        "python": platform.python_version(), "numpy": np.__version__,
        "numba": numba.__version__, "llvmlite": version("llvmlite"),
        "threads": numba.config.NUMBA_NUM_THREADS,
        "borders_sim": borders_sim.__version__, "commit": commit,
        "numba_cache": borders_sim.kernel_cache(),
        "open_spiel": version("open_spiel"), "pettingzoo": version("pettingzoo"),
        "rlcard": version("rlcard"),
    }


def row(measure: str, players, unit: str, one: float, many: float | None = None,
        games_one: float | None = None, games_many: float | None = None,
        scaling: float | None = None) -> dict:
    """One row of the table; ``one`` is the figure with one numba thread (or the only one);
    ``scaling`` defaults to ``many / one``."""
    if scaling is None and many is not None and one:
        scaling = many / one
    return {"measure": measure, "players": players, "unit": unit, "one": one, "many": many,
            "scaling": scaling,
            "games_one": games_one, "games_many": games_many, "peer": None, "peer_short": None,
            "ratio": None}


def say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


# --- measurements ---------------------------------------------------------------------------
def thread_pairs(play, threads: int, repeat: int):
    """Time ``play(threads) -> (seconds, decisions, states)`` in ``repeat`` back-to-back pairs of
    runs, one numba thread then ``threads``, so both runs of a pair see the same machine (a
    shared host's speed drifts within minutes). Returns the median seconds on one thread and on
    ``threads``, the median of the pairs' scaling (one-thread seconds / all-thread seconds),
    the decisions of each, and the final states of each."""
    ones, alls, scalings = [], [], []
    for _ in range(repeat):
        t1, dec1, s1 = play(1)
        tn, decn, sn = play(threads)
        ones.append(t1)
        alls.append(tn)
        scalings.append(t1 / tn)
    return (statistics.median(ones), statistics.median(alls), statistics.median(scalings),
            dec1, decn, s1, sn)


def rollout_rows(args, threads: int, checks: dict) -> list[dict]:
    """The random-play kernel and the bot kernel with every compiled bot, per player count;
    one-thread and all-thread runs in back-to-back pairs (:func:`thread_pairs`)."""
    rows = []
    for n in args.players:
        config = GameConfig(num_players=n)
        template, pseeds = make_batch(config, 0, args.games)
        cap = max_game_length(config)
        say(f"  rollouts, {n} players: random_games")
        t1, tn, scaling, dec, dec_n, s1, sn = thread_pairs(
            lambda k: rollouts_bench.time_kernel(template, pseeds, k, 1, cap), threads,
            args.repeat)
        checks["same_games"] &= dec == dec_n and s1.tobytes() == sn.tobytes()
        checks["unfinished"] += int(np.sum(s1["phase"] != PH_GAME_OVER))
        rows.append(row("rollout kernel, random play", n, "decisions/s", dec / t1, dec_n / tn,
                        args.games / t1, args.games / tn, scaling))
        seeds = np.arange(args.games, dtype=np.int64)
        for bot in COMPILED_BOTS:
            say(f"  rollouts, {n} players: {bot} bots")
            kinds = bots_bench.lineups(bot, args.games, n)
            t1, tn, scaling, dec, dec_n, s1, sn = thread_pairs(
                lambda k: bots_bench.time_bots(template, kinds, seeds, k, 1, cap), threads,
                args.repeat)
            checks["same_games"] &= dec == dec_n and s1.tobytes() == sn.tobytes()
            checks["unfinished"] += int(np.sum(s1["phase"] != PH_GAME_OVER))
            rows.append(row(f"bot kernel, every seat {bot} (observes)", n, "decisions/s",
                            dec / t1, dec_n / tn, args.games / t1, args.games / tn, scaling))
    numba.set_num_threads(threads)
    return rows


def python_rows(args) -> list[dict]:
    rows = []
    for n in args.players:
        say(f"  Game.step loop, {n} players")
        t, dec = rollouts_bench.time_python_loop(GameConfig(num_players=n), args.py_games, 0,
                                                 args.repeat)
        rows.append(row("Game.step, Python loop", n, "decisions/s", dec / t,
                        games_one=args.py_games / t))
    return rows


def env_rows(args, threads: int) -> list[dict]:
    rows, secs, rep = [], args.seconds, args.repeat
    v0 = envs_bench.borders_v0
    for n in args.players:
        say(f"  environments, {n} players")
        raw = envs_bench.median(lambda: envs_bench.aec_rate(v0.raw_env(num_players=n), secs), rep)
        wrapped = envs_bench.median(lambda: envs_bench.aec_rate(v0.env(num_players=n), secs), rep)
        obs = envs_bench.median(lambda: envs_bench.observe_rate(n, secs), rep)
        v1, vn, _ = envs_bench.vector_rates(n, args.vector_envs, threads, secs, rep)
        w1, wn, _ = envs_bench.vector_rates(n, args.vector_envs, threads, secs, rep,
                                            all_views=True, credit=True)
        rows += [row("AEC env borders_v0, raw_env", n, "steps/s", raw),
                 row("AEC env borders_v0, env() wrapped", n, "steps/s", wrapped),
                 row("observe() from Python", n, "calls/s", obs),
                 row(f"VectorEnv ({args.vector_envs} games), observations and masks", n,
                     "steps/s", v1, vn),
                 row(f"VectorEnv ({args.vector_envs} games), every seat's view and credit", n,
                     "steps/s", w1, wn)]
    return rows


def peer_rows(args) -> tuple[list[dict], list[str]]:
    """Rows of the peers that are installed, and a note for each that is not."""
    rows, missing, secs, rep = [], [], args.seconds, args.repeat
    if importlib.util.find_spec("pyspiel") is None:
        missing.append("OpenSpiel (pip install open_spiel, or the bench extra)")
    else:
        for name in ("sheriff", "leduc_poker"):
            say(f"  OpenSpiel {name}")
            g, d = rollouts_bench.openspiel_python_loop(name, rep, secs)
            rows.append(row(f"OpenSpiel {name}, Python loop over pyspiel", 2, "decisions/s", d,
                            games_one=g))
            if name == "sheriff":  # MCTSBot cannot start at leduc_poker's chance node
                g, d = rollouts_bench.openspiel_cpp_rollouts(name, rep, secs)
                rows.append(row(f"OpenSpiel {name}, C++ RandomRolloutEvaluator", 2,
                                "decisions/s", d, games_one=g))
    say("  PettingZoo classic")
    peers = envs_bench.peers(secs, rep)
    if not peers:
        missing.append("PettingZoo classic (pip install 'pettingzoo[classic]', or the bench "
                       "extra)")
    for name, (raw, wrapped) in peers.items():
        rows.append(row(f"PettingZoo {name}, raw_env", 2, "steps/s", raw))
        rows.append(row(f"PettingZoo {name}, env() wrapped", 2, "steps/s", wrapped))
    return rows, missing


def game_step_rate(config: GameConfig, seconds: float) -> float:
    """Decisions/s of random games through ``Game.step`` (the Python loop of
    ``rollouts.time_python_loop``), playing whole games for about ``seconds``."""
    spent, decisions, seed = 0.0, 0, 0
    while spent < seconds:
        t, dec = rollouts_bench.time_python_loop(config, 1, seed, 1)
        spent, decisions, seed = spent + t, decisions + dec, seed + 1
    return decisions / spent


#: The figures of ours that are divided by a peer's: (our row's measure, the peer's measure,
#: the peer's short name for the table).
PEERS = (("rollout kernel, random play, deal included",
          "OpenSpiel sheriff, C++ RandomRolloutEvaluator", "sheriff C++ rollouts"),
         ("Game.step, Python loop", "OpenSpiel sheriff, Python loop over pyspiel",
          "sheriff Python"),
         ("AEC env borders_v0, raw_env", "PettingZoo texas_holdem_v4, raw_env", "texas raw"),
         ("AEC env borders_v0, env() wrapped", "PettingZoo texas_holdem_v4, env() wrapped",
          "texas wrapped"))


def paired_rows(args) -> list[dict]:
    """Every ratio of ours to a peer (:data:`PEERS`), per player count, from ``args.pairs``
    back-to-back pairs of runs (the peer's, then ours; one numba thread): the median of the
    pairs' ratios, with the lowest and highest (module docstring). Peers not installed are
    left out."""
    secs = args.seconds
    rates = {}  # peer measure -> rate(), our measure -> rate(n)
    if importlib.util.find_spec("pyspiel") is not None:
        rates[PEERS[0][1]] = lambda: rollouts_bench.openspiel_cpp_rollouts("sheriff", 1,
                                                                           secs)[1]
        rates[PEERS[1][1]] = lambda: rollouts_bench.openspiel_python_loop("sheriff", 1,
                                                                          secs)[1]
    try:
        from pettingzoo.classic import texas_holdem_v4
    except ImportError:  # the bench extra is not installed
        texas_holdem_v4 = None
    if texas_holdem_v4 is not None:
        rates[PEERS[2][1]] = lambda: envs_bench.aec_rate(texas_holdem_v4.raw_env(), secs)
        rates[PEERS[3][1]] = lambda: envs_bench.aec_rate(texas_holdem_v4.env(), secs)

    def rollout(n):
        t, dec = rollouts_bench.time_deal_and_play(GameConfig(num_players=n), 0, args.games, 1,
                                                   1)
        return dec / t

    v0 = envs_bench.borders_v0
    rates[PEERS[0][0]] = rollout
    rates[PEERS[1][0]] = lambda n: game_step_rate(GameConfig(num_players=n), secs)
    rates[PEERS[2][0]] = lambda n: envs_bench.aec_rate(v0.raw_env(num_players=n), secs)
    rates[PEERS[3][0]] = lambda n: envs_bench.aec_rate(v0.env(num_players=n), secs)
    rows = []
    for ours, peer, short in PEERS:
        if peer not in rates:
            continue
        say(f"  paired: {ours} / {peer}, {args.pairs} pair(s) per player count")
        for n in args.players:
            ratios, mine = [], []
            for _ in range(args.pairs):
                theirs = rates[peer]()
                mine.append(rates[ours](n))
                ratios.append(mine[-1] / theirs)
            rows.append({"ours": ours, "peer": peer, "short": short, "players": n,
                         "pairs": args.pairs, "ratio": statistics.median(ratios),
                         "low": min(ratios), "high": max(ratios),
                         "ours_rate": statistics.median(mine)})
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    return rows


def start_rows(args) -> tuple[list[dict], list[dict]]:
    """Cold and warm start rows, and the cold start's compile profile."""
    say("  start-up: " + ("a cold start (compiles every kernel: minutes), then a warm start"
                          if args.cold_start else "a warm start"))
    result = startup.measure_starts(cold=args.cold_start, warmup=True)
    rows = []
    for kind in ("cold", "warm"):
        if result[kind] is None:
            continue
        label = ("cold start (empty numba cache)" if kind == "cold"
                 else "warm start (numba cache filled)")
        for mark in startup.MARKS:
            rows.append(row(f"{label}: to {startup.MARK_NAMES[mark]}", "-", "s",
                            result[kind]["marks"][mark]))
    profile = {"functions": result["cold"]["compiles"], "stages": result["cold"]["compiled"]} \
        if result["cold"] else {"functions": [], "stages": {}}
    return rows, profile


def memory_rows() -> list[dict]:
    return [row("memory: one game state record", "any", "bytes", STATE_DTYPE.itemsize),
            row("memory: one observation (float32)", "any", "bytes", OBS_SIZE * 4)]


def find(rows: list[dict], measure: str, players) -> dict | None:
    return next((r for r in rows if r["measure"] == measure and r["players"] == players), None)


def add_ratios(rows: list[dict], paired: list[dict]) -> None:
    """``ours / peer`` of our rows: the median ratio of :func:`paired_rows`."""
    for p in paired:
        r = find(rows, p["ours"], p["players"])
        if r is not None:
            r["peer"], r["peer_short"], r["ratio"] = p["peer"], p["short"], p["ratio"]


def headline(rows: list[dict], paired: list[dict]) -> list[dict]:
    """The few figures a user compares, at ``HEADLINE_PLAYERS`` players: ours against the peer
    (paired ratios, ``paired`` of :func:`paired_rows`) and the start-up times."""
    n = HEADLINE_PLAYERS

    def pair(ours):
        p = next((p for p in paired if p["ours"] == ours and p["players"] == n), None)
        return p and (f"{p['ratio']:.2f}x ({p['low']:.2f}-{p['high']:.2f}x)")

    def one(measure, players=n):
        r = find(rows, measure, players)
        return None if r is None else r["one"]

    vec = find(rows, next((r["measure"] for r in rows if r["measure"].startswith("VectorEnv")),
                          ""), n)
    def per_game(measure, players=n):
        r = find(rows, measure, players)
        d = r and r["games_one"] and r["one"] / r["games_one"]
        return "-" if not d else f"{d:,.0f}/game" if d >= 10 else f"{d:.1f}/game"

    sheriff_game = "sheriff 2p, " + per_game("OpenSpiel sheriff, C++ RandomRolloutEvaluator", 2)
    out = [
        ("random games, 1 thread", "decisions/s", per_game("rollout kernel, random play"),
         sheriff_game, pair("rollout kernel, random play, deal included")),
        ("a Python loop", "decisions/s", per_game("Game.step, Python loop"),
         "sheriff 2p, " + per_game("OpenSpiel sheriff, Python loop over pyspiel", 2),
         pair("Game.step, Python loop")),
        ("AEC env, raw_env", "AEC steps/s", "-", "texas hold'em 2p",
         pair("AEC env borders_v0, raw_env")),
        ("AEC env, env() wrapped", "AEC steps/s", "-", "texas hold'em 2p",
         pair("AEC env borders_v0, env() wrapped")),
        ("VectorEnv, all threads", "steps/s", "-", "-", vec and si(vec["many"])),
    ]
    for what, key in (("first step, empty cache",
                       "cold start (empty numba cache): to first Game step"),
                      ("first batch, empty cache",
                       "cold start (empty numba cache): to first random_games batch"),
                      ("first step, cache filled",
                       "warm start (numba cache filled): to first Game step")):
        got = one(key, "-")
        out.append((what, "s", "-", "-", got and f"{got:.1f}"))
    return [{"measure": m, "unit": unit, "our_game": ours_game, "peer_game": peer_game,
             "ours": got} for m, unit, ours_game, peer_game, got in out if got]


def measure(args: argparse.Namespace) -> dict:
    """Every figure of the report (:func:`report`), or with ``--from-json`` those of a saved
    run (its headline as this version shows it)."""
    if args.from_json:
        data = json.loads(args.from_json.read_text())
        data["headline"] = headline(data["rows"], data["paired"])
        return data
    threads = numba.config.NUMBA_NUM_THREADS
    head = header()
    say(f"borders_sim run_all: {head['date']}, {head['cpu']}, {threads} numba threads")
    say("preparing every kernel (borders_sim.cli.warmup) ...")
    t0 = time.perf_counter()
    steps = warm_up()
    head["warmup_in_process"] = {"seconds": time.perf_counter() - t0,
                                 "compilations": sum(s.compiled for s in steps)}
    for n in args.players:  # the benchmarks' own helpers compile or load their kernels here
        envs_bench.aec_rate(envs_bench.borders_v0.raw_env(num_players=n), 0.02)
        envs_bench.vector_rate(n, 8, 1, 0.02)
    checks = {"same_games": True, "unfinished": 0}
    rows = rollout_rows(args, threads, checks)
    rows += python_rows(args)
    rows += env_rows(args, threads)
    peer, missing = peer_rows(args)
    rows += peer
    paired = paired_rows(args)
    add_ratios(rows, paired)
    start, profile = start_rows(args)
    rows += start + memory_rows()
    head["load_average_end"] = load_or_none()
    settings = {k: getattr(args, k) for k in ("quick", "players", "games", "py_games", "repeat",
                                                 "seconds", "vector_envs", "cold_start",
                                                 "pairs")}
    return {"header": head, "settings": settings, "rows": rows, "paired": paired,
            "headline": headline(rows, paired),
            "compile_profile": profile, "missing_peers": missing,
            "threading_layer": numba.threading_layer(), "checks": checks}


# --- reports --------------------------------------------------------------------------------
def fmt(x, unit: str = "") -> str:
    if x is None:
        return "-"
    if unit == "s":
        return f"{x:.1f}"
    if unit == "bytes":
        return f"{x:,.0f}"
    return si(x)


def header_line(data: dict) -> str:
    h = data["header"]
    peers = ", ".join(f"{k} {h[k]}" for k in ("open_spiel", "pettingzoo", "rlcard") if h[k])
    load = f", load average {h['load_average']:.1f} at start" if h["load_average"] else ""
    return (f"{h['date']}; {h['system']}, {h['cpu']}, {h['cores']} cores "
            f"({h['usable_cores']} usable){load}; Python {h['python']}, numba {h['numba']} "
            f"({h['threads']} threads), numpy {h['numpy']}; borders_sim {h['borders_sim']}"
            f"{', ' + h['commit'] if h['commit'] else ''}; peers: {peers or 'none installed'}")


def main_table(data: dict) -> str:
    threads = data["header"]["threads"]
    rows = []
    for r in data["rows"]:
        unit = r["unit"]
        ratio = "-"
        if r["ratio"] is not None:
            ratio = f"{r['ratio']:.2f}x {r['peer_short']}"
        rows.append([r["measure"], str(r["players"]), unit, fmt(r["one"], unit),
                     fmt(r["many"], unit),
                     "-" if r["scaling"] is None else f"{r['scaling']:.2f}x",
                     "-" if r["games_one"] is None else f"{r['games_one']:,.0f}",
                     "-" if r["games_many"] is None else f"{r['games_many']:,.0f}", ratio])
    headers = ["measure", "players", "unit", "1 thread", f"{threads} threads", "scaling",
               "games/s, 1 thread", f"games/s, {threads} threads", "ours / peer (paired)"]
    return markdown_table(headers, rows, names_left=True)


def paired_table(data: dict) -> str:
    rows = [[f"{p['ours']} / {p['peer']}", str(p["players"]), str(p["pairs"]),
             f"{p['ratio']:.2f}x", f"{p['low']:.2f}x", f"{p['high']:.2f}x"]
            for p in data.get("paired", [])]
    if not rows:
        return ""
    return markdown_table(["ours / peer, measured alternately (1 thread)", "players", "pairs",
                  "median ratio", "lowest", "highest"], rows, names_left=True)


def headline_table(data: dict) -> str:
    """The headline: per measure its unit, our game's decisions per game (BORDERS at
    :data:`HEADLINE_PLAYERS` players), the peer's game, and ours divided by the peer's; what
    each side runs is :func:`sides_note`'s."""
    rows = [[h["measure"], h["unit"], h["our_game"], h["peer_game"], h["ours"]]
            for h in data["headline"]]
    return markdown_table([f"{HEADLINE_PLAYERS} players", "unit", f"BORDERS {HEADLINE_PLAYERS}p",
                  "peer's game", "ours (÷ peer)"], rows, names_left=True)


def sides_note(data: dict) -> str:
    """What each side of the headline's ratios does: what is timed and what is not, so that a
    reader can check a ratio without reading the scripts."""
    s = data["settings"]
    return "\n".join([
        "What each side does (every ratio compares two different games, so none is a "
        "comparison of two engines doing the same work; it is throughput of random play in the "
        "unit shown):",
        f"- *random games*: ours, `make_batch` then `play_batch` for {s['games']} games on one "
        "numba thread, both inside the clock: the deal (one compiled call) and uniformly random "
        "legal play to each game's end, in one call; OpenSpiel's, `pyspiel.MCTSBot(game, "
        "pyspiel.RandomRolloutEvaluator(1000, seed), 2.0, 1, ...)` stepped on the initial state, "
        "which plays 1,000 whole games of uniformly random legal play in C++ per Python call, "
        "chance sampled in C++. Not timed on either side: compilation (done before), the "
        "decisions per game (counted apart). A decision is a player's choice (forced moves the "
        "engine applies itself are not counted).",
        "- *a Python loop*: random games, both sides `while not terminal: "
        "step(random.choice(legal_actions()))` through the library's Python API, one game "
        "after another, a new game (`Game(config, seed)`, `new_initial_state()`) inside the "
        "clock.",
        "- *AEC env*: PettingZoo's classic `texas_holdem_v4` as the peer, the same loop on both sides (`agent_iter`, `last()`, a random "
        "legal action from the mask, `step`), every agent's steps counted, the end-of-game steps "
        "of each agent included.",
        "- *VectorEnv* (no peer): every game's step, observation and mask in one compiled call per step, "
        "all numba threads; *every seat's view and credit*: the same with `all_views=True` (an "
        "observation of every seat of every game, for a centralized critic) and `credit=True` "
        "(each seat's last decision tracked, to credit its reward there).",
    ])


def profile_table(data: dict, top: int) -> str:
    """The cold start's compile time per stage, per module and (``top`` rows) per function."""
    prof = data["compile_profile"]["functions"]
    if not prof or not top:
        return ""
    total = sum(c["self"] for c in prof)
    stages = "; ".join(f"to {startup.MARK_NAMES[m]} {n} compilations, {sec:.0f} s"
                       for m, (n, sec) in data["compile_profile"]["stages"].items() if n)
    modules: dict[str, list] = {}
    for c in prof:
        entry = modules.setdefault(c["function"].split(".<locals>")[0].rsplit(".", 1)[0],
                                   [0, 0.0])
        entry[0] += c["count"]
        entry[1] += c["self"]
    by_module = sorted(modules.items(), key=lambda kv: -kv[1][1])
    shown = [[m, str(n), f"{sec:.1f}"] for m, (n, sec) in by_module[:top]]
    rows = [[c["function"], str(c["count"]), f"{c['self']:.1f}", f"{c['inclusive']:.1f}"]
            for c in prof[:top]]
    return (f"Compilation in the cold start (numba's compile events): {len(prof)} functions, "
            f"{sum(c['count'] for c in prof)} compilations, {total:.0f} s in all (numba compiles "
            f"each function on its first call with new argument types: {stages}). Per module "
            f"and per function (own seconds exclude the nested compilations of the functions "
            f"it calls):\n\n"
            + markdown_table(["module", "compilations", "own s"], shown, names_left=True)
            + "\n\n"
            + markdown_table(["function", "compilations", "own s", "with nested s"], rows,
                             names_left=True))


def notes(data: dict) -> list[str]:
    h, c = data["header"], data["checks"]
    load = h.get("load_average_end")
    out = [f"load average (1 min) {h['load_average']:.1f} at the start and "
           f"{load:.1f} at the end on {h['cores']} cores: other work on the machine lowers "
           "the figures, and threads wait on each other when the cores are not idle"
           if load is not None and h["load_average"] is not None else "",
           f"numba threading layer: {data['threading_layer']}; same games with 1 and "
           f"{h['threads']} threads: {'yes' if c['same_games'] else 'NO'}",
           f"kernels prepared in-process before the clocks started: "
           f"{h['warmup_in_process']['seconds']:.1f} s, "
           f"{h['warmup_in_process']['compilations']} compilation(s); numba cache: "
           f"{h['numba_cache']}"]
    out += [f"peer not installed: {m}" for m in data["missing_peers"]]
    if c["unfinished"]:
        out.append(f"ERROR: {c['unfinished']} games hit max_game_length without ending")
    return [line for line in out if line]


def report(data: dict, top: int) -> str:
    s = data["settings"]
    parts = [
        "# borders_sim speed, one run",
        header_line(data),
        f"Settings: players {','.join(map(str, s['players']))}, {s['games']} games per "
        f"kernel figure, {s['py_games']} per Python-loop figure, {s['seconds']:g} s per env "
        f"and peer run, median of {s['repeat']}; VectorEnv with {s['vector_envs']} games; "
        f"{s.get('pairs', '-')} pairs per paired ratio"
        f"{'; --quick' if s['quick'] else ''}.",
        main_table(data),
        paired_table(data),
        headline_table(data),
        sides_note(data),
        profile_table(data, top),
        "\n".join(f"- {n}" for n in notes(data)),
    ]
    return "\n\n".join(p for p in parts if p) + "\n"


def readme_section(data: dict) -> str:
    """The Performance section of ``docs/speed.md``: the headline table; the full report goes to
    :data:`FULL_REPORT`."""
    return "\n\n".join([
        f"From one run of `python benchmarks/run_all.py --write-docs`: {header_line(data)}. "
        "A ratio to a peer is the median of pairs of runs, the peer's and ours back to back "
        "(this shared machine's speed drifts by up to 2x within minutes); the pairs' range is "
        "in parentheses. The empty-cache rows are a fresh install's first use. Every figure of "
        "that run, 3 to 8 players, one thread and all of them, with the compile time per "
        "function, is in "
        f"[`docs/performance.md`](performance.md).",
        headline_table(data), target_line(data), sides_note(data)])


def target_line(data: dict) -> str:
    """The project's speed target beside this run's figure and the reference to beat, OpenSpiel's
    sheriff in its C++ loop, in the same unit."""
    ours = next((p.get("ours_rate") for p in data["paired"]
                 if p["ours"] == PEERS[0][0] and p["players"] == HEADLINE_PLAYERS), None)
    peer = find(data["rows"], PEERS[0][1], 2)
    if ours is None:
        return ""
    text = (f"**Target**: at least {si(TARGET)} decisions/s of random {HEADLINE_PLAYERS}-player "
            f"games on one core, the deal included (this project's goal). This run: {si(ours)} "
            f"decisions/s (the median of the pairs above), {ours / TARGET:.0%} of it")
    if peer is not None:
        text += (f"; the reference to beat, OpenSpiel's sheriff in its C++ loop (a 2-player "
                 f"game, as below): {si(peer['one'])} decisions/s")
    return text + "."


def render(data: dict, args: argparse.Namespace) -> dict:
    """The report (printed, and the whole of :data:`FULL_REPORT`) and the performance
    section of docs/speed.md."""
    text = report(data, args.profile_compile)
    return {None: text, "performance": readme_section(data), FULL_REPORT: text}


def main(argv=None) -> int:
    data = run(parser(), measure, render, argv, check=settle)
    c = data["checks"]
    return 0 if c["same_games"] and not c["unfinished"] else 1


if __name__ == "__main__":
    sys.exit(main())
