"""The ``borders-sim`` command line refuses bad numbers with one argparse line, never a traceback.

* out-of-range or malformed ``--seed``, ``--games``, ``--threads``, ``--batch-size``,
  ``--max-steps`` and ``--players`` exit with status 2 and one ``error:`` line;
* ``simulate`` and the benchmark parse player lists with the same function (``N``, ``N,M,...``,
  ``all``), and ``simulate --players 3,4`` prints one row per count;
* unknown arguments of any command (``actions --junk``, ``warmup --bogus``) are argparse
  errors before the command does anything;
* the last seed a run may use is ``2**64 - 1`` (the seed rule of ``borders_sim.checks``;
  the kernels take uint64 seeds) and it works;
* ``bench --help`` works without a source checkout and ``bench`` there says in one line where
  the benchmarks are; in a checkout, ``bench --help`` shows the script's options;
* every command's ``--help`` names it (``usage: borders-sim NAME``) and describes it;
* ``simulate`` streams its statistics batch by batch: the row does not depend on the batch size.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import numba
import numpy as np
import pytest

from borders_sim import cli
from borders_sim.cli import bench, common, simulate
from tests.bench_scripts import benchmark
from borders_sim.cli.app import build_parser
from borders_sim.rules.limits import max_game_length
from borders_sim.rules import state as st
from borders_sim.rules.config import GameConfig
from borders_sim.batch.rollouts import final_scores, make_batch, play_batch

ROOT = Path(__file__).resolve().parents[1]
BIG = "99999999999999999999"


def refused(capsys, argv: list[str]) -> str:
    """Run ``main(argv)``, expect an argparse exit 2, return the one error line."""
    with pytest.raises(SystemExit) as stop:
        cli.main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    errors = [line for line in err.splitlines() if "error:" in line]
    assert len(errors) == 1, err
    return errors[0]


@pytest.mark.parametrize("args,message", [
    (["--seed", str(2**64 - 1)],
     rf"--seed {2**64 - 1} with --games 1000: the last game's seed S\+G-1 must be at "
     r"most 2\*\*64-1"),
    (["--seed", str(2**64 - 2), "--games", "3"], r"S\+G-1 must be at most 2\*\*64-1"),
    (["--seed", str(2**64), "--games", "1"],
     r"argument --seed: must be a seed, an integer from 0 to 2\*\*64 - 1 = "
     r"18,446,744,073,709,551,615, got "),
    (["--seed", "-1"], r"argument --seed: must be a seed, an integer from 0 to "),
    (["--seed", "1.5"], r"argument --seed: must be a seed, an integer from 0 to .* got '1.5'"),
    (["--seed", "9" * 5000], r"argument --seed: must be a seed, .* got '9999+\.\.\.$"),
    (["--games", BIG], rf"argument --games: must be an integer from 1 to 1,000,000,000, got "
                       rf"'{BIG}'"),
    (["--games", "0"], r"argument --games: must be an integer from 1 to "),
    (["--games", "-5"], r"argument --games: must be an integer from 1 to "),
    (["--games", "9" * 5000], r"argument --games: must be an integer from 1 to "),
    (["--threads", "0"], r"argument --threads: must be an integer from 1 to "),
    (["--threads", BIG], r"argument --threads: .* set NUMBA_NUM_THREADS before starting"),
    (["--threads", str(numba.config.NUMBA_NUM_THREADS + 1)],
     rf"argument --threads: must be an integer from 1 to {numba.config.NUMBA_NUM_THREADS} "),
    (["--batch-size", "0"], r"argument --batch-size: must be an integer from 1 to 16,384"),
    (["--batch-size", "100000"], r"argument --batch-size: must be an integer from 1 to 16,384"),
    (["--max-steps", "0"], r"argument --max-steps: must be an integer from 1 to "),
    (["--max-steps", str(2**63)], r"argument --max-steps: must be an integer from 1 to "
                                  r"9,223,372,036,854,775,807"),
])
def test_out_of_range_numbers_are_one_line_argparse_errors(capsys, args, message):
    line = refused(capsys, ["simulate", "--players", "4", *args])
    assert line.startswith("borders-sim simulate: error: ")
    assert re.search(message, line), line


@pytest.mark.parametrize("argv", [["actions", "--junk"], ["warmup", "--bogus"],
                                  ["replay", "a.jsonl", "--junk"], ["simulate", "--players", "3",
                                                                    "extra"]])
def test_unknown_arguments_are_argparse_errors_before_any_work(capsys, argv):
    """Nothing runs (no table, no warm-up line, no compiling): one usage error, status 2."""
    with pytest.raises(SystemExit) as stop:
        cli.main(argv)
    out, err = capsys.readouterr()
    assert stop.value.code == 2 and out == ""
    assert err.startswith("usage: borders-sim ")  # argparse's usage, then the error, only
    assert err.splitlines()[-1] == (f"borders-sim {argv[0]}: error: unrecognized arguments: "
                                    f"{argv[-1]}")
    assert "numba cache" not in err and "compiling" not in err


@pytest.mark.parametrize("text,message", [
    ("9", r"player counts are 3 to 8, given as N, N,M,... or 'all'; got '9' in '9'"),
    ("2,4", r"got '2' in '2,4'"),
    ("3,,4", r"got '' in '3,,4'"),
    ("", r"got '' in ''"),
    ("three", r"got 'three'"),
    ("3,4,3", r"player count 3 is listed twice in '3,4,3'"),
])
def test_bad_player_lists_are_refused(capsys, text, message):
    line = refused(capsys, ["simulate", "--players", text])
    assert line.startswith("borders-sim simulate: error: argument --players: ")
    assert re.search(message, line), line


def _benchmark_module():
    return benchmark("rollouts")


@pytest.mark.parametrize("text,counts", [("3,4", (3, 4)), (" 8 , 5", (8, 5)), ("6", (6,)),
                                         ("all", tuple(range(3, 9))), ("ALL", tuple(range(3, 9)))])
def test_simulate_and_bench_share_the_player_list_parser(text, counts):
    assert common.player_counts(text) == counts
    sim = build_parser().parse_args(["simulate", "--players", text])
    assert sim.players == counts
    assert _benchmark_module().parse_args(["--players", text]).players == counts


def test_bench_refuses_what_simulate_refuses(capsys):
    bench = _benchmark_module()
    for argv in (["--players", "3,9"], ["--seed", "-1"], ["--games", BIG], ["--repeat", "0"]):
        with pytest.raises(SystemExit) as stop:
            bench.parse_args(argv)
        assert stop.value.code == 2
        assert "Traceback" not in capsys.readouterr().err
    with pytest.raises(argparse.ArgumentTypeError):
        common.player_counts("3,9")


def test_simulate_several_counts_and_the_last_seed(capsys):
    assert cli.main(["simulate", "--players", "3,4", "--games", "3", "--no-progress",
                     "--seed", str(2**64 - 3)]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("|") and "---" not in line]
    assert [r.split("|")[1].strip() for r in rows] == ["players", "3", "4"]
    assert "6 games in" in out


def test_simulate_rows_do_not_depend_on_the_batch_size():
    """The streamed statistics equal those of all games at once."""
    whole = simulate.simulate(5, 7, seed=40, batch_size=7, progress=False)
    batched = simulate.simulate(5, 7, seed=40, batch_size=2, progress=False)
    config = GameConfig(num_players=5)
    states, seeds = make_batch(config, 40, 7)
    play_batch(states, seeds, max_game_length(config))
    sc, win = final_scores(states)
    for row in (whole, batched):
        assert row["steps_mean"] == pytest.approx(states["steps"].mean())
        assert (row["steps_min"], row["steps_max"]) == (states["steps"].min(),
                                                        states["steps"].max())
        assert (row["rounds_min"], row["rounds_max"]) == (states["round"].min(),
                                                          states["round"].max())
        assert row["win_score"] == pytest.approx(sc[:, :5].max(axis=1).mean())
        assert row["winners"] == pytest.approx(win[:, :5].sum(axis=1).mean())
        assert row["end_main"] + row["end_fallback"] == 7 and row["unfinished"] == 0
        assert np.all(states["phase"] == st.PH_GAME_OVER)
    timing = {"seconds", "games_per_s", "decisions_per_s"}
    assert {k: v for k, v in whole.items() if k not in timing} == \
        {k: v for k, v in batched.items() if k not in timing}


def test_bench_outside_a_checkout(capsys, monkeypatch):
    monkeypatch.setattr(bench, "_bench_script", lambda: None)
    for flag in ("--help", "-h"):
        assert cli.main(["bench", flag]) == 0
        out = capsys.readouterr().out
        assert out.startswith("usage: borders-sim bench [BENCHMARK OPTIONS ...]")
        assert "benchmarks/rollouts.py of a source checkout" in " ".join(out.split())
    with pytest.raises(SystemExit) as stop:
        cli.main(["bench", "--quick"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the benchmarks live in a source checkout" in err


def test_bench_help_in_a_checkout_is_the_scripts_help(capsys):
    argv = list(sys.argv)
    assert cli.main(["bench", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--quick" in out and "--py-games" in out
    assert sys.argv == argv


COMMANDS = sorted(next(a for a in build_parser()._actions
                        if isinstance(a, argparse._SubParsersAction)).choices)


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_help_names_the_command_and_describes_it(capsys, name):
    """``borders-sim NAME --help`` starts ``usage: borders-sim NAME`` (``bench`` too, whose help
    in a checkout is the benchmark script's) and has a description before its options."""
    try:
        status = cli.main([name, "--help"])
    except SystemExit as stop:
        status = stop.code
    assert status == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: borders-sim {name} ") or out.startswith(
        f"usage: borders-sim {name}\n"), out[:200]
    paragraphs = out.split("\n\n")
    assert len(paragraphs) > 2 and not paragraphs[1].startswith(
        ("options:", "positional arguments:")), f"{name} --help has no description"


def test_the_module_entry_point_refuses_without_traceback():
    """End to end, in a fresh interpreter: the one-line error and status 2."""
    run = subprocess.run([sys.executable, "-m", "borders_sim.cli", "simulate", "--players",
                          "3,4", "--games", BIG], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    assert run.stderr.splitlines()[-1].startswith(
        "borders-sim simulate: error: argument --games: must be an integer from 1 to ")


def test_warmup_prepares_every_part_and_says_so(capsys):
    """``borders-sim warmup`` runs every step of borders_sim.cli.warmup (compiling whatever this
    process and the cache do not hold yet) and reports each with its time."""
    from borders_sim.cli.warmup import STEPS, warm_up
    assert cli.main(["warmup", "--jobs", "2"]) == 0  # in worker processes
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("borders-sim warmup: numba cache: ")
    for i, (what, _run) in enumerate(STEPS, 1):
        assert any(line.startswith(f"borders-sim warmup: [{i}/{len(STEPS)}] {what}: ")
                   for line in err), what
    assert err[-1].startswith("borders-sim warmup: all kernels ready in ")
    again = warm_up(jobs=1)  # here, in this process: it loads what the first run cached
    assert [r.name for r in again] == [what for what, _run in STEPS]
    assert sum(r.compiled for r in again) == 0


def test_getting_started_names_every_command():
    """docs/getting-started.md's list of what ``borders-sim --help`` lists names each command."""
    commands = next(a for a in build_parser()._actions
                    if isinstance(a, argparse._SubParsersAction)).choices
    page = (Path(__file__).resolve().parents[1] / "docs" / "getting-started.md").read_text()
    listed = page.split("`borders-sim --help` lists the commands:")[1].split("\n\n")[0]
    assert sorted(c for c in commands if f"`{c}`" not in listed) == []


def test_a_progress_bar_into_a_file_writes_whole_lines(monkeypatch):
    """Into a file (not a terminal) a bar is whole lines, one per refresh and a last one, and
    what is printed after it starts on a line of its own (issue 53 item 7)."""
    import io

    from borders_sim.cli import progress

    out = io.StringIO()
    monkeypatch.setattr(progress, "LOG_SECONDS", 0.0)  # a line per update
    with progress.progress_bar(total=3, unit="game", desc="tournament", file=out) as bar:
        for _ in range(3):
            bar.update(1)
    out.write("| bot | win rate |\n")
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue() and lines[-1] == "| bot | win rate |"
    bars = lines[:-1]
    assert bars and all(line.startswith("tournament:") for line in bars)
    assert "3/3" in bars[-1] and len(set(bars)) == len(bars)

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty = Terminal()
    with progress.progress_bar(total=2, desc="live", file=tty) as bar:
        bar.update(2)
    assert "\r" in tty.getvalue()  # on a terminal tqdm redraws in place
