"""``borders-sim replay``: replay a game trace written by ``tournament --record``
(:mod:`borders_sim.arena.records`)."""

from __future__ import annotations

import argparse

from ..arena.records import TraceError, read_trace, replay
from .common import fail


def add_parser(sub: argparse._SubParsersAction) -> None:
    rep = sub.add_parser(
        "replay", help="replay a game trace written by 'tournament --record'",
        description="Replay a JSON-lines game trace round by round, checking every action; "
                    "exits with status 1 and one error line if the file is not a trace "
                    "(reading no more than a trace can hold), an action is illegal at its "
                    "point or the replay does not reach the recorded final scores.")
    rep.add_argument("file", metavar="FILE", help="a trace file (game-NNNNNN.jsonl)")
    rep.add_argument("--verbose", action="store_true", help="print every decision too")
    rep.set_defaults(run=run)


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    try:
        replay(read_trace(args.file), verbose=args.verbose)
    except TraceError as err:
        return fail(parser, str(err))
    return 0

