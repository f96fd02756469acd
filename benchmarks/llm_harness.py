"""How many decisions a second the language-model seat's harness plays when the model costs
nothing: the harness must never be the bottleneck of a run with a real model.

Usage::

    python benchmarks/llm_harness.py            # 12 games of 3 players
    python benchmarks/llm_harness.py --quick

Against :mod:`borders_sim.llm.local_server` on 127.0.0.1 (its model ``first`` answers at once
with the first legal id), each row plays a tournament through the public API
(:func:`borders_sim.arena.run_tournament`), every seat a model (``llm:first@URL``), so every
decision is one request: the prompt built from the seat's observation (the rules, the view as
text, the legal list as JSON), one HTTP round trip through ``httpx``, the reply's parse, the
decision recorded in the seat's figures and transcript. The server runs in the same process
(its threads share the cores and the interpreter with the harness), so the figure is a floor.
Decisions per second count every model decision of the tournament over its wall time, the
kernels' loading excluded (one untimed game first). Rows: one game at a time
(``concurrency=1``) and 16 at once (the default).
"""

from __future__ import annotations

import argparse
import sys
import time

from borders_sim.arena import run_tournament
from borders_sim.llm.local_server import LocalServer
from borders_sim.report import markdown_table
from harness import add_shared, load, machine_line, run

#: The floor the issue sets: decisions a second on 2 cores.
TARGET = 500


def tournament(games: int, concurrency: int) -> dict:
    """One tournament of ``games`` games of 3 model seats at ``concurrency``: its decisions,
    requests and seconds."""
    with LocalServer() as server:
        lineup = [f"llm:first@{server.url}"] * 3
        run_tournament(3, lineup, games=1, seed=99, concurrency=1)  # (loads the kernels)
        start = time.perf_counter()
        results = run_tournament(3, lineup, games=games, seed=0, concurrency=concurrency)
        seconds = time.perf_counter() - start
    figures = next(b["figures"] for b in results.bots)
    return {"concurrency": concurrency, "decisions": figures["decisions"],
            "requests": figures["requests"], "seconds": seconds,
            "games": results.games_played}


def measure(args: argparse.Namespace) -> dict:
    """A tournament of ``args.games`` games one at a time and 16 at once, and the load
    average at the start and the end."""
    start, rows = load(), []
    for concurrency in (1, 16):
        print(f"measuring: {args.games} games of 3 model seats, concurrency {concurrency} ...",
              file=sys.stderr, flush=True)
        rows.append(tournament(args.games, concurrency))
    return {"rows": rows, "load": [start, load()]}


def render(figures: dict, args: argparse.Namespace) -> str:
    """The table of :func:`measure`'s figures, against :data:`TARGET`."""
    rows = []
    for m in figures["rows"]:
        rate = m["decisions"] / m["seconds"]
        rows.append([str(m["concurrency"]), f"{m['games']}", f"{m['decisions']:,}",
                     f"{m['requests']:,}", f"{m['seconds']:.1f} s", f"{rate:,.0f}",
                     "yes" if rate >= TARGET else "NO"])
    return "\n".join([
        markdown_table(["concurrency", "games", "decisions", "requests", "wall time",
                        "decisions/s", f">= {TARGET}/s"], rows), "",
        f"{machine_line(*figures['load'])}; a zero-latency local server in the same process"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=12, help="games a row (default: 12)")
    add_shared(parser, quick={"games": 2}, json=True)
    run(parser, measure, render, argv)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
