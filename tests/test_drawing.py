"""The drawings (borders_sim.game.drawing): valid SVG that says what the observation says, no
leak (a seat's picture does not change when only what it cannot see changes; the last move
tells a seat no more than its observations do), deterministic whole-table pictures, every
player count, the pictures of Game (Jupyter, save_svg) and the envs' rgb_array frames (with
Gymnasium's RecordVideo writing a video that reads back, with the render extra's moviepy)."""

from __future__ import annotations

import doctest
import importlib
import json
import random
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as hst

from borders_sim import Game, GameConfig
from borders_sim.agents import make
from borders_sim.envs import SingleSeatEnv, VectorEnv, borders_v0, observe, observe_json
from borders_sim.game import drawing
from borders_sim.game.drawing import (canvas_size, frame_shape, game_svg, seat_svg, seen_action,
                                      svg_to_rgb, table_svg)
from borders_sim.game.turns import play_turns
from borders_sim.install_hints import install_hint
from tests.test_observation import LEAK, hide_change, random_game, show_change

NS = "{http://www.w3.org/2000/svg}"
BOTS = ("bluffer", "honest", "collector", "strict", "random")


def bot_positions(n: int, seed: int, every: int = 97) -> list[tuple[Game, tuple[int, int]]]:
    """Positions of a game the bots play (a copy every ``every`` decisions, and after each
    decision that settles a crate or ends the game), each with its last decision."""
    game = Game(GameConfig(num_players=n), seed=seed)
    bots = [make(BOTS[(p + seed) % len(BOTS)], seed=seed * 10 + p) for p in range(n)]
    out = []

    def keep(seat: int, action: int) -> None:
        settled = game.phase in ("collect", "choose crate", "game over") and \
            game.action_to_string(action) in ("open", "pass", "accept", "no reaction",
                                              "no fund", "no lawyer")
        if settled or game.is_terminal or game.to_dict()["steps"] % every == 0:
            out.append((game.copy(), (seat, action)))

    play_turns(game, [b.act for b in bots], on_step=keep)
    return out


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == NS + "svg"
    return root


def texts(element: ET.Element) -> list[str]:
    return [t.text or "" for t in element.iter(NS + "text")]


def seat_rows(root: ET.Element) -> dict[str, ET.Element]:
    """The seats' rows: the top-level groups whose title starts with a seat."""
    rows = {}
    for g in root.findall(NS + "g"):
        label = g.findtext(NS + "title") or ""
        first = label.split(",")[0].split(" ")[0]
        if first[:1] == "p" and first[1:].isdigit():
            rows[first] = g
    return rows


def chip_cards(row: ET.Element) -> set[str]:
    """The card keys of the chips of ``row`` (``"rum ×2"`` -> ``"rum"``)."""
    return {t.split(" ×")[0] for t in texts(row)}


def check_says_the_view(svg: str, view: dict) -> None:
    root = parse(svg)
    words = texts(root)
    if view["to_move"]:
        assert f"Round {view['round']} · {view['phase']} · {view['to_move']} to move" in words
    else:
        assert any(w.startswith(f"Game over after round {view['round']}") for w in words)
    rows = seat_rows(root)
    assert sorted(rows) == sorted(s["seat"] for s in view["seats"])
    badge_of = {s: b for b, s in view["inspectors"].items()}
    for s in view["seats"]:
        row = texts(rows[s["seat"]])
        assert s["seat"] in row
        assert any(w == str(s["gold"]) or w.startswith(f"{s['gold']} gold") for w in row)
        k = s["hand_size"]
        assert f"Hand · {k} card{'s' if k != 1 else ''}" in row
        if s["announced"] and s["seat"] not in badge_of:
            assert any(w.endswith(f"× {s['announced']}") or w == s["announced"] for w in row)
        if s["seat"] in badge_of:
            assert f"INSPECTOR {badge_of[s['seat']]}" in row
        assert ("TO MOVE" in row) == (view["to_move"] == s["seat"])
        assert ("you" in row) == s["viewer"]
        if s["viewer"]:
            assert set(view["own"]["hand"]) <= chip_cards(rows[s["seat"]])


# --- what the picture says ---------------------------------------------------------------------
@pytest.mark.parametrize("n, seed", [(3, 1), (4, 2), (6, 3), (8, 4)])
def test_a_seats_picture_says_what_its_observation_says(n, seed):
    positions = bot_positions(n, seed)
    assert any(g.is_terminal for g, _ in positions)
    for game, last in positions:
        for seat in range(n):
            view = observe_json(game, seat)
            svg = game_svg(game, seat, last)
            assert svg == seat_svg(view, last, *((game.scores(), game.winners())
                                                 if game.is_terminal else ()))
            check_says_the_view(svg, view)
            assert f"Last move: p{last[0]} · " in " ".join(texts(parse(svg)))


def test_the_whole_table_shows_every_card_and_who_lied():
    """Every hand face up; a crate opened on a lie says so in the border check, the liar's
    crate (CAUGHT) and record (caught lying), and at the end the scores and the winners."""
    caught = over = False
    for seed in range(1, 6):
        for game, last in bot_positions(4, seed):
            d = game.to_dict()
            root = parse(table_svg(d, last))
            words = texts(root)
            rows = seat_rows(root)
            for p in d["players"]:
                assert set(p["hand"]) <= chip_cards(rows[p["seat"]])
            neg = d["negotiation"]
            if neg and neg["crate_of"] and neg["outcome"] == "opened" and not neg["truthful"]:
                caught = True
                assert f"OPENED · A LIE, CAUGHT: fine {neg['fine']}" in words
                liar = texts(rows[neg["crate_of"]])
                assert "CAUGHT" in liar or "LIED" in liar
                assert any(w.startswith("caught lying") for w in liar)
            if game.is_terminal:
                over = True
                for p, score in enumerate(game.scores()):
                    assert f"score {score}" in texts(rows[f"p{p}"])
                assert "WINNER" in texts(rows[f"p{game.winners()[0]}"])
    assert caught and over


@pytest.mark.parametrize("n", [3, 6, 8])
def test_every_player_count_draws(n):
    game = random_game(n, seed=n, steps=300, flags={})
    for svg in [game.svg()] + [game.svg(seat=p) for p in range(n)]:
        root = parse(svg)
        assert (int(root.get("width")), int(root.get("height"))) == canvas_size(n)
        assert len(seat_rows(root)) == n
        words = texts(root)
        assert "INSPECTOR A" in words and ("INSPECTOR B" in words) == (n >= 6)
        assert root.findtext(NS + "title") and root.findtext(NS + "desc")


def test_the_whole_table_is_deterministic():
    game, last = bot_positions(5, 7)[3]
    d = game.to_dict()
    svg = table_svg(d, last)
    assert svg == table_svg(json.loads(json.dumps(d)), last)
    assert svg == Game.from_dict(d).svg(last_action=last) == game.copy().svg(last_action=last)
    assert svg != table_svg(d)  # (the last move is drawn)


# --- no leak -----------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [3, 4, 6, 8])
@LEAK
@given(seed=hst.integers(0, 10**6), steps=hst.integers(0, 900), viewer=hst.integers(0, 7),
       kind=hst.integers(0, 4), salt=hst.integers(0, 10**6))
def test_hidden_changes_do_not_change_a_seats_picture(n, seed, steps, viewer, kind, salt):
    """As test_observation's leak test, on the picture (a game over is left out: its scores
    count every warehouse card, turned face up at the end, 9-2)."""
    game = random_game(n, seed, steps)
    viewer %= n
    if game.is_terminal:
        return
    last = (viewer, game.legal_actions()[0])  # any last move: the picture draws what it is given
    before = game.svg(seat=viewer, last_action=last)
    if not hide_change(game.state[0], viewer, kind, random.Random(salt)):
        return
    assert game.svg(seat=viewer, last_action=last) == before, f"kind {kind} leaks"


@pytest.mark.parametrize("n", [3, 6])
@LEAK
@given(seed=hst.integers(0, 10**6), steps=hst.integers(0, 900), viewer=hst.integers(0, 7),
       kind=hst.integers(0, 4), salt=hst.integers(0, 10**6))
def test_visible_changes_change_a_seats_picture(n, seed, steps, viewer, kind, salt):
    game = random_game(n, seed, steps)
    viewer %= n
    if game.is_terminal:
        return
    before = game.svg(seat=viewer)
    if not show_change(game.state[0], viewer, kind, random.Random(salt)):
        return
    assert game.svg(seat=viewer) != before, f"kind {kind} is not drawn"


@pytest.mark.parametrize("n", [3, 4, 6])
def test_the_last_move_tells_a_seat_no_more_than_its_observations(n):
    """Two legal actions that leave a seat with the same observation are drawn the same for
    it (so the packed card stays hidden), and the actor sees its own action in full."""
    rng = random.Random(n)
    checked = defaultdict(int)
    for seed in range(12):
        game = Game(GameConfig(num_players=n), seed=seed)
        stops = sorted(rng.sample(range(1, 400), 6))
        for k in range(stops[-1] + 1):
            if game.is_terminal:
                break
            if k in stops or game.phase == "pack":
                mover = game.current_player
                menu = game.config.gold_menu
                afters = []
                for a in game.legal_actions():
                    after = game.copy()
                    after.step(a)
                    afters.append((a, after))
                    assert seen_action(mover, a, mover, menu)["action"] == \
                        game.action_to_string(a)
                for viewer in set(range(n)) - {mover}:
                    shown = defaultdict(set)
                    for a, after in afters:
                        shown[observe(after, viewer).tobytes()].add(
                            seen_action(mover, a, viewer, menu)["action"])
                    assert all(len(v) == 1 for v in shown.values()), (game.phase, shown)
                checked[game.phase] += 1
            game.step(rng.choice(game.legal_actions()))
    assert checked["pack"] and len(checked) >= 4
    assert seen_action(0, "pack rum", 1, (1,)) == {"seat": "p0", "action": "pack a card"}
    assert seen_action(0, "pack rum", None, (1,)) == {"seat": "p0", "action": "pack rum"}


# --- where researchers look --------------------------------------------------------------------
def test_a_seat_row_is_drawn_once_for_the_same_inputs():
    """A row kept by its inputs (the pictures of an animation share most rows) is the very
    string drawn before, and equal inputs of another scene find it."""
    painter = importlib.import_module("borders_sim.game.drawing.paint")  # the module
    scene = drawing.game_scene(Game(), 0)
    first = [painter._seat_row(scene, seat, 108, 90) for seat in scene["seats"]]
    again = drawing.game_scene(Game(), 0)  # equal, not the same dicts
    assert all(a is painter._seat_row(again, seat, 108, 90)
               for a, seat in zip(first, again["seats"]))


def test_game_shows_itself_and_saves(tmp_path):
    game = random_game(4, seed=3, steps=120, flags={})
    assert game._repr_svg_() == game.svg() == table_svg(game.to_dict())
    seat = game.svg(seat=2)
    assert seat._repr_svg_() == seat == seat_svg(observe_json(game, 2))
    game.save_svg(tmp_path / "t.svg")
    game.save_svg(tmp_path / "s.svg", seat=2)
    assert (tmp_path / "t.svg").read_text(encoding="utf-8") == game.svg()
    assert (tmp_path / "s.svg").read_text(encoding="utf-8") == seat
    with pytest.raises(ValueError, match="player"):
        game.svg(seat=4)
    assert doctest.testmod(drawing).failed == 0


def test_without_resvg_the_error_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "resvg_py", None)
    with pytest.raises(ModuleNotFoundError) as caught:
        svg_to_rgb(Game().svg())
    assert install_hint("render") in str(caught.value)


@pytest.mark.parametrize("n", [3, 8])
def test_rgb_array_frames(n):
    pytest.importorskip("resvg_py")  # the optional render extra: pip install ".[render]"
    pytest.importorskip("PIL")
    shape = frame_shape(n)
    assert shape == (canvas_size(n)[1], canvas_size(n)[0], 3) and shape[0] % 16 == 0

    aec = borders_v0.env(num_players=n, render_mode="rgb_array")
    aec.reset(seed=1)
    for _ in range(5):
        aec.step(int(np.flatnonzero(aec.observe(aec.agent_selection)["action_mask"])[0]))
    single = SingleSeatEnv(n, seat=1, render_mode="rgb_array", seed=2)
    _, info = single.reset()
    single.step(int(np.flatnonzero(info["action_mask"])[0]))
    vector = VectorEnv(2, num_players=n, seed=3, render_mode="rgb_array")
    ts = vector.reset()
    vector.step(np.array([np.flatnonzero(m)[0] for m in ts.action_mask]))
    for frame in (aec.render(), single.render(), vector.render(), vector.render(1)):
        assert frame.shape == shape and frame.dtype == np.uint8
        assert frame.min() < 64 and frame.max() > 192  # drawn, not blank
    assert VectorEnv(1, num_players=n).render() is None
    with pytest.raises(ValueError, match="render_mode"):
        VectorEnv(1, num_players=n, render_mode="human")


def test_record_video_writes_a_playable_file(tmp_path):
    pytest.importorskip("resvg_py")  # the render extra: resvg-py, Pillow and moviepy
    pytest.importorskip("PIL")
    pytest.importorskip("moviepy")
    import imageio.v3 as iio
    from gymnasium.wrappers import RecordVideo
    env = RecordVideo(SingleSeatEnv(3, render_mode="rgb_array", seed=0, haggling="none"),
                      str(tmp_path / "videos"), episode_trigger=lambda episode: True)
    _, info = env.reset(seed=0)
    steps = 8
    for _ in range(steps):
        _, _, terminated, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        assert not terminated
    env.close()
    [video] = [p for p in (tmp_path / "videos").iterdir() if p.suffix == ".mp4"]
    frames = np.stack(list(iio.imiter(video, plugin="FFMPEG")))  # imageio-ffmpeg's ffmpeg
    height, width, _ = frame_shape(3)
    assert frames.shape[0] == steps + 1  # the reset and every step
    assert frames.shape[1:] == (height, width, 3)
    assert frames.min() < 64 and frames.max() > 192  # pictures, not a blank video
