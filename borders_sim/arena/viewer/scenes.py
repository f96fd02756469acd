"""The pictures of a replay, packed small: a table of *scenes* that shares what they share.

Every step of a game is seen from every view (each seat's, and the whole table), and each
view's picture is the painting of a *scene* (:mod:`borders_sim.game.drawing.scene`, plain
JSON-able data). The page paints scenes itself, in the browser, with the JavaScript port of the
painter (:func:`borders_sim.game.drawing.paint.painter_script`), so the table holds scenes,
not pictures, and each scene once, cut in two kinds of *parts*:

* the scene without its seats (the round, the phase, the last move, the border check ...);
* each seat's entry: a seat that did not change since the view's previous step is the same
  part, and a part seen before (from another view, or steps ago) is stored once.

A frame is the list of its parts' ids, ``[table part, seat 0's part, seat 1's part, ...]``, and
the scene is ``{**parts[frame[0]], "seats": [parts[i] for i in frame[1:]]}``
(:meth:`SceneTable.scene`). :meth:`SceneTable.payload_json` is the table as JSON text:
``{"parts": [part], "frames": [[[part ids] per step] per view]}``, each part written once.
"""

from __future__ import annotations

import json

_DUMPS = json.JSONEncoder(separators=(",", ":")).encode


class SceneTable:
    """The scenes of ``views`` views, added step by step with :meth:`add`."""

    def __init__(self, views: int) -> None:
        self.parts: list[str] = []  # each part's JSON text
        self._ids: dict[str, int] = {}
        self.frames: list[list[list[int]]] = [[] for _ in range(views)]
        self._seats_before: list[list[dict]] = [[] for _ in range(views)]

    def add(self, view: int, scene: dict) -> None:
        """Append ``scene`` as the next frame of ``view``."""
        seats = scene["seats"]
        before, shown = self._seats_before[view], self.frames[view]
        frame = [self._part({k: v for k, v in scene.items() if k != "seats"})]
        for i, seat in enumerate(seats):
            same = i < len(before) and before[i] == seat
            frame.append(shown[-1][i + 1] if same else self._part(seat))
        shown.append(frame)
        self._seats_before[view] = seats

    def _part(self, value: dict) -> int:
        text = _DUMPS(value)
        number = self._ids.get(text)
        if number is None:
            number = self._ids[text] = len(self.parts)
            self.parts.append(text)
        return number

    def scene(self, view: int, step: int) -> dict:
        """The scene of frame ``step`` of ``view``, rebuilt from the table (as the page does)."""
        table, *seats = (json.loads(self.parts[i]) for i in self.frames[view][step])
        return {**table, "seats": seats}

    def payload_json(self) -> str:
        """The table as JSON text (the module's docstring says its shape)."""
        return ('{"parts":[' + ",".join(self.parts) + '],"frames":'
                + _DUMPS(self.frames) + "}")
