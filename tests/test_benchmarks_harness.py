"""Every script of ``benchmarks/`` shares one harness (``benchmarks/harness.py``): its options
``--quick`` (the smallest setting CI runs it at: ``.ci/run`` runs each once), ``--write-docs``
and ``--json`` under one name each, defined there only; no script edits ``sys.path`` or imports
a private module; and the harness applies ``--quick`` as documented."""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
#: freshness.py measures nothing: it checks the tables' commits, and CI runs it on the repository
#: before the copy, with no borders_sim installed (tests/test_freshness.py).
SCRIPTS = sorted(p for p in BENCHMARKS.glob("*.py")
                 if "__main__" in p.read_text("utf-8") and p.name != "freshness.py")
SHARED = re.compile(r'add_argument\(\s*"--(quick|json|write-docs|write-readme)"')


#: The scripts that measure nothing: zoo.py makes the zoo's policies (it runs their commands).
TOOLS = ("zoo.py",)


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_every_script_takes_its_shared_options_from_the_harness(script):
    text = script.read_text(encoding="utf-8")
    assert "add_shared(" in text and ("parse(parser" in text or "run(parser" in text), \
        f"{script.name}: no harness"
    assert not SHARED.search(text), f"{script.name} defines its own"


@pytest.mark.parametrize("script", [p for p in SCRIPTS if p.name not in TOOLS],
                         ids=lambda p: p.name)
def test_every_benchmark_is_a_function_that_measures_and_one_that_renders(script):
    """``measure(args) -> figures`` and ``render(figures, args) -> text``, run by the
    harness's ``run`` (which prints, writes the docs and the JSON): a run's figures are data
    (``--json`` keeps them), its text is made from them alone."""
    tree = ast.parse(script.read_text(encoding="utf-8"))
    functions = {node.name: [a.arg for a in node.args.args] for node in tree.body
                 if isinstance(node, ast.FunctionDef)}
    assert functions.get("measure") == ["args"], f"{script.name}: measure(args)"
    assert functions.get("render", [])[:2] in (["figures", "args"], ["data", "args"],
                                               ["out", "args"]), f"{script.name}: render"
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Name) and node.func.id == "run"]
    assert calls and all([ast.unparse(a) for a in c.args[1:3]] == ["measure", "render"]
                         for c in calls), \
        f"{script.name}: run(parser, measure, render, ...)"
    imported = {alias.name for node in tree.body if isinstance(node, ast.ImportFrom)
                and node.module == "harness" for alias in node.names}
    assert "run" in imported and "replace_section" not in imported, script.name


def test_run_prints_the_rendered_text_and_writes_the_json(tmp_path, capsys):
    h = harness()
    figures = h.run(parser_with_quick(), lambda args: {"games": args.games},
                    lambda figures, args: f"{figures['games']} games",
                    ["--quick", "--json", str(tmp_path / "f.json")])
    assert figures == {"games": 20} and capsys.readouterr().out.startswith("20 games\n")
    assert json.loads((tmp_path / "f.json").read_text()) == {"games": 20}
    with pytest.raises(SystemExit):  # no section named, nothing to write into
        h.run(parser_with_quick(), lambda args: {}, lambda figures, args: "x",
              ["--write-docs"])


@pytest.mark.parametrize("script", sorted(BENCHMARKS.glob("*.py")), ids=lambda p: p.name)
def test_no_script_edits_sys_path_or_imports_a_private_module(script):
    tree = ast.parse(script.read_text(encoding="utf-8"))
    for node in tree.body:  # the script's own process (a child's code in a string may)
        text = ast.unparse(node)
        assert "sys.path" not in text, f"{script.name}: {text[:80]}"
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module != "__future__":
            assert not any(part.startswith("_") for part in node.module.split(".")), \
                f"{script.name} imports {node.module}"


def test_ci_runs_every_script_at_its_quick_setting():
    ci = (BENCHMARKS.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert 'for script in benchmarks/*.py' in ci and 'python "$script" --quick' in ci
    assert "python benchmarks/run_all.py --quick" in ci


def harness():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import harness
    finally:
        sys.path.remove(str(BENCHMARKS))
    return harness


def parser_with_quick() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="x")
    parser.add_argument("--games", type=int, default=1000)
    harness().add_shared(parser, quick={"games": 20}, docs="write the docs", json=True)
    return parser


def test_quick_sets_the_small_values_and_only_under_the_flag():
    h = harness()
    assert h.parse(parser_with_quick(), ["--games", "7"]).games == 7
    assert h.parse(parser_with_quick(), ["--quick", "--games", "7"]).games == 20
    assert "--games 20" in parser_with_quick().format_help()
    args = h.parse(parser_with_quick(), ["--json", "x.json"])
    assert args.json == Path("x.json") and args.write_docs is False


def test_quick_refuses_to_write_the_docs(capsys):
    with pytest.raises(SystemExit):
        harness().parse(parser_with_quick(), ["--quick", "--write-docs"])
    assert "smoke run" in capsys.readouterr().err


def test_a_script_without_docs_or_json_has_neither_option():
    parser = argparse.ArgumentParser(prog="x")
    harness().add_shared(parser)
    args = harness().parse(parser, [])
    assert args.write_docs is False and args.json is None
    with pytest.raises(SystemExit):
        parser.parse_args(["--write-docs"])
