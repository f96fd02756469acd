"""The population evaluation (``borders_sim.arena.population``, ``borders-sim tournament
--pool``): tables drawn from a pool with the focus at every table, reproducible from the seed,
per-member shares that agree with the games, head-to-head differences paired by game, and
α-Rank on meta-games whose answer is known. Small game counts; nothing timed."""

from __future__ import annotations

import json

import numpy as np
import pytest

from borders_sim.arena.alpharank import alpharank, fixation_probability
from borders_sim.arena.population import (POPULATION_SEED, Population, check_pool, draw_tables,
                                          population, summarize_population)
from borders_sim.cli import main as cli_main
from borders_sim.arena.population_tables import population_text

POOL = ("honest", "bluffer", "collector", "strict", "random")


def test_tables_seat_the_focus_and_different_members():
    rng = np.random.default_rng(0)
    seatings = draw_tables(POOL, ("strict",), 4, 200, rng)
    assert all(len(set(s)) == 4 and "strict" in s and set(s) <= set(POOL) for s in seatings)
    assert len({frozenset(s) for s in seatings}) == 4  # every 3 of the other 4 drawn
    assert {s.index("strict") for s in seatings} == {0, 1, 2, 3}  # the seat order is drawn


@pytest.mark.parametrize("pool, focus, message", [
    ("honest,bluffer,collector", None, "cannot seat a table of 4"),
    ("honest,bluffer,honest,strict", None, "listed twice in the pool"),
    (POOL, "ppo", "not in the pool"),
    (POOL, "honest,bluffer,collector,strict", "fill every seat"),
    (POOL, "honest,nobody", r"focus member\(s\) nobody are not in the pool"),
    ("honest,nobody,bluffer,strict", None, "unknown bot name"),
])
def test_bad_pools_are_refused_by_name(pool, focus, message):
    with pytest.raises(ValueError, match=message):
        check_pool(pool, focus, 4)


def same(one: Population, two: Population) -> bool:
    """Equal but for the time they took."""
    first, second = one.to_dict(), two.to_dict()
    first["config"].pop("seconds")
    second["config"].pop("seconds")
    return first == second


def test_a_population_is_reproducible_and_its_figures_agree():
    one = population(POOL, games=42, seed=7, focus="honest")
    two = population(",".join(POOL), games=42, seed=7, focus=("honest",))
    assert same(one, two)
    assert sum(n for _, n in one.tables) == 42
    honest = one.member("honest")
    assert honest["games"] == 42 and honest["focus"]
    assert sum(m["games"] for m in one.members) == 42 * 4
    assert sum(m["wins"] for m in one.members) == pytest.approx(42)  # one win per game
    assert abs(sum(m["alpharank"] for m in one.members) - 1) < 1e-9
    for m in one.members:
        lo, hi = m["win_rate_ci95"]
        assert lo <= m["win_rate"] <= hi
    pair, back = one.pair("honest", "random"), one.pair("random", "honest")
    assert pair.games == back.games == one.member("random")["games"]  # honest is everywhere
    assert pair.difference == pytest.approx(-back.difference)
    assert pair.ahead + back.ahead == pytest.approx(1.0)
    assert pair.difference_ci95[0] <= pair.difference <= pair.difference_ci95[1]
    assert not same(population(POOL, games=42, seed=8, focus="honest"), one)
    back = Population.from_dict(json.loads(json.dumps(one.to_dict())))  # JSON-ready
    assert back == one and population_text(back) == population_text(one)


def test_the_summary_on_constructed_games():
    """Three games of a pool of five at 3 seats, results chosen by hand."""
    result = Population(("a", "b", "c", "d", "e"), (), 3, 3, 0, 100.0)
    entry = np.array([[0, 1, 2], [0, 1, 3], [2, 3, 4]])
    scores = np.array([[10, 5, 1], [3, 8, 8], [4, 4, 9]])
    winners = np.array([[1, 0, 0], [0, 1, 1], [0, 0, 1]], dtype=np.int8)
    summarize_population(result, entry, scores, winners, np.zeros((5, 30), np.int64))
    a, b, c = result.member("a"), result.member("b"), result.member("c")
    assert (a["games"], a["wins"], a["win_rate"]) == (2, 1.0, 0.5)
    assert (b["games"], b["wins"]) == (2, 0.5)
    assert c["games"] == 2 and c["wins"] == 0.0
    ab = result.pair("a", "b")
    assert ab.games == 2 and ab.win_rate == 0.5
    assert ab.difference == pytest.approx(((1 - 0) + (0 - 0.5)) / 2)
    assert ab.ahead == pytest.approx(0.5)  # ahead in game 0, behind in game 1
    assert result.pair("a", "e").games == 0 and result.pair("a", "e").ahead is None


def test_alpharank_on_known_meta_games():
    dominant = np.array([[0.5, 0.9, 0.9], [0.1, 0.5, 0.6], [0.1, 0.4, 0.5]])
    assert alpharank(dominant)[0] > 0.99
    cycle = np.array([[0.5, 1.0, 0.0], [0.0, 0.5, 1.0], [1.0, 0.0, 0.5]])
    assert np.allclose(alpharank(cycle), 1 / 3)
    even = np.full((4, 4), 0.5)
    assert np.allclose(alpharank(even), 0.25)
    # neutral drift: a mutant fixes with chance 1/m
    assert fixation_probability(even, 0, 1, 100.0, 50) == pytest.approx(1 / 50)
    assert alpharank(np.array([[0.5]])).tolist() == [1.0]
    with pytest.raises(ValueError, match="square"):
        alpharank(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="alpha"):
        alpharank(even, alpha=-1)
    with pytest.raises(ValueError, match="alpha"):  # refused before any game is played
        population(POOL, games=4, alpha=0)


def test_the_command_prints_and_writes_the_population(capsys, tmp_path):
    out = tmp_path / "pop.json"
    assert cli_main(["tournament", "--pool", ",".join(POOL), "--focus", "strict",
                     "--games", "24", "--no-progress", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "member | games" in text and "strict *" in text and "Head to head" in text
    assert f"--seed {POPULATION_SEED} --focus strict" in text
    document = json.loads(out.read_text())
    assert document["config"]["seed"] == POPULATION_SEED
    assert {m["name"] for m in document["members"]} == set(POOL)
    assert document["config"]["command"].startswith("borders-sim tournament --players 4")


@pytest.mark.parametrize("argv, message", [
    (["--pool", "honest,bluffer,collector,strict", "--bots", "honest,bluffer,collector,strict"],
     "--bots: not with --pool"),
    (["--focus", "honest"], "--focus: needs --pool"),
    (["--pool", "honest,bluffer,collector"], "cannot seat a table of 4"),
])
def test_the_command_refuses_what_does_not_fit(capsys, argv, message):
    with pytest.raises(SystemExit) as stop:
        cli_main(["tournament", *argv, "--games", "4"])
    assert stop.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.slow
def test_the_ray_backend_plays_the_same_population():
    pytest.importorskip("ray")
    local = population(POOL, games=24, seed=11, focus="collector")
    ray = population(POOL, games=24, seed=11, focus="collector", backend="ray", threads=2)
    assert same(local, ray)
