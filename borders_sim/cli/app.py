"""The ``borders-sim`` command: one subcommand per module of this package.

Each command module has ``add_parser(sub)``, which declares its arguments and sets its
``run(parser, args) -> exit status`` as the default ``run``. :func:`main` parses the whole
command line before anything runs, so an unknown argument is a one-line argparse error (exit
status 2) of that command, whatever the command; only ``bench`` passes its arguments on.
"""

from __future__ import annotations

import argparse
import sys

from .. import __version__
from ..rules.actions import ranges_table
from . import (bench, demos, exploit, mcp, play, replay, serve, simulate, study, tournament,
               train, warmup)


def _actions(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    print(ranges_table())
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="borders-sim",
        description="Simulator of the card game BORDERS (3-8 players) for RL research.")
    parser.add_argument("--version", action="version", version=f"borders-sim {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in (tournament, play, replay, serve, mcp, simulate, train, exploit, demos, study):
        command.add_parser(sub)
    sub.add_parser(
        "actions", help="print the table of action-id ranges (P-0.1)",
        description="Print the table of action-id ranges (P-0.1): one flat action space for "
                    "every phase and player count, each kind of decision a named range of ids, "
                    "as the legal masks and the environments' Discrete actions number them."
    ).set_defaults(run=_actions)
    warmup.add_parser(sub)
    bench.add_parser(sub)
    for name, command_parser in sub.choices.items():
        command_parser.set_defaults(subparser=command_parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run ``borders-sim`` with the arguments ``argv`` (default: the command line's); the exit
    status (0 done, 1 a run that failed with one error line, 2 bad arguments)."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    if extra and not getattr(args, "passthrough", False):
        args.subparser.error(f"unrecognized arguments: {' '.join(extra)}")
    args.extra = extra
    return args.run(args.subparser, args)

