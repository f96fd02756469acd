"""``borders-sim replay``: replay a game trace written by ``tournament --record``
(:mod:`borders_sim.arena.records`) as text, as a page to step through in a browser
(``--html``, :mod:`borders_sim.arena.viewer`) or as an animated GIF (``--gif``,
:mod:`borders_sim.arena.viewer.animation`)."""

from __future__ import annotations

import argparse
import sys

from ..arena.records import TraceError, read_trace, replay
from .common import fail, float_in, writable_file


def _rounds(text: str) -> tuple[int, int]:
    """``"3"`` -> ``(3, 3)``, ``"2-4"`` -> ``(2, 4)``."""
    first, _, last = text.partition("-")
    try:
        span = (int(first), int(last or first))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected ROUND or FIRST-LAST, got {text!r}") from None
    if not 1 <= span[0] <= span[1]:
        raise argparse.ArgumentTypeError(f"expected 1 <= FIRST <= LAST, got {text!r}")
    return span


def add_parser(sub: argparse._SubParsersAction) -> None:
    rep = sub.add_parser(
        "replay", help="replay a game trace written by 'tournament --record'",
        description="Replay a JSON-lines game trace round by round, checking every action; "
                    "exits with status 1 and one error line if the file is not a trace "
                    "(reading no more than a trace can hold), an action is illegal at its "
                    "point or the replay does not reach the recorded final scores. With "
                    "--html or --gif, writes the game as pictures instead of text.")
    rep.add_argument("file", metavar="FILE", help="a trace file (game-NNNNNN.jsonl)")
    rep.add_argument("--verbose", action="store_true", help="print every decision too")
    rep.add_argument("--html", type=writable_file, metavar="OUT.html",
                     help="write one self-contained page (it opens offline) to step through "
                          "the game from any seat's view or the whole table, with the action "
                          "log and the rule of each step")
    rep.add_argument("--gif", type=writable_file, metavar="OUT.gif",
                     help="write the game as an animated GIF, one step a frame (needs the "
                          "render extra)")
    rep.add_argument("--seat", type=int, metavar="N",
                     help="--gif: the view of seat N (default: the whole table)")
    rep.add_argument("--fps", type=float_in(0, 100, "a number of steps a second above 0, at most 100", above=True), default=2.0,
                     help="--gif: steps a second (default: 2)")
    rep.add_argument("--rounds", type=_rounds, metavar="FIRST-LAST",
                     help="--gif: only these rounds (e.g. 3 or 2-4; default: the whole game)")
    rep.set_defaults(run=run)


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    pictures = args.html is not None or args.gif is not None
    if args.gif is None and (args.seat is not None or args.rounds is not None):
        parser.error("--seat and --rounds go with --gif")
    try:
        trace = read_trace(args.file)
        if args.gif is not None:
            from ..arena.viewer.animation import require_render, write_gif
            require_render()
            steps = write_gif(trace, args.gif, args.seat, args.fps, args.rounds)
            print(f"{steps} steps written to {args.gif}", file=sys.stderr)
        if args.html is not None:
            from ..arena.viewer import write_replay_page
            write_replay_page(trace, args.html)
            print(f"replay page written to {args.html} (open it in a browser)",
                  file=sys.stderr)
        if not pictures:
            replay(trace, verbose=args.verbose)
    except (TraceError, ModuleNotFoundError, ValueError) as err:
        return fail(parser, str(err))
    except OSError as err:
        return fail(parser, f"cannot write: {err}")
    return 0
