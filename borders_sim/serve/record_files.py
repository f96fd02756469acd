"""The recorded games the server may open: trace files directly under ``--records DIR``.

A request names a trace by its file name alone (``game-000003.jsonl``, as ``borders-sim
tournament --record DIR`` writes them). :func:`resolve` is the only way such a name reaches the
disk: the name must be a plain file name ending in ``.jsonl`` (letters, digits, ``.``, ``_``,
``-``; no separator, no ``..``, no NUL, nothing absolute), and the file it resolves to,
symlinks followed, must lie directly in the directory, or the request is refused.
"""

from __future__ import annotations

import re
from pathlib import Path

from .refusals import Refused

#: What a trace's name may look like (and at most how long).
NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}\.jsonl")
#: The most names :func:`listing` returns.
MAX_LISTED = 2000


def listing(root: Path | None) -> list[str]:
    """The names of the traces directly in ``root`` (sorted, at most :data:`MAX_LISTED`);
    empty without a directory."""
    if root is None:
        return []
    names = []
    for path in sorted(root.iterdir()):
        if NAME.fullmatch(path.name) and _inside(root, path):
            names.append(path.name)
            if len(names) == MAX_LISTED:
                break
    return names


def resolve(root: Path | None, name: object) -> Path:
    """The file of the trace ``name`` in ``root``.

    Raises:
        Refused: 404 without a records directory or when no such trace is there; 400 for a
            name that is not a plain ``*.jsonl`` file name.
    """
    if root is None:
        raise Refused(404, "this server opens no recorded games (start it with --records DIR)")
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise Refused(400, "\"record\" must be the file name of a trace in the records "
                           "directory (letters, digits, '.', '_', '-', ending in .jsonl)")
    path = root / name
    if not _inside(root, path):
        raise Refused(404, f"no recorded game {name!r} in the records directory")
    return path


def _inside(root: Path, path: Path) -> bool:
    """Whether ``path`` is a regular file whose real location is directly in ``root``."""
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError):  # missing, or a symlink loop
        return False
    return real.parent == root.resolve() and real.is_file()
