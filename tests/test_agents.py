"""Bots (issue 8): the registry, and compiled twins that play exactly like the Python bots."""

from __future__ import annotations

import numpy as np
import pytest

from borders_sim import Game, GameConfig
from borders_sim.agents import COMPILED_BOTS, make
from borders_sim.agents.play import bot_seed, play_bot_games
from borders_sim.envs import observe
from borders_sim.rules.invariants import check
from borders_sim.rules.rollout import make_batch


def play_python(config, seed, names):
    game = Game(config, seed=seed)
    bots = [make(names[p], bot_seed(seed, p)) for p in range(config.num_players)]
    while not game.is_terminal:
        p = game.current_player
        game.step(bots[p].act(observe(game, p), game.legal_mask()))
    return game


@pytest.mark.parametrize("n", range(3, 9))
@pytest.mark.parametrize("name", COMPILED_BOTS)
def test_compiled_twins_take_the_python_bots_actions(n, name):
    config = GameConfig(num_players=n, action_cards=n % 2 == 0)
    states, _ = make_batch(config, 7, 2)
    kinds = np.full((2, 8), COMPILED_BOTS.index(name), dtype=np.int64)
    steps = np.zeros(2, dtype=np.int64)
    play_bot_games(states, kinds, np.arange(7, 9, dtype=np.int64), 10**9, steps)
    for g in range(2):
        game = play_python(config, 7 + g, [name] * n)
        assert game.state[0].tobytes() == states[g].tobytes()
        assert not check(states[g])


def test_make_refuses_unknown_names_and_bad_masks():
    with pytest.raises(ValueError, match="unknown bot 'nobody'; known bots"):
        make("nobody")
    bot = make("random", seed=3)
    with pytest.raises(ValueError, match="expected an observation"):
        bot.act(np.zeros(5), np.zeros(5))
    game = Game(GameConfig(), seed=1)
    with pytest.raises(ValueError, match="allows no action"):
        bot.act(observe(game, 0), np.zeros_like(game.legal_mask()))
    assert bot.act(observe(game, game.current_player), game.legal_mask()) in game.legal_actions()
