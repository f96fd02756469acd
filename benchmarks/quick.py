"""``--quick``, the smallest setting every script of ``benchmarks/`` has.

CI runs each script once with ``--quick`` (``.ci/run``), so a moved or renamed function breaks
the run, not a reader's first try. A quick run proves that every part of its script runs; its
figures mean nothing about speed or strength, and it never writes the README or the docs.

    parser = argparse.ArgumentParser(...)
    ...
    add_quick(parser, games=20, seeds=2)     # --quick sets --games 20 --seeds 2
    args = parse_quick(parser, argv)
"""

from __future__ import annotations

import argparse
from typing import Any


def add_quick(parser: argparse.ArgumentParser, **small: Any) -> None:
    """Add ``--quick`` to ``parser``: it sets each option named in ``small`` (by its ``dest``)
    to the value given there, whatever the command line says."""
    settings = ", ".join(f"--{name.replace('_', '-')} {value}" for name, value in small.items())
    parser.add_argument("--quick", action="store_true",
                        help="the smallest setting, as CI runs it: every part once, no figure "
                             "meant" + (f" ({settings})" if settings else ""))
    parser.set_defaults(quick_settings=small)


def parse_quick(parser: argparse.ArgumentParser, argv: list[str] | None = None
                ) -> argparse.Namespace:
    """``parser.parse_args(argv)`` with the quick settings applied under ``--quick``; an
    error if ``--quick`` comes with ``--write-readme`` (a quick run's figures mean nothing)."""
    args = parser.parse_args(argv)
    if args.quick:
        if getattr(args, "write_readme", False):
            parser.error("--quick is a smoke run: its figures do not go into the README or "
                         "the docs")
        for name, value in args.quick_settings.items():
            setattr(args, name, value)
    return args
