"""Forced moves (P-0.3): with ``skip_forced`` the engine applies a decision that has a single
legal action itself, and a game plays exactly as it would if every such decision were asked and
answered with that action.

The engine finds most forced moves before building a mask (the seek functions of the bounty,
offer, crate-choice and collection turns test for them and apply the one action), so this file
checks the shortcut against the long way: the same deal and the same random choices at the real
decisions, once with ``skip_forced=True`` and once with ``skip_forced=False`` and the driver
applying every single-action decision, must reach the same final state."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

from borders_sim import Game, GameConfig
from borders_sim.rules.state import CFG_SKIP_FORCED
from tests.test_properties import FLAG_SETS, examples

#: The flag sets of the property tests that leave ``skip_forced`` to the test.
FLAGS = [f for f in FLAG_SETS if "skip_forced" not in f] + [
    {"crate_order": "announcement", "first_inspector": "random", "lawyer_goods": "player_choice"}]


def play(config: GameConfig, seed: int, policy_seed: int) -> tuple[np.ndarray, int, int]:
    """The final state of one game, its decisions with more than one legal action, and the
    single-action decisions the driver answered (0 with ``skip_forced``)."""
    game = Game(config, seed=seed)
    rng = random.Random(policy_seed)
    choices = forced = 0
    while not game.is_terminal:
        legal = game.legal_actions()
        if len(legal) == 1:
            forced += 1
            game.step(legal[0])
        else:
            choices += 1
            game.step(rng.choice(legal))
    return game.state.copy(), choices, forced


def same_game(n: int, flags: dict, seed: int) -> None:
    skip, choices, forced = play(GameConfig(num_players=n, skip_forced=True, **flags), seed, seed)
    asked, choices_asked, forced_asked = play(GameConfig(num_players=n, skip_forced=False,
                                                         **flags), seed, seed)
    assert forced == 0
    assert choices == choices_asked
    assert skip["steps"][0] == choices and asked["steps"][0] == choices + forced_asked
    for state in (skip, asked):  # the two differences the flag itself makes
        state["steps"] = 0
        state["cfg"][0][CFG_SKIP_FORCED] = 0
    for name in skip.dtype.names:
        assert np.array_equal(skip[name], asked[name]), name


@pytest.mark.parametrize("n", range(3, 9))
@pytest.mark.parametrize("flags", FLAGS, ids=lambda f: ",".join(f) or "rulebook")
def test_skipping_forced_moves_plays_the_same_game(n, flags):
    same_game(n, flags, seed=1000 * n + len(flags))


@settings(max_examples=examples(30), deadline=None)
@given(n=hst.integers(3, 8), flags=hst.sampled_from(FLAGS), seed=hst.integers(0, 2**32))
def test_skipping_forced_moves_plays_the_same_game_any_seed(n, flags, seed):
    same_game(n, flags, seed)
