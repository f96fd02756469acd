"""Seeded games pinned byte for byte: an optimisation of the kernels or of
:meth:`borders_sim.Game.step` that changes any game fails here. See :mod:`tests.pinned_games`
for the games and for how to regenerate the fixture when a change is meant to change games."""

from __future__ import annotations

import json

import pytest

from tests.pinned_games import CONFIGS, FIXTURE, POLICIES, cases, record

PINNED = json.loads(FIXTURE.read_text())


def test_the_fixture_pins_every_case():
    assert sorted(PINNED) == sorted(f"{c}/{p}" for c, p in cases())


@pytest.mark.parametrize("config_name", CONFIGS)
def test_pinned_games_are_unchanged(config_name):
    """Kernels and the Game.step loop agree, and both play the pinned games."""
    for policy in POLICIES:
        assert record(config_name, policy) == PINNED[f"{config_name}/{policy}"], policy
