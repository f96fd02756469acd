"""Keep numba's on-disk cache of the kernels in step with every kernel source file.

numba's cache (``cache=True``) checks only the source of the file that defines a function (a
content hash, in numba 0.68). A kernel compiled together with the kernels it calls from other
files (``batch.games.play_bot_games`` holds ``engine.step``, which holds ``piles.store``, ...)
is therefore not recompiled when one of those other files changes, and a stale compiled kernel
would run against a changed state layout or action space: a silent wrong result, or a write
past a buffer.

The same holds for a module with no kernels at all whose names a kernel uses: the constants of
``rules/actions.py`` and ``rules/state.py`` and the intrinsics of ``rules/rowcopy.py`` are
compiled into the kernels that import them.

:func:`sync_kernel_cache` closes that gap. It hashes, together, the source of every kernel
file of the package and of every module of the package they import, directly or through others
(:func:`dependency_files`, read from their import statements), and keeps that digest in a small
file in each directory where numba caches them (the locations numba itself would choose:
``NUMBA_CACHE_DIR``, ``__pycache__`` beside the sources, or the user-wide cache for a read-only
install). Where the digest differs, the package's cached kernels in that directory are deleted,
so numba compiles them afresh once. An unchanged install finds matching digests and touches nothing.

:func:`configure_cache_dir` runs first and makes sure numba has somewhere to cache them. numba 0.68
picks a cache directory per kernel file when the module is imported (when ``@njit`` or ``@kernel``
runs): ``NUMBA_CACHE_DIR`` if set and writable, else ``__pycache__`` beside the source if writable,
else its user-wide cache (``$XDG_CACHE_HOME/numba`` or ``~/.cache/numba``), and caches nothing at
all when none of them is writable, silently, so that every new process compiles for minutes again. A
read-only install (site-packages owned by root, a read-only image) lands in the user-wide cache by
numba's own rule; where that is not writable either (no home directory, a read-only home),
:func:`configure_cache_dir` points ``NUMBA_CACHE_DIR`` at a private directory under the system's
temporary directory before the kernel modules are imported. A ``NUMBA_CACHE_DIR`` set by the user is
left alone.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from pathlib import Path

from numba.core import config as numba_config
from numba.core.caching import CacheImpl  # numba's own choice of cache directory

# a decorated kernel or fastcall builtin (rules/entry.py), not a mention
_KERNEL = re.compile(r"^@(njit|kernel|fastcall)\b", re.MULTILINE)
STAMP = "borders_sim-kernels.sha256"
NOWHERE = "nowhere (no writable cache directory: every new process compiles again)"

#: Where the kernels are cached, in words (set by :func:`configure_cache_dir` at import).
location = ""


def kernel_files(package_dir: Path) -> list[Path]:
    """The ``.py`` files below ``package_dir`` that define numba kernels."""
    return sorted(p for p in package_dir.rglob("*.py")
                  if "__pycache__" not in p.parts and _KERNEL.search(p.read_text(encoding="utf-8")))


def _module_file(package_dir: Path, parts: list[str]) -> Path | None:
    """The file of the package's module ``parts`` (relative to the package), if it exists."""
    path = package_dir.joinpath(*parts)
    for candidate in ([path.with_suffix(".py")] if parts else []) + [path / "__init__.py"]:
        if candidate.is_file():
            return candidate
    return None


# import statements, read as text (parsing every module costs half a second at each import):
# ``from .x import (a, b)`` over several lines included; docstrings are cut out first (their
# examples import what the module does not; a match left in a string could only add a module
# to the digest, never leave one out).
_DOCSTRING = re.compile(r"(\"\"\"|''')[\s\S]*?\1")
_FROM = re.compile(r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)",
                   re.MULTILINE)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([^\n]*)", re.MULTILINE)


def _names(clause: str) -> list[str]:
    """The imported names of an import clause (``a as b, c`` or a parenthesised list)."""
    text = re.sub(r"#[^\n]*", "", clause).strip().strip("()")
    return [part.split()[0] for part in text.replace("\\", " ").split(",") if part.split()]


def imported_files(source: Path, package_dir: Path) -> set[Path]:
    """The package's own modules that ``source`` imports, relatively (``from .actions import
    NUM_ACTIONS``) or by the package's name: their constants, intrinsics and helpers are
    compiled into ``source``'s kernels as much as its own code is."""
    here = list(source.relative_to(package_dir).parent.parts)
    text = _DOCSTRING.sub("", source.read_text(encoding="utf-8"))
    wanted: list[list[str]] = []
    for dots, module, clause in _FROM.findall(text):
        parts = module.split(".") if module else []
        if dots:
            if len(dots) - 1 > len(here):
                continue  # above the package
            base = here[:len(here) - (len(dots) - 1)]
        elif parts[:1] == [package_dir.name]:
            base, parts = [], parts[1:]
        else:
            continue
        wanted.append(base + parts)
        wanted.extend(base + parts + [name] for name in _names(clause))  # submodules, if any
    for clause in _IMPORT.findall(text):
        wanted.extend(name.split(".")[1:] for name in _names(clause)
                      if name.split(".")[0] == package_dir.name)
    return {path for parts in wanted if (path := _module_file(package_dir, parts)) is not None}


def dependency_files(package_dir: Path, files: list[Path]) -> list[Path]:
    """``files`` and every module of the package they import, directly or through others."""
    seen = set(files)
    todo = list(files)
    while todo:
        for path in imported_files(todo.pop(), package_dir):
            if path not in seen:
                seen.add(path)
                todo.append(path)
    return sorted(seen)


def source_digest(package_dir: Path, files: list[Path]) -> str:
    """One hash of the relative paths and contents of ``files`` and of every module of the
    package they import (:func:`dependency_files`)."""
    h = hashlib.sha256()
    for p in dependency_files(package_dir, files):
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


def fallback_dir() -> Path:
    """The last-resort cache directory: private to this user, under the temporary directory."""
    uid = os.geteuid() if hasattr(os, "geteuid") else os.environ.get("USERNAME", "user")
    return Path(tempfile.gettempdir()) / f"borders_sim-numba-{uid}"


def _private_dir(path: Path) -> bool:
    """Create ``path`` (mode 0700) if needed; True if it is a real directory of ours that we
    can write in (a directory planted by another user under /tmp must not hold our kernels)."""
    try:
        path.mkdir(mode=0o700, exist_ok=True)
        info = os.lstat(path)
        if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
            return False
        tempfile.TemporaryFile(dir=path).close()
        return not path.is_symlink()
    except OSError:
        return False


def configure_cache_dir(package_dir: Path) -> str:
    """Make sure numba can cache the kernels of ``package_dir``; call it before any kernel
    module is imported. Returns where the kernels are cached, in words, for messages.

    * ``NUMBA_CACHE_DIR`` set by the user: left alone (numba's rules apply);
    * numba finds a writable directory for every kernel file (``__pycache__`` beside it, or
      numba's user-wide cache): left alone;
    * none: ``NUMBA_CACHE_DIR`` is set to :func:`fallback_dir` (in ``os.environ``, so worker
      processes find the same cache, and in numba's config); if that cannot be made either,
      nothing is cached and every process compiles again.
    """
    global location
    files = kernel_files(package_dir)
    dirs = {cache_dir(f) for f in files}
    if None in dirs and not os.environ.get("NUMBA_CACHE_DIR") and _private_dir(fallback_dir()):
        os.environ["NUMBA_CACHE_DIR"] = str(fallback_dir())
        numba_config.reload_config()  # numba reads NUMBA_CACHE_DIR into config.CACHE_DIR
        dirs = {cache_dir(f) for f in files}
    if None in dirs:
        location = NOWHERE
    elif all(d.name == "__pycache__" and package_dir in d.parents for d in dirs):
        location = "__pycache__ beside the package's sources"
    else:
        location = os.path.commonpath([str(d) for d in dirs])
    return location


def package_digest(package_dir: Path) -> str:
    """:func:`source_digest` of every kernel file of ``package_dir``."""
    return source_digest(package_dir, kernel_files(package_dir))


def sync_kernel_cache(package_dir: Path, digest: str | None = None) -> int:
    """Delete the cached kernels of ``package_dir`` wherever they were compiled from other
    sources than today's (``digest``: :func:`package_digest`, computed if not given); returns
    how many cache files were deleted. Only the directories numba writes to are looked at:
    kernels shipped inside the package (:mod:`borders_sim._compile.shipped`) are never deleted,
    and are not loaded at all when their manifest's digest differs from today's."""
    files = kernel_files(package_dir)
    digest = digest or source_digest(package_dir, files)
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
