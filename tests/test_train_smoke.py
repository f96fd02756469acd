"""A smoke training run: a couple of minutes of the trainer against the heuristics must give a
policy that beats three ``honest`` bots on seeds the training never saw (the lower end of its
95% interval above a fair share of 25%). A fixed number of updates, not a time budget, so the
run is the same on any machine; nothing here is timed."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from borders_sim.arena import run_tournament  # noqa: E402
from borders_sim.train import TrainConfig, train  # noqa: E402
from borders_sim.train.trainer import EVAL_SEED  # noqa: E402

torch.set_num_threads(1)
GAMES = 400


@pytest.mark.slow
def test_a_short_run_beats_three_honest_bots(tmp_path):
    config = TrainConfig(opponents=("honest", "bluffer", "collector"), num_envs=64, steps=64,
                         max_updates=24, minutes=30.0, seed=2, eval_every=0, snapshots=0,
                         checkpoint_every=10**6)
    run = train(config, tmp_path, progress=False)
    assert run.updates == 24
    res = run_tournament(4, [f"ppo@{run.policy}", "honest", "honest", "honest"], GAMES,
                         seed=EVAL_SEED + 10**9)
    lo, hi = res.bots[0]["win_rate_ci95"]
    assert lo > 0.25, res.bots[0]
