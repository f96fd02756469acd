"""Every install line works from the source checkout, and says so from one place.

* :func:`borders_sim.install_hints.install_hint` gives ``pip install ".[EXTRA]"`` run in the
  source checkout (PyTorch's CPU build first for ``rl``); its table of extras is
  pyproject.toml's, and its torch pin is the README's.
* No text of the project asks pip for the package by name with an extra (borders_sim is not
  on PyPI), except as a direct reference ``NAME[extras] @ URL``, which pip installs.
* Every file of the package that is not Python (a page, the painter in JavaScript, the
  shipped policies) is declared in pyproject.toml's package data, so an installed wheel holds
  it.
* ``borders-sim tournament --help`` shows how to play a trained policy (``ppo@PATH``,
  ``ppo:argmax``, ``ppo:temp=T``).
* Each optional import, missing, fails with its install line: stable-baselines3
  (``borders_sim.envs.sb3``), OpenSpiel (``borders_sim.openspiel`` and its bots),
  matplotlib (``--plot``), Ray (``--backend ray``), PyTorch (``train``, ``exploit
  --exploiter``).
"""

from __future__ import annotations

import doctest
import importlib
import re
import sys
import tomllib
from pathlib import Path

import pytest

from borders_sim import cli
from borders_sim import install_hints
from borders_sim.install_hints import EXTRAS, TORCH_PIN, install_hint, needs

ROOT = Path(__file__).resolve().parents[1]
CHECKOUT = "in the borders_sim source checkout"


def test_install_hint_is_the_checkout_form():
    assert install_hint("plot") == \
        f'pip install ".[plot]" {CHECKOUT} (or pip install matplotlib)'
    assert install_hint("distributed") == \
        f'pip install ".[distributed]" {CHECKOUT} (or pip install ray)'
    assert install_hint("bench") == (f'pip install ".[bench]" {CHECKOUT} '
                                     '(or pip install "pettingzoo[classic]" open_spiel)')
    assert install_hint("bench", alone=("open_spiel",)) == \
        f'pip install ".[bench]" {CHECKOUT} (or pip install open_spiel)'
    # PyTorch's CPU build first, never left to the extra
    assert install_hint("rl") == (f'pip install torch==2.13.0 (the CPU build), then pip install '
                                  f'".[rl]" {CHECKOUT} (or pip install sb3-contrib)')
    assert install_hint("rl", alone=()) == \
        f'pip install torch==2.13.0 (the CPU build), then pip install ".[rl]" {CHECKOUT}'
    assert install_hint("rl", "plot").startswith(f"pip install {TORCH_PIN} (the CPU build), "
                                                 'then pip install ".[rl,plot]"')
    assert needs("--plot", "plot", "matplotlib") == \
        f"--plot needs matplotlib: {install_hint('plot')}"
    for bad in ((), ("gpu",), ("plot", "Plot")):
        with pytest.raises(ValueError, match="extra"):
            install_hint(*bad)
    assert doctest.testmod(install_hints).failed == 0


def test_the_extras_are_pyprojects_and_the_pin_the_readmes():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert {k: tuple(v) for k, v in project["optional-dependencies"].items()} == EXTRAS
    torch_spec = next(p for p in EXTRAS["rl"] if p.startswith("torch"))
    version = tuple(int(x) for x in TORCH_PIN.partition("==")[2].split("."))
    low, high = re.fullmatch(r"torch>=([\d.]+),<([\d.]+)", torch_spec).groups()
    assert tuple(map(int, low.split("."))) <= version < tuple(map(int, high.split(".")))
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"pip install {TORCH_PIN}" in readme
    assert set(re.findall(r"pip install (torch==[\d.]+)", readme)) == {TORCH_PIN}


def _texts():
    for top in ("README.md", "borders_sim", "benchmarks", "docs", "examples", "tests"):
        path = ROOT / top
        files = [path] if path.is_file() else sorted(
            p for p in path.rglob("*") if p.suffix in (".py", ".md", ".ipynb", ".toml", ".txt")
            and "__pycache__" not in p.parts)
        yield from files


#: What a checkout's package folder may hold beside its sources, made there and not shipped as
#: package data: Python's and numba's caches, extension modules, a wheel build's kernels
#: (``_kernels/``, which the build adds itself: borders_sim._compile.shipped).
MADE_HERE = ("__pycache__", ".pyc", ".pyo", ".nbi", ".nbc", ".so", "_kernels")


def test_every_data_file_of_the_package_is_package_data():
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
        "tool"]["setuptools"]["package-data"]
    package = ROOT / "borders_sim"
    data = [path.relative_to(ROOT) for path in package.rglob("*")
            if path.is_file() and path.suffix != ".py"
            and not any(part.endswith(MADE_HERE) for part in path.relative_to(ROOT).parts)]
    assert any(path.name == "paint.js" for path in data)  # the walk sees the data files
    for path in data:
        held = [(name, pattern) for name, patterns in declared.items() for pattern in patterns
                if path.is_relative_to(Path(*name.split(".")))
                and path.relative_to(Path(*name.split("."))).match(pattern)]
        assert held, f"{path} is not in pyproject.toml's [tool.setuptools.package-data]"


def test_no_install_by_the_package_name():
    """pip looks a name up on PyPI, where borders_sim is not: the only working form with the
    name is a direct reference, ``NAME[extras] @ URL`` (the notebook's, for a git address)."""
    by_name = re.compile(re.escape("borders-sim") + r"\[[^\]]*\](?!\s*@)")
    found = [f"{p.relative_to(ROOT)}:{n}: {line.strip()}"
             for p in _texts() for n, line in enumerate(
                 p.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
             if by_name.search(line)]
    assert not found, "install from the checkout (install_hint):\n" + "\n".join(found)


def test_tournament_help_shows_the_ppo_specs(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # argparse wraps at the terminal's width
    with pytest.raises(SystemExit) as stop:
        cli.main(["tournament", "--help"])
    assert stop.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    for spec in ("ppo@PATH", "ppo:argmax", "ppo:temp=T", "'borders-sim train' output directory"):
        assert spec in out
    assert install_hint("bench", alone=("open_spiel",)) in out  # OpenSpiel's bots
    assert install_hint("plot") in out and install_hint("distributed") in out


def _hide(monkeypatch, missing: str) -> None:
    """Make the package ``missing`` unimportable, its submodules too (until the test ends)."""
    for name in [m for m in sys.modules if m.startswith(missing + ".")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, missing, None)


def _import_fresh(monkeypatch, module: str, missing: str) -> ImportError:
    """Import ``module`` anew with ``missing`` unimportable; the error it raises."""
    _hide(monkeypatch, missing)
    monkeypatch.delitem(sys.modules, module, raising=False)
    with pytest.raises(ImportError) as caught:
        importlib.import_module(module)
    return caught.value


def test_sb3_without_the_rl_extra_says_how_to_install(monkeypatch):
    err = _import_fresh(monkeypatch, "borders_sim.envs.sb3", "stable_baselines3")
    assert isinstance(err, ModuleNotFoundError) and err.name == "stable_baselines3"
    assert str(err) == f"borders_sim.envs.sb3 (SB3VecEnv) needs stable_baselines3: " \
                       f"{install_hint('rl')}"


def test_openspiel_game_without_openspiel_says_how_to_install(monkeypatch):
    for name in [m for m in sys.modules if m.startswith("borders_sim.openspiel.")]:
        monkeypatch.delitem(sys.modules, name)
    err = _import_fresh(monkeypatch, "borders_sim.openspiel", "pyspiel")
    assert isinstance(err, ModuleNotFoundError) and err.name == "pyspiel"
    assert install_hint("bench", alone=("open_spiel",)) in str(err)


def test_matplotlib_and_ray_missing_say_how_to_install(monkeypatch):
    from borders_sim.arena.plot import require_matplotlib
    from borders_sim.arena.ray_backend import import_ray
    _hide(monkeypatch, "matplotlib")
    _hide(monkeypatch, "ray")
    with pytest.raises(RuntimeError) as caught:
        require_matplotlib()
    assert str(caught.value) == needs("--plot", "plot", "matplotlib")
    with pytest.raises(RuntimeError) as caught:
        import_ray()
    assert str(caught.value) == needs("the Ray backend", "distributed", "Ray")


def _error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    return err


def test_commands_without_torch_say_how_to_install(capsys, monkeypatch, tmp_path):
    torch_line = install_hint("rl", alone=())
    _hide(monkeypatch, "torch")
    assert cli.main(["train", "--out", str(tmp_path / "run"), "--no-progress"]) == 1
    assert f"error: training needs PyTorch: {torch_line}" in _error_line(capsys)
    assert cli.main(["exploit", "--exploiter", "--targets", "honest"]) == 1
    assert f"error: --exploiter (it trains a learner) needs PyTorch: {torch_line}" in \
        _error_line(capsys)


def test_train_plot_without_matplotlib_says_how_to_install(capsys, monkeypatch, tmp_path):
    pytest.importorskip("torch")
    _hide(monkeypatch, "matplotlib")
    assert cli.main(["train", "--out", str(tmp_path / "run"), "--plot", "--no-progress"]) == 1
    assert needs("--plot", "plot", "matplotlib") in _error_line(capsys)


def test_train_without_torch_or_matplotlib_says_how_to_install(monkeypatch, tmp_path):
    import borders_sim.train as training
    from borders_sim.train.plot import plot_curve
    _hide(monkeypatch, "torch")
    monkeypatch.delitem(sys.modules, "borders_sim.train.trainer", raising=False)
    monkeypatch.delattr(training, "trainer", raising=False)  # else `from . import` finds it
    with pytest.raises(ModuleNotFoundError) as caught:
        training.train
    assert str(caught.value) == needs("borders_sim.train.train", "rl", "PyTorch", alone=())
    _hide(monkeypatch, "matplotlib")
    with pytest.raises(ModuleNotFoundError) as caught:
        plot_curve([], tmp_path / "curve.png")
    assert str(caught.value) == needs("the learning curve's figure", "plot", "matplotlib")
