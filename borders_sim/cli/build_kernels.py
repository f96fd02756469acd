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
  every x86-64 CPU loads, for a wheel published to serve every machine (README, Performance:
  the speed it costs); x86-64 only;
* an x86-64 level (``x86-64``, ``x86-64-v2``, ``x86-64-v3``, ``x86-64-v4``): loaded by every
  CPU with that level's features.

``BORDERS_SIM_BUILD_KERNELS=0`` skips the step (the package then compiles on first use, as a
source checkout does); editable installs skip it anyway.
"""

from __future__ import annotations

import argparse
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


def build(package_dir: Path, target: str, jobs: int | None = None) -> float:
    """Compile the kernels of ``package_dir`` for ``target`` into its ``_kernels/``; returns
    the seconds it took. Runs the compilation in a child process (numba reads its settings
    when it starts)."""
    package_dir = package_dir.resolve()
    t0 = time.perf_counter()
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
    _say(f"kernels compiled in {seconds:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
