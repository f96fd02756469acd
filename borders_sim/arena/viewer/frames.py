"""The pictures of a replay, packed small: a table of *frames* that shares what they share.

Every step of a game is drawn once per view (each seat's, and the whole table), and two
consecutive pictures of one view differ in a few places (the last move, a seat's gold, the
phase). The SVG text is cut twice:

* into *blocks*, the parts of :func:`~borders_sim.game.drawing.paint.paint_parts`: the
  ``<svg>`` tag, its title, each top-level element (a seat's row, the header, the log of the
  border check ...) and the closing tag: a frame is the list of its blocks' ids, and a block
  that did not change is the same id;
* into *tokens*: tags, and text between them cut after each sentence (``". "``). A new block
  is stored as the tokens it keeps of the block it replaces (the one at its place in the
  previous frame of the same view, counted from the end after a box that came or went: a
  common prefix and suffix) and the token ids in between, or as its whole token list when it
  replaces nothing.

So the page (:mod:`.page`) rebuilds any frame by joining strings: ``frame = blocks joined``,
``block = base block's first p tokens + middle + its last s tokens``; no picture is drawn
there. :meth:`FrameTable.payload` is the JSON-able table: ``{"tokens": [str], "blocks":
[[token ids] or [-1 - base, p, s, token ids...]], "frames": [[[block ids] per step] per
view]}``.
"""

from __future__ import annotations

import re

#: A tag, or text up to and with the next ``". "``, or the rest of a text.
_TOKEN = re.compile(r"<[^>]*>|[^<]*?\. |[^<]+")


def tokens(svg: str) -> list[str]:
    """``svg`` cut into tags and text pieces (text cut after each ``". "``); joined again,
    they are ``svg``."""
    return _TOKEN.findall(svg)


def _shared_ends(a: list, b: list) -> tuple[int, int]:
    """``(p, s)``: how many entries ``a`` and ``b`` share at their start, then at their end
    (the two never overlapping)."""
    most = min(len(a), len(b))
    p = 0
    while p < most and a[p] == b[p]:
        p += 1
    s = 0
    while s < most - p and a[-1 - s] == b[-1 - s]:
        s += 1
    return p, s


class _Numbered(dict):
    """Each key's index in ``keys``: a key not yet there is appended."""

    def __init__(self, keys: list) -> None:
        super().__init__()
        self.keys_in_order = keys

    def __missing__(self, key) -> int:
        number = self[key] = len(self.keys_in_order)
        self.keys_in_order.append(key)
        return number


class FrameTable:
    """The frames of ``views`` views, added step by step with :meth:`add`."""

    def __init__(self, views: int) -> None:
        self.tokens: list[str] = []
        self._token_ids = _Numbered(self.tokens)
        self.blocks: list[list[int]] = []
        self._block_ids: dict[str, int] = {}
        self._block_tokens: list[list[int]] = []
        self._block_text: list[str] = []
        self.frames: list[list[list[int]]] = [[] for _ in range(views)]

    def add(self, view: int, parts: list[str]) -> None:
        """Append a picture as the next frame of ``view``: its blocks ``parts`` (joined, its
        SVG), as :func:`~borders_sim.game.drawing.paint.paint_parts` cuts it."""
        shown = self.frames[view]
        before = shown[-1] if shown else []
        known = [self._block_ids.get(text) for text in parts]  # None: a new block
        if len(known) == len(before):  # the same layout (most steps): block i replaces block i
            shown.append([b if b is not None else self._block(text, before[i])
                          for i, (b, text) in enumerate(zip(known, parts))])
            return
        # a box came or went: the blocks before it keep their places, those after it are
        # matched from the end, and each block between replaces the one at its place
        p, s = _shared_ends(known, before)
        kept = len(before) - s
        shown.append(before[:p]
                     + [self._block(parts[j], before[j] if j < kept else None)
                        for j in range(p, len(parts) - s)]
                     + before[kept:])

    def _block(self, text: str, base: int | None) -> int:
        """The id of the block ``text``, stored (against ``base`` where that is shorter) if
        new."""
        b = self._block_ids.get(text)
        if b is not None:
            return b
        ids = list(map(self._token_ids.__getitem__, tokens(text)))
        entry = ids
        if base is not None:
            p, s = _shared_ends(ids, self._block_tokens[base])
            if p + s:
                entry = [-1 - base, p, s, *ids[p:len(ids) - s]]
        b = self._block_ids[text] = len(self.blocks)
        self.blocks.append(entry)
        self._block_tokens.append(ids)
        self._block_text.append(text)
        return b

    def frame(self, view: int, step: int) -> str:
        """The SVG of frame ``step`` of ``view``, rebuilt from the table (as the page does)."""
        return "".join(self._block_text[b] for b in self.frames[view][step])

    def payload(self) -> dict:
        """The table as JSON-able data (the module's docstring says its shape)."""
        return {"tokens": self.tokens, "blocks": self.blocks, "frames": self.frames}
