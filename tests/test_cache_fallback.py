"""Where numba caches the kernels of a read-only install (borders_sim._compile.cache).

A copy of the package is installed into a directory that is really read-only for the child
processes (``chmod`` for an ordinary user; for root, whom ``chmod`` does not stop, a read-only
bind mount in a private mount namespace made by ``unshare``). Each case runs two fresh
processes that compile (the first) or load (the second) one small kernel of the package, and
checks where the cache files went and that the second process loaded them instead of compiling:

* the package's ``__pycache__`` is not writable: numba's user-wide cache under the home dir;
* the home is read-only too: the private fallback under the temporary directory, exported as
  ``NUMBA_CACHE_DIR``;
* a ``NUMBA_CACHE_DIR`` set by the user is used as it is.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import borders_sim
from borders_sim._compile.shipped import SHIPPED_DIR

pytestmark = pytest.mark.slow  # each case starts processes that compile kernels

PACKAGE = Path(borders_sim.__file__).parent
CHILD = """
import json
import borders_sim
from borders_sim._compile import cache as _kernel_cache
from borders_sim.batch.seeds import bot_seed, bot_seed_kernel
assert borders_sim.__file__.startswith({site!r}), borders_sim.__file__
bot_seed(7, 1)
stats = bot_seed_kernel.stats
print(json.dumps({{"location": _kernel_cache.location,
                  "misses": sum(stats.cache_misses.values()),
                  "hits": sum(stats.cache_hits.values())}}))
"""


def read_only_runner(tmp_path: Path, read_only: list[Path]):
    """A function running Python code in a child for which ``read_only`` dirs cannot be
    written; returns the child's JSON line."""
    as_root = os.geteuid() == 0
    if not as_root:
        for top in read_only:
            for path in [top, *top.rglob("*")]:
                path.chmod(path.stat().st_mode & ~0o222)

    def run(code: str, env: dict) -> dict:
        argv = [sys.executable, "-c", code]
        if as_root:
            mounts = " && ".join(f"mount --bind -o ro {shlex.quote(str(p))} {shlex.quote(str(p))}"
                                 for p in read_only)
            argv = ["unshare", "-m", "sh", "-c",
                    f"{mounts} && exec {' '.join(shlex.quote(a) for a in argv)}"]
        done = subprocess.run(argv, env=env, cwd=tmp_path, capture_output=True, text=True,
                              timeout=600)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.splitlines()[-1])
    return run


@pytest.fixture
def install(tmp_path):
    """A copy of the package in ``site`` (sources only: no cache, no shipped kernels), a home
    and a temporary dir."""
    site = tmp_path / "site"
    shutil.copytree(PACKAGE, site / "borders_sim",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", SHIPPED_DIR))
    for name in ("home", "tmp"):
        (tmp_path / name).mkdir()
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("NUMBA_") and k not in ("XDG_CACHE_HOME", "PYTHONPATH")}
    env.update(PYTHONPATH=str(site), HOME=str(tmp_path / "home"), TMPDIR=str(tmp_path / "tmp"),
               BORDERS_SIM_QUIET="1")
    yield tmp_path, site, env
    for path in [tmp_path, *tmp_path.rglob("*")]:  # let pytest clean up after chmod
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | 0o200)


def cache_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("seeds.*.nb[ic]"))


def compile_then_load(run, code: str, env: dict) -> tuple[dict, dict]:
    first, second = run(code, env), run(code, env)
    assert first["misses"] == 1 and first["hits"] == 0, first
    assert second["misses"] == 0 and second["hits"] == 1, second  # loaded, not compiled
    return first, second


def test_read_only_package_caches_in_the_user_wide_dir(install):
    tmp_path, site, env = install
    run = read_only_runner(tmp_path, [site])
    first, _ = compile_then_load(run, CHILD.format(site=str(site)), env)
    home_cache = tmp_path / "home" / ".cache" / "numba"
    assert first["location"].startswith(str(home_cache)), first
    assert cache_files(home_cache)
    assert not cache_files(site) and not cache_files(tmp_path / "tmp")


def test_read_only_package_and_home_fall_back_to_the_temporary_dir(install):
    tmp_path, site, env = install
    run = read_only_runner(tmp_path, [site, tmp_path / "home"])
    code = CHILD.format(site=str(site)) + (
        "import os; assert os.environ['NUMBA_CACHE_DIR'] == _kernel_cache.location\n")
    first, _ = compile_then_load(run, code, env)
    fallback = tmp_path / "tmp" / f"borders_sim-numba-{os.geteuid()}"
    assert first["location"] == str(fallback)
    assert cache_files(fallback)
    assert fallback.stat().st_mode & 0o077 == 0  # private to the user


def test_a_user_set_numba_cache_dir_is_respected(install):
    tmp_path, site, env = install
    run = read_only_runner(tmp_path, [site])
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "mine")
    first, _ = compile_then_load(run, CHILD.format(site=str(site)), env)
    assert first["location"] == str(tmp_path / "mine")
    assert cache_files(tmp_path / "mine")
    assert not cache_files(tmp_path / "home") and not cache_files(tmp_path / "tmp")

