"""Demonstration data (agents/demos.py): the recorded decisions are the games' own."""

from __future__ import annotations

import numpy as np
import pytest

from borders_sim import Game, GameConfig, cli
from borders_sim.agents.demos import load_shard, record_demos
from borders_sim.agents.lineup import make_spec
from borders_sim.batch.seeds import bot_seed
from borders_sim.game.views import observe
from borders_sim.rules.rewards import final_rewards_at, reward_mode

BOTS = ["honest", "bluffer", "collector", "random"]


def test_shards_hold_every_decision_of_the_recorded_seats(tmp_path):
    paths = record_demos(tmp_path, BOTS, 6, seed=40, seats=[1, 3], reward="margin",
                         shard_games=4)
    assert [p.name for p in paths] == ["shard-000000.npz", "shard-000001.npz"]
    data = [load_shard(p) for p in paths]
    meta = data[0]["meta"]
    assert meta["seats"] == [1, 3] and meta["reward"] == "margin" and meta["bots"] == BOTS
    game_ids = np.concatenate([d["game"] for d in data])
    assert sorted(set(game_ids.tolist())) == list(range(6))
    for g in range(6):
        d = data[g // 4]
        rows = d["game"] == g
        # replay game g through the Python loop: the recorded rows are its seat 1 and 3 turns
        game = Game(GameConfig(num_players=4), seed=40 + g)
        names = [BOTS[(p + g) % 4] for p in range(4)]
        bots = [make_spec(nm, bot_seed(40 + g, p)) for p, nm in enumerate(names)]
        want = []
        step = 0
        while not game.is_terminal:
            p = game.current_player
            obs, mask = observe(game, p), game.legal_mask()
            a = bots[p].act(obs, mask)
            if p in (1, 3):
                want.append((obs, mask.astype(bool), a, p, step))
            game.step(a)
            step += 1
        assert rows.sum() == len(want)
        for k, (obs, mask, a, p, s) in zip(np.flatnonzero(rows), want):
            assert np.array_equal(d["obs"][k], obs) and np.array_equal(d["mask"][k], mask)
            assert (d["action"][k], d["seat"][k], d["step"][k]) == (a, p, s)
            assert BOTS[d["bot"][k]] == names[p]
        final = np.zeros(8)
        final_rewards_at(game.state, 0, reward_mode("margin"), final)
        assert np.allclose(d["reward"][rows], final[d["seat"][rows]])


def test_only_compiled_bots_give_demonstrations(tmp_path):
    with pytest.raises(ValueError, match="compiled bots"):
        record_demos(tmp_path, ["ismcts", "honest", "honest"], 2)
    with pytest.raises(ValueError, match="seat"):
        record_demos(tmp_path, BOTS, 2, seats=[4])


def test_the_command_line(tmp_path, capsys):
    assert cli.main(["demos", "--bots", "honest,bluffer,collector", "--games", "3", "--seats",
                     "0", "--out", str(tmp_path), "--no-progress"]) == 0
    d = load_shard(tmp_path / "shard-000000.npz")
    assert (d["seat"] == 0).all() and len(d["action"]) > 0
    assert "decisions" in capsys.readouterr().out
