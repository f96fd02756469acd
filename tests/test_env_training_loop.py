"""``TrainingEnv`` as a loop of one's own meets it (issue 60): its defaults are the trainer's,
every ``infos`` key is there on every step with Gymnasium's ``_key`` masks, and in the default
``next_step`` mode ``infos["autoreset"]`` marks the rows whose next action is ignored."""

from __future__ import annotations

import numpy as np
import pytest

from borders_sim.envs.training import DEFAULT_OPPONENTS, NO_SEAT, TrainingEnv
from borders_sim.train.config import TrainConfig
from borders_sim.train.league import LEAGUE_BOTS

POOL = ("honest", "bluffer", "collector")


def test_the_defaults_are_the_trainers():
    env = TrainingEnv(2)
    trainer = TrainConfig()
    assert env.opponents == DEFAULT_OPPONENTS == LEAGUE_BOTS and trainer.opponents == ("league",)
    assert env.mixed == trainer.mixed and env.dense == trainer.dense
    assert env.reward == trainer.reward and env.scale_obs


def _random_actions(rng, masks):
    return (masks + rng.random(masks.shape)).argmax(axis=1)


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_every_info_key_is_there_on_every_step(mode):
    env = TrainingEnv(6, opponents=POOL, seed=5, autoreset_mode=mode)
    _, infos = env.reset()
    keys = set(infos)
    assert {"outcome", "_outcome", "ended_members", "_ended_members"} <= keys
    assert ("autoreset" in keys) == (mode == "next_step")
    assert ("final_obs" in keys and "_final_obs" in keys) == (mode == "same_step")
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(1500):
        _, _, terms, _, infos = env.step(_random_actions(rng, infos["action_mask"]))
        assert set(infos) == keys
        assert np.array_equal(infos["_outcome"], terms)
        assert np.array_equal(infos["_ended_members"], terms)
        rest = ~terms
        assert np.all(infos["outcome"][rest] == 0)
        assert np.all(infos["ended_members"][rest] == NO_SEAT)
        ended += int(terms.sum())
        for k in np.flatnonzero(terms):
            assert 0.0 <= infos["outcome"][k, 2] <= 1.0
    assert ended >= 6


def test_the_autoreset_flag_marks_the_step_whose_action_is_ignored():
    env = TrainingEnv(4, opponents=POOL, seed=2)
    _, infos = env.reset()
    assert not infos["autoreset"].any()
    rng = np.random.default_rng(1)
    marked = 0
    for _ in range(1500):
        flagged = infos["autoreset"].copy()
        _, rewards, terms, _, infos = env.step(_random_actions(rng, infos["action_mask"]))
        assert np.all(rewards[flagged] == 0) and not terms[flagged].any()  # no part of a game
        assert np.array_equal(infos["autoreset"], terms)
        marked += int(flagged.sum())
    assert marked >= 4
