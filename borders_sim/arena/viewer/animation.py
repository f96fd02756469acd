"""A recorded game as an animated GIF, for papers and slides: ``borders-sim replay GAME --gif``.

:func:`write_gif` replays a trace (every decision checked), draws each step from one view (a
seat's, or the whole table) with the game's drawing (:mod:`borders_sim.game.drawing`),
rasterises it (:func:`~borders_sim.game.drawing.svg_to_rgb`) and appends it to the GIF as it
goes: each frame after the first holds only the rectangle that changed, with a palette of its
own, and a step that changes nothing lengthens the frame before it. The file is written
through Pillow's GIF helpers (``getheader``, ``getdata``) one frame at a time, so memory stays
that of two frames however long the game. It needs the ``render`` extra (resvg-py, Pillow).
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path

import numpy as np

from ...game.drawing import game_svg, svg_to_rgb
from ...game.game import Game
from ...install_hints import needs
from ..records import Trace
from .steps import walk


def require_render() -> None:
    """Raise a ``ModuleNotFoundError`` naming the ``render`` extra when resvg-py or Pillow is
    missing."""
    for module, package in (("resvg_py", "resvg-py"), ("PIL", "Pillow")):
        try:
            importlib.import_module(module)
        except ImportError:
            raise ModuleNotFoundError(needs("a GIF of a game", "render", package),
                                      name=module) from None


class _GifWriter:
    """Frames appended one by one to an open GIF file (a frame is written once the next one
    is known, so that an unchanged step lengthens it)."""

    def __init__(self, file, duration_ms: int) -> None:
        self.file = file
        self.duration = duration_ms
        self.previous: np.ndarray | None = None
        self.pending: tuple | None = None  # (P image, offset, duration ms, local palette)

    def add(self, rgb: np.ndarray) -> None:
        from PIL import GifImagePlugin, Image
        if self.previous is None:
            first = Image.fromarray(rgb).quantize(256, dither=Image.Dither.NONE)
            header, _ = GifImagePlugin.getheader(first, info={"loop": 0,
                                                              "duration": self.duration})
            self.file.write(b"".join(header))
            self.pending = (first, (0, 0), self.duration, False)
        else:
            changed = np.any(rgb != self.previous, axis=2)
            rows, cols = np.flatnonzero(changed.any(axis=1)), np.flatnonzero(changed.any(axis=0))
            if not rows.size:
                image, offset, ms, local = self.pending
                self.pending = (image, offset, ms + self.duration, local)
                return
            y0, y1, x0, x1 = rows[0], rows[-1] + 1, cols[0], cols[-1] + 1
            self._flush()
            self.pending = (Image.fromarray(rgb[y0:y1, x0:x1]).quantize(
                256, dither=Image.Dither.NONE),
                            (int(x0), int(y0)), self.duration, True)
        self.previous = rgb

    def _flush(self) -> None:
        from PIL import GifImagePlugin
        image, offset, ms, local = self.pending
        self.file.write(b"".join(GifImagePlugin.getdata(image, offset, duration=ms,
                                                        include_color_table=local)))

    def close(self) -> None:
        self._flush()
        self.file.write(b";")  # the GIF trailer


def write_gif(trace: Trace, path: str | os.PathLike, seat: int | None = None,
              fps: float = 2.0, rounds: tuple[int, int] | None = None) -> int:
    """Write the steps of ``trace`` as an animated GIF at ``path`` (whole or not at all),
    looping; returns the number of steps drawn.

    Args:
        seat: whose view (``None``: the whole table).
        fps: steps a second.
        rounds: ``(first, last)``: only the steps taken in these rounds (with the position
            before the first of them); ``None``: the whole game, from the deal.

    Raises:
        ModuleNotFoundError: resvg-py or Pillow is missing (the message names the extra).
        ValueError: ``seat`` is not a seat of the game, ``fps`` is not positive, or no step
            falls in ``rounds``.
        TraceError: the trace does not replay.
        OSError: ``path`` cannot be written.
    """
    require_render()
    n = trace.config.num_players
    if seat is not None and not 0 <= seat < n:
        raise ValueError(f"seat {seat} is not a seat of this {n}-player game (0 to {n - 1})")
    if not fps > 0:
        raise ValueError(f"fps must be positive, got {fps}")
    first, last = rounds if rounds is not None else (None, None)
    out = Path(path)
    part = out.with_name(out.name + ".part")  # the GIF until it is whole
    drawn = [0]
    before: list = [None]  # the position before the first step drawn: (game copy, last move)
    try:
        with open(part, "wb") as file:
            writer = _GifWriter(file, max(10, round(1000 / fps / 10) * 10))

            def draw(game: Game, move: tuple[int, int] | None, entry: list) -> None:
                if rounds is not None and not first <= entry[4] <= last:
                    if entry[4] < first:
                        before[0] = (game.copy(), move)
                    return
                if drawn[0] == 0 and before[0] is not None:
                    writer.add(svg_to_rgb(game_svg(before[0][0], seat, before[0][1])))
                writer.add(svg_to_rgb(game_svg(game, seat, move)))
                drawn[0] += 1

            walk(trace, draw)
            if not drawn[0]:
                raise ValueError(f"no step of the game falls in rounds {first} to {last}")
            writer.close()
        os.replace(part, out)
    finally:
        part.unlink(missing_ok=True)
    return drawn[0]
