"""Kernels shipped inside an installed package (``borders_sim._compile.shipped`` and ``.build``).

A copy of the package plays the installed package: a child process compiles a few kernels into
an empty ``NUMBA_CACHE_DIR`` and ships them into the copy's ``_kernels/`` (what the wheel's build
does after its warm-up), for a chosen target. Each case then runs a new process with a new empty
cache of its own and reads which kernels it compiled and which it loaded:

* the copy, read-only (package and home), loads every kernel from the package and compiles none;
* a process that compiles for another CPU than the build compiles again; a portable build (an
  x86-64 level) serves a process whose target has that level's features, and the baseline
  level serves every x86-64 target;
* an edit after the build, in a kernel's own file or in a module a kernel only imports,
  compiles again and gives the edited result (never the stale shipped kernel);
* ``NUMBA_BOUNDSCHECK=1`` and another numba version never load the shipped kernels; nothing
  shipped is ever deleted.

The kernels are the small ``bot_seed`` kernel and ``setup_kernel`` with ``scores`` (standalone
kernels, called by address: their shipped callers carry the hooks that load them first).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import borders_sim
from borders_sim._compile.shipped import MANIFEST, SHIPPED_DIR

from .test_cache_fallback import read_only_runner

pytestmark = pytest.mark.slow  # each case starts processes that compile kernels

PACKAGE = Path(borders_sim.__file__).parent
USE = """
import numpy as np
from borders_sim import GameConfig
from borders_sim.batch.seeds import bot_seed, bot_seed_kernel
from borders_sim.rules import scoring, setup
states = setup.new_state(GameConfig(num_players=4), 5)
out = np.zeros(8, dtype=np.int64)
scoring.scores_at(states, 0, out)
kernels = (bot_seed_kernel, setup.setup_kernel, scoring.scores_at, scoring.scores)
value = [bot_seed(7, 1), out.tolist()]
"""
SHIP = USE + """
import os
from pathlib import Path
import borders_sim
from borders_sim.cli.build_kernels import ship
ship(Path(borders_sim.__file__).parent, Path(os.environ["NUMBA_CACHE_DIR"]))
print("{}")
"""
PROBE = USE + """
import json
import borders_sim
from borders_sim._compile import shipped
assert borders_sim.__file__.startswith({site!r}), borders_sim.__file__
print(json.dumps({{"value": value, "why_not": shipped.shipped.why_not(),
                  "misses": sum(sum(k.stats.cache_misses.values()) for k in kernels),
                  "hits": sum(sum(k.stats.cache_hits.values()) for k in kernels)}}))
"""


def _env(tmp_path: Path, site: Path, **extra: str) -> dict:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("NUMBA_", "BORDERS_SIM_")) and k not in ("XDG_CACHE_HOME",
                                                                       "PYTHONPATH")}
    env.update(PYTHONPATH=str(site), HOME=str(tmp_path / "home"),
               TMPDIR=str(tmp_path / "tmp"), BORDERS_SIM_QUIET="1",
               BORDERS_SIM_COMPILE_JOBS="1", **extra)
    for name in ("home", "tmp"):
        (tmp_path / name).mkdir(parents=True, exist_ok=True)
    return env


def _run(code: str, env: dict, cwd: Path) -> dict:
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def _build(tmp_path: Path, **target: str) -> Path:
    """A copy of the package in ``tmp_path/site`` with the kernels of ``USE`` shipped, compiled
    with the numba settings ``target``."""
    site = tmp_path / "site"
    shutil.copytree(PACKAGE, site / "borders_sim",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", SHIPPED_DIR))
    _run(SHIP, _env(tmp_path, site, NUMBA_CACHE_DIR=str(tmp_path / "build-cache"), **target),
         tmp_path)
    assert (site / "borders_sim" / SHIPPED_DIR / MANIFEST).is_file()
    return site


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> list:
    """What the kernels give when compiled from these sources, here."""
    tmp = tmp_path_factory.mktemp("reference")
    site = tmp / "site"
    shutil.copytree(PACKAGE, site / "borders_sim",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", SHIPPED_DIR))
    return _run(PROBE.format(site=str(site)),
                _env(tmp, site, NUMBA_CACHE_DIR=str(tmp / "cache")), tmp)["value"]


@pytest.fixture(scope="module")
def native(tmp_path_factory) -> Path:
    """A package shipped for this machine's CPU (numba's default target)."""
    return _build(tmp_path_factory.mktemp("native"))


def _copy(site: Path, tmp_path: Path) -> Path:
    mine = tmp_path / "site"
    shutil.copytree(site, mine)
    return mine


def _probe(site: Path, tmp_path: Path, **extra: str) -> dict:
    env = _env(tmp_path, site, NUMBA_CACHE_DIR=str(tmp_path / "cache"), **extra)
    return _run(PROBE.format(site=str(site)), env, tmp_path)


def _shipped_files(site: Path) -> list[Path]:
    return sorted((site / "borders_sim" / SHIPPED_DIR).rglob("*.nb[ic]"))


def test_a_read_only_install_loads_its_kernels_without_compiling(native, reference, tmp_path):
    site = _copy(native, tmp_path)
    for name in ("home", "tmp"):
        (tmp_path / name).mkdir()
    run = read_only_runner(tmp_path, [site, tmp_path / "home"])
    env = _env(tmp_path, site)
    got = run(PROBE.format(site=str(site)), env)
    assert got["why_not"] == ""
    assert got["misses"] == 0 and got["hits"] == 4, got
    assert got["value"] == reference


@pytest.mark.parametrize("cpu", [{"NUMBA_CPU_NAME": "x86-64-v2", "NUMBA_CPU_FEATURES": ""},
                                 {"NUMBA_CPU_NAME": "generic"}])
def test_another_cpu_compiles_instead(native, reference, tmp_path, cpu):
    got = _probe(_copy(native, tmp_path), tmp_path, **cpu)
    assert "this process compiles for" in got["why_not"]
    assert got["misses"] == 4 and got["hits"] == 0, got
    assert got["value"] == reference


def test_a_portable_build_serves_a_cpu_with_its_features(reference, tmp_path):
    site = _build(tmp_path, NUMBA_CPU_NAME="x86-64-v3", NUMBA_CPU_FEATURES="")
    got = _probe(site, tmp_path)
    if got["why_not"].startswith("the precompiled kernels are for the portable level"):
        pytest.skip("this machine's CPU lacks the x86-64-v3 features")
    assert got["why_not"] == ""
    assert got["misses"] == 0 and got["hits"] == 4, got
    assert got["value"] == reference
    lower = _probe(site, tmp_path / "v2", NUMBA_CPU_NAME="x86-64-v2", NUMBA_CPU_FEATURES="")
    assert "this process compiles for" in lower["why_not"], lower
    assert lower["misses"] == 4 and lower["hits"] == 0 and lower["value"] == reference


def test_a_baseline_build_serves_every_x86_64_target(reference, tmp_path):
    site = _build(tmp_path, NUMBA_CPU_NAME="x86-64", NUMBA_CPU_FEATURES="")
    got = _probe(site, tmp_path, NUMBA_CPU_NAME="x86-64-v2", NUMBA_CPU_FEATURES="")
    assert got["why_not"] == ""
    assert got["misses"] == 0 and got["hits"] == 4, got
    assert got["value"] == reference


@pytest.mark.parametrize("edit", ["kernel", "import"])
def test_an_edit_after_the_build_compiles_the_edited_kernel(native, reference, tmp_path, edit):
    """The edit changes the kernel's result: a stale shipped kernel would give the old one.
    ``kernel``: bot_seed_kernel's own file (numba's stamp sees it); ``import``: the seed
    mixing of rules/rng.py, which bot_seed_kernel only imports (only the package's digest does)."""
    site = _copy(native, tmp_path)
    if edit == "kernel":
        path, old, new = ("batch/seeds.py", "mix_seed(np.uint64(seed), seat)",
                          "mix_seed(np.uint64(seed), seat + 1)")
    else:
        path, old, new = "rules/rng.py", "0x9E3779B97F4A7C15", "0x9E3779B97F4A7C17"
    source = site / "borders_sim" / path
    text = source.read_text()
    assert old in text
    source.write_text(text.replace(old, new, 1))
    before = _shipped_files(site)
    got = _probe(site, tmp_path)
    assert got["why_not"] == ("the package's sources differ from those the kernels were "
                              "compiled from")
    assert got["misses"] >= 1 and got["value"][0] != reference[0], got
    assert _shipped_files(site) == before  # the guard deletes nothing shipped


def test_boundscheck_never_loads_kernels_compiled_without_it(native, reference, tmp_path):
    got = _probe(_copy(native, tmp_path), tmp_path, NUMBA_BOUNDSCHECK="1")
    assert "BOUNDSCHECK=None, here 1" in got["why_not"]
    assert got["misses"] == 4 and got["hits"] == 0, got
    assert got["value"] == reference


def test_kernels_of_another_numba_version_are_not_loaded(native, reference, tmp_path):
    site = _copy(native, tmp_path)
    manifest = site / "borders_sim" / SHIPPED_DIR / MANIFEST
    m = json.loads(manifest.read_text())
    m["numba"] = "0.0.1"
    manifest.write_text(json.dumps(m))
    got = _probe(site, tmp_path)
    assert got["why_not"].startswith("the precompiled kernels are for numba 0.0.1")
    assert got["misses"] == 4 and got["value"] == reference
