"""The pictures of a recorded game (borders_sim.arena.viewer): ``borders-sim replay GAME
--html`` (one self-contained page whose packed scenes are exactly the drawing's scenes, every
step from every view, painted in the browser: tests/test_paint_js.py), ``--gif`` (an animated GIF, one step a frame), ``tournament --record
DIR --html`` (a page per game and an index), the rule id of each step, the one-line errors,
and the sizes of the module's docstring. The page in a real browser:
tests/test_replay_browser.py."""

from __future__ import annotations

import base64
import dataclasses
import gzip
import json
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from borders_sim import Game
from borders_sim.arena import default_lineup, play_tournament, tournament, viewer
from borders_sim.arena.records import read_trace, trace_name
from borders_sim.arena.viewer import draw_replay, replay_page
from borders_sim.arena.viewer.steps import rule_of, walk
from borders_sim.game.drawing import game_scene, game_svg, paint, svg_to_rgb
from borders_sim.rules import actions as act
from borders_sim.install_hints import install_hint
from tests.conftest import ROOT
from tests.test_cli_tournament import error_line, run


def record(directory, players: int, games: int = 1, seed: int = 0) -> list:
    """The trace paths of ``games`` games of the default lineup, recorded into
    ``directory``."""
    play_tournament(tournament(players, default_lineup(players), games, seed),
                    record_dir=directory)
    return [directory / trace_name(g) for g in range(games)]


@pytest.fixture(scope="module")
def trace3(tmp_path_factory):
    return read_trace(record(tmp_path_factory.mktemp("rec3"), 3)[0])


def unpack(page: str) -> dict:
    """The data a page carries, unpacked as the page does (base64, gzip, JSON)."""
    packed = re.search(r'<script id="game" type="application/octet-stream">([^<]*)</script>',
                       page).group(1)
    return json.loads(gzip.decompress(base64.b64decode(packed)))


def rebuild(data: dict, view: int, step: int) -> dict:
    """The scene of ``step`` from ``view`` rebuilt from the packed table, the page's way."""
    parts = data["scenes"]["parts"]
    table, *seats = (parts[i] for i in data["scenes"]["frames"][view][step])
    return {**table, "seats": seats}


# --- what the page holds -----------------------------------------------------------------------
def test_the_packed_scenes_are_those_of_every_step_and_view(trace3):
    n = trace3.config.num_players
    expected: list[list[dict]] = [[] for _ in range(n + 1)]

    def draw(game, last, _entry):
        for view in range(n):
            expected[view].append(game_scene(game, view, last))
        expected[n].append(game_scene(game, None, last))

    walk(trace3, draw)
    data = unpack(replay_page(trace3))
    steps = len(trace3.actions) + 1
    assert [len(f) for f in data["scenes"]["frames"]] == [steps] * (n + 1)
    for view in range(n + 1):
        for step in range(steps):
            scene = rebuild(data, view, step)
            assert scene == expected[view][step], (view, step)
    # painted, the drawing's picture (the page paints it so: tests/test_paint_js.py)
    game = Game(trace3.config, seed=trace3.header["seed"])
    assert paint(rebuild(data, 1, 0)) == game_svg(game, 1)
    # the packing shares: far fewer characters than the scenes themselves
    whole = sum(len(json.dumps(s, separators=(",", ":"))) for v in expected for s in v)
    assert sum(len(json.dumps(p, separators=(",", ":"))) for p in data["scenes"]["parts"]) * 2 < whole


def test_the_log_says_who_did_what_with_its_rule(trace3):
    data = unpack(replay_page(trace3))
    steps, meta = data["steps"], data["meta"]
    assert steps[0] == [None, "the deal", None, None, 1, None]
    assert [(s[0], s[1]) for s in steps[1:]] == [(seat, text)
                                                 for _line, seat, _a, text in trace3.actions]
    assert all(s[3] for s in steps[1:])
    packs = [s for s in steps if s[1].startswith("pack ")]
    assert packs and all(s[2] == "pack a card" for s in packs)  # hidden from the other seats
    assert all(s[2] is None for s in steps if not s[1].startswith("pack "))
    assert meta["scores"] == trace3.result["scores"]
    assert meta["winners"] == trace3.result["winners"]
    assert meta["lineup"] == trace3.header["lineup"]
    rounds = [r for r, _ in meta["rounds"]]
    assert rounds == list(range(1, len(rounds) + 1)) and len(rounds) > 1
    assert all(steps[start][4] == r and steps[start - 1][4] == r - 1
               for r, start in meta["rounds"][1:])


def test_rule_of_cites_the_rule_of_the_phase():
    assert rule_of(act.A_DISCARD, "raid discard") == "R-21"
    assert rule_of(act.A_DISCARD, "market") == "P-2"
    assert rule_of(act.A_ROB, "market") == "P-1"
    assert rule_of(act.A_ANNOUNCE, "announce") == "P-4"
    assert rule_of(act.A_KEEP_DEAL, "keep or open") == "P-5.3(b')"
    assert rule_of(act.A_GIFT_GOLD, "bounty") == "R-06c"
    spec = (ROOT / "docs" / "RULINGS.md").read_text(encoding="utf-8")
    for a in range(act.NUM_ACTIONS):
        base = re.match(r"[A-Z]+-[0-9.]+", rule_of(a, "")).group()
        assert base in spec, (a, base)


def test_the_page_is_one_file_with_nothing_outside_it(trace3):
    page = replay_page(trace3)
    assert page == replay_page(trace3)  # deterministic
    outside = re.findall(r"(?:src|href)\s*=\s*\"(?!data:)[^\"]*\"|https?:(?!//www\.w3\.org/2000/svg\b)"
                         r"|@import|url\(", page)  # the SVG namespace is a name, not a link
    assert outside == []
    assert "DecompressionStream" in page and page.count("<script") == 3


# --- the commands ------------------------------------------------------------------------------
def test_replay_html_and_its_errors(trace3, tmp_path, capsys):
    out = tmp_path / "r.html"
    code, _, err = run(capsys, ["replay", trace3.path, "--html", str(out)])
    assert code == 0 and "replay page written" in err
    assert out.read_text(encoding="utf-8") == replay_page(trace3)
    code, _, err = run(capsys, ["replay", str(tmp_path / "missing.jsonl"), "--html", str(out)])
    assert code == 1 and "no such file" in error_line(err)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{}\n")
    code, _, err = run(capsys, ["replay", str(bad), "--html", str(tmp_path / "b.html")])
    assert code == 1 and "header" in error_line(err) and not (tmp_path / "b.html").exists()
    code, _, err = run(capsys, ["replay", trace3.path, "--seat", "1"])
    assert code == 2 and "--gif" in error_line(err)
    code, _, err = run(capsys, ["replay", trace3.path, "--html", str(tmp_path)])
    assert code == 2 and "directory" in error_line(err)


def test_tournament_writes_a_page_per_game_and_an_index(tmp_path, capsys):
    code, _, err = run(capsys, ["tournament", "--players", "3", "--games", "2", "--record",
                                str(tmp_path), "--html", "--no-progress"])
    assert code == 0 and "index.html" in err
    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    for g in range(2):
        page = tmp_path / trace_name(g).replace(".jsonl", ".html")
        assert f'href="{page.name}"' in index
        assert page.read_text(encoding="utf-8") == replay_page(read_trace(
            tmp_path / trace_name(g)))
    code, _, err = run(capsys, ["tournament", "--games", "2", "--html"])
    assert code == 2 and "--record" in error_line(err)


def test_replay_gif(trace3, tmp_path, capsys):
    pytest.importorskip("resvg_py")
    Image = pytest.importorskip("PIL.Image")
    out = tmp_path / "g.gif"
    code, _, err = run(capsys, ["replay", trace3.path, "--gif", str(out), "--seat", "1",
                                "--rounds", "2"])
    assert code == 0 and "steps written" in err
    finals = []
    walk(trace3, lambda game, last, entry: finals.append((game.copy(), last))
         if entry[4] == 2 else None)
    with Image.open(out) as gif:
        assert gif.n_frames > 1 and gif.info["loop"] == 0
        gif.seek(gif.n_frames - 1)
        shown = np.asarray(gif.convert("RGB"), dtype=np.int16)
    drawn = svg_to_rgb(game_svg(finals[-1][0], 1, finals[-1][1])).astype(np.int16)
    assert shown.shape == drawn.shape
    assert np.mean(np.abs(shown - drawn)) < 2  # the last step's picture, in 256 colours
    code, _, err = run(capsys, ["replay", trace3.path, "--gif", str(out), "--rounds", "99"])
    assert code == 1 and "no step" in error_line(err)


def test_replay_gif_without_the_render_extra(trace3, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "resvg_py", None)
    code, _, err = run(capsys, ["replay", trace3.path, "--gif", str(tmp_path / "g.gif")])
    assert code == 1 and install_hint("render") in error_line(err)
    assert not (tmp_path / "g.gif").exists()


# --- the sizes the docstring states ------------------------------------------------------------
def size_rows(tmp_path) -> list[str]:
    """The rows of the module docstring's table of sizes, computed now."""
    rows = []
    for n in (3, 4, 8):
        trace = read_trace(record(tmp_path / f"p{n}", n)[0])
        table, _, _ = draw_replay(trace)
        pictures = sum(len(f) for f in table.frames)
        scenes = sum(len(table.parts[i]) for frames in table.frames for frame in frames
                     for i in frame)
        page = len(replay_page(trace).encode("utf-8"))
        rows.append(f"| {n} | {len(trace.actions)} | {pictures} | {scenes / 1e6:.1f} MB | "
                    f"{page / 1e3:.0f} kB |")
    return rows


@pytest.mark.slow
def test_the_docstring_states_the_sizes(tmp_path):
    doc = viewer.__doc__
    stated = doc[doc.index("|---|"):doc.index(".. end of sizes")].splitlines()[1:]
    rows = size_rows(tmp_path)
    assert [r.strip() for r in stated if r.strip()] == rows, "the table now:\n" + "\n".join(rows)


def test_pages_written_by_worker_processes_are_the_same(trace3, tmp_path):
    """Pages written by spawned workers (a tournament's many pages) are those of this process,
    yielded in the order of their traces."""
    paths = []
    for k in range(2 * viewer.PAGES_A_WORKER):
        path = tmp_path / f"game-{k}.jsonl"
        path.write_text(Path(trace3.path).read_text(encoding="utf-8"), encoding="utf-8")
        paths.append(path)
    written = list(viewer.write_pages_beside(paths, workers=2))
    assert [page for page, _ in written] == [p.with_suffix(".html") for p in paths]
    assert all(page.read_text(encoding="utf-8") == replay_page(read_trace(path))
               for (page, _), path in zip(written, paths))
    assert [trace.actions for _, trace in written] == [trace3.actions] * len(paths)


def test_data_naming_a_placeholder_stays_text(trace3):
    """The template is filled in one pass: a trace whose header holds ``{{DATA}}`` (shown in
    the subtitle) does not get the payload expanded inside it."""
    header = {**trace3.header, "borders_sim": "{{DATA}} {{TITLE}}"}
    page = replay_page(dataclasses.replace(trace3, header=header))
    plain = replay_page(trace3)
    payload = plain.split('type="application/octet-stream">')[1].split("</script>")[0]
    assert page.count(payload) == 1 and "{{DATA}} {{TITLE}}" in page
    assert abs(len(page) - len(plain)) < 100
