"""The shipped policy (``make("ppo")``): a small file in the package that plays without torch,
sampled by default and greedy as ``ppo:argmax``, the same games on both tournament paths."""

from __future__ import annotations

import subprocess
import sys

from borders_sim.policies.network import SHIPPED_WEIGHTS, load_policy, policy_meta


def test_the_shipped_weights_are_small_and_say_how_they_were_made():
    assert SHIPPED_WEIGHTS.stat().st_size <= 5 * 2**20
    meta = policy_meta(SHIPPED_WEIGHTS)
    for key in ("players", "seed", "updates", "learner_steps", "opponents"):
        assert key in meta, key
    assert load_policy(SHIPPED_WEIGHTS).hidden == tuple(meta["hidden"])


def test_the_shipped_policy_plays_a_game_without_torch():
    code = """
import sys
sys.modules["torch"] = None  # any import of torch now fails
from borders_sim import Game, GameConfig
from borders_sim.agents import make
from borders_sim.game.views import observe
game = Game(GameConfig(num_players=4), seed=3)
bots = [make("ppo")] + [make("honest", seed=p) for p in range(1, 4)]
while not game.is_terminal:
    p = game.current_player
    game.step(bots[p].act(observe(game, p), game.legal_mask()))
assert "torch" not in [m for m, v in sys.modules.items() if v is not None]
print(game.scores())
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("[")


def test_the_shipped_policy_plays_the_same_games_on_both_paths():
    from borders_sim.arena import run_tournament
    for spec in ("ppo", "ppo:argmax"):
        lineup = [spec, "honest", "bluffer", "collector"]
        first = run_tournament(4, lineup, 8, seed=77)
        again = run_tournament(4, lineup, 8, seed=77, path="python", threads=1)
        assert (first.scores == again.scores).all()
