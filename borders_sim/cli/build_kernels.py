"""Compile every kernel into a package directory, for the wheel: what ``pip install .`` runs.

``setup.py`` calls ``python -m borders_sim.cli.build_kernels PACKAGE_DIR`` on the build's copy of
the package (``build/lib/borders_sim``) once setuptools has copied it there. A child process,
with a new empty ``NUMBA_CACHE_DIR`` and the target's numba settings, imports that copy and runs
the warm-up (:func:`borders_sim.cli.warmup.warm_up`, in ``BORDERS_SIM_COMPILE_JOBS`` processes,
default the idle cores); then numba's cache files are copied into ``PACKAGE_DIR/_kernels/`` (one directory
per source directory, so nothing depends on where the package is built or installed) with the
manifest that :mod:`borders_sim._compile.shipped` checks before it loads any of them.

The target (``BORDERS_SIM_KERNEL_TARGET``):

* ``native`` (the default): the building machine's CPU (numba's default), for ``pip install .``
  on the machine that will run the package, or on machines with the same CPU; any other CPU
  compiles on first use as without precompiled kernels;
* ``portable``: the baseline x86-64 level :data:`PORTABLE` with no extra CPU features, which
  every x86-64 CPU loads, for a wheel published to serve every machine (docs/speed.md:
  the speed it costs); x86-64 only;
* an x86-64 level (``x86-64``, ``x86-64-v2``, ``x86-64-v3``, ``x86-64-v4``): loaded by every
  CPU with that level's features.

``BORDERS_SIM_BUILD_KERNELS=0`` skips the step (the package then compiles on first use, as a
source checkout does); editable installs skip it anyway.

A build keeps a copy of what it compiled in a per-user build cache (``BORDERS_SIM_BUILD_CACHE``,
default ``$XDG_CACHE_HOME/borders_sim/wheel-kernels`` or ``~/.cache/borders_sim/wheel-kernels``;
``0`` turns it off), under a key of everything the compiled code depends on: the digest of the
kernel sources, numba's and Python's versions, the target and the numba settings that change the
code. A later build of the same sources for the same target (``pip install ".[test]"`` after
``pip install .``) copies those files instead of compiling again; the manifest is checked on
import as for any build (:mod:`borders_sim._compile.shipped`). The last :data:`KEEP` builds
are kept.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_ENV = "BORDERS_SIM_KERNEL_TARGET"
SKIP_ENV = "BORDERS_SIM_BUILD_KERNELS"
CACHE_ENV = "BORDERS_SIM_BUILD_CACHE"
#: How many builds the build cache keeps (the most recently used).
KEEP = 3
#: The x86-64 level of a ``portable`` build.
PORTABLE = "x86-64"
PREFIX = "borders_sim build: "


def _say(line: str) -> None:
    print(PREFIX + line, file=sys.stderr, flush=True)


def target_settings(target: str) -> dict[str, str]:
    """numba's environment variables for ``target`` (module docstring); ``{}`` for native."""
    from .._compile.shipped import X86_64_LEVELS
    if target == "native":
        return {}
    if target == "portable":
        if platform.machine().lower() not in ("x86_64", "amd64"):
            raise ValueError(f"{TARGET_ENV}=portable is the baseline x86-64 level: this machine "
                             f"is {platform.machine()}; build with {TARGET_ENV}=native")
        target = PORTABLE
    if target not in X86_64_LEVELS:
        raise ValueError(f"{TARGET_ENV} must be 'native', 'portable' or one of "
                         f"{', '.join(X86_64_LEVELS)}; got {target!r}")
    return {"NUMBA_CPU_NAME": target, "NUMBA_CPU_FEATURES": ""}


def build_cache_dir() -> Path | None:
    """The build cache (module docstring); None when ``BORDERS_SIM_BUILD_CACHE=0``."""
    chosen = os.environ.get(CACHE_ENV, "").strip()
    if chosen.lower() in ("0", "false", "no"):
        return None
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "borders_sim" / "wheel-kernels"


def build_key(package_dir: Path, target: str) -> str:
    """The build cache's key of compiling ``package_dir`` for ``target`` in this environment:
    a digest of the sources, numba, Python, the target (with this machine's CPU for a native
    build) and the numba settings that change the code."""
    import numba

    from .._compile import cache, shipped
    what = {"format": shipped.FORMAT, "digest": cache.package_digest(package_dir),
            "numba": numba.__version__, "python": shipped.python_tag(), "target": target,
            "cpu": list(shipped.process_target()) if target == "native" else None,
            "flags": shipped.code_flags()}
    return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:32]


def _reuse(package_dir: Path, cached: Path) -> bool:
    """Copy a cached build's ``_kernels`` into ``package_dir``; False if there is none."""
    from .._compile import shipped
    if not (cached / shipped.MANIFEST).is_file():
        return False
    out = package_dir / shipped.SHIPPED_DIR
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(cached, out)
    os.utime(cached)  # most recently used
    return True


def _keep(package_dir: Path, cache_root: Path, key: str) -> None:
    """Store ``package_dir``'s ``_kernels`` under ``key`` and drop all but the last
    :data:`KEEP` builds; a cache that cannot be written is skipped with a note."""
    from .._compile import shipped
    try:
        cache_root.mkdir(parents=True, exist_ok=True)
        if (cache_root / key).exists():  # another build stored the same key meanwhile
            return
        tmp = Path(tempfile.mkdtemp(prefix=f".{key}-", dir=cache_root))
        shutil.copytree(package_dir / shipped.SHIPPED_DIR, tmp / "kernels")
        os.replace(tmp / "kernels", cache_root / key)
        shutil.rmtree(tmp, ignore_errors=True)
        builds = sorted((p for p in cache_root.iterdir() if not p.name.startswith(".")),
                        key=lambda p: p.stat().st_mtime, reverse=True)
        for old in builds[KEEP:]:
            shutil.rmtree(old, ignore_errors=True)
    except OSError as err:
        _say(f"the build cache {cache_root} could not be written ({err}); the next build "
             f"compiles again")


def build(package_dir: Path, target: str, jobs: int | None = None) -> float:
    """Compile the kernels of ``package_dir`` for ``target`` into its ``_kernels/``, or copy
    them from the build cache; returns the seconds it took. Runs the compilation in a child
    process (numba reads its settings when it starts)."""
    package_dir = package_dir.resolve()
    t0 = time.perf_counter()
    cache_root = build_cache_dir()
    key = build_key(package_dir, target) if cache_root is not None else ""
    if cache_root is not None and _reuse(package_dir, cache_root / key):
        _say(f"kernels copied from the build cache {cache_root / key} (a build of the same "
             f"sources for the same target; {CACHE_ENV}=0 compiles instead)")
        return time.perf_counter() - t0
    with tempfile.TemporaryDirectory(prefix="borders_sim-build-") as tmp:
        env = {k: v for k, v in os.environ.items()
               if k not in ("NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES")}
        env.update(target_settings(target))
        env.update({"NUMBA_CACHE_DIR": str(Path(tmp) / "cache"), "BORDERS_SIM_SHIPPED_KERNELS": "0",
                    "PYTHONPATH": os.pathsep.join(
                        [str(package_dir.parent)] + [p for p in env.get("PYTHONPATH", "").split(
                            os.pathsep) if p])})
        argv = [sys.executable, "-m", "borders_sim.cli.build_kernels", "--compile-here",
                str(package_dir)] + (["--jobs", str(jobs)] if jobs else [])
        # cwd: the build's copy is the first borders_sim on the path, not a source tree here
        subprocess.run(argv, env=env, cwd=str(package_dir.parent), check=True)
    if cache_root is not None:
        _keep(package_dir, cache_root, key)
    return time.perf_counter() - t0


def _compile_here(package_dir: Path, jobs: int | None) -> None:
    """The child of :func:`build`: warm up, then :func:`ship` what numba cached."""
    import borders_sim
    if Path(borders_sim.__file__).parent.resolve() != package_dir:
        raise RuntimeError(f"the build imported {borders_sim.__file__}, not the copy in "
                           f"{package_dir}")
    from .warmup import warm_up
    from .._compile import shipped
    from .._compile.parallel import default_jobs

    jobs = jobs or default_jobs()
    _say(f"compiling every kernel into the wheel, for "
         f"{shipped.describe_target(shipped.process_target())}, in {jobs} process(es) (about a "
         f"minute on 2 cores; BORDERS_SIM_BUILD_KERNELS=0 skips this) ...")
    warm_up(_say, jobs=jobs)
    files, size = ship(package_dir, Path(os.environ["NUMBA_CACHE_DIR"]))
    _say(f"{files} cache files ({size / 1e6:.1f} MB) in {package_dir / shipped.SHIPPED_DIR}")


def ship(package_dir: Path, numba_cache: Path) -> tuple[int, int]:
    """Copy the numba cache files of ``package_dir``'s kernels from ``numba_cache`` (the
    ``NUMBA_CACHE_DIR`` this process compiled them into) to ``package_dir/_kernels``, replacing
    what was there, and write the manifest for this process's numba, target and settings;
    returns the number of files and their bytes."""
    import numba
    from numba.core.caching import _CacheLocator

    from .._compile import cache, shipped
    out = package_dir / shipped.SHIPPED_DIR
    shutil.rmtree(out, ignore_errors=True)
    files = 0
    for source_dir in sorted({f.parent for f in cache.kernel_files(package_dir)}):
        compiled = numba_cache / _CacheLocator.get_suitable_cache_subpath(
            str(source_dir / "__init__.py"))
        dest = out / source_dir.relative_to(package_dir)
        for entry in sorted(compiled.glob("*")) if compiled.is_dir() else []:
            if entry.suffix in (".nbi", ".nbc"):
                dest.mkdir(parents=True, exist_ok=True)
                shutil.copy2(entry, dest / entry.name)
                files += 1
    if not files:
        raise RuntimeError(f"no compiled kernels of {package_dir} in {numba_cache}")
    out.mkdir(exist_ok=True)
    manifest = {"format": shipped.FORMAT, "numba": numba.__version__,
                "python": shipped.python_tag(), "target": list(shipped.process_target()),
                "flags": shipped.code_flags(), "digest": cache.package_digest(package_dir)}
    (out / shipped.MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n")
    return files, sum(p.stat().st_size for p in out.rglob("*") if p.is_file())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("package_dir", type=Path)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--compile-here", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.compile_here:
        _compile_here(args.package_dir.resolve(), args.jobs)
        return 0
    seconds = build(args.package_dir, os.environ.get(TARGET_ENV, "native"), args.jobs)
    _say(f"kernels ready in {seconds:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
