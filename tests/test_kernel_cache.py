"""The numba cache guard (borders_sim._compile.cache): an edit of any kernel file must clear the
cached kernels compiled from the old sources, since numba checks only a kernel's own file."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import borders_sim
from borders_sim._compile.cache import (STAMP, cache_dir, dependency_files, imported_files,
                                        kernel_files, sync_kernel_cache)

PACKAGE = Path(borders_sim.__file__).parent


def test_kernel_files_are_the_files_with_kernels():
    names = {p.name for p in kernel_files(PACKAGE)}
    assert {"engine.py", "piles.py", "rng.py", "observation.py", "games.py", "loop.py", "vector.py"} <= names
    assert "cli.py" not in names and "_kernel_cache.py" not in names


def _g_in_a_new_process(tmp_path: Path, module: str) -> str:
    """What ``g()`` of ``pkg.<module>`` prints in a new process that syncs the cache of
    ``tmp_path/pkg`` first (numba caching in ``tmp_path/cache``)."""
    run = textwrap.dedent(f"""
        import sys; from pathlib import Path
        sys.path.insert(0, {str(tmp_path)!r})
        from borders_sim._compile.cache import sync_kernel_cache
        sync_kernel_cache(Path({str(tmp_path / "pkg")!r}))
        from pkg.{module} import g
        print(g())""")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", run], env=env, capture_output=True, text=True)
    return done.stdout.strip() or done.stderr


@pytest.mark.slow
def test_an_edit_in_one_file_clears_the_cached_kernels_of_another(tmp_path):
    """A caller compiled against an old callee (another file) must not be loaded again."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "callee.py").write_text("from numba import njit\n@njit(cache=True)\ndef f():\n"
                                   "    return 1\n")
    (pkg / "caller.py").write_text("from numba import njit\nfrom pkg.callee import f\n"
                                   "@njit(cache=True)\ndef g():\n    return f()\n")
    assert _g_in_a_new_process(tmp_path, "caller") == "1"
    (pkg / "callee.py").write_text("from numba import njit\n@njit(cache=True)\ndef f():\n"
                                   "    return 2\n")
    assert _g_in_a_new_process(tmp_path, "caller") == "2"  # not the stale cached g


def test_an_unchanged_package_keeps_its_cache():
    sync_kernel_cache(PACKAGE)
    assert sync_kernel_cache(PACKAGE) == 0
    where = cache_dir(PACKAGE / "rules" / "engine.py")
    assert where is None or (where / STAMP).exists()


def test_the_digest_covers_the_modules_kernels_import():
    """Constants (actions.py, state.py) and intrinsics (rowcopy.py) are compiled into the
    kernels that import them, so their sources count as much as the kernels' own."""
    deps = {p.relative_to(PACKAGE).as_posix()
            for p in dependency_files(PACKAGE, kernel_files(PACKAGE))}
    assert {"rules/actions.py", "rules/state.py", "_compile/rowcopy.py", "_compile/jit.py",
            "rules/engine.py", "envs/vector.py"} <= deps


def test_import_statements_are_read_in_every_form(tmp_path):
    """The import scan (text, not a parse): relative and absolute, a parenthesised list over
    lines with a comment, ``import pkg.mod as m``, submodules named in a ``from`` list, an
    import inside a function; a docstring's example and other packages are not imports."""
    pkg = tmp_path / "pkg"
    for name in ("a", "b", "c", "d", "e", "f", "sub/g", "sub/h", "doc"):
        (pkg / name).parent.mkdir(parents=True, exist_ok=True)
        (pkg / f"{name}.py").write_text("X = 1\n")
    (pkg / "sub" / "__init__.py").write_text("")
    source = pkg / "sub" / "main.py"
    source.write_text(textwrap.dedent('''
        """Example: from ..doc import X"""
        import numpy as np
        from os import path
        from ..a import X
        from pkg.b import X as Y
        from .. import (c,  # a comment
                        d)
        import pkg.e as e
        from . import g
        def f():
            from .h import X
            return X
        from pkg import f
        '''))
    found = {p.relative_to(pkg).as_posix() for p in imported_files(source, pkg)}
    assert found == {"a.py", "b.py", "c.py", "d.py", "e.py", "f.py", "sub/g.py", "sub/h.py",
                     "sub/__init__.py"}


@pytest.mark.slow
def test_an_edit_of_an_imported_constant_clears_the_kernels_that_use_it(tmp_path):
    """A module without kernels, imported relatively from a subpackage: editing its constant
    must clear the cached kernel that folded the old value in."""
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "consts.py").write_text("N = 1\n")
    (pkg / "user.py").write_text("from numba import njit\nfrom .sub.consts import N\n"
                                 "@njit(cache=True)\ndef g():\n    return N\n")
    assert _g_in_a_new_process(tmp_path, "user") == "1"
    (pkg / "sub" / "consts.py").write_text("N = 2\n")
    assert _g_in_a_new_process(tmp_path, "user") == "2"  # not the stale cached g


def test_an_index_naming_a_module_that_is_gone_reads_as_a_miss(tmp_path):
    """numba pickles an index with its argument types' modules; an index written by another
    version of the package (a module since moved) is a miss, then overwritten, not a crash."""
    import pickle

    import numba

    from borders_sim._compile.shipped import ReadableIndex
    index = ReadableIndex(str(tmp_path), "kernels.f-10.py311", ("stamp", 1))
    with open(tmp_path / "kernels.f-10.py311.nbi", "wb") as f:
        pickle.dump(numba.__version__, f, protocol=-1)
        f.write(b"\x80\x04cborders_sim.no_such_module\nNetStack\n.")  # a global that is gone
    assert index.load(("sig",)) is None
    index.save(("sig",), b"kernel")
    assert ReadableIndex(str(tmp_path), "kernels.f-10.py311", ("stamp", 1)).load(("sig",)) \
        == b"kernel"
