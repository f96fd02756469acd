"""The painter in JavaScript (borders_sim/game/drawing/paint.js, which a replay page paints its
scenes with) against the painter in Python (paint.py), in headless Chromium (tests/browser.py):
every picture of recorded games, every view and step, is the same string, and so is every view
of random positions (random moves under each rules variant, hypothesis); so are Python's ways
that JavaScript spells otherwise (rounding to one decimal with ties to even, ``repr`` of a
string, the escapes of text), pushed to their edges."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

from borders_sim import Game, GameConfig
from borders_sim.arena.records import read_trace
from borders_sim.arena.viewer.steps import walk
from borders_sim.game.drawing import game_scene, paint, painter_script
from borders_sim.game.drawing.svg import num
from tests.browser import browser, console_errors
from tests.test_observation import FLAGS
from tests.test_replay_page import record

#: Pictures sent to the browser at a time.
BATCH = 400


@pytest.fixture(scope="module")
def painter(tmp_path_factory):
    """A browser on a blank page that holds the painter: ``paint_js(scenes)`` paints each."""
    page = tmp_path_factory.mktemp("painter") / "painter.html"
    page.write_text(f"<!DOCTYPE html><html><body><script>{painter_script()}</script>"
                    "</body></html>", encoding="utf-8")
    with browser() as driver:
        driver.get(page.as_uri())

        def paint_js(scenes: list[dict]) -> list[str]:
            # sent as JSON text: the driver's own transport would sort a dict's keys, and the
            # painter keeps the order of a scene's dicts as Python does
            out: list[str] = []
            for i in range(0, len(scenes), BATCH):
                out += driver.execute_script(
                    "return JSON.parse(arguments[0]).map(paintScene)",
                    json.dumps(scenes[i:i + BATCH]))
            assert console_errors(driver) == []
            return out

        paint_js.driver = driver
        yield paint_js


def scenes_of(path, every: int = 1) -> list[dict]:
    """The scenes of every ``every``-th step of the trace at ``path``, from every view."""
    trace = read_trace(path)
    n, out, step = trace.config.num_players, [], [0]

    def visit(game, last, _entry):
        if step[0] % every == 0 or game.is_terminal:
            out.extend(game_scene(game, view, last) for view in [*range(n), None])
        step[0] += 1

    walk(trace, visit)
    return out


@pytest.mark.parametrize(("players", "every"), [(3, 1), (6, 3), (8, 9)])
def test_every_picture_of_a_recorded_game_is_the_same_string(painter, tmp_path, players,
                                                             every):
    scenes = scenes_of(record(tmp_path, players, seed=players)[0], every)
    assert any(s["scores"] is not None for s in scenes)  # the end of the game is there
    for k, (got, want) in enumerate(zip(painter(scenes), map(paint, scenes), strict=True)):
        if got != want:
            at = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b),
                      min(len(got), len(want)))
            pytest.fail(f"picture {k}: JavaScript {got[max(0, at - 80):at + 80]!r}\n"
                        f"Python {want[max(0, at - 80):at + 80]!r}")


@settings(max_examples=40, deadline=None)
@given(n=hst.integers(3, 8), seed=hst.integers(0, 2**31 - 1), steps=hst.integers(0, 1500),
       variant=hst.integers(0, len(FLAGS) - 1))
def test_every_view_of_a_random_position_is_the_same_string(painter, n, seed, steps, variant):
    """Random legal moves reach what the bots seldom play (the action cards, deals, bounties,
    the Lawyer, a Night Raid, the end) under each rules variant; each view of the position, the
    last move shown, paints the same in both languages."""
    game = Game(GameConfig(num_players=n, **FLAGS[variant]), seed=seed)
    rng, last = random.Random(seed), None
    for _ in range(steps):
        if game.is_terminal:
            break
        last = (game.current_player, rng.choice(game.legal_actions()))
        game.step(last[1])
    scenes = [game_scene(game, view, last) for view in [*range(n), None]]
    assert painter(scenes) == [paint(s) for s in scenes]


def test_numbers_round_as_python_rounds(painter):
    """``num``: ties to even on the exact binary value (12.25 is 12.2, 0.35 is 0.3 since the
    double below 0.35 is nearer), integers without a decimal, no ``-0``."""
    rng = random.Random(7)
    values = [0, -0.0, 12.0, 12.25, 12.35, 0.05, 0.15, 0.25, 0.35, 2.675, -1.25, -0.04, 1e-9,
              123456.75, 999.95, 0.6 * 11 * 7, 19 * 0.66 * 3, 1440 - 16 - 360.5]
    values += [rng.uniform(-2000, 2000) for _ in range(500)]
    values += [round(rng.uniform(0, 2000), 2) for _ in range(500)]  # many two-decimal ties
    got = painter.driver.execute_script("return JSON.parse(arguments[0]).map(paintScene.num)",
                                        json.dumps(values))
    assert got == [num(v) for v in values]


def test_text_that_needs_escaping_is_the_same(painter, tmp_path):
    """The last move's text in the header, in a ``<title>`` (Python's ``repr``) and in the
    description: quotes of both kinds, markup, backslashes, a newline, code points beyond the
    16-bit ones (counted as Python's ``len`` counts them)."""
    base = scenes_of(record(tmp_path, 4)[0], every=50)[-3]
    texts = ["it's", 'say "no"', "both ' and \"", "<b>&amp;</b>", "back\\slash", "two\nlines",
             "tab\there", "emoji 🥃 and ü", "x" * 120]
    scenes = [{**base, "last_action": {"seat": "p1", "action": t}} for t in texts]
    scenes += [{**base, "viewer": None, "to_move": "p0", "last_action": None}]
    assert painter(scenes) == [paint(s) for s in scenes]
