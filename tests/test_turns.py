"""The one Python game loop (borders_sim.game.turns.play_turns)."""

from __future__ import annotations

import numpy as np
import pytest

from borders_sim import Game, GameConfig
from borders_sim.agents import make
from borders_sim.game.turns import GameTooLong, IllegalChoice, play_turns


def first_legal(observation, mask):
    return int(np.flatnonzero(mask)[0])


def test_the_loop_stops_at_a_seat_without_a_player_and_at_the_end():
    game = Game(GameConfig(num_players=3), 4)
    seen = []
    seats = [None, first_legal, make("honest", 1).act]
    p = play_turns(game, seats, on_step=lambda p, a: seen.append(p))
    assert p == 0 and game.current_player == 0 and 0 not in seen
    steps = len(seen)
    while p is not None:
        game.step(game.legal_actions()[-1])
        p = play_turns(game, seats, on_step=lambda p, a: seen.append(p))
    assert game.is_terminal and len(seen) > steps


@pytest.mark.parametrize("choice", [-1, 10**6, "pass", 1.0, None])
def test_a_choice_that_is_not_a_legal_id_is_refused_and_nothing_changes(choice):
    game = Game(GameConfig(num_players=3), 0)
    before = game.state.tobytes()
    with pytest.raises(IllegalChoice, match=r"seat p\d returned .* not a legal action") as e:
        play_turns(game, [lambda o, m: choice] * 3)
    assert e.value.seat == game.current_player and game.state.tobytes() == before


def test_the_cap_on_decisions_is_an_error():
    game = Game(GameConfig(num_players=3), 0)
    with pytest.raises(GameTooLong, match="did not end within max_game_length = 5"):
        play_turns(game, [first_legal] * 3, max_steps=5)
