"""``borders-sim tournament``, the main job: seat-rotated games between bots, one row per bot.

It plays the games of :func:`borders_sim.arena.run_tournament` (with no arguments: 4 players,
the compiled bots, 4200 games) with a progress bar on stderr, then prints one row per bot: win
rate with its 95% interval, score mean and spread, openskill rating and behaviour metrics;
``--json``, ``--csv``, ``--plot`` and ``--record`` write the results, a figure and one trace
per game. Ctrl-C prints the results of the games finished so far and exits with 130.
``--pool`` plays a population evaluation instead (:mod:`.population`).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from .. import __version__
from ..agents import REGISTRY, Seat
from ..agents.seats import with_options
from ..policies.network import trained_by
from ..train.algorithm import ALGORITHMS
from ..arena import default_lineup, parse_lineup, parse_seats, play_tournament, tournament
from ..arena.records import TraceError, trace_name
from ..arena.tournaments import DEFAULT_CONCURRENCY, MAX_CONCURRENCY
from ..rules import state as st
from ..rules.config import GameConfig
from ..install_hints import install_hint
from ..user_code import on_path_from_here
from .population import add_population_args, run_population
from .progress import progress_bar
from .common import (DEFAULT_PLAYERS, add_backend_args, backend_of, fail, int_in, seed_arg,
                     writable_file)
from ..report import markdown_table, percent

DEFAULT_TOURNAMENT_GAMES = 4200  # a multiple of 3..8 (balanced seats); well under a minute
MAX_TOURNAMENT_GAMES = 10**8  # per-game results are kept: ~100 bytes a game with 8 players


def seats_arg(text: str) -> tuple[Seat, ...]:
    """An argparse type: a lineup of seats (:func:`borders_sim.arena.schedule.parse_seats`):
    bot names and specs, and your own bots ``MODULE:NAME``, MODULE importable from the current
    directory too."""
    on_path_from_here()
    try:
        return parse_seats(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def lineup_arg(text: str) -> tuple[str, ...]:
    """An argparse type: comma-separated bot names of :data:`borders_sim.agents.REGISTRY`."""
    try:
        return parse_lineup(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def llm_options(lineup: Sequence, args: argparse.Namespace) -> tuple:
    """The lineup with the ``--llm-*`` options given to its language models' seats
    (``llm:MODEL@URL``); an option given without such a seat is refused."""
    options = {key: value for key, value in (("retries", args.llm_retries),
                                             ("fallback", args.llm_fallback),
                                             ("talk", args.llm_talk or None),
                                             ("structured", args.llm_json_schema or None),
                                             ("tools", args.llm_tools or None),
                                             ("replay", args.llm_replay))
               if value is not None}
    if not options:
        return tuple(lineup)
    models = [isinstance(seat, Seat) and (seat.spec or "").startswith("llm:") for seat in lineup]
    if not any(models):
        given = ", ".join(f"--llm-{key}" for key in options)
        raise ValueError(f"{given}: the lineup has no language model (llm:MODEL@URL)")
    return tuple(with_options(seat, **options) if is_model else seat
                 for seat, is_model in zip(lineup, models))


def display_names(specs: Sequence[str]) -> dict[str, str]:
    """Each bot spec as a table shows it: a policy file's spec ``KIND@PATH`` with the path cut to
    the file's stem, or to its run's directory when the file is a run's ``policy.npz``
    (``ppo@runs/notebook-1/policy.npz`` -> ``ppo@notebook-1``), a language model's
    ``llm:MODEL@URL`` to ``llm:MODEL``; any other spec, and a spec whose
    short name another spec of ``specs`` would share, whole."""
    def short(spec: str) -> str:
        head, at, path = spec.partition("@")
        if not at:
            return spec
        if head.startswith("llm:"):  # a language model, named by its model
            return head
        file = Path(path)
        run = file.name == "policy.npz" and file.parent.name
        return f"{head}@{file.parent.name if run else file.stem}"
    shown = {spec: short(spec) for spec in specs}
    taken = Counter(shown.values())
    return {spec: name if taken[name] == 1 else spec for spec, name in shown.items()}


def tournament_table(results, wide: bool = False) -> str:
    """One row per bot, best win rate first: win rate with its 95% interval, score mean (sd),
    rating mu (sigma) and three behaviour metrics, in under 100 columns; ``wide``: every
    behaviour metric of :data:`borders_sim.arena.stats.BEHAVIOUR` and every deception metric of
    :data:`~borders_sim.arena.stats.DECEPTION` (the ground truth), seats and wins too. A policy
    file's bot is named short (:func:`display_names`), its whole spec under the table."""
    names = display_names([b["name"] for b in results.bots])
    short = ["bot", "games", "win rate [95% CI]", "score (sd)", "rating", "lies", "opens",
             "bribed"]
    full = ["bot", "seats", "games", "wins", "win rate [95% CI]", "score mean (sd)",
            "rating mu (sigma)", "lies when opened", "caught", "bribes", "opens", "bribed",
            "fines/game", "promises kept", "lied", "lies caught", "lies through",
            "offers/game", "accepted/game", "refused/game", "precision", "recall"]
    rows = []
    for b in sorted(results.bots, key=lambda b: -(b["win_rate"] or 0.0)):
        lo, hi = b["win_rate_ci95"]
        m = b["behaviour"]
        played = b["games"] > 0
        cell = {
            "bot": names[b["name"]], "seats": str(b["seats"]), "games": str(b["games"]),
            "wins": f"{b['wins']:g}",
            "win rate [95% CI]": f"{percent(b['win_rate'])} [{percent(lo)}, {percent(hi)}]"
            if played else "-",
            "score mean (sd)": f"{b['mean_score']:.1f} ({b['sd_score']:.1f})" if played else "-",
            "rating mu (sigma)": f"{b['rating_mu']:.2f} ({b['rating_sigma']:.2f})",
            "lies when opened": percent(m["lies_when_opened"]), "caught": percent(m["caught_rate"]),
            "bribes": percent(m["bribe_rate"]), "opens": percent(m["open_rate"]),
            "bribed": percent(m["bribed_rate"]),
            "fines/game": "-" if m["fines_paid_per_game"] is None
            else f"{m['fines_paid_per_game']:.2f}",
            "promises kept": percent(m["promises_kept_rate"])}
        d = b["deception"]
        cell.update({"lied": percent(d["lie_rate"]), "lies caught": percent(d["lies_caught_rate"]),
                     "lies through": percent(d["lies_through_rate"]),
                     "precision": percent(d["inspection_precision"]),
                     "recall": percent(d["inspection_recall"])})
        for key, head in (("offers_per_game", "offers/game"),
                          ("offers_accepted_per_game", "accepted/game"),
                          ("offers_refused_per_game", "refused/game")):
            cell[head] = "-" if d[key] is None else f"{d[key]:.2f}"
        cell["score (sd)"], cell["rating"] = cell["score mean (sd)"], cell["rating mu (sigma)"]
        cell["lies"] = cell["lies when opened"]
        rows.append([cell[h] for h in (full if wide else short)])
    table = markdown_table(full if wide else short, rows)
    legend = [f"{name}: {spec}" for spec, name in names.items() if name != spec]
    return "\n".join([table, *legend])


def figures_table(results) -> str | None:
    """The language models' seats, one row per bot: decisions, replies legal at the first try,
    retries, fallbacks, a request's mean wait and the tokens used; None without one."""
    names = display_names([b["name"] for b in results.bots])
    rows = [[names[b["name"]], f"{f['decisions']:,}", percent(f.get("legal_first_pct", 0) / 100),
             f"{f['retries']:,}", f"{f['fallbacks']:,}", f"{f.get('mean_seconds') or 0:.3f} s",
             f"{f['prompt_tokens']:,} + {f['completion_tokens']:,}"]
            for b in results.bots if (f := b.get("figures")) and "fallbacks" in f]
    if not rows:
        return None
    return markdown_table(["language model", "decisions", "legal at 1st reply", "retries",
                           "fallbacks", "mean latency", "tokens (prompt + reply)"], rows)


TABLE_NOTES = """\
win rate: wins per seat-game, a shared win counting 1/k for each of the k winners; 95% CI:
Wilson on the per-game share. rating: mu (sigma) of openskill Plackett-Luce over finishing
orders. From the public history: lies = opened crates that held a lie; opens = crates handled
as inspector that it opened; bribed = crates handled as inspector on which it took a deal.
A '-' is a figure with nothing to count (a bot that never had a crate opened, never
inspected, ...). --wide (and --json, --csv) show every metric, and the ground truth that no
player sees: lied = its crates that held a lie; lies caught / through = of its lies;
offers, accepted, refused = its let-through offers per game; precision = its opened crates
that held contraband; recall = contraband found of all in the crates it inspected."""



def add_parser(sub: argparse._SubParsersAction) -> None:
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
    tour.add_argument("--bots", type=seats_arg, default=None, metavar="a,b,...",
                      help=f"one bot per seat, repeats allowed; bots: {known} (default: the "
                           "compiled bots, repeated to fill the seats). ppo plays the shipped "
                           "policy, sampled; ppo@PATH plays a policy file (.npz) or the "
                           "policy.npz of a 'borders-sim train' output directory; ppo:argmax "
                           "plays greedily and ppo:temp=T samples at temperature T (either "
                           "before @PATH: ppo:argmax@runs/ppo); ppo-zoo/NAME plays a member "
                           "of the zoo of learned reference opponents (python -m "
                           "borders_sim.policies.zoo lists them). OpenSpiel's bots take options "
                           "after the name, e.g. openspiel-ismcts:sims=50:rollout=honest "
                           "(borders_sim.openspiel; needs OpenSpiel: "
                           f"{install_hint('bench', alone=('open_spiel',))}). Your own bot: "
                           "MODULE:NAME, NAME a bot class or a factory (seed) -> bot (an "
                           "object with act(observation, action_mask) -> action id) in MODULE, "
                           "importable from the current directory; it plays through the "
                           "Python loop. A language model: llm:MODEL@URL, an OpenAI-compatible "
                           "API (llm:qwen3-4b@http://127.0.0.1:8000/v1; the key from "
                           "BORDERS_LLM_API_KEY or OPENAI_API_KEY; needs httpx: "
                           f"{install_hint('llm')}), its figures in a table of their own")
    tour.add_argument("--games", type=int_in(1, MAX_TOURNAMENT_GAMES),
                      default=DEFAULT_TOURNAMENT_GAMES, metavar="G",
                      help=f"games, 1 to {MAX_TOURNAMENT_GAMES:,} (default: "
                           f"{DEFAULT_TOURNAMENT_GAMES}); a multiple of the player count "
                           "balances the seats exactly")
    tour.add_argument("--seed", type=seed_arg(), default=None, metavar="S",
                      help="game g is dealt from seed S+g (default: 0)")
    add_population_args(tour, seats_arg)
    tour.add_argument("--json", type=writable_file, metavar="FILE",
                      help="write the results as JSON ({\"config\": ..., \"bots\": [...]})")
    tour.add_argument("--csv", type=writable_file, metavar="FILE",
                      help="write one row per bot as CSV")
    tour.add_argument("--plot", type=writable_file, metavar="FILE.png",
                      help="draw score distributions and ratings (.png, .pdf or .svg; needs "
                           f"matplotlib: {install_hint('plot')})")
    tour.add_argument("--record", metavar="DIR",
                      help="write every game as a JSON-lines trace into DIR (created if "
                           "missing); plays through the Python loop. A language model's "
                           "requests and replies go beside it (game-NNNNNN.llm.jsonl; "
                           "--llm-replay DIR plays them back)")
    tour.add_argument("--html", action="store_true",
                      help="with --record: a replay page beside each trace (game-NNNNNN.html, "
                           "as 'borders-sim replay FILE --html') and DIR/index.html linking "
                           "them")
    add_backend_args(tour, "chunks of games",
                     "numba threads (compiled bots) or worker processes (Python bots)")
    tour.add_argument("--llm-concurrency", type=int_in(1, MAX_CONCURRENCY),
                      default=DEFAULT_CONCURRENCY, metavar="N",
                      help="with a language model's seat (llm:MODEL@URL): games played at once, "
                           "so up to N requests in flight, each game going on when its reply "
                           f"arrives (default: {DEFAULT_CONCURRENCY}); 1: one decision at a "
                           "time, in game order")
    tour.add_argument("--llm-retries", type=int_in(0, 20), default=None, metavar="K",
                      help="a language model's reply that names no legal action is told why "
                           "and asked again up to K times (default: 2), then --llm-fallback "
                           "plays the decision, marked \"fallback\" in its record line")
    tour.add_argument("--llm-fallback", default=None, metavar="BOT",
                      help="the bot that plays a decision a language model failed (default: "
                           "random)")
    tour.add_argument("--llm-replay", metavar="DIR",
                      help="answer every language model's seat from the transcripts a "
                           "--record DIR run stored (game-NNNNNN.llm.jsonl), no endpoint: the "
                           "same tournament (lineup, games, seed) replays bit for bit, each "
                           "request checked against the recorded one")
    tour.add_argument("--llm-json-schema", action="store_true",
                      help="ask each language model's endpoint for a reply constrained to a "
                           "JSON schema whose action is one of the legal ids (OpenAI's "
                           "response_format; vLLM, llama.cpp and Ollama honour it too)")
    tour.add_argument("--llm-tools", action="store_true",
                      help="ask each language model for its reply as a call of the function "
                           "tool act (OpenAI's tools; vLLM, llama.cpp and Ollama serve them "
                           "too), its arguments read by the same parse")
    tour.add_argument("--llm-talk", action="store_true",
                      help="table talk: a language model may add a short public message to its "
                           "action; every other model sees it in its next prompt; records and "
                           "replay show it")
    tour.add_argument("--no-action-cards", action="store_true",
                      help="play without the 22 action cards")
    tour.add_argument("--wide", action="store_true",
                      help="every behaviour metric in the table (wider than 100 columns)")
    tour.add_argument("--no-progress", action="store_true", help="no progress bar")
    tour.set_defaults(run=run)


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    backend = backend_of(parser, args)
    if args.pool is not None:
        return run_population(parser, args, backend)
    if args.focus is not None:
        parser.error("argument --focus: needs --pool")
    if args.seed is None:
        args.seed = 0
    lineup = args.bots if args.bots is not None else default_lineup(args.players)
    try:
        lineup = llm_options(lineup, args)
    except ValueError as error:
        return fail(parser, str(error))
    config = GameConfig(num_players=args.players, action_cards=not args.no_action_cards)
    try:
        t = tournament(args.players, lineup, args.games, args.seed, config)
    except ValueError as err:
        parser.error(str(err))
    if args.plot is not None:
        from ..arena.plot import FORMATS, require_matplotlib
        if args.plot.suffix.lower() not in FORMATS:
            parser.error(f"argument --plot: {str(args.plot)!r} must end in "
                         f"{', '.join(FORMATS)}")
        try:
            require_matplotlib()
        except RuntimeError as err:
            return fail(parser, str(err))
    if args.html and args.record is None:
        parser.error("argument --html: needs --record DIR")
    if args.record is not None:
        from ..arena.records import prepare_dir
        try:
            prepare_dir(args.record)
        except ValueError as err:
            parser.error(f"argument --record: {err}")
    err = sys.stderr
    where = f"Ray cluster at {args.ray_address}" if args.ray_address else (
        "a local Ray cluster" if backend == "ray" else "this machine")
    print(f"borders-sim {__version__} tournament: {t.games} games, {t.players} players "
          f"({', '.join(t.lineup)}), seats rotating, seed {t.seed}, on {where}", file=err)
    for seat in dict.fromkeys(t.seats):  # (a policy file's trainer, from its meta)
        if seat.spec is not None and (algorithm := trained_by(seat.spec)) is not None:
            shown = algorithm.upper() if algorithm in ALGORITHMS else algorithm
            what = ("a policy exported from a torch module" if algorithm == "exported" else
                    f"a policy trained with {shown}")
            print(f"{seat.name}: {what}", file=err)
    if t.games % t.players:
        print(f"note: {t.games} games is not a multiple of {t.players}: the last rotation "
              "block is incomplete, so the seats are not exactly balanced", file=err)
    t0 = time.perf_counter()
    failure = None
    with progress_bar(total=t.games, unit="game", desc="tournament", disable=args.no_progress,
              file=err, leave=False) as bar:
        try:
            results = play_tournament(
                t, backend=backend, threads=args.threads, ray_address=args.ray_address,
                record_dir=args.record, progress=bar.update, concurrency=args.llm_concurrency)
        except KeyboardInterrupt:
            print("interrupted before any game finished", file=err)
            return 130
        except (RuntimeError, ValueError, OSError) as error:
            failure = str(error)
    if failure is not None:  # (after the bar is cleared: the error is the last line)
        return fail(parser, failure)
    seconds = time.perf_counter() - t0
    if results.interrupted:
        print(f"interrupted: results of the first {results.games_played} of {t.games} games",
              file=err)
    if results.games_played == 0:
        return 130
    print(tournament_table(results, args.wide))
    if (models := figures_table(results)) is not None:
        print()
        print(models)
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
            from ..arena.plot import plot_results
            plot_results(results, args.plot)
            print(f"figure written to {args.plot}", file=err)
    except OSError as error:
        return fail(parser, f"cannot write: {error}")
    if args.record is not None:
        print(f"{results.records_written} game traces written to {args.record} (replay one "
              "with 'borders-sim replay FILE')", file=err)
    if args.html:
        try:
            index = write_viewers(args.record, t.games, args.no_progress,
                                  args.threads or os.cpu_count() or 1)
        except (TraceError, OSError, RuntimeError) as error:
            return fail(parser, f"cannot write the replay pages: {error}")
        print(f"replay pages written beside the traces; open {index} in a browser", file=err)
    return 130 if results.interrupted else 0


def write_viewers(record: str, games: int, quiet: bool, workers: int = 1) -> Path:
    """A replay page beside each trace ``game-NNNNNN.jsonl`` of games ``0 .. games - 1`` in
    ``record`` (those written), by up to ``workers`` processes
    (:func:`~borders_sim.arena.viewer.write_pages_beside`), and ``record/index.html`` linking
    them; returns the index."""
    from ..arena.viewer import write_index, write_pages_beside
    traces = [p for p in (Path(record) / trace_name(g) for g in range(games)) if p.is_file()]
    pages = list(progress_bar(write_pages_beside(traces, workers), total=len(traces),
                              unit="page", desc="replay pages", disable=quiet, file=sys.stderr,
                              leave=False))
    return write_index(record, pages)

