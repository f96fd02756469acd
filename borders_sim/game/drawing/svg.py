"""SVG elements as text: the few shapes the drawings use, written the same way every time.

Every function returns a string; numbers are written by :func:`num` (integers as integers,
other values with one decimal), attributes in a fixed order, text escaped by :func:`esc`. So
the same call always gives the same bytes, which keeps a whole drawing deterministic.

The text width of :func:`text_width` is an estimate for laying out chips and lines (no font is
measured): the drawings name DejaVu Sans first, whose glyphs average about 0.6 em.
"""

from __future__ import annotations

import functools

#: The font of every text: DejaVu Sans where installed (most Linux machines, matplotlib's own
#: font), else a common sans-serif.
FONT = "DejaVu Sans, Verdana, Arial, Helvetica, sans-serif"


def esc(value: object) -> str:
    """``value`` as text safe inside an SVG element or a double-quoted attribute."""
    return (str(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


@functools.lru_cache(maxsize=65536)  # a picture writes a few hundred, mostly the same ones
def num(x: float) -> str:
    """A coordinate or size: ``12`` for 12 and 12.0, ``12.5`` for 12.46."""
    r = round(float(x), 1)
    return str(int(r)) if r == int(r) else f"{r:.1f}"


def text_width(s: str, size: float, bold: bool = False) -> float:
    """About how wide ``s`` is in pixels at font ``size`` (0.6 em a character, 0.66 bold)."""
    return len(s) * size * (0.66 if bold else 0.6)


def title(label: str | None) -> str:
    """The ``<title>`` child that names a shape for screen readers and hover tips."""
    return f"<title>{esc(label)}</title>" if label else ""


def rect(x: float, y: float, w: float, h: float, fill: str, stroke: str | None = None,
         stroke_width: float = 1, rx: float = 0, label: str | None = None,
         dash: bool = False) -> str:
    """A rectangle with top-left ``(x, y)``, size ``w`` x ``h`` and corner radius ``rx``;
    ``label`` becomes its ``<title>``."""
    attrs = (f'x="{num(x)}" y="{num(y)}" width="{num(w)}" height="{num(h)}"'
             + (f' rx="{num(rx)}"' if rx else "") + f' fill="{fill}"')
    if stroke:
        attrs += f' stroke="{stroke}" stroke-width="{num(stroke_width)}"'
        if dash:
            attrs += ' stroke-dasharray="4 3"'
    return f"<rect {attrs}>{title(label)}</rect>" if label else f"<rect {attrs}/>"


def circle(cx: float, cy: float, r: float, fill: str, stroke: str | None = None,
           label: str | None = None) -> str:
    """A circle of radius ``r`` around ``(cx, cy)``."""
    attrs = f'cx="{num(cx)}" cy="{num(cy)}" r="{num(r)}" fill="{fill}"'
    if stroke:
        attrs += f' stroke="{stroke}"'
    return f"<circle {attrs}>{title(label)}</circle>" if label else f"<circle {attrs}/>"


def text(x: float, y: float, s: str, size: float = 12, fill: str = "#222",
         bold: bool = False, anchor: str = "start", italic: bool = False) -> str:
    """The text ``s`` with its baseline starting at (or centred on, or ending at, by
    ``anchor``: ``"start"``, ``"middle"``, ``"end"``) the point ``(x, y)``."""
    attrs = f'x="{num(x)}" y="{num(y)}" font-size="{num(size)}" fill="{fill}"'
    if bold:
        attrs += ' font-weight="bold"'
    if italic:
        attrs += ' font-style="italic"'
    if anchor != "start":
        attrs += f' text-anchor="{anchor}"'
    return f"<text {attrs}>{esc(s)}</text>"


def group(children: list[str], label: str | None = None) -> str:
    """The elements ``children`` in a ``<g>``, named by a ``<title>`` when ``label`` is given."""
    return f"<g>{title(label)}" + "".join(children) + "</g>"


def document(width: int, height: int, label: str, description: str, body: list[str]) -> str:
    """A whole SVG document of ``width`` x ``height`` pixels: the ``<svg>`` tag, its ``<title>``
    (``label``) and ``<desc>`` (``description``), which say in words what it shows, the elements
    ``body``, the closing tag."""
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img" font-family="{FONT}">')
    return "".join([head, f"<title>{esc(label)}</title>", f"<desc>{esc(description)}</desc>",
                    *body, "</svg>\n"])
