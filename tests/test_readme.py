"""The examples of the README and of the documentation pages run as written: every ```python
block of README.md and of ``docs/*.md`` (the pages' ``{code-cell}`` blocks run in the site's
build, and ``docs/borders_v0.md``'s example is the generated page's)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
FILES = [README, *sorted((ROOT / "docs").glob("*.md"))]


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", path.read_text(encoding="utf-8"), re.S | re.M)


def test_the_readme_has_its_example():
    assert python_blocks(README)


@pytest.mark.parametrize("path", [p for p in FILES if python_blocks(p)],
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_python_examples_run(path):
    for code in python_blocks(path):
        exec(compile(code, str(path), "exec"), {})
