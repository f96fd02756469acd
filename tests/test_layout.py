"""The layout's promises: bots, tournaments and the game API load without the environment
frameworks, and the training package loads without torch until it trains."""

from __future__ import annotations

import subprocess
import sys

import pytest


def modules_after(statement: str) -> set[str]:
    code = f"import sys\n{statement}\nprint(' '.join(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split())


@pytest.mark.parametrize("statement", [
    "import borders_sim.agents", "import borders_sim.arena", "import borders_sim.game",
    "import borders_sim.train", "import borders_sim.llm",
])
def test_agents_arena_and_game_import_no_env_framework(statement):
    loaded = modules_after(statement)
    assert not {"pettingzoo", "gymnasium"} & loaded
    assert "torch" not in loaded
