"""What a training run reports while it runs: the progress line at any terminal width (its
steps/s kept as members join), the win shares over the last games against each member, the
evaluation defaults chosen from the budget, and a curve without evaluations yet. No torch
needed."""

from __future__ import annotations

import json

import numpy as np
import pytest

from borders_sim.train.config import TrainConfig
from borders_sim.train.league import RECENT_GAMES, League
from borders_sim.train.plot import no_evaluation_text
from borders_sim.train.progress import clock, progress_line, short_name

LEAGUE = [("honest", 0.998), ("bluffer", 0.913), ("collector", 0.88), ("strict", 0.1),
          ("random", 1.0), ("self-0", 0.52), ("self-1", None)]


def line(width: int, members=LEAGUE, max_updates=None, elapsed=83.0, minutes=3.0) -> str:
    return progress_line(width, 37, max_updates, elapsed, minutes, 7250.4, members, 200)


@pytest.mark.parametrize("width", [20, 40, 60, 80, 100, 120, 200, 400])
@pytest.mark.parametrize("members", [LEAGUE, LEAGUE[:3], []])
def test_the_line_fits_the_width(width, members):
    assert len(line(width, members)) <= width - 1


def test_the_line_at_60_80_and_120_columns():
    three = LEAGUE[:3]
    assert line(120, three) == ("update 37 | 1:23 / 3 min, 1:37 left | 7,250 steps/s | "
                                "win, last 200 games: honest 100% bluffer 91% collector 88%")
    assert line(80, three) == ("update 37 | 1:37 left | 7,250 steps/s | "
                               "last 200 games: hon 100 blu 91 col 88")
    assert line(60, three) == "update 37 | 1:37 left | 7,250 steps/s | last 200: ..."
    # a league at 80 columns: the last members give way, said by "..."
    assert line(80) == "update 37 | 1:37 left | 7,250 steps/s | last 200: hon 100 blu 91 col 88 ..."
    assert line(200).endswith("self-0 52% self-1 -")  # no games yet: no figure


BIG_LEAGUE = LEAGUE[:5] + [("self-0", 0.52), ("self-1", 0.4), ("self-2", 0.45),
                           ("exploiter-0", 0.3), ("exploiter-1", None)]


@pytest.mark.parametrize("width", [40, 60, 80, 100, 120, 200])
@pytest.mark.parametrize("members", [LEAGUE[:3], LEAGUE[:3] + [("self-0", 0.52)], LEAGUE,
                                     BIG_LEAGUE])
def test_the_steps_per_s_stay_when_members_join(width, members):
    """A snapshot or an exploiter joining the league shortens and drops members, never the
    learner's steps/s."""
    assert " | 7,250 steps/s" in line(width, members)
    assert len(line(width, members)) <= width - 1


def test_a_league_with_snapshots_at_120_columns():
    assert line(120, LEAGUE[:3] + [("self-0", 0.52)]) == (
        "update 37 | 1:23 / 3 min, 1:37 left | 7,250 steps/s | "
        "win, last 200 games: hon 100 blu 91 col 88 s0 52")
    assert line(120, BIG_LEAGUE) == (
        "update 37 | 1:37 left | 7,250 steps/s | "
        "last 200: hon 100 blu 91 col 88 str 10 ran 100 s0 52 s1 40 s2 45 x0 30 x1 -")
    assert line(100, BIG_LEAGUE) == (
        "update 37 | 1:37 left | 7,250 steps/s | last 200: hon 100 blu 91 col 88 str 10 ran 100 "
        "s0 52 ...")


def test_the_budget_in_updates_and_in_minutes():
    assert line(120, LEAGUE[:1], max_updates=50).startswith("update 37/50 | 1:23 / 3 min, ")
    assert "1:23 / 3 min, 1:37 left" in line(120, LEAGUE[:1])
    assert "1:00:00 / 90 min, 30:00 left" in line(120, LEAGUE[:1], elapsed=3600, minutes=90)
    assert clock(59.6) == "1:00" and clock(-3) == "0:00" and clock(3725) == "1:02:05"
    assert [short_name(n) for n in ("honest", "self-12", "exploiter-1")] == ["hon", "s12", "x1"]


def test_the_win_share_is_over_the_last_games_not_an_average_from_a_fair_share():
    league = League(("honest", "bluffer"), 4)
    assert league.recent_share(0) is None  # no games: no figure (the weights' average is 1/4)
    league.record(np.array([0] * 50), np.ones(50))
    assert league.recent_share(0) == 1.0 and league.recent_share(1) is None
    league.record(np.array([0] * RECENT_GAMES), np.zeros(RECENT_GAMES))
    assert league.recent_share(0) == 0.0  # the 50 wins fell out of the window
    league.record(np.array([0] * (RECENT_GAMES // 2)), np.ones(RECENT_GAMES // 2))
    assert league.recent_share(0) == pytest.approx(0.5)
    assert 0.25 < league.win[0] < 0.5  # the draws' average still remembers older games


def test_a_slot_that_takes_a_new_policy_starts_its_window_again():
    league = League(("honest",), 4, snapshots=1, initial=object())
    league.record(np.array([1, 1]), np.array([1.0, 0.0]))
    assert league.recent_share(1) == 0.5
    league.take_snapshot()
    assert league.recent_share(1) is None


def test_the_evaluation_defaults_follow_the_budget():
    short = TrainConfig(minutes=3)
    assert short.evaluation_games() == 50 and TrainConfig(minutes=30).evaluation_games() == 200
    given = TrainConfig(minutes=3, eval_every=100, eval_games=7)
    assert given.evaluation_games() == 7
    with pytest.raises(ValueError, match="eval_every"):
        TrainConfig(eval_every=-1).check()


@pytest.mark.parametrize("updates_a_minute", [2, 10, 56, 400])
def test_a_run_evaluates_four_times_at_any_pace(updates_a_minute):
    """By default a run evaluates after the update that completes each quarter of its budget:
    4 times whatever the machine's pace (the earlier rule assumed 10 updates a minute and a
    machine doing 56 evaluated every 7 updates, 20 times in 2.5 minutes)."""
    config = TrainConfig(minutes=2.5)
    seconds_each = 60.0 / updates_a_minute
    done, at, update = 0, [], 0
    while update * seconds_each < 150.0:  # the trainer's loop: stop once the clock is spent
        update += 1
        due = config.evaluations_due(update, update * seconds_each)
        if due > done:
            done, at = due, at + [update]
    assert done == 4 and len(at) == 4
    assert at[-1] == update  # the last after the final update


def test_a_run_with_max_updates_evaluates_at_its_quarters():
    config = TrainConfig(minutes=600, max_updates=20)
    due = [config.evaluations_due(u, 1.0) for u in range(21)]
    assert [u for u in range(1, 21) if due[u] > due[u - 1]] == [5, 10, 15, 20]
    # the clock ends it first: the clock's quarters
    assert TrainConfig(minutes=1, max_updates=10**6).evaluations_due(3, 30.0) == 2
    # a resumed run counts the evaluations its first part made
    assert TrainConfig(minutes=10).evaluations_due(40, 301.0) == 2


def test_a_curve_without_evaluations_says_when_the_first_comes(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from matplotlib.axes import Axes

    from borders_sim.train.plot import plot_curve
    assert no_evaluation_text(100) == "no evaluation yet (first at update 100)"
    assert no_evaluation_text(0) == "no evaluations in this run (eval_every 0)"
    assert no_evaluation_text(None) == "no evaluation yet (first after a quarter of the budget)"
    said = []
    original = Axes.text
    monkeypatch.setattr(Axes, "text", lambda self, *a, **k: said.append(a[2]) or
                        original(self, *a, **k))
    curve = [{"update": u, "learner_steps": 8192 * u, "win_vs_honest": 0.5,
              "win_vs_self-0": None} for u in (1, 2)]
    plot_curve(json.loads(json.dumps(curve)), tmp_path / "curve.png", eval_every=100)
    assert (tmp_path / "curve.png").stat().st_size > 0
    assert said == ["no evaluation yet (first at update 100)"] * 2


def test_progress_into_a_file_is_whole_lines_once_per_interval(tmp_path, capfd, monkeypatch):
    """Where stderr is not a terminal (here pytest's capture; a log file, a notebook), the
    progress is whole lines, never cut to a width nor redrawn: the first, one per
    ``LOG_SECONDS`` and the last, each with its full label."""
    pytest.importorskip("torch")
    from borders_sim.train import TrainConfig, train
    from borders_sim.train import trainer as trainer_module

    monkeypatch.setattr(trainer_module, "LOG_SECONDS", 0.0)  # a line after every update
    config = TrainConfig(opponents=("honest",), num_envs=8, steps=8, max_updates=3,
                         minutes=30.0, eval_every=0, snapshots=0, checkpoint_every=10**6)
    train(config, tmp_path / "run", progress=True)
    err = capfd.readouterr().err
    assert "\r" not in err
    lines = [line for line in err.splitlines() if line.startswith("update ")]
    assert [line.split(" |")[0] for line in lines] == ["update 1/3", "update 2/3", "update 3/3"]
    for line in lines:
        assert " min, " in line and "steps/s" in line and f"win, last {RECENT_GAMES} games:" in line
