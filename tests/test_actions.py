"""The action space (P-0.1): one definition, documented from the code; ids
and strings that are not actions are refused with the one ``IllegalActionError``."""

from __future__ import annotations

import numpy as np
import pytest

from borders_sim import Game, GameConfig, IllegalActionError
from borders_sim.rules import actions as act
from borders_sim.rules.config import DEFAULT_GOLD_MENU


def test_docstring_table_is_generated_from_the_ranges():
    assert act.ranges_table() in act.__doc__


def test_ranges_tile_the_space():
    assert sum(size for _name, size, _phase, _meaning in act.RANGES) == act.NUM_ACTIONS
    assert act.A_RAID == 0 and act.A_OPEN_AND_VOID + 1 == act.NUM_ACTIONS


@pytest.mark.parametrize("menu", [DEFAULT_GOLD_MENU, (1, 3, 9)])
def test_every_id_has_a_unique_string_that_reads_back(menu):
    names = [act.action_to_string(a, menu) for a in range(act.NUM_ACTIONS)]
    assert len(set(names)) == act.NUM_ACTIONS
    for a, name in enumerate(names):
        assert act.string_to_action(name, menu) == a
        assert act.string_to_action(name.upper(), menu) == a


def test_issue_examples():
    game = Game(GameConfig(num_players=4))
    assert game.string_to_action("announce coffee") == act.A_ANNOUNCE + 1
    assert game.string_to_action("offer gold 5 to A") == act.A_OFFER_GOLD + 4
    assert game.action_to_string(act.A_OPEN) == "open"
    with pytest.raises(ValueError, match="unknown action string"):
        game.string_to_action("open the crate please")
    with pytest.raises(ValueError, match="outside the action space"):
        game.action_to_string(act.NUM_ACTIONS)


NOT_IDS = ["9", 9.99, 9.0, True, np.bool_(False), None, [9], -1, act.NUM_ACTIONS, 2**70, -2**70]


@pytest.mark.parametrize("bad", NOT_IDS, ids=repr)
def test_action_to_string_refuses_what_is_not_an_id_as_step_does(bad):
    """Not reduced to an id (``int('9')``, ``int(9.99)``, ``int(True)``): refused with the one
    IllegalActionError (a ValueError) that ``Game.step`` raises too."""
    game = Game(GameConfig(num_players=4), seed=0)
    for call in (lambda: act.action_to_string(bad, DEFAULT_GOLD_MENU),
                 lambda: game.action_to_string(bad), lambda: game.step(bad)):
        with pytest.raises(IllegalActionError) as err:
            call()
        assert isinstance(err.value, ValueError)
    assert act.action_to_string(np.int16(9), DEFAULT_GOLD_MENU) == "window pass"


@pytest.mark.parametrize("bad", [5, None, b"pass", ["pass"], "fly"], ids=repr)
def test_string_to_action_refuses_what_is_not_an_action_string(bad):
    with pytest.raises(IllegalActionError, match=r"action string"):
        act.string_to_action(bad, DEFAULT_GOLD_MENU)


def test_one_illegal_action_error_everywhere():
    import borders_sim
    from borders_sim import game as game_package
    from borders_sim.game import game as game_module
    assert borders_sim.IllegalActionError is game_package.IllegalActionError \
        is game_module.IllegalActionError is act.IllegalActionError is IllegalActionError
