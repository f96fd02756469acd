"""Pictures of a game: a seat's view or the whole table, as SVG text.

Two pure functions draw from the dicts the game already writes, so the same dict always gives
the same bytes:

* :func:`seat_svg` draws a seat's view from :func:`~borders_sim.game.views.observe_json`,
  which is built from that seat's observation vector alone: the picture cannot show what the
  seat may not know (R-39). Its own hand, crate and face-down warehouse cards are face up, every
  other hidden card is face down.
* :func:`table_svg` draws the whole table, every card face up, from the saved-game dict of
  :meth:`borders_sim.Game.to_dict` (:mod:`borders_sim.game.saved.dict_format`), for replays
  and debugging.

:func:`game_svg` draws a :class:`~borders_sim.Game` either way (what ``game.svg(seat=...)``,
``game.save_svg(...)`` and Jupyter's picture of a game call), and :func:`svg_to_rgb` turns a
drawing into pixels (the environments' ``render_mode="rgb_array"``; it needs the optional
``render`` extra, see :mod:`.raster`).

Inside: :mod:`.scene` turns either dict into one *scene* (which cards are face up, the last
move as the viewer saw it; :func:`game_scene` of a game), :mod:`.paint` lays a scene out
(:func:`canvas_size`), :mod:`.svg` writes the elements. ``paint.js`` is the same painter in
JavaScript (:func:`painter_script`), for a page that paints scenes in the browser.

Example::

    >>> from borders_sim import Game, GameConfig
    >>> game = Game(GameConfig(num_players=4), seed=7)
    >>> picture = game.svg(seat=1)          # what p1 knows; game.svg() is the whole table
    >>> picture.startswith("<svg") and "p1 (you)" in picture
    True
"""

from __future__ import annotations

from typing import Any

from ..game import Game, set_drawing
from ..views import describe, observe
from . import scene
from .paint import canvas_size, crate_verdict, paint, painter_script
from .raster import svg_to_png, svg_to_rgb
from .scene import seen_action

__all__ = ["Svg", "canvas_size", "crate_verdict", "frame_shape", "game_scene", "game_svg",
           "painter_script", "seat_svg", "seen_action", "svg_to_png", "svg_to_rgb", "table_svg"]


class Svg(str):
    """SVG text (a ``str``) that Jupyter shows as a picture (``_repr_svg_``)."""

    def _repr_svg_(self) -> str:
        return str(self)


def seat_svg(view: dict, last_action: tuple[int, Any] | None = None,
             scores: list[int] | None = None, winners: list[int] | None = None) -> Svg:
    """The picture of a seat's view.

    Args:
        view: the dict of :func:`~borders_sim.game.views.observe_json` (the only source of the
            picture: what it does not say is not drawn).
        last_action: ``(seat, action)``, the last decision taken (an action id or its string),
            highlighted as the viewer saw it (:func:`~.scene.seen_action`: the card another
            seat packed stays hidden); ``None``: no last move shown.
        scores, winners: once the game is over, the final scores by seat and the winning seats
            (the warehouses are then turned face up, 9-2); ``None``: not shown.
    """
    return Svg(paint(scene.from_view(view, last_action, scores, winners)))


def table_svg(saved: dict, last_action: tuple[int, Any] | None = None,
              scores: list[int] | None = None, winners: list[int] | None = None) -> Svg:
    """The picture of the whole table, every card face up.

    Args:
        saved: the saved-game dict of :meth:`borders_sim.Game.to_dict`.
        last_action: ``(seat, action)``, the last decision taken, highlighted in full;
            ``None``: no last move shown.
        scores, winners: the final scores and the winning seats, drawn once the game is over;
            ``None`` there: the rules' (:meth:`borders_sim.Game.scores`) of the game loaded
            from ``saved``.

    Raises:
        ValueError: at the end of the game without ``scores``, a dict that does not load
            (:meth:`borders_sim.Game.from_dict` with ``reachable=False``).
    """
    if saved["phase"] == "game over" and scores is None:
        game = Game.from_dict(saved, reachable=False)
        scores, winners = game.scores(), game.winners()
    return Svg(paint(scene.from_saved(saved, last_action, scores, winners)))


def game_svg(game: Game, seat: int | None = None,
             last_action: tuple[int, Any] | None = None) -> Svg:
    """The picture of ``game``: the whole table (``seat=None``) or what ``seat`` knows
    (:func:`seat_svg` of its :func:`~borders_sim.game.views.observe_json`, with the final scores
    once the game is over). ``last_action`` as :func:`seat_svg`.

    Raises:
        ValueError: ``seat`` is not a seat of ``game``.
    """
    return Svg(paint(game_scene(game, seat, last_action)))


def game_scene(game: Game, seat: int | None = None,
               last_action: tuple[int, Any] | None = None) -> dict:
    """The scene (:mod:`.scene`) that :func:`game_svg` paints: plain JSON-able data, which a
    replay page ships and paints in the browser (:func:`~.paint.painter_script`).

    Raises:
        ValueError: ``seat`` is not a seat of ``game``.
    """
    final = (game.scores(), game.winners()) if game.is_terminal else (None, None)
    if seat is None:
        return scene.from_saved(game.to_dict(), last_action, *final)
    # observe_json's view without its legal actions' strings, which no picture shows
    view = describe(observe(game, seat), seat, [])
    return scene.from_view(view, last_action, *final)


set_drawing(game_svg)


def frame_shape(num_players: int) -> tuple[int, int, int]:
    """``(H, W, 3)``: the shape of an ``rgb_array`` frame of a ``num_players`` game
    (:func:`canvas_size`)."""
    width, height = canvas_size(num_players)
    return height, width, 3
