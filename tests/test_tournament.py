"""The tournament engine: seat rotation, seeds, the compiled and Python paths give
identical results, Python-only bots, interrupts, and the Ray backend equals the local one."""

from __future__ import annotations

import numpy as np
import pytest

from borders_sim import Game, GameConfig
from borders_sim.agents import COMPILED_BOTS, REGISTRY, Seat, make
from borders_sim.batch.seeds import bot_seed
from borders_sim.envs import observe
from borders_sim.rules import state as st
from borders_sim.arena import Tournament, default_lineup, run_tournament, tournament
from borders_sim.arena.paths import play_chunk


def same(a, b) -> None:
    """Two results hold the same games and the same statistics."""
    for key in ("entry", "scores", "winners", "steps", "rounds", "hist_totals"):
        assert np.array_equal(getattr(a, key), getattr(b, key)), key
    assert a.bots == b.bots
    ca, cb = a.config_dict(), b.config_dict()
    for key in ("path", "backend"):
        ca.pop(key), cb.pop(key)
    assert ca == cb


def lineup(n: int) -> tuple[str, ...]:
    """Every compiled bot, with repeats: the first bot twice."""
    return (COMPILED_BOTS[0],) + default_lineup(n - 1)


def test_seats_rotate_through_every_seat():
    t = tournament(5, "random,random,random,random,random", 10, 3)
    assert isinstance(t, Tournament) and t.compiled
    names = ("a", "b", "c", "d", "e")
    t = Tournament(tuple(Seat(name, spec="random") for name in names), 10, 3,
                   GameConfig(num_players=5))
    for block in range(2):
        seats = [t.seat_names(block * 5 + r) for r in range(5)]
        for p in range(5):
            assert sorted(row[p] for row in seats) == list(names)
    assert t.seat_names(0) == list(names) and t.seat_names(1) == ["b", "c", "d", "e", "a"]
    assert t.bot_seeds(2) == [bot_seed(5, p) for p in range(5)]


@pytest.mark.parametrize("players,bots,message", [
    (2, "random,random", r"players must be an int from 3 to 8"),
    (4, "random,random,random", r"the lineup has 3 bot\(s\) \(random,random,random\) but "
                                r"there are 4 players"),
    (3, "random,nobody,random", r"unknown bot name\(s\) 'nobody'; known bots: "),
    (3, "random,,random", r"empty bot name"),
])
def test_bad_lineups_name_the_problem(players, bots, message):
    with pytest.raises(ValueError, match=message):
        tournament(players, bots, 10)


def test_bad_run_arguments_name_the_problem():
    bots = default_lineup(3)
    for kwargs, message in [({"games": 0}, "games must be"), ({"seed": -1}, "seed must be"),
                            ({"seed": 2**64}, "seed must be"), ({"seed": 1.0}, "seed must be"),
                            ({"seed": 2**64 - 1, "games": 2}, "last game's seed"),
                            ({"backend": "mpi"}, "backend must be"),
                            ({"ray_address": "h:1"}, "needs backend='ray'"),
                            ({"path": "fast"}, "path must be"),
                            ({"threads": 0}, "threads must be"),
                            ({"chunk_size": 0}, "chunk_size must be"),
                            ({"config": GameConfig(num_players=4)}, "config.num_players is 4")]:
        args = {"games": 3, **kwargs}
        with pytest.raises(ValueError, match=message):
            run_tournament(3, bots, **args)


def test_game_g_is_the_python_game_dealt_from_seed_plus_g():
    t = tournament(4, lineup(4), 6, 40)
    chunk = play_chunk(t, 0, 6, "compiled")
    for g in (0, 5):
        game = Game(t.config, seed=40 + g)
        bots = [make(nm, bot_seed(40 + g, p)) for p, nm in enumerate(t.seat_names(g))]
        while not game.is_terminal:
            p = game.current_player
            game.step(bots[p].act(observe(game, p), game.legal_mask()))
        assert chunk["scores"][g].tolist() == game.scores()
        assert np.flatnonzero(chunk["winners"][g]).tolist() == game.winners()
        assert chunk["hist"][g].tolist() == game.state[0]["hist"][:4].tolist()


@pytest.mark.parametrize("n", [3, 6])
def test_compiled_and_python_paths_give_identical_results(n):
    """Compiled chunks in this process against Python chunks in 2 spawned worker processes,
    with different chunk sizes: the same games, the same statistics."""
    config = GameConfig(num_players=n, action_cards=n == 3)
    compiled = run_tournament(n, lineup(n), 2 * n + 1, 11, config=config, chunk_size=4)
    python = run_tournament(n, lineup(n), 2 * n + 1, 11, config=config, path="python",
                            threads=2, chunk_size=3)
    assert (compiled.path, python.path) == ("compiled", "python")
    same(compiled, python)
    row = compiled.bots[0]
    assert row["name"] == COMPILED_BOTS[0] and row["seats"] >= 2
    assert sum(b["wins"] for b in compiled.bots) == pytest.approx(2 * n + 1)
    assert sum(b["games"] for b in compiled.bots) == n * (2 * n + 1)
    assert np.all(compiled.steps > 0)


@pytest.mark.parametrize("first", [2**63 - 2, 2**64 - 4])
def test_the_paths_agree_on_seeds_up_to_the_last_one(first):
    """Seeds reach the whole-game kernels as uint64: around 2**63 and up to 2**64 - 1 a game
    is the same on the compiled path and through Game with Python bots."""
    t = tournament(3, lineup(3), 4, first)
    compiled, python = play_chunk(t, 0, 4, "compiled"), play_chunk(t, 0, 4, "python")
    for key in compiled:
        np.testing.assert_array_equal(compiled[key], python[key], err_msg=key)
    if first >= 2**63:  # seeds are not cut to 63 bits
        low = play_chunk(tournament(3, lineup(3), 4, first - 2**63), 0, 4, "compiled")
        assert not np.array_equal(low["scores"], compiled["scores"])


def test_a_python_only_bot_plays_on_the_python_path(monkeypatch):
    class FirstLegal:
        """A Python-only bot: the lowest legal id."""
        name = "first"

        def act(self, observation, action_mask):
            return int(np.flatnonzero(action_mask)[0])

    monkeypatch.setitem(REGISTRY, "first", lambda seed: FirstLegal())
    bots = ("first", COMPILED_BOTS[0], "first")
    with pytest.raises(ValueError, match=r"compiled path needs compiled bots; \['first'\]"):
        run_tournament(3, bots, 3, path="compiled")
    results = run_tournament(3, bots, 6, 2, threads=1)
    assert results.path == "python" and results.names == ["first", COMPILED_BOTS[0]]
    first, other = results.bots
    assert (first["seats"], first["games"], other["seats"], other["games"]) == (2, 12, 1, 6)
    assert first["wins"] + other["wins"] == pytest.approx(6)
    assert results.to_dict()["config"]["bots"] == list(bots)


def test_an_interrupt_keeps_the_games_finished_in_order():
    n = 4
    calls = []

    def progress(k):
        calls.append(k)
        if len(calls) == 2:
            raise KeyboardInterrupt

    results = run_tournament(n, lineup(n), 12, 5, chunk_size=3, progress=progress)
    assert results.interrupted and results.games_played == 6
    shorter = run_tournament(n, lineup(n), 6, 5)
    assert results.bots == shorter.bots
    assert results.to_dict()["config"]["interrupted"] is True
    assert results.to_dict()["config"]["games"] == 12


def test_json_schema_of_the_results():
    results = run_tournament(3, lineup(3), 6, 1)
    doc = results.to_dict()
    assert set(doc) == {"config", "bots"}
    for row in doc["bots"]:
        for key in ("name", "seats", "games", "wins", "win_rate", "win_rate_ci95",
                    "mean_score", "sd_score", "rating_mu", "rating_sigma"):
            assert key in row
        lo, hi = row["win_rate_ci95"]
        assert 0 <= lo <= row["win_rate"] <= hi <= 1
    assert [row["name"] for row in doc["bots"]] == list(dict.fromkeys(lineup(3)))
    assert doc["config"]["players"] == 3 and doc["config"]["seed"] == 1
    assert doc["config"]["game_config"]["num_players"] == 3
    assert len(st.HISTORY_COUNTERS) == len(doc["bots"][0]["history"])


@pytest.fixture(scope="module")
def ray_cluster():
    ray = pytest.importorskip("ray")
    from borders_sim.arena.ray_backend import local_cluster_kwargs
    ray.init(include_dashboard=False, logging_level="ERROR", log_to_driver=False,
             **local_cluster_kwargs(2))
    yield ray
    ray.shutdown()


@pytest.mark.slow
def test_ray_backend_equals_the_local_backend(ray_cluster):
    """On a local 2-CPU cluster, compiled and Python chunks as Ray tasks."""
    n = 5
    local = run_tournament(n, lineup(n), 23, 9)
    ray_compiled = run_tournament(n, lineup(n), 23, 9, backend="ray", chunk_size=5)
    assert ray_compiled.path == "compiled" and ray_compiled.backend == "ray"
    same(local, ray_compiled)
    local = run_tournament(n, lineup(n), 6, 9)
    ray_python = run_tournament(n, lineup(n), 6, 9, backend="ray", path="python",
                                chunk_size=2)
    same(local, ray_python)
