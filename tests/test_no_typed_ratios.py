"""No hand-typed speed ratio against a peer library (issue 59): in the README, the docs, the
notebook's text, the examples and every docstring and comment of the package and the
benchmarks, a ratio (``3.2x``, ``2.5 times as fast``) in the same paragraph as a peer's name
must sit in a generated section (``<!-- NAME:start -->``, made by a script of ``benchmarks/``
that stamps its commit: tests/test_freshness.py) or on a generated page. A comment that
justifies a local choice with its own measurement names no peer, so it stays."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PEER = re.compile(r"openspiel|pyspiel|sheriff|pettingzoo|\brllib\b|\bray\b|maskable|\bsb3\b|"
                  r"stable.baselines|rlcard|\bpgx\b|texas|hold.?em|tianshou|cleanrl|pufferlib|"
                  r"textarena|shimmy|\bpeers?\b", re.IGNORECASE)
RATIO = re.compile(r"\b\d+(?:\.\d+)?x\b|\b\d+(?:\.\d+)?(?:-\d+(?:\.\d+)?)? times (?:as|faster|"
                   r"slower)\b|\b\d+(?:\.\d+)?% (?:faster|slower)\b", re.IGNORECASE)
GENERATED = re.compile(r"<!-- ([a-z0-9-]+):start -->.*?<!-- \1:end -->", re.DOTALL)
#: Whole pages a benchmark writes (their stamp: tests/test_freshness.py).
GENERATED_PAGES = {"docs/performance.md"}
#: A ratio beside a peer's name that is not a speed comparison with it, and why.
NOT_A_COMPARISON = {
    ("benchmarks/run_all.py", "2x"): "the machine's drift within minutes, said of both sides",
}


def texts() -> dict[str, str]:
    """Each file's prose: markdown pages without their generated sections, the notebook's
    markdown cells, and Python files whole (their docstrings and comments are prose)."""
    out = {}
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        name = path.relative_to(ROOT).as_posix()
        if name not in GENERATED_PAGES:
            out[name] = GENERATED.sub("", path.read_text(encoding="utf-8"))
    for notebook in sorted((ROOT / "docs").glob("*.ipynb")) + sorted(ROOT.glob("examples/*.ipynb")):
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        out[notebook.relative_to(ROOT).as_posix()] = "\n\n".join(
            "".join(cell["source"]) for cell in cells if cell["cell_type"] == "markdown")
    for folder in ("borders_sim", "benchmarks", "examples"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            out[path.relative_to(ROOT).as_posix()] = path.read_text(encoding="utf-8")
    return out


def typed_ratios() -> list[str]:
    found = []
    for name, text in texts().items():
        for paragraph in re.split(r"\n\s*\n", text):
            if not PEER.search(paragraph):
                continue
            for match in RATIO.finditer(paragraph):
                if (name, match.group(0)) not in NOT_A_COMPARISON:
                    context = paragraph[max(0, match.start() - 80):match.end() + 40]
                    found.append(f"{name}: ...{' '.join(context.split())}...")
    return found


def test_no_ratio_against_a_peer_is_typed_by_hand():
    found = typed_ratios()
    assert not found, "hand-typed ratios beside a peer's name (generate them):\n" + "\n".join(found)


def test_the_check_finds_one(monkeypatch):
    monkeypatch.setattr(sys.modules[__name__], "texts",
                        lambda: {"docs/x.md": "We run 3.4x OpenSpiel's loop.\n\nAlone: 2x."})
    assert typed_ratios() == ["docs/x.md: ...We run 3.4x OpenSpiel's loop...."]
