"""Keep numba's on-disk cache of the kernels in step with every kernel source file.

numba's cache (``cache=True``) checks only the source of the file that defines a function (a
content hash, in numba 0.68). A kernel compiled together with the kernels it calls from other
files (``agents.play.play_bot_games`` holds ``engine.step``, which holds ``piles.store``, ...)
is therefore not recompiled when one of those other files changes, and a stale compiled kernel
would run against a changed state layout or action space: a silent wrong result, or a write
past a buffer.

:func:`sync_kernel_cache` closes that gap. It hashes the source of every kernel file of the
package together and keeps that digest in a small file in each directory where numba caches
them (the locations numba itself would choose: ``NUMBA_CACHE_DIR``, ``__pycache__`` beside the
sources, or the user-wide cache for a read-only install). Where the digest differs, the
package's cached kernels in that directory are deleted, so numba compiles them afresh once.
An unchanged install finds matching digests and touches nothing.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from numba.core.caching import CacheImpl  # numba's own choice of cache directory

_KERNEL = re.compile(r"^@njit", re.MULTILINE)  # a decorated kernel, not a mention
STAMP = "borders_sim-kernels.sha256"


def kernel_files(package_dir: Path) -> list[Path]:
    """The ``.py`` files below ``package_dir`` that define numba kernels."""
    return sorted(p for p in package_dir.rglob("*.py")
                  if "__pycache__" not in p.parts and _KERNEL.search(p.read_text(encoding="utf-8")))


def source_digest(package_dir: Path, files: list[Path]) -> str:
    """One hash of the relative paths and contents of ``files``."""
    h = hashlib.sha256()
    for p in files:
        h.update(str(p.relative_to(package_dir)).encode())
        h.update(p.read_bytes())
    return h.hexdigest()


def cache_dir(source: Path) -> Path | None:
    """The directory numba caches the kernels of ``source`` in (None if it has none)."""
    def probe():  # numba's locators read only the line number of the function
        pass
    for locator_class in CacheImpl._locator_classes:
        locator = locator_class.from_function(probe, str(source))
        if locator is not None:
            return Path(locator.get_cache_path())
    return None


def sync_kernel_cache(package_dir: Path) -> int:
    """Delete the cached kernels of ``package_dir`` wherever they were compiled from other
    sources than today's; returns how many cache files were deleted."""
    files = kernel_files(package_dir)
    digest = source_digest(package_dir, files)
    deleted = 0
    by_dir: dict[Path, list[str]] = {}
    for f in files:
        where = cache_dir(f)
        if where is not None:
            by_dir.setdefault(where, []).append(f.stem)
    for where, modules in by_dir.items():
        stamp = where / STAMP
        try:
            if stamp.exists() and stamp.read_text() == digest:
                continue
            for entry in where.iterdir():
                if entry.suffix in (".nbi", ".nbc") and entry.name.split(".")[0] in modules:
                    entry.unlink()
                    deleted += 1
            stamp.write_text(digest)
        except OSError:  # not writable after all: numba will not cache there either
            continue
    return deleted
