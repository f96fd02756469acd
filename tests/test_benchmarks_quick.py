"""Every script of ``benchmarks/`` has ``--quick``, the smallest setting CI runs it at
(``.ci/run`` runs each once), and ``benchmarks/quick.py`` applies it as documented."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
#: freshness.py measures nothing: it checks the tables' commits, and CI runs it on the repository
#: before the copy (tests/test_freshness.py).
SCRIPTS = sorted(p for p in BENCHMARKS.glob("*.py")
                 if "__main__" in p.read_text("utf-8") and p.name != "freshness.py")


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_every_script_has_a_quick_setting(script):
    text = script.read_text(encoding="utf-8")
    assert "add_quick(" in text or '"--quick"' in text, f"{script.name} has no --quick"


def test_ci_runs_every_script_at_its_quick_setting():
    ci = (BENCHMARKS.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert 'for script in benchmarks/*.py' in ci and 'python "$script" --quick' in ci
    assert "python benchmarks/run_all.py --quick" in ci


def quick_module():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import quick
    finally:
        sys.path.remove(str(BENCHMARKS))
    return quick


def parser_with_quick() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="x")
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--write-readme", action="store_true")
    quick_module().add_quick(parser, games=20)
    return parser


def test_quick_sets_the_small_values_and_only_under_the_flag():
    quick = quick_module()
    assert quick.parse_quick(parser_with_quick(), ["--games", "7"]).games == 7
    assert quick.parse_quick(parser_with_quick(), ["--quick", "--games", "7"]).games == 20
    assert "--games 20" in parser_with_quick().format_help()


def test_quick_refuses_to_write_the_readme(capsys):
    with pytest.raises(SystemExit):
        quick_module().parse_quick(parser_with_quick(), ["--quick", "--write-readme"])
    assert "smoke run" in capsys.readouterr().err
