"""The citation file and the licence agree with the package they describe."""

from __future__ import annotations

import re
from pathlib import Path

import borders_sim

ROOT = Path(__file__).resolve().parents[1]


def test_the_citation_names_the_package_version_and_licence():
    text = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert re.search(r"^cff-version: 1\.2\.0$", text, re.M)
    assert re.search(rf"^version: {re.escape(borders_sim.__version__)}$", text, re.M)
    assert re.search(r"^license: Apache-2\.0$", text, re.M)
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'license = "Apache-2.0"' in pyproject
    assert "Apache License" in (ROOT / "LICENSE").read_text(encoding="utf-8")
