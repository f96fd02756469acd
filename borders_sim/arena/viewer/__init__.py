"""A recorded game as one HTML page a person steps through: ``borders-sim replay GAME --html``.

:func:`replay_page` replays a trace (:mod:`borders_sim.arena.records`, every decision checked)
and takes every step from every view, each seat's and the whole table's, as the game's own
drawing sees it: a *scene* (:func:`borders_sim.game.drawing.game_scene`, plain data). The page
paints the chosen scene in the browser with the painter's JavaScript port
(:func:`~borders_sim.game.drawing.paint.painter_script`): the very SVG that
:func:`~borders_sim.game.drawing.game_svg` draws, byte for byte (``tests/test_paint_js.py``),
drawn only when shown. The page is one file with no link to anything outside it, so it opens
offline from a disk:

* the picture of the chosen step and view; buttons and keys to step (arrows, Space), jump a
  round (PageUp, PageDown, or the round list), go to the first or last step (Home, End) or to
  any step (the slider, or a click in the log); a view list, ``T`` for the whole table and a
  seat's number for its view;
* beside it the log of every decision, as the chosen view saw it (another seat's packed card
  stays hidden), with the rule id of ``docs/RULINGS.md`` it follows
  (:func:`~.steps.rule_of`), and the final scores.

The scenes are packed by :class:`~.scenes.SceneTable` (each seat's part of a scene stored
once), as JSON, gzipped and base64-encoded in the page, which unpacks them with the browser's
own ``DecompressionStream``. :func:`write_pages_beside` writes the pages of many traces (in
worker processes where there are enough), :func:`write_index` the page that links them
(``tournament --record DIR --html``).

Sizes, for game 0 of ``borders-sim tournament --players N --games 1 --record DIR --html``
(seed 0, the default lineup): its pictures, the JSON of all their scenes, the page (the
painter included); ``tests/test_replay_page.py`` computes them again and fails, printing the
new table, when they change::

    | players | decisions | pictures | their scenes | the page |
    |---|---|---|---|---|
    | 3 | 578 | 2316 | 7.5 MB | 124 kB |
    | 4 | 395 | 1980 | 8.0 MB | 105 kB |
    | 8 | 2218 | 19971 | 151.6 MB | 663 kB |

.. end of sizes
"""

from __future__ import annotations

import base64
import contextlib
import gc
import gzip
import html
import json
import multiprocessing
import os
import re
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from importlib import resources
from pathlib import Path

from ...game.drawing import game_scene, painter_script
from ...game.game import Game
from ..local import worker_init
from ..records import Trace, read_trace
from .scenes import SceneTable
from .steps import walk

__all__ = ["draw_replay", "replay_page", "write_index", "write_page_beside", "write_pages_beside",
           "write_replay_page"]


def draw_replay(trace: Trace) -> tuple[SceneTable, list[list], Game]:
    """Every step of ``trace`` from every view: the scenes (view ``p`` is seat ``p``'s, view
    ``num_players`` the whole table), the log entries (:func:`~.steps.log_entry`) and the
    finished game.

    Raises:
        TraceError: the trace does not replay.
    """
    n = trace.config.num_players
    table = SceneTable(n + 1)
    log: list[list] = []

    def draw(game: Game, last: tuple[int, int] | None, entry: list) -> None:
        for view in range(n):
            table.add(view, game_scene(game, view, last))
        table.add(n, game_scene(game, None, last))
        log.append(entry)

    with _collector_paused():
        game = walk(trace, draw)
    return table, log, game


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cycle collector off for a while: a replay makes many small containers and no
    cycles, and each collection would walk every object the views of a step hold; the
    collector's state is restored after."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()


def _title(trace: Trace) -> tuple[str, str]:
    header, n = trace.header, trace.config.num_players
    lineup = ", ".join(f"p{p} {bot}" for p, bot in enumerate(header["lineup"]))
    return (f"BORDERS replay: game {header['game']}, {n} players",
            f"{Path(trace.path).name} · seed {header['seed']} · {lineup} · "
            f"borders_sim {header.get('borders_sim', '?')}")


_PLACEHOLDER = re.compile(r"\{\{(TITLE|SUBTITLE|DATA|PAINTER)\}\}")


def replay_page(trace: Trace) -> str:
    """The HTML page of ``trace`` (the module's docstring says what it holds).

    Raises:
        TraceError: the trace does not replay.
    """
    table, log, game = draw_replay(trace)
    starts: dict[int, int] = {}
    for step, entry in enumerate(log):
        starts.setdefault(entry[4], step)
    meta = {"players": game.num_players, "lineup": trace.header["lineup"],
            "scores": game.scores(), "winners": game.winners(),
            "rounds": sorted(starts.items())}
    data = ('{"meta":' + json.dumps(meta, separators=(",", ":")) + ',"steps":'
            + json.dumps(log, separators=(",", ":")) + ',"scenes":' + table.payload_json()
            + "}").encode("utf-8")
    packed = base64.b64encode(gzip.compress(data, 6, mtime=0)).decode("ascii")
    title, subtitle = _title(trace)
    page = resources.files(__package__).joinpath("page.html").read_text(encoding="utf-8")
    values = {"TITLE": html.escape(title), "SUBTITLE": html.escape(subtitle), "DATA": packed,
              "PAINTER": painter_script()}
    # one pass over the template: a value is never read again, so data that holds a
    # placeholder's name ("{{DATA}}" in a trace's header) stays text
    return _PLACEHOLDER.sub(lambda m: values[m[1]], page)


def write_replay_page(trace: Trace, path: str | os.PathLike) -> Path:
    """Write :func:`replay_page` of ``trace`` to ``path``; returns the path.

    Raises:
        TraceError: the trace does not replay.
        OSError: ``path`` cannot be written.
    """
    out = Path(path)
    out.write_text(replay_page(trace), encoding="utf-8")
    return out


#: The fewest pages a worker process of :func:`write_pages_beside` is started for.
PAGES_A_WORKER = 3


def write_page_beside(path: str | os.PathLike) -> tuple[Path, Trace]:
    """Read the trace file ``path`` and write its page beside it (``FILE.html``); returns the
    page's path and the trace.

    Raises:
        TraceError: the file is not a trace, or the trace does not replay.
        OSError: the file cannot be read or the page written.
    """
    trace = read_trace(path)
    return write_replay_page(trace, Path(path).with_suffix(".html")), trace


def write_pages_beside(paths: Sequence[str | os.PathLike], workers: int = 1
                       ) -> Iterator[tuple[Path, Trace]]:
    """:func:`write_page_beside` of each trace file of ``paths``, yielded in their order as
    they are written: by at most ``workers`` spawned processes, each writing whole pages, and
    no more of them than give each :data:`PAGES_A_WORKER` pages (a worker takes about as long
    to start as a page to write); in this process where that leaves one.

    Raises:
        TraceError, OSError: as :func:`write_page_beside`, for the first page that fails.
        RuntimeError: a worker process died.
    """
    workers = min(workers, len(paths) // PAGES_A_WORKER)
    if workers <= 1:
        yield from map(write_page_beside, paths)
        return
    pool = ProcessPoolExecutor(workers, initializer=worker_init,
                               mp_context=multiprocessing.get_context("spawn"))
    try:
        yield from pool.map(write_page_beside, paths)
    except BrokenProcessPool:
        raise RuntimeError("a worker process writing replay pages died (out of memory or "
                           "killed)") from None
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def write_index(directory: str | os.PathLike, pages: Sequence[tuple[Path, Trace]]) -> Path:
    """Write ``directory / index.html``, a page linking each viewer ``page`` (a path in
    ``directory``) with its game, lineup and final scores; returns its path."""
    rows = []
    for page, trace in pages:
        header, result = trace.header, trace.result
        seats = ", ".join(
            f"p{p} {html.escape(bot)} {score}{' (won)' if p in result['winners'] else ''}"
            for p, (bot, score) in enumerate(zip(header["lineup"], result["scores"])))
        rows.append(f'<tr><td><a href="{html.escape(page.name)}">game {header["game"]}</a>'
                    f"</td><td>{header['seed']}</td><td>{len(trace.actions)}</td>"
                    f"<td>{seats}</td></tr>")
    index = Path(directory) / "index.html"
    index.write_text(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<link rel=\"icon\" href=\"data:,\"><title>BORDERS replays</title>"
        "<style>body{font-family:'DejaVu Sans',Verdana,Arial,sans-serif;margin:14px}"
        "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:3px 8px;"
        "text-align:left}</style></head><body>\n"
        f"<h1>BORDERS replays: {len(rows)} games</h1>\n<table>\n"
        "<tr><th>game</th><th>seed</th><th>decisions</th><th>seats and final scores</th></tr>\n"
        + "\n".join(rows) + "\n</table>\n</body></html>\n", encoding="utf-8")
    return index
