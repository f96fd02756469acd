"""A drawing as pixels: :func:`svg_to_rgb`, the ``rgb_array`` frames of the environments.

The SVG is rasterised by resvg (the ``resvg-py`` package), a renderer written in Rust that
pip installs as a self-contained wheel on Linux, macOS and Windows: no Cairo, no browser, no
system library to install first, unlike CairoSVG or a headless browser. Its PNG is decoded by
Pillow (also a wheel everywhere). Both come with the optional ``render`` extra
(:data:`~borders_sim.install_hints.EXTRAS`); without them, :func:`svg_to_rgb` raises a
``ModuleNotFoundError`` that says how to install them. The SVG text itself needs neither.

Text is drawn with the machine's fonts (the drawings ask for DejaVu Sans first, then any
sans-serif), so frames may differ slightly from machine to machine; the SVG does not.
"""

from __future__ import annotations

import io

import numpy as np

from ...install_hints import needs


def _renderer():
    """resvg-py's module, or a ModuleNotFoundError saying how to install the ``render`` extra."""
    try:
        import resvg_py
    except ImportError as err:
        raise ModuleNotFoundError(needs("rgb_array rendering", "render", "resvg-py"),
                                  name="resvg_py") from err
    return resvg_py


def _png_reader():
    """Pillow's Image module, or a ModuleNotFoundError saying how to install the ``render`` extra."""
    try:
        from PIL import Image
    except ImportError as err:
        raise ModuleNotFoundError(needs("rgb_array rendering", "render", "Pillow"),
                                  name="PIL") from err
    return Image


def svg_to_png(svg: str) -> bytes:
    """The PNG image of the SVG document ``svg``, at its own size (one pixel a unit).

    Raises:
        ModuleNotFoundError: resvg-py is missing (the message says how to install it).
    """
    return bytes(_renderer().svg_to_bytes(svg_string=svg))


def svg_to_rgb(svg: str) -> np.ndarray:
    """uint8[H, W, 3]: the SVG document ``svg`` rasterised at its own size (``H x W`` its
    ``height`` and ``width``), what ``render()`` returns with ``render_mode="rgb_array"``.

    Raises:
        ModuleNotFoundError: resvg-py or Pillow is missing (the message says how to install
            them).
    """
    png = svg_to_png(svg)
    with _png_reader().open(io.BytesIO(png)) as image:
        return np.asarray(image.convert("RGB"), dtype=np.uint8).copy()
