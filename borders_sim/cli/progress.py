"""The commands' progress bars: tqdm on a terminal, whole lines into a file.

On a terminal a bar redraws itself in place (tqdm's ``\\r``). Into a file, a pipe or a notebook
(stderr not a terminal) those redraws would pile up on one line, and the text printed after a
cleared bar would start on that line. :func:`progress_bar` gives tqdm there a
:class:`LineFile`, which turns each redraw into one whole line, and refreshes at most once per
:data:`LOG_SECONDS`, with a last line when the bar closes: one line per interval, never cut to
a width (tqdm knows no width for a file).
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from tqdm import tqdm

#: Seconds between two lines of a bar written into a file.
LOG_SECONDS = 30.0


class LineFile:
    """A text file for tqdm that writes each redraw of a bar as one line: the text between
    carriage returns, with its trailing blanks dropped, and nothing for a redraw that only
    clears the line."""

    def __init__(self, out: TextIO) -> None:
        self.out = out

    def write(self, text: str) -> None:
        for part in text.replace("\n", "\r").split("\r"):
            part = part.rstrip()
            if part:
                self.out.write(part + "\n")

    def flush(self) -> None:
        self.out.flush()


def progress_bar(*args: Any, file: TextIO | None = None, **kwargs: Any) -> tqdm:
    """``tqdm(*args, file=file, **kwargs)`` (stderr by default) where ``file`` is a terminal;
    elsewhere the same bar through a :class:`LineFile`, refreshed at most every
    :data:`LOG_SECONDS`, its last state kept as a line (``leave``), in ASCII."""
    file = sys.stderr if file is None else file
    isatty = getattr(file, "isatty", None)
    if callable(isatty) and isatty():
        return tqdm(*args, file=file, **kwargs)
    kwargs.update(mininterval=LOG_SECONDS, maxinterval=LOG_SECONDS, miniters=1, leave=True,
                  ascii=True)
    return tqdm(*args, file=LineFile(file), **kwargs)
