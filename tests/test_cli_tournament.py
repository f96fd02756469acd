"""``borders-sim tournament``, ``play`` and ``replay``: outputs, game records and
their replay, a scripted human game, Ctrl-C, and bad input as one line without a traceback."""

from __future__ import annotations

import builtins
import csv
import dataclasses
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest

from borders_sim import Game, GameConfig, cli
from borders_sim.arena import tournaments as tournament_module
from borders_sim.arena.stats import DECEPTION
from borders_sim.cli import tournament as cli_tournament
from borders_sim.agents import make
from borders_sim.batch.seeds import bot_seed
from borders_sim.envs import observe
from borders_sim.arena import default_lineup

BOTS = ",".join(default_lineup(4))


def run(capsys, argv: list[str]) -> tuple[int, str, str]:
    """``main(argv)``'s exit status (argparse exits included), stdout and stderr."""
    try:
        code = cli.main(argv)
    except SystemExit as stop:
        code = stop.code
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if "error:" in line]
    assert len(lines) == 1, err
    return lines[0]


def test_tournament_writes_json_csv_and_plot(capsys, tmp_path):
    out_json, out_csv, out_png = tmp_path / "r.json", tmp_path / "r.csv", tmp_path / "r.png"
    code, out, err = run(capsys, ["tournament", "--players", "4", "--bots", BOTS, "--games", "8",
                                  "--seed", "3", "--json", str(out_json), "--csv", str(out_csv),
                                  "--plot", str(out_png), "--no-progress"])
    assert code == 0, err
    doc = json.loads(out_json.read_text())
    assert doc["config"]["games"] == 8 and doc["config"]["bots"] == BOTS.split(",")
    names = list(dict.fromkeys(BOTS.split(",")))
    assert [b["name"] for b in doc["bots"]] == names
    assert sum(b["wins"] for b in doc["bots"]) == pytest.approx(8)
    with open(out_csv, newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["name"] for r in rows] == names
    assert float(rows[0]["win_rate"]) == pytest.approx(doc["bots"][0]["win_rate"])
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "bot |" in out
    assert "win rate [95% CI]" in out and "8 games (compiled path, local backend)" in out


def test_tournament_defaults_to_four_players_and_the_compiled_bots(capsys, monkeypatch):
    seen = {}
    real = tournament_module.play_tournament

    def spy(t, **kwargs):
        seen.update(players=t.players, bots=t.lineup, games=t.games, seed=t.seed)
        return real(dataclasses.replace(t, games=4), **kwargs)  # the default's size, cut

    monkeypatch.setattr(cli_tournament, "play_tournament", spy)
    code, out, err = run(capsys, ["tournament", "--no-progress"])
    assert code == 0, err
    assert seen == {"players": 4, "bots": default_lineup(4), "games": cli_tournament.DEFAULT_TOURNAMENT_GAMES,
                    "seed": 0}
    assert cli_tournament.DEFAULT_TOURNAMENT_GAMES % 840 == 0  # every player count 3..8 balances its seats


def test_ctrl_c_prints_the_results_so_far(capsys, monkeypatch):
    real = tournament_module.play_chunk
    calls = []

    def interrupted_later(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(tournament_module, "play_chunk", interrupted_later)
    monkeypatch.setattr(tournament_module, "COMPILED_CHUNK", 4)
    code, out, err = run(capsys, ["tournament", "--bots", BOTS, "--games", "20", "--no-progress"])
    assert code == 130
    assert "interrupted: results of the first 8 of 20 games" in err
    assert "8 games (compiled path" in out and "win rate" in out


def test_record_then_replay(capsys, tmp_path):
    record = tmp_path / "records"
    code, _, err = run(capsys, ["tournament", "--players", "3", "--bots", "random,random,random",
                                "--games", "3", "--seed", "8", "--record", str(record),
                                "--threads", "1", "--no-progress"])
    assert code == 0, err
    assert f"3 game traces written to {record}" in err
    files = sorted(record.iterdir())
    assert [f.name for f in files] == ["game-000000.jsonl", "game-000001.jsonl",
                                       "game-000002.jsonl"]
    lines = [json.loads(line) for line in files[1].read_text().splitlines()]
    header, actions, result = lines[0], lines[1:-1], lines[-1]
    assert header["seed"] == 9 and header["game"] == 1 and len(header["lineup"]) == 3
    assert header["bot_seeds"] == [bot_seed(9, p) for p in range(3)]
    assert all(set(a) == {"type", "seat", "action", "string"} for a in actions)
    game = Game(GameConfig(num_players=3), seed=9)
    for a in actions:
        game.step(a["string"], player=a["seat"])
    assert result == {"type": "result", "scores": game.scores(), "winners": game.winners()}
    for f in files:
        code, out, err = run(capsys, ["replay", str(f)])
        assert code == 0, err
        assert "round 1:" in out and "as recorded" in out
    code, out, _ = run(capsys, ["replay", "--verbose", str(files[0])])
    assert code == 0 and out.count("\n  p") > len(actions) // 2


def tamper(path: Path, edit) -> Path:
    lines = path.read_text().splitlines()
    edit(lines)
    out = path.with_name("tampered.jsonl")
    out.write_text("\n".join(lines) + "\n")
    return out


def illegal_action(lines):
    """Replace the first decision by an action (id and string agreeing) illegal there."""
    first = json.loads(lines[1])
    game = Game(GameConfig(num_players=3), seed=4)
    a = int(np.flatnonzero(game.legal_mask() == 0)[0])
    first["action"], first["string"] = a, game.action_to_string(a)
    lines[1] = json.dumps(first)


def wrong_string(lines):
    first = json.loads(lines[1])
    first["string"] = "announce nothing"
    lines[1] = json.dumps(first)


def bad_score(lines):
    result = json.loads(lines[-1])
    result["scores"][0] += 1
    lines[-1] = json.dumps(result)


@pytest.mark.parametrize("edit,message", [
    (illegal_action, r"line 2 \(round 1, phase .*\): action '.*' \(id \d+\) is illegal for p\d "
                     r"here; legal: \["),
    (wrong_string, r"line 2 .*: action id \d+ does not match its string 'announce nothing'"),
    (bad_score, r"the replay ends with scores \[\d+, .*\] and winners \[.*\], but the trace "
                r"records scores"),
    (lambda lines: lines.pop(), r"the last line must be the result .* truncated"),
    (lambda lines: lines.pop(-2), r"the trace ends before the game does|"
                                  r"the replay ends with scores"),
    (lambda lines: lines.insert(3, "{not json"), r"line 4: not valid JSON"),
    (lambda lines: lines.__setitem__(2, json.dumps({"type": "action", "seat": 2})),
     r"line 3: an action needs int \"seat\""),
    (lambda lines: lines.__setitem__(0, json.dumps({"type": "header", "format": "x"})),
     r"line 1: not a borders-sim-trace version 1 header"),
    (lambda lines: lines.__setitem__(2, json.dumps(
        {**json.loads(lines[2]), "seat": (json.loads(lines[2])["seat"] + 1) % 3})),
     r"line 3 .*: the action is by p\d, but p\d is to move"),
])
def test_a_tampered_trace_fails_loudly(capsys, tmp_path, edit, message):
    record = tmp_path / "rec"
    code, _, _ = run(capsys, ["tournament", "--players", "3", "--bots", "random,random,random",
                              "--games", "1", "--seed", "4", "--record", str(record),
                              "--threads", "1", "--no-progress"])
    assert code == 0
    bad = tamper(record / "game-000000.jsonl", edit)
    code, _, err = run(capsys, ["replay", str(bad)])
    assert code == 1
    line = error_line(err)
    assert line.startswith("borders-sim replay: error: ") and str(bad) in line
    assert re.search(message, line), line


def test_replay_of_a_missing_or_empty_file(capsys, tmp_path):
    for path, message in [(tmp_path / "none.jsonl", "no such file"),
                          (tmp_path, "is a directory"),
                          ]:
        code, _, err = run(capsys, ["replay", str(path)])
        assert code == 1 and message in error_line(err)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    code, _, err = run(capsys, ["replay", str(empty)])
    assert code == 1 and "the first line must be the header" in error_line(err)


def test_replay_refuses_a_pipe_or_a_device_before_it_could_block(capsys, tmp_path):
    """docs/security.md: a named pipe or a device is refused, never read (a pipe with no
    writer would block the reader forever)."""
    pipe = tmp_path / "pipe.jsonl"
    os.mkfifo(pipe)
    for path, kind in [(pipe, "is a named pipe (FIFO), not a trace file"),
                       (Path("/dev/null"), "is a device, not a trace file")]:
        code, _, err = run(capsys, ["replay", str(path)])
        assert code == 1 and kind in error_line(err)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> list[str]:
    """The lines of a recorded 3-player trace."""
    record = tmp_path_factory.mktemp("rec")
    assert cli.main(["tournament", "--players", "3", "--bots", "random,random,random",
                     "--games", "1", "--seed", "4", "--record", str(record), "--threads", "1",
                     "--no-progress"]) == 0
    return (record / "game-000000.jsonl").read_text().splitlines()


def with_header(lines: list[str], **fields) -> list[str]:
    return [json.dumps({**json.loads(lines[0]), **fields})] + lines[1:]


HOSTILE = {
    "deep nesting": (lambda lines: lines[:1] + ["[" * 8000 + "]" * 8000] + lines[1:],
                     r"line 2: not valid JSON \(nested too deeply\)"),
    "a 5000-digit integer": (lambda lines: lines[:1] + ['{"type": "action", "seat": '
                                                        + "9" * 5000 + "}"] + lines[1:],
                             r"line 2: not valid JSON \(an integer of 5000 digits, more than "
                             r"any trace holds"),
    "a 5000-digit seed": (lambda lines: [lines[0].replace('"seed": 4', '"seed": ' + "1" * 5000)]
                          + lines[1:], r"line 1: not valid JSON \(an integer of 5000 digits"),
    "a bot without a name": (lambda lines: with_header(lines, lineup=["random", 7, "random"]),
                             r"line 1: 7 in the lineup is not a bot's name"),
    "a short lineup": (lambda lines: with_header(lines, lineup=["random"]),
                       r"line 1: header field 'lineup' must list 3 bot names"),
    "a seed of 2**64": (lambda lines: with_header(lines, seed=2**64),
                        r"line 1: bad config, seed or game: seed must be a seed, an int from "
                        r"0 to 2\*\*64 - 1, got 18446744073709551616"),
    "a negative seed": (lambda lines: with_header(lines, seed=-1),
                        r"line 1: bad config, seed or game: seed must be a seed"),
    "other bot seeds": (lambda lines: with_header(lines, bot_seeds=[1, 2, 3]),
                        r"line 1: header field 'bot_seeds' must be the seeds of the bots"),
    "a bad config": (lambda lines: with_header(lines, config={"num_players": 9}),
                     r"line 1: bad config, seed or game: num_players must be an int from 3"),
    "a config that is not an object": (lambda lines: with_header(lines, config=[3]),
                                       r"line 1: bad config, seed or game: config must be an "
                                       r"object"),
    "a line after the result": (lambda lines: lines + [lines[1]],
                                r"line \d+: a line of type 'action' after the result"),
    "a blank first line": (lambda lines: [""] + lines, r"the first line must be the header"),
    "a long line": (lambda lines: lines[:1] + ["x" * 10**6] + lines[1:],
                    r"line 2: longer than 16384 characters, more than any trace line"),
}


@pytest.mark.parametrize("case", HOSTILE)
def test_a_hostile_trace_is_one_line_and_status_1(capsys, tmp_path, recorded, case):
    edit, message = HOSTILE[case]
    path = tmp_path / "hostile.jsonl"
    path.write_text("\n".join(edit(list(recorded))) + "\n")
    code, _, err = run(capsys, ["replay", str(path)])
    assert code == 1
    line = error_line(err)
    assert line.startswith(f"borders-sim replay: error: {path}") and len(line) < 600
    assert re.search(message, line), line


def test_an_endless_trace_is_read_no_further_than_a_trace_goes(capsys, tmp_path, recorded):
    """Reads are bounded: a line without end stops at the line limit, and a header followed
    by endless lines at max_game_length + 2 lines (a device such as /dev/zero is not read at
    all: test_replay_refuses_a_pipe_or_a_device_before_it_could_block)."""
    endless = tmp_path / "endless.jsonl"
    endless.write_text("0" * 40000)
    code, _, err = run(capsys, ["replay", str(endless)])
    assert code == 1 and f"{endless} line 1: longer than 16384 characters" in error_line(err)
    path = tmp_path / "long.jsonl"
    most = Game(GameConfig(num_players=3)).max_game_length
    path.write_text(recorded[0] + "\n" * (most + 5))
    code, _, err = run(capsys, ["replay", str(path)])
    assert code == 1
    assert f"line {most + 3}: more lines than a trace of this config has" in error_line(err)


@pytest.mark.parametrize("args,message", [
    (["--bots", "random,nobody,random,random"],
     r"argument --bots: unknown bot name\(s\) 'nobody'; known bots: "),
    (["--bots", "random,random,random"],
     r"the lineup has 3 bot\(s\) \(random,random,random\) but there are 4 players"),
    (["--players", "5", "--bots", BOTS], r"the lineup has 4 bot\(s\) .* but there are 5 players"),
    (["--players", "9"], r"argument --players: must be an integer from 3 to 8"),
    (["--games", "0"], r"argument --games: must be an integer from 1 to "),
    (["--json", "/nonexistent-dir/r.json"], r"argument --json: the directory of "
                                            r"'/nonexistent-dir/r.json' does not exist"),
    (["--csv", "/"], r"argument --csv: '/' is a directory, not a file"),
    (["--plot", "/tmp/r.txt"], r"argument --plot: '/tmp/r.txt' must end in .png, .pdf, .svg"),
    (["--backend", "local", "--ray-address", "127.0.0.1:1"],
     r"--ray-address needs --backend ray"),
    (["--seed", str(2**64 - 1), "--games", "2"], r"the last game's seed, seed \+ 1, must be at "
                                                 r"most 2\*\*64 - 1"),
    (["--seed", str(2**64)], r"argument --seed: must be a seed, an integer from 0 to 2\*\*64 - 1"),
])
def test_bad_tournament_arguments_are_one_line_errors(capsys, args, message):
    code, _, err = run(capsys, ["tournament", *args, "--no-progress"])
    assert code == 2
    line = error_line(err)
    assert line.startswith("borders-sim tournament: error: ")
    assert re.search(message, line), line


def test_a_record_path_that_is_a_file_is_one_line(capsys, tmp_path):
    path = tmp_path / "file"
    path.write_text("")
    code, _, err = run(capsys, ["tournament", "--record", str(path), "--no-progress"])
    assert code == 2
    assert error_line(err) == (f"borders-sim tournament: error: argument --record: record "
                               f"directory {str(path)!r} exists and is not a directory")


def test_an_unreachable_ray_address_is_one_line(capsys):
    code, _, err = run(capsys, ["tournament", "--bots", BOTS, "--games", "4", "--ray-address",
                                "127.0.0.1:1", "--no-progress"])
    assert code == 1
    line = error_line(err)
    # without the distributed extra the error says how to install Ray instead
    assert "cannot reach the Ray cluster at '127.0.0.1:1'" in line or "needs Ray" in line


def test_missing_matplotlib_is_one_line(capsys, monkeypatch, tmp_path):
    monkeypatch.setitem(__import__("sys").modules, "matplotlib", None)
    code, _, err = run(capsys, ["tournament", "--bots", BOTS, "--games", "4", "--plot",
                                str(tmp_path / "r.png"), "--no-progress"])
    assert code == 1
    assert ('--plot needs matplotlib: pip install ".[plot]" in the borders_sim source checkout'
            in error_line(err))


def scripted_answers(seed: int, seat: int, bots: list[str]) -> tuple[list[str], list[int]]:
    """The answers of a scripted human (a random bot of its own, answering by id and by string
    in turn, after a few wrong answers) and the final scores that game must reach."""
    n = len(bots) + 1
    names = bots[:seat] + ["human"] + bots[seat:]
    players = {p: make(names[p], bot_seed(seed, p)) for p in range(n) if p != seat}
    me = make("random", 12345)
    game = Game(GameConfig(num_players=n), seed=seed)
    answers = ["", "banana", "99999", "9" * 5000]  # refused, asked again
    while not game.is_terminal:
        p = game.current_player
        if p == seat:
            a = me.act(observe(game, p), game.legal_mask())
            answers.append(str(a) if len(answers) % 2 else game.action_to_string(a))
        else:
            a = players[p].act(observe(game, p), game.legal_mask())
        game.step(a)
    return answers, game.scores()


def test_a_scripted_human_plays_a_whole_game(capsys, monkeypatch):
    bots = default_lineup(3)
    answers, scores = scripted_answers(seed=21, seat=1, bots=list(bots))
    feed = iter(answers)
    prompts = []

    def fake_input(prompt=""):
        prompts.append(prompt)
        return next(feed)

    monkeypatch.setattr(builtins, "input", fake_input)
    code, out, err = run(capsys, ["play", "--seat", "1", "--bots", ",".join(bots), "--seed",
                                  "21"])
    assert code == 0, err
    assert next(feed, None) is None  # every answer was used
    assert len(prompts) == len(answers)
    assert "you are p1" in out and "Your legal actions (id: action):" in out
    assert "not an action id or action string" in out and "99999 is not one of the legal ids" in out
    assert "999999999999... (5000 digits) is not one of the legal ids" in out
    assert "p0 (" in out and "p1 (you): " in out  # the bots' moves and the human's
    final = out.split("--- game over ---")[1].split()
    assert [int(x) for x in final if x.isdigit()] == scores


def test_play_ends_cleanly_when_the_input_ends(capsys, monkeypatch):
    def eof(prompt=""):
        raise EOFError

    monkeypatch.setattr(builtins, "input", eof)
    code, _, err = run(capsys, ["play", "--bots", "random,random,random", "--seed", "1"])
    assert code == 1 and "game abandoned: the input ended before the game did" in err
    for args, message in [(["--seat", "4", "--bots", "random,random,random"],
                           r"argument --seat: must be from 0 to 3 with 4 players"),
                          (["--players", "5", "--bots", "random,random"],
                           r"--bots lists 2 bot\(s\), but 5 players need 4 besides you"),
                          (["--bots", "random"], r"1 bots and you make 2 players"),
                          (["--bots", "random,robot"], r"unknown bot name\(s\) 'robot'")]:
        code, _, err = run(capsys, ["play", *args])
        assert code == 2
        assert re.search(message, error_line(err)), err


def test_play_accepts_quit(capsys, monkeypatch):
    monkeypatch.setattr(builtins, "input", lambda prompt="": "quit")
    code, _, err = run(capsys, ["play", "--seat", "0"])
    assert code == 1 and "you quit the game" in err


def test_the_table_fits_100_columns_and_wide_shows_every_metric(capsys):
    code, out, err = run(capsys, ["tournament", "--games", "8", "--no-progress"])
    assert code == 0, err
    table = [line for line in out.splitlines() if line.startswith("|")]
    assert table and max(len(line) for line in table) <= 100
    assert "A '-' is a figure with nothing to count" in out
    code, out, err = run(capsys, ["tournament", "--games", "8", "--no-progress", "--wide"])
    assert code == 0 and "lies when opened" in out and "promises kept" in out


def test_a_policy_file_is_named_short_in_the_table_and_whole_under_it():
    names = cli_tournament.display_names(
        ["ppo@runs/notebook-20261206-0705/policy.npz", "ppo:argmax@/tmp/a/best.npz", "ppo",
         "honest", "ppo@x/one/policy.npz", "ppo@y/one/policy.npz"])
    assert names["ppo@runs/notebook-20261206-0705/policy.npz"] == "ppo@notebook-20261206-0705"
    assert names["ppo:argmax@/tmp/a/best.npz"] == "ppo:argmax@best"
    assert names["ppo"] == "ppo" and names["honest"] == "honest"
    # two files that would read the same keep their whole specs
    assert names["ppo@x/one/policy.npz"] == "ppo@x/one/policy.npz"

    results = dataclasses.make_dataclass("R", ["bots"])([
        {"name": spec, "seats": 1, "games": 4, "wins": 1.0, "win_rate": 0.25,
         "win_rate_ci95": (0.05, 0.7), "mean_score": 10.0, "sd_score": 1.0, "rating_mu": 25.0,
         "rating_sigma": 8.0,
         "behaviour": dict.fromkeys(("lies_when_opened", "caught_rate", "bribe_rate",
                                     "open_rate", "bribed_rate", "fines_paid_per_game",
                                     "promises_kept_rate")),
         "deception": dict.fromkeys(DECEPTION)}
        for spec in ("ppo@runs/notebook-1/policy.npz", "honest")])
    text = cli_tournament.tournament_table(results)
    rows = [line.split("|")[1].strip() for line in text.splitlines() if line.startswith("|")]
    assert rows[2:] == ["ppo@notebook-1", "honest"]
    assert text.splitlines()[-1] == "ppo@notebook-1: ppo@runs/notebook-1/policy.npz"
