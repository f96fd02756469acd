"""``examples/ppo_loop.py``, the training loop of one's own that ``docs/own-loop.md`` walks
through, runs on a small budget: it trains, writes a policy file the library seats and
evaluates it (issue 60, its item 1). Needs torch."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

from borders_sim.policies.network import load_policy, policy_meta  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "ppo_loop.py"


def test_the_example_loop_trains_exports_and_evaluates(tmp_path):
    out = tmp_path / "run"
    done = subprocess.run([sys.executable, str(EXAMPLE), "--updates", "2", "--num-envs", "8",
                           "--steps", "16", "--hidden", "16", "--eval-games", "4", "--out",
                           str(out)], capture_output=True, text=True, timeout=600,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("training 8 games x 16 steps an update")
    assert any(line.startswith("update 2: ") for line in lines)
    assert sum(line.startswith("against 3 ") for line in lines) == 4
    policy = load_policy(out / "policy.npz")
    meta = policy_meta(out / "policy.npz")
    assert policy.hidden == (16, 16) and meta["trained_by"] == "examples/ppo_loop.py"
    assert meta["algorithm"]["name"] == "exported" and meta["inputs"] == "scaled"


def test_the_docs_page_shows_the_example_and_the_five_points():
    page = (EXAMPLE.parents[1] / "docs" / "own-loop.md").read_text(encoding="utf-8")
    assert "```{literalinclude} ../examples/ppo_loop.py" in page
    code = EXAMPLE.read_text(encoding="utf-8")
    for n in range(1, 6):
        assert f"# ({n})" in code and f"\n{n}. **" in page
