"""The wheel build's kernel cache (``borders_sim.cli.build_kernels``): a second build of the same
sources for the same target copies the kernels of the first instead of compiling them again; an
edited source, another target or ``BORDERS_SIM_BUILD_CACHE=0`` compiles; the cache keeps the last
``KEEP`` builds.

The compilation itself (a child process running the whole warm-up, minutes) is replaced by a
stand-in that writes a manifest and one file into the package's ``_kernels/``, and counted.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import borders_sim
from borders_sim._compile.shipped import MANIFEST, SHIPPED_DIR
from borders_sim.cli import build_kernels

PACKAGE = Path(borders_sim.__file__).parent


@pytest.fixture
def package(tmp_path) -> Path:
    """A copy of the package's sources (the build's ``build/lib/borders_sim``)."""
    copy = tmp_path / "build" / "borders_sim"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns(SHIPPED_DIR, "__pycache__"))
    return copy


@pytest.fixture
def compiles(monkeypatch) -> list[Path]:
    """The package directories compiled, with the child process replaced by a stand-in."""
    done: list[Path] = []

    def child(argv, env, cwd, check):
        package_dir = Path(argv[-1])
        out = package_dir / SHIPPED_DIR
        out.mkdir()
        (out / MANIFEST).write_text(f'{{"build": {len(done)}}}\n')
        (out / "kernel.nbi").write_bytes(bytes([len(done)]))
        done.append(package_dir)

    monkeypatch.setattr(build_kernels.subprocess, "run", child)
    return done


def kernels(package: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((package / SHIPPED_DIR).iterdir())}


def test_a_second_build_of_the_same_sources_copies_the_first(package, compiles, tmp_path,
                                                             monkeypatch, capsys):
    monkeypatch.setenv(build_kernels.CACHE_ENV, str(tmp_path / "cache"))
    build_kernels.build(package, "native")
    first = kernels(package)
    shutil.rmtree(package / SHIPPED_DIR)
    build_kernels.build(package, "native")
    assert len(compiles) == 1
    assert kernels(package) == first
    assert "kernels copied from the build cache" in capsys.readouterr().err


def test_an_edited_source_or_another_target_compiles_again(package, compiles, tmp_path,
                                                           monkeypatch):
    monkeypatch.setenv(build_kernels.CACHE_ENV, str(tmp_path / "cache"))
    build_kernels.build(package, "native")
    shutil.rmtree(package / SHIPPED_DIR)
    build_kernels.build(package, "x86-64-v2")
    assert len(compiles) == 2
    engine = package / "rules" / "engine.py"
    engine.write_text(engine.read_text() + "\n# edited after the first build\n")
    shutil.rmtree(package / SHIPPED_DIR)
    build_kernels.build(package, "native")
    assert len(compiles) == 3
    assert kernels(package)[MANIFEST] == b'{"build": 2}\n'


def test_the_cache_can_be_turned_off(package, compiles, monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv(build_kernels.CACHE_ENV, "0")
    assert build_kernels.build_cache_dir() is None
    for _ in range(2):
        shutil.rmtree(package / SHIPPED_DIR, ignore_errors=True)
        build_kernels.build(package, "native")
    assert len(compiles) == 2
    assert not (tmp_path / "xdg").exists()
    monkeypatch.delenv(build_kernels.CACHE_ENV)
    assert build_kernels.build_cache_dir() == tmp_path / "xdg" / "borders_sim" / "wheel-kernels"


def test_the_cache_keeps_the_last_builds(package, compiles, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv(build_kernels.CACHE_ENV, str(cache))
    targets = ["native", "x86-64", "x86-64-v2", "x86-64-v3"]
    for target in targets:
        shutil.rmtree(package / SHIPPED_DIR, ignore_errors=True)
        build_kernels.build(package, target)
    kept = sorted(p.name for p in cache.iterdir())
    assert len(kept) == build_kernels.KEEP
    assert build_kernels.build_key(package, "native") not in kept
    assert build_kernels.build_key(package, "x86-64-v3") in kept


def test_an_unwritable_cache_only_costs_the_reuse(package, compiles, tmp_path, monkeypatch,
                                                  capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv(build_kernels.CACHE_ENV, str(blocker / "cache"))
    build_kernels.build(package, "native")
    assert (package / SHIPPED_DIR / MANIFEST).is_file()
    assert "could not be written" in capsys.readouterr().err
