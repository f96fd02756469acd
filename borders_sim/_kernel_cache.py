"""Keep numba's on-disk cache of the kernels in step with every kernel source file.

numba's cache (``cache=True``) checks only the stamp (modification time and size) of the file
that defines a function. A kernel compiled together with the kernels it calls from other files
(``rollout.random_games`` holds ``engine.step``, which holds ``piles.store``, ...) is therefore
not recompiled when one of those other files changes, and a stale compiled kernel would run
against a changed state layout or action space: a silent wrong result, or a write past a buffer.

:func:`sync_kernel_stamps` closes that gap without any bookkeeping file: it gives every kernel
source file of the package the newest modification time among them. After an edit (or a
checkout) of any kernel file, every kernel file then carries a stamp that no cache index has
seen, so numba recompiles everything once; when nothing changed, it does nothing. Installed
copies that nobody edits never differ, and read-only installs are left alone.
"""

from __future__ import annotations

import os
from pathlib import Path

_MARK = "@njit"


def kernel_files(package_dir: Path) -> list[Path]:
    """The ``.py`` files below ``package_dir`` that define numba kernels."""
    return sorted(p for p in package_dir.rglob("*.py")
                  if "__pycache__" not in p.parts and _MARK in p.read_text(encoding="utf-8"))


def sync_kernel_stamps(package_dir: Path) -> int:
    """Give every kernel file below ``package_dir`` the newest modification time among them;
    returns how many files were touched (0 when they already agree or cannot be written)."""
    files = kernel_files(package_dir)
    if not files:
        return 0
    times = {p: p.stat().st_mtime_ns for p in files}
    newest = max(times.values())
    touched = 0
    for path, mtime in times.items():
        if mtime != newest:
            try:
                os.utime(path, ns=(newest, newest))
            except OSError:  # a read-only install: nobody edits it
                return touched
            touched += 1
    return touched
