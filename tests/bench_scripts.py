"""The scripts of ``benchmarks/`` as modules, for the tests that read what they generate."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def benchmark(name: str):
    """A script of ``benchmarks/`` as a module (they import their siblings by name)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "benchmarks" /
                                                  f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
