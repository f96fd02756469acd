"""Kernels compiled when the package is built, shipped inside it and loaded without compiling.

Building the wheel (``pip install .``, :mod:`borders_sim.cli.build_kernels`) runs the warm-up
against the build's copy of the package and stores numba's cache files in ``_kernels/`` inside
the package, next to a manifest of what they were compiled for. An installed package loads its
kernels from there, even when site-packages is read-only, and compiles only what they do not
cover.

What makes that sound (numba 0.68, ``numba/core/caching.py``): numba keeps one index file per
function, stamped with numba's version (an index of another version is ignored) and a sha256 of
the source file's content (not its time stamp, so the copy installed from the wheel matches the
copy that was compiled), and keys each compiled version by its signature, the target (LLVM
triple, CPU name, CPU features) and the function's bytecode. Nothing in that depends on where
the files sit. numba's key does not cover everything, though, so the manifest adds the rest and
the whole shipped cache is ignored (never deleted: the install may be read-only) unless all of it
matches the importing process:

* ``digest``: the digest of every kernel source of the package and of the modules they import
  (:func:`~borders_sim._compile.cache.source_digest`): numba checks a kernel's own file only,
  while a kernel holds code from many files (the guard of :mod:`~borders_sim._compile.cache`
  covers the user's cache the same way);
* ``flags``: numba settings that change the code but not numba's key (``NUMBA_BOUNDSCHECK``,
  the optimisation level, vectorisation, debug info, ...), so that a run with
  ``NUMBA_BOUNDSCHECK=1`` never loads kernels compiled without bounds checks;
* ``numba`` and ``python``: reported when they differ (numba's own checks refuse such files);
* ``target``: the target the kernels were compiled for. A build for this machine (the default
  of :mod:`~borders_sim.cli.build_kernels`) matches a process that compiles for the same CPU name
  and features. A *portable* build for an x86-64 micro-architecture level (``x86-64-v2``,
  ``x86-64-v3``, ..., with no extra features) serves every process whose target has that
  level's features: its entries are looked up under the build's target instead of the
  process's own (machine code for a lower level runs on a higher one).

:class:`ShippedLocator` is the package's own numba cache locator for those files (a path inside
the installed package, whatever the install path); :class:`KernelCache` is the cache of every
``@kernel``: numba's usual cache first (``NUMBA_CACHE_DIR``, ``__pycache__``, the user-wide
cache: the only place it writes), then the shipped files, read only. The locator is not added to
numba's list of locators (``_CacheImpl._locator_classes``, or ``NUMBA_CACHE_LOCATOR_CLASSES``):
numba gives each function one locator for loading and saving alike, and a kernel the shipped
files do not cover would then be saved into the read-only package.

``BORDERS_SIM_SHIPPED_KERNELS=0`` ignores the shipped kernels (compile as without them).
"""

from __future__ import annotations

import contextlib
import inspect
import json
import os
import pickle
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numba
from numba.core import compiler, config
from numba.core.caching import (FunctionCache, IndexDataCacheFile, _CacheLocator,
                                 _hash_source_file)

from .symbols import unresolved_names

try:
    import fcntl
except ImportError:  # Windows: compilations are not coordinated between processes
    fcntl = None

#: The directory of the shipped cache inside the package, and its manifest.
SHIPPED_DIR = "_kernels"
MANIFEST = "manifest.json"
#: ``0`` (or ``false``, ``no``): do not load the shipped kernels.
SHIPPED_ENV = "BORDERS_SIM_SHIPPED_KERNELS"
#: Version of the manifest's layout.
FORMAT = 1

#: The x86-64 micro-architecture levels (the psABI's), by the names LLVM gives the CPUs and
#: their features: a portable build for a level runs on every CPU with these features.
X86_64_LEVELS: dict[str, tuple[str, ...]] = {
    "x86-64": (),
    "x86-64-v2": ("cx16", "popcnt", "sahf", "sse3", "sse4.1", "sse4.2", "ssse3"),
}
X86_64_LEVELS["x86-64-v3"] = X86_64_LEVELS["x86-64-v2"] + (
    "avx", "avx2", "bmi", "bmi2", "f16c", "fma", "lzcnt", "movbe", "xsave")
X86_64_LEVELS["x86-64-v4"] = X86_64_LEVELS["x86-64-v3"] + (
    "avx512bw", "avx512cd", "avx512dq", "avx512f", "avx512vl")

#: numba settings that change compiled code without being part of numba's cache key.
CODE_FLAGS = ("BOUNDSCHECK", "OPT", "LOOP_VECTORIZE", "SLP_VECTORIZE", "DISABLE_INTEL_SVML",
              "DEBUGINFO_DEFAULT", "EXTEND_VARIABLE_LIFETIMES", "LLVM_REFPRUNE_PASS",
              "LLVM_REFPRUNE_FLAGS")


def code_flags() -> dict[str, str]:
    """This process's values of :data:`CODE_FLAGS`, as strings."""
    return {name: str(getattr(config, name, None)) for name in CODE_FLAGS}


def python_tag() -> str:
    """The Python version and ABI flags that numba's cache file names carry."""
    return f"{sys.version_info[0]}.{sys.version_info[1]}{getattr(sys, 'abiflags', '')}"


def process_target() -> tuple[str, str, str]:
    """(LLVM triple, CPU name, CPU features) that numba compiles for in this process and keys
    its cache with (``NUMBA_CPU_NAME`` and ``NUMBA_CPU_FEATURES`` when set, else the host's)."""
    from numba.core.registry import cpu_target
    return tuple(cpu_target.target_context.codegen().magic_tuple())


def target_supports(process: tuple[str, str, str], built: tuple[str, str, str]) -> bool:
    """Whether machine code compiled for ``built`` may run in a process that compiles for
    ``process``: the same target, or a portable x86-64 level (no extra features) whose
    features the process's target has."""
    if tuple(process) == tuple(built):
        return True
    triple, cpu, features = built
    if triple != process[0] or features or cpu not in X86_64_LEVELS:
        return False
    have = {f[1:] for f in process[2].split(",") if f.startswith("+")}
    return set(X86_64_LEVELS[cpu]) <= have


def describe_target(target: tuple[str, str, str]) -> str:
    """A target in words: ``'CPU znver5'`` or ``'the portable level x86-64-v3'``."""
    if target[1] in X86_64_LEVELS and not target[2]:
        return f"the portable level {target[1]}"
    return f"CPU {target[1]}"


class Shipped:
    """The shipped cache of one package directory and whether this process may use it."""

    def __init__(self, package_dir: Path) -> None:
        self.root = package_dir / SHIPPED_DIR
        self.package_dir = package_dir
        try:
            self.manifest: dict | None = json.loads((self.root / MANIFEST).read_text())
        except (OSError, ValueError):
            self.manifest = None
        self._digest: str | None = None
        self._target: tuple[str, str, str] | None = None
        self._why_not: str | None = None  # computed by usable()

    def set_digest(self, digest: str) -> None:
        """The source digest of the installed package (computed once, at import)."""
        self._digest = digest

    @property
    def target(self) -> tuple[str, str, str] | None:
        """The target the shipped kernels were compiled for (None without a manifest)."""
        return tuple(self.manifest["target"]) if self.manifest else None

    def usable(self) -> bool:
        """Whether the shipped kernels may be loaded in this process (module docstring)."""
        if self._why_not is None:
            self._why_not = self._check()
        return self._why_not == ""

    def why_not(self) -> str:
        """Why the shipped kernels are not used, in words ('' if they are)."""
        self.usable()
        return self._why_not

    def _check(self) -> str:
        m = self.manifest
        if os.environ.get(SHIPPED_ENV, "").strip().lower() in ("0", "false", "no"):
            return f"{SHIPPED_ENV} is set"
        if m is None:
            return "this install has no precompiled kernels"
        if m.get("format") != FORMAT:
            return "the precompiled kernels are of another layout"
        if m["numba"] != numba.__version__:
            return f"the precompiled kernels are for numba {m['numba']}, not {numba.__version__}"
        if m["python"] != python_tag():
            return f"the precompiled kernels are for Python {m['python']}, not {python_tag()}"
        flags = code_flags()
        changed = sorted(k for k in CODE_FLAGS if m["flags"].get(k) != flags[k])
        if changed:
            return ("the precompiled kernels were compiled with other numba settings ("
                    + ", ".join(f"{k}={m['flags'].get(k)}, here {flags[k]}" for k in changed)
                    + ")")
        if self._digest is None or m["digest"] != self._digest:
            return "the package's sources differ from those the kernels were compiled from"
        here = process_target()
        if not target_supports(here, self.target):
            return (f"the precompiled kernels are for {describe_target(self.target)}, "
                    f"this process compiles for {describe_target(here)}")
        return ""

    def directory(self, source: Path) -> Path | None:
        """The shipped cache directory of the kernels of ``source`` (None outside the
        package)."""
        try:
            rel = Path(source).resolve().parent.relative_to(self.package_dir.resolve())
        except ValueError:
            return None
        return self.root / rel


#: The shipped cache of the installed package (set by :func:`configure`).
shipped: Shipped | None = None


def configure(package_dir: Path, digest: str) -> Shipped:
    """Find the shipped cache of ``package_dir`` (at import, before any kernel module)."""
    global shipped
    shipped = Shipped(package_dir)
    shipped.set_digest(digest)
    return shipped


class ShippedLocator(_CacheLocator):
    """The package's numba cache locator for its shipped kernels: the directory of
    :meth:`Shipped.directory` inside the installed package, with numba's own source stamp
    (a sha256 of the file's content) and disambiguator (the function's line number)."""

    def __init__(self, py_func: Any, py_file: str, where: Path) -> None:
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._where = where

    def ensure_cache_path(self) -> None:
        """Read only: the package's directory is never written."""

    def get_cache_path(self) -> str:
        return str(self._where)

    def get_source_stamp(self) -> Any:
        st = os.stat(self._py_file)  # numba's stamp, memoised per file as numba does
        return _hash_source_file(self._py_file, st.st_mtime, st.st_size)

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func: Any, py_file: str) -> "ShippedLocator | None":
        """The locator of ``py_func`` (defined in ``py_file``) if the package ships kernels
        this process may load and ``py_file`` is one of its files, else None."""
        if shipped is None or not shipped.usable():
            return None
        where = shipped.directory(Path(py_file))
        return cls(py_func, py_file, where) if where is not None and where.is_dir() else None


def _rebuild(target_context: Any, data: tuple | None) -> Any:
    """numba's ``CompileResult._rebuild`` of a cache entry (None: no entry), with two repairs
    for the standalone kernels (:mod:`borders_sim._compile.jit`):

    * the entry's load hooks (numba's ``reload_init``) are put back on the rebuilt library,
      which numba leaves without them, so that a kernel compiled later on top of it carries
      them into its own cache entry;
    * the machine code is loaded only if, once the hooks ran, every standalone kernel it calls
      by name is registered; otherwise the entry counts as missing and the kernel is compiled
      again (LLVM would abort the process on a name it cannot resolve)."""
    if data is None:
        return None
    reload_init = data[7]
    for hook in reload_init:
        hook()
    _name, _kind, (object_code, _bitcode) = data[0]
    if unresolved_names(object_code):
        return None
    cres = compiler.CompileResult._rebuild(target_context, *data)
    cres.library._reload_init.update(reload_init)
    return cres


class ReadableIndex(IndexDataCacheFile):
    """numba's cache index file, read as a miss (empty) when it cannot be unpickled, instead
    of failing the kernel's first call. numba pickles an index with the argument types, which
    name their modules (a kernel taking a ``NetStack`` names the module that defines it); an
    index written by another version of the package from the same place (a training run left
    going on one checkout while another commit is checked out) may name a module that no
    longer exists. numba checks the index's source stamp only after unpickling it; such an
    index is stale by that stamp anyway, and the next save overwrites it."""

    def _load_index(self) -> dict:
        try:
            return super()._load_index()
        except (ImportError, AttributeError, EOFError, pickle.UnpicklingError):
            return {}


class KernelCache(FunctionCache):
    """The numba cache of a ``@kernel``: numba's own (loads and saves, in the directory its
    locators choose), then the shipped kernels (loads only, under the shipped target), and a
    lock file beside numba's index serialising compilations of the function between
    processes (:meth:`compile_lock`)."""

    def __init__(self, py_func: Any) -> None:
        super().__init__(py_func)
        self._cache_file = ReadableIndex(self._cache_path, self._impl.filename_base,
                                         self._impl.locator.get_source_stamp())
        self._shipped_file: IndexDataCacheFile | None = None
        locator = ShippedLocator.from_function(py_func, inspect.getfile(py_func))
        if locator is not None:
            self._shipped_file = ReadableIndex(locator.get_cache_path(),
                                               self._impl.filename_base,
                                               locator.get_source_stamp())

    def _load_overload(self, sig: Any, target_context: Any) -> Any:
        """numba's cache lookup (called by ``load_overload``), then the shipped kernels."""
        if not self._enabled:
            return None
        key = self._index_key(sig, target_context.codegen())
        found = _rebuild(target_context, self._cache_file.load(key))
        if found is None and self._shipped_file is not None:
            found = _rebuild(target_context,
                             self._shipped_file.load((sig, shipped.target, key[2])))
        return found

    def has(self, sig: Any, target_context: Any) -> bool:
        """Whether :meth:`load_overload` would find ``sig`` (reads the indexes only)."""
        codegen = target_context.codegen()
        here = self._index_key(sig, codegen)
        if here in self._cache_file._load_index():
            return True
        return (self._shipped_file is not None
                and (sig, shipped.target, here[2]) in self._shipped_file._load_index())

    @contextlib.contextmanager
    def compile_lock(self) -> Iterator[None]:
        """Hold an exclusive lock on this function's lock file while compiling it, so that a
        process compiling a kernel that another process is compiling waits for it and then
        loads its result from the cache. Kernels call each other without recursion, so the
        locks one process holds, from a caller down to its callees, never wait on each
        other."""
        if fcntl is None:
            yield
            return
        try:
            self._impl.locator.ensure_cache_path()
            lock = open(Path(self._cache_path) / f"{self._impl.filename_base}.lock", "a+b")
        except OSError:  # nowhere to write: numba will not cache it either
            yield
            return
        with lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)
