"""``borders-sim serve``: the table in the browser and its JSON API (:mod:`borders_sim.serve`),
served by uvicorn. Needs the optional ``serve`` extra; without it the command says so in one
line."""

from __future__ import annotations

import argparse
import sys

from ..install_hints import install_hint
from ..user_code import on_path_from_here
from .common import float_in, int_in

#: The hosts that reach only this machine; any other ``--host`` gets a warning.
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def add_parser(sub: argparse._SubParsersAction) -> None:
    serve = sub.add_parser(
        "serve", help="play, watch or replay games in the browser (a local web app)",
        description="Start a local web app: play a seat against any lineup of bots (seeing "
                    "only your own view), watch bots play from any seat or the whole table, "
                    "or open a recorded game; with a JSON API under /api that another front "
                    "end or an agent can drive. Binds to 127.0.0.1 unless --host says "
                    f"otherwise. Needs the serve extra: {install_hint('serve')}.")
    serve.add_argument("--host", default="127.0.0.1", metavar="HOST",
                       help="the address to bind (default: 127.0.0.1, this machine only; "
                            "0.0.0.0 opens the server to the network, with a warning)")
    serve.add_argument("--port", type=int_in(0, 65535), default=8000, metavar="PORT",
                       help="the port (default: 8000; 0: a free one)")
    serve.add_argument("--records", metavar="DIR", default=None,
                       help="a directory of recorded games (tournament --record DIR) the page "
                            "may open; no other file is ever read for a request")
    serve.add_argument("--bot", action="append", default=[], metavar="SPEC", dest="bots",
                       help="a bot offered besides the built-in bots, e.g. ppo@PATH, "
                            "ppo:argmax or your own MODULE:NAME (a bot class or a factory "
                            "(seed) -> bot in a module importable from the current directory; "
                            "repeatable)")
    serve.add_argument("--idle-minutes", type=float_in(0, 10080, "minutes, above 0 and at "
                                                       "most a week", above=True),
                       default=30.0, metavar="M",
                       help="drop a game no one used for M minutes (default: 30)")
    serve.add_argument("--max-games", type=int_in(1, 100000), default=64, metavar="G",
                       help="at most G open games; a new one drops the game without a person "
                            "idle the longest, and is refused when every open game has one "
                            "(default: 64)")
    serve.add_argument("--allow-seeds", action="store_true",
                       help="let a new game choose its seed (to replicate a game); otherwise "
                            "every game's seed is drawn in secret and never shown, so no one "
                            "can deal another's game to see its hands")
    serve.add_argument("--seat-timeout", type=float_in(0, 86400, "seconds, above 0 and at "
                                                       "most a day", above=True),
                       default=None, metavar="SECONDS",
                       help="a turn that waits longer is overdue: a person's decision is then "
                            "taken by the --stand-in bot, marked in the game's moves, and any "
                            "page may step the game (default: turns wait for ever)")
    serve.add_argument("--stand-in", default="honest", metavar="BOT",
                       help="the bot that takes an overdue person's decision (a bot the server "
                            "offers; default: honest)")
    serve.add_argument("--study", metavar="DIR", default=None,
                       help="run a study: the join page shows a consent line, and every "
                            "finished game with a person is written into DIR as a trace "
                            "replay reads, with each seat's kind and each decision's time "
                            "(no token, address or name); borders-sim study DIR exports it")
    serve.set_defaults(run=run)


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    try:
        from ..serve import Settings, create_app, serve
    except ImportError as err:
        print(f"{parser.prog}: error: needs {err.name}: {install_hint('serve')}",
              file=sys.stderr)
        return 1
    loopback = args.host in LOOPBACK
    on_path_from_here()  # (--bot MODULE:NAME from the current directory)
    settings = Settings(records=args.records, idle_minutes=args.idle_minutes,
                        allow_seeds=args.allow_seeds, seat_timeout=args.seat_timeout,
                        stand_in=args.stand_in, study=args.study,
                        max_games=args.max_games, bots=tuple(args.bots),
                        allowed_hosts=LOOPBACK if loopback else ("*",))
    try:
        app = create_app(settings)
    except ValueError as err:
        print(f"{parser.prog}: error: {err}", file=sys.stderr)
        return 1
    if not loopback:
        print(f"warning: --host {args.host} opens the server to other machines: anyone who "
              "can reach it can start games and spend this machine's CPU; there is no login",
              file=sys.stderr)
    print(f"borders-sim serve: http://{_url_host(args.host)}:{args.port} (Ctrl-C stops it)",
          file=sys.stderr)
    serve(app, args.host, args.port)
    return 0


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host
