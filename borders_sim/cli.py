"""The ``borders-sim`` command line.

Usage::

    borders-sim tournament [--players N] [--bots a,b,c,...] [--games G] [--seed S]
                           [--json FILE] [--csv FILE] [--plot FILE.png] [--record DIR]
                           [--backend local|ray] [--ray-address ADDR] [--threads T]
    borders-sim play --seat P [--bots a,b,...] [--players N] [--seed S]
    borders-sim replay FILE [--verbose]
    borders-sim simulate --players N [--games G] [--seed S] [--no-action-cards] [--threads T]
    borders-sim simulate --players all --games 2000
    borders-sim bench [--quick ...]      # runs benchmarks/rollouts.py of a source checkout
    borders-sim warmup                   # compile every kernel ahead (Docker images, clusters)
    borders-sim actions                  # the table of action-id ranges
    borders-sim --version

``tournament`` (the main job) plays seat-rotated games between bots
(:func:`borders_sim.tournament.run_tournament`; with no arguments: 4 players, the compiled bots,
4200 games) with a progress bar on stderr, then prints one row per bot: win rate with its 95%
interval, score mean and spread, openskill rating and behaviour metrics; ``--json``, ``--csv``,
``--plot`` and ``--record`` write the results, a figure and one trace per game. ``play`` is a
game in the terminal against bots (:mod:`borders_sim.human`); ``replay`` replays a trace
(:mod:`borders_sim.records`). Bad input (an unknown bot, a lineup that does not match the player
count, a path that cannot be written, an unreachable Ray address, a corrupt trace) is one line
``borders-sim COMMAND: error: ...`` and a non-zero exit (2 for arguments, 1 otherwise); Ctrl-C
during a tournament prints the results of the games finished so far and exits with 130.

``simulate`` plays ``G`` games (default 1000) per player count with uniformly random legal
actions, with the compiled whole-game kernels of :func:`borders_sim.rules.rollout.random_games`
(batches of games, each cut into chunks played on all numba threads), with a progress bar on
stderr. It then
prints one row per player count (``--players all`` runs 3..8):

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
the batch size. The kernels take seeds as signed 64-bit ints, so ``0 <= S`` and
``S + G - 1 <= 2**63 - 1``. ``--players`` takes ``N``, a list ``N,M,...`` or ``all``, parsed by
:func:`player_counts` (shared with the benchmark). Invalid or out-of-range arguments
(``--players 9``, ``--games 0``, ``--seed 9223372036854775807`` with 1000 games, more threads
than numba has) print a one-line argparse error and exit with status 2.

``warmup`` compiles every kernel of the package ahead of time (:mod:`borders_sim.warmup`), with
one progress line per part on stderr, and says where numba caches them; run it in a Docker
image build or on cluster nodes before the workers start.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numba
from tqdm import tqdm

from . import __version__
from ._compile_notice import quiet
from .agents import REGISTRY
from .rules import state as st
from .rules.actions import ranges_table
from .rules.config import GameConfig
from .rules.limits import max_game_length
from .rules.rollout import final_scores, make_batch, play_batch, random_chunk
from .tournament import default_lineup, parse_lineup

PLAYER_COUNTS = tuple(range(st.MIN_PLAYERS, st.MAX_PLAYERS + 1))
DEFAULT_MAX_STEPS = 10**9  # far above max_game_length of any config
INT64_MAX = 2**63 - 1  # seeds and step caps are int64 in the kernels
MAX_GAMES = 10**9  # per player count: days of computing at the kernel's speed
MAX_BATCH = 2**14  # games per kernel call: 16384 states of 9.5 kB (STATE_DTYPE), 155 MB
DEFAULT_PLAYERS = 4
DEFAULT_TOURNAMENT_GAMES = 4200  # a multiple of 3..8 (balanced seats); well under a minute
MAX_TOURNAMENT_GAMES = 10**8  # per-game results are kept: ~100 bytes a game with 8 players


# --- warm-up -------------------------------------------------------------------------------
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


# --- simulate ------------------------------------------------------------------------------
def simulate(num_players: int, games: int, seed: int = 0, action_cards: bool = True,
             batch_size: int = 256, max_steps: int | None = None,
             progress: bool = True) -> dict:
    """Play ``games`` random games with ``num_players``; returns the summary row as a dict.

    ``max_steps`` caps the decisions of a game (default: the config's proven bound
    :func:`~borders_sim.rules.limits.max_game_length`, so an unfinished game is a bug). The
    statistics are summed batch by batch, so memory does not grow with ``games``."""
    config = GameConfig(num_players=num_players, action_cards=action_cards)
    if max_steps is None:
        max_steps = max_game_length(config)
    n = num_players
    total = {"steps": 0, "rounds": 0, "best": 0, "spread": 0, "winners": 0,
             "end_main": 0, "end_fallback": 0, "unfinished": 0}
    lows = {"steps": INT64_MAX, "rounds": INT64_MAX}
    highs = {"steps": 0, "rounds": 0}
    t0 = time.perf_counter()
    with tqdm(total=games, unit="game", desc=f"{n} players", disable=not progress,
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


def si(x: float) -> str:
    """1234567 -> '1.23M'."""
    for div, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return f"{x / div:.3g}{unit}"
    return f"{x:.3g}"


def markdown_table(headers: list[str], rows: list[list[str]]) -> str:
    """A markdown table with padded columns (numbers right-aligned)."""
    widths = [max(len(h), *(len(r[j]) for r in rows)) for j, h in enumerate(headers)]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.rjust(w) for c, w in zip(cells, widths)) + " |"

    rule = "|" + "|".join("-" * (w + 1) + ":" for w in widths) + "|"
    return "\n".join([line(headers), rule] + [line(r) for r in rows])


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


# --- tournament ----------------------------------------------------------------------------
def percent(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def tournament_table(results) -> str:
    """One row per bot, best win rate first: wins, win rate with its 95% interval, score
    mean (sd), rating mu (sigma), and behaviour metrics (:data:`borders_sim.stats.BEHAVIOUR`)."""
    headers = ["bot", "seats", "games", "wins", "win rate [95% CI]", "score mean (sd)",
               "rating mu (sigma)", "lies when opened", "caught", "bribes", "opens", "bribed",
               "fines/game", "promises kept"]
    rows = []
    for b in sorted(results.bots, key=lambda b: -(b["win_rate"] or 0.0)):
        lo, hi = b["win_rate_ci95"]
        m = b["behaviour"]
        played = b["games"] > 0
        rows.append([
            b["name"], str(b["seats"]), str(b["games"]), f"{b['wins']:g}",
            f"{percent(b['win_rate'])} [{percent(lo)}, {percent(hi)}]" if played else "-",
            f"{b['mean_score']:.1f} ({b['sd_score']:.1f})" if played else "-",
            f"{b['rating_mu']:.2f} ({b['rating_sigma']:.2f})",
            percent(m["lies_when_opened"]), percent(m["caught_rate"]), percent(m["bribe_rate"]),
            percent(m["open_rate"]), percent(m["bribed_rate"]),
            "-" if m["fines_paid_per_game"] is None else f"{m['fines_paid_per_game']:.2f}",
            percent(m["promises_kept_rate"])])
    return markdown_table(headers, rows)


TABLE_NOTES = """\
win rate: wins per seat-game, a shared win counting 1/k for each of the k winners; 95% CI:
Wilson on the per-game share. rating: openskill Plackett-Luce over finishing orders. Behaviour
from the public history: lies when opened = opened crates that held a lie; caught = crates
caught in a lie; bribes = crates let through on a deal; opens / bribed = crates handled as
inspector that it opened / took a deal on; promises kept = promised passes given."""


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


def lineup_arg(text: str) -> tuple[str, ...]:
    """An argparse type: comma-separated bot names of :data:`borders_sim.agents.REGISTRY`."""
    try:
        return parse_lineup(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def fail(parser: argparse.ArgumentParser, message: str, code: int = 1) -> int:
    """Print ``PROG: error: message`` on stderr (one line) and return ``code``."""
    print(f"{parser.prog}: error: {message}", file=sys.stderr)
    return code


def run_tournament_command(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from .tournament import run_tournament, tournament

    backend = args.backend or ("ray" if args.ray_address else "local")
    if args.ray_address and backend != "ray":
        parser.error("--ray-address needs --backend ray")
    if args.threads is not None and backend == "local" and \
            args.threads > numba.config.NUMBA_NUM_THREADS:
        parser.error(f"argument --threads: at most {numba.config.NUMBA_NUM_THREADS} here (set "
                     "NUMBA_NUM_THREADS before starting to allow more)")
    lineup = args.bots if args.bots is not None else default_lineup(args.players)
    config = GameConfig(num_players=args.players, action_cards=not args.no_action_cards)
    try:
        t = tournament(args.players, lineup, args.games, args.seed, config)
    except ValueError as err:
        parser.error(str(err))
    if args.plot is not None:
        from .plot import FORMATS, require_matplotlib
        if args.plot.suffix.lower() not in FORMATS:
            parser.error(f"argument --plot: {str(args.plot)!r} must end in "
                         f"{', '.join(FORMATS)}")
        try:
            require_matplotlib()
        except RuntimeError as err:
            return fail(parser, str(err))
    if backend == "ray":
        from .ray_backend import import_ray
        try:
            import_ray()
        except RuntimeError as err:
            return fail(parser, str(err))
    if args.record is not None:
        from .records import prepare_dir
        try:
            prepare_dir(args.record)
        except ValueError as err:
            parser.error(f"argument --record: {err}")
    err = sys.stderr
    where = f"Ray cluster at {args.ray_address}" if args.ray_address else (
        "a local Ray cluster" if backend == "ray" else "this machine")
    print(f"borders-sim {__version__} tournament: {t.games} games, {t.players} players "
          f"({', '.join(t.lineup)}), seats rotating, seed {t.seed}, on {where}", file=err)
    if t.games % t.players:
        print(f"note: {t.games} games is not a multiple of {t.players}: the last rotation "
              "block is incomplete, so the seats are not exactly balanced", file=err)
    t0 = time.perf_counter()
    with tqdm(total=t.games, unit="game", desc="tournament", disable=args.no_progress,
              file=err, leave=False) as bar:
        try:
            results = run_tournament(
                t.players, t.lineup, t.games, t.seed, config=config, backend=backend,
                threads=args.threads, ray_address=args.ray_address, record_dir=args.record,
                progress=bar.update)
        except KeyboardInterrupt:
            print("interrupted before any game finished", file=err)
            return 130
        except (RuntimeError, ValueError, OSError) as error:
            return fail(parser, str(error))
    seconds = time.perf_counter() - t0
    if results.interrupted:
        print(f"interrupted: results of the first {results.games_played} of {t.games} games",
              file=err)
    if results.games_played == 0:
        return 130
    print(tournament_table(results))
    print()
    print(TABLE_NOTES)
    print(f"\n{results.games_played} games ({results.path} path, {backend} backend) in "
          f"{seconds:.1f} s, compilation or cache load included; "
          f"{results.config_dict()['decisions_per_game']:.0f} decisions per game")
    try:
        if args.json is not None:
            results.write_json(args.json)
            print(f"results written to {args.json}", file=err)
        if args.csv is not None:
            results.write_csv(args.csv)
            print(f"results written to {args.csv}", file=err)
        if args.plot is not None:
            from .plot import plot_results
            plot_results(results, args.plot)
            print(f"figure written to {args.plot}", file=err)
    except OSError as error:
        return fail(parser, f"cannot write: {error}")
    if args.record is not None:
        print(f"{results.records_written} game traces written to {args.record} (replay one "
              "with 'borders-sim replay FILE')", file=err)
    return 130 if results.interrupted else 0


# --- play and replay -----------------------------------------------------------------------
def run_play_command(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from .human import GameAbandoned, play_human

    if args.bots is not None:
        bots = args.bots
        players = args.players if args.players is not None else len(bots) + 1
        if len(bots) != players - 1:
            parser.error(f"--bots lists {len(bots)} bot(s), but {players} players need "
                         f"{players - 1} besides you")
    else:
        players = args.players if args.players is not None else DEFAULT_PLAYERS
        bots = default_lineup(players - 1)
    if players not in PLAYER_COUNTS:
        parser.error(f"{len(bots)} bots and you make {players} players; games have "
                     f"{PLAYER_COUNTS[0]} to {PLAYER_COUNTS[-1]}")
    if not 0 <= args.seat < players:
        parser.error(f"argument --seat: must be from 0 to {players - 1} with {players} players, "
                     f"got {args.seat}")
    config = GameConfig(num_players=players, action_cards=not args.no_action_cards)
    try:
        play_human(args.seat, bots, args.seed, config)
    except GameAbandoned as why:
        print(f"game abandoned: {why}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ngame abandoned", file=sys.stderr)
        return 130
    return 0


def run_replay_command(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    from .records import TraceError, read_trace, replay

    try:
        replay(read_trace(args.file), verbose=args.verbose)
    except TraceError as err:
        return fail(parser, str(err))
    return 0


# --- arguments -----------------------------------------------------------------------------
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


def int_in(lo: int, hi: int, hint: str = "") -> Callable[[str], int]:
    """An argparse type: an integer from ``lo`` to ``hi``, else a one-line error (plus
    ``hint``)."""
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            v = None
        if v is None or not lo <= v <= hi:
            raise argparse.ArgumentTypeError(
                f"must be an integer from {lo:,} to {hi:,}{hint}, got {text!r}")
        return v
    return parse


def build_parser() -> argparse.ArgumentParser:
    max_threads = numba.config.NUMBA_NUM_THREADS
    parser = argparse.ArgumentParser(
        prog="borders-sim",
        description="Simulator of the card game BORDERS (3-8 players) for RL research.")
    parser.add_argument("--version", action="version", version=f"borders-sim {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    known = ", ".join(REGISTRY)
    tour = sub.add_parser(
        "tournament", help="bots against bots, seats rotating: win rates, ratings, behaviour",
        description="Play seat-rotated games between bots (game g dealt from seed S+g) and "
                    "print one row per bot: win rate with a 95% confidence interval, score "
                    "mean and spread, openskill Plackett-Luce rating, behaviour metrics. With "
                    "no arguments: 4 players, the compiled bots, 4200 games.")
    tour.add_argument("--players", type=int_in(st.MIN_PLAYERS, st.MAX_PLAYERS),
                      default=DEFAULT_PLAYERS, metavar="N",
                      help=f"number of players, 3..8 (default: {DEFAULT_PLAYERS})")
    tour.add_argument("--bots", type=lineup_arg, default=None, metavar="a,b,...",
                      help=f"one bot name per seat, repeats allowed; bots: {known} (default: "
                           "the compiled bots, repeated to fill the seats)")
    tour.add_argument("--games", type=int_in(1, MAX_TOURNAMENT_GAMES),
                      default=DEFAULT_TOURNAMENT_GAMES, metavar="G",
                      help=f"games, 1 to {MAX_TOURNAMENT_GAMES:,} (default: "
                           f"{DEFAULT_TOURNAMENT_GAMES}); a multiple of the player count "
                           "balances the seats exactly")
    tour.add_argument("--seed", type=int_in(0, INT64_MAX), default=0, metavar="S",
                      help="game g is dealt from seed S+g (default: 0)")
    tour.add_argument("--json", type=writable_file, metavar="FILE",
                      help="write the results as JSON ({\"config\": ..., \"bots\": [...]})")
    tour.add_argument("--csv", type=writable_file, metavar="FILE",
                      help="write one row per bot as CSV")
    tour.add_argument("--plot", type=writable_file, metavar="FILE.png",
                      help="draw score distributions and ratings (.png, .pdf or .svg; needs "
                           "matplotlib: pip install 'borders-sim[plot]')")
    tour.add_argument("--record", metavar="DIR",
                      help="write every game as a JSON-lines trace into DIR (created if "
                           "missing); plays through the Python loop")
    tour.add_argument("--backend", choices=("local", "ray"), default=None,
                      help="local: this machine's cores (default); ray: a Ray cluster (pip "
                           "install 'borders-sim[distributed]')")
    tour.add_argument("--ray-address", metavar="ADDR", default=None,
                      help="address of a running Ray cluster (host:port of 'ray start --head', "
                           "or auto); implies --backend ray (default: start a local cluster)")
    tour.add_argument("--threads", type=int_in(1, 4096), default=None, metavar="T",
                      help="numba threads (compiled bots) or worker processes (Python bots), "
                           "or the CPUs of a local Ray cluster (default: all cores)")
    tour.add_argument("--no-action-cards", action="store_true",
                      help="play without the 22 action cards")
    tour.add_argument("--no-progress", action="store_true", help="no progress bar")
    tour.set_defaults(subparser=tour)
    play = sub.add_parser(
        "play", help="play a game in the terminal against bots",
        description="Play one game in the terminal: you see your view of the table and your "
                    "legal actions with their ids, and answer with an id or an action string; "
                    "the bots' moves are printed as they happen.")
    play.add_argument("--seat", type=int_in(0, st.MAX_PLAYERS - 1), default=0, metavar="P",
                      help="your seat, from 0 (default: 0)")
    play.add_argument("--bots", type=lineup_arg, default=None, metavar="a,b,...",
                      help=f"the other seats' bots in seat order; bots: {known} (default: the "
                           "compiled bots)")
    play.add_argument("--players", type=int_in(st.MIN_PLAYERS, st.MAX_PLAYERS), default=None,
                      metavar="N", help="number of players (default: one more than --bots, "
                                        f"else {DEFAULT_PLAYERS})")
    play.add_argument("--seed", type=int_in(0, INT64_MAX), default=0, metavar="S",
                      help="the deal's seed (default: 0)")
    play.add_argument("--no-action-cards", action="store_true",
                      help="play without the 22 action cards")
    play.set_defaults(subparser=play)
    rep = sub.add_parser(
        "replay", help="replay a game trace written by 'tournament --record'",
        description="Replay a JSON-lines game trace round by round, checking every action; "
                    "exits with status 1 if an action is illegal at its point or the replay "
                    "does not reach the recorded final scores.")
    rep.add_argument("file", metavar="FILE", help="a trace file (game-NNNNNN.jsonl)")
    rep.add_argument("--verbose", action="store_true", help="print every decision too")
    rep.set_defaults(subparser=rep)
    sim = sub.add_parser(
        "simulate", help="play seeded random games and print a summary table",
        description="Play seeded games with uniformly random legal actions in the compiled "
                    "rollout kernel and print a summary per player count.")
    sim.add_argument("--players", required=True, type=player_counts, metavar="N",
                     help="number of players, 3..8, a list such as 3,4 (one row each), or "
                          "'all' for 3..8")
    sim.add_argument("--games", type=int_in(1, MAX_GAMES), default=1000, metavar="G",
                     help=f"games per player count, 1 to {MAX_GAMES:,} (default: 1000)")
    sim.add_argument("--seed", type=int_in(0, INT64_MAX), default=0, metavar="S",
                     help="game i is dealt from seed S+i; seeds are signed 64-bit ints, so "
                          "0 <= S and S+G-1 <= 2**63-1 (default: 0)")
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
    sim.set_defaults(subparser=sim)
    sub.add_parser("actions", help="print the table of action-id ranges (P-0.1)")
    sub.add_parser(
        "warmup", help="compile every kernel ahead of time (Docker images, clusters)",
        description="Compile (or load from numba's cache) every kernel of borders_sim: the "
                    "Game, whole-game rollouts with every compiled bot, the observation, "
                    "VectorEnv, the AEC env, the belief sampler and the ISMCTS rollouts; one "
                    "progress line per part on stderr. Run it as the user that will use the "
                    "cache (numba only uses a cache directory it can write).")
    bench = sub.add_parser(
        "bench", add_help=False, usage="borders-sim bench [BENCHMARK OPTIONS ...]",
        help="run benchmarks/rollouts.py of a source checkout (arguments are passed on)",
        description="Run the rollout benchmark, the script benchmarks/rollouts.py of a source "
                    "checkout of borders_sim (looked for in the current directory, then beside "
                    "the imported package); every argument is passed on to it. The script is "
                    "not part of the installed package. In a checkout, 'borders-sim bench "
                    "--help' lists its options (--quick, --players, --games, --repeat, ...).")
    bench.set_defaults(subparser=bench)
    return parser


def _bench_script() -> Path | None:
    for root in (Path.cwd(), Path(__file__).resolve().parents[1]):
        path = root / "benchmarks" / "rollouts.py"
        if path.is_file():
            return path
    return None


def _run_bench(parser: argparse.ArgumentParser, extra: list[str]) -> int:
    path = _bench_script()
    if path is None:
        if "-h" in extra or "--help" in extra:
            parser.print_help()
            return 0
        parser.exit(2, "borders-sim bench: the benchmarks live in a source checkout "
                       "(benchmarks/rollouts.py), not in the installed package; run this "
                       "command from a checkout of the repository\n")
    saved, sys.argv = sys.argv, [str(path)] + extra
    try:
        runpy.run_path(str(path), run_name="__main__")
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    finally:
        sys.argv = saved
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if args.command == "bench":
        return _run_bench(args.subparser, extra)
    if args.command == "actions":
        print(ranges_table())
        return 0
    if args.command == "warmup":
        from . import warmup  # imports every part of the package: only for this command
        warmup.warm_up(lambda line: print(f"borders-sim warmup: {line}", file=sys.stderr,
                                          flush=True))
        return 0
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    parser = args.subparser
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    if args.command == "tournament":
        return run_tournament_command(parser, args)
    if args.command == "play":
        return run_play_command(parser, args)
    if args.command == "replay":
        return run_replay_command(parser, args)

    if args.seed + args.games - 1 > INT64_MAX:
        parser.error(f"--seed {args.seed} with --games {args.games}: the last game's seed "
                     f"S+G-1 must be at most 2**63-1 = {INT64_MAX}")
    if args.threads is not None:
        numba.set_num_threads(args.threads)
    threads = numba.get_num_threads()
    action_cards = not args.no_action_cards
    err = sys.stderr
    print(f"borders-sim {__version__} simulate: {args.games} random games per player count, "
          f"seed {args.seed}, action cards {'on' if action_cards else 'off'}, "
          f"{threads} thread(s)", file=err)
    print("preparing the kernels (the first run compiles them, about 1-1.5 minutes on 2 cores; "
          "later runs load numba's cache in about a second) ...", file=err, flush=True)
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


if __name__ == "__main__":
    sys.exit(main())
