"""After every way a game ends, every seat sees its own view and an all-zero mask.

A game ends by being played to its end, by an illegal move under the default wrappers
(PettingZoo's ``TerminateIllegalWrapper`` ends it with -1 for the offender), or by ``close()``.
After each, in every environment, each agent's observation must be exactly what that seat may
know (:func:`~borders_sim.game.views.observe` of its own seat) and its mask all zeros: a view
cached for the mover is never served to anyone else, nor after the game is over.

* The AEC env, wrapped (``borders_v0.env()``) and raw: a hypothesis test cuts games of 3..8
  players with an illegal move at a random point and reads every agent's view through
  ``observe`` and through ``last`` while each agent steps ``None`` out; games played to their
  end; ``close()`` at a random point.
* ``SingleSeatEnv``: an illegal learner move with ``illegal_action="lose"``, and the end.
* ``VectorEnv`` and ``TrainingEnv`` (both autoreset modes): the row of a game that ended holds
  the next game's first decision, or the learner's own final view.
* The OpenSpiel game: every player's observation tensor after the end (the information-state
  tensor is refused); the web API: every seat's view after the end and after a refused move.
* The RLlib adapters: in ``tests/test_rllib.py``, which the CI runs with the ``rllib`` extra.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

from borders_sim import Game
from borders_sim.envs import SingleSeatEnv, TrainingEnv, VectorEnv, borders_v0, observe
from borders_sim.envs.training import LEARNER
from borders_sim.rules.actions import NUM_ACTIONS

PLAYERS = range(3, 9)


def assert_own_views(env, agents=None) -> None:
    """Each agent of ``agents`` (default: every possible agent) observes its own seat's view
    with an all-zero mask."""
    game = env.unwrapped.game
    for seat, agent in enumerate(env.possible_agents):
        if agents is not None and agent not in agents:
            continue
        seen = env.observe(agent)
        assert np.array_equal(seen["observation"], observe(game, seat)), \
            f"{agent} sees another seat's view"
        assert not seen["action_mask"].any(), f"{agent} has a non-empty mask after the end"


def play_random(env, rng: random.Random, steps: int) -> None:
    """Up to ``steps`` random legal moves of the agents to move (stops at the end)."""
    for _ in range(steps):
        obs, _r, term, trunc, _i = env.last()
        if term or trunc:
            return
        env.step(rng.choice(np.flatnonzero(obs["action_mask"]).tolist()))


def step_everyone_out(env) -> None:
    """Each agent in turn steps ``None`` until none is left; every ``last()`` on the way is its
    own view with an empty mask, and every other agent's view stays so."""
    game = env.unwrapped.game
    while env.agents:
        agent = env.agent_selection
        obs, _reward, term, trunc, _info = env.last()
        assert term or trunc
        assert np.array_equal(obs["observation"], observe(game, env.possible_agents.index(agent)))
        assert not obs["action_mask"].any()
        assert_own_views(env)
        env.step(None)


@settings(max_examples=60, deadline=None)
@given(n=hst.sampled_from(PLAYERS), seed=hst.integers(0, 2**32 - 1),
       cut=hst.floats(0.0, 1.0), pick=hst.integers(0, NUM_ACTIONS))
def test_an_illegal_move_under_the_default_wrappers_leaks_nothing(n, seed, cut, pick):
    env = borders_v0.env(num_players=n)
    env.reset(seed=seed)
    rng = random.Random(seed)
    # a point of the game: a random legal game's length times cut (replayed from the same seed)
    length = 0
    while env.agents and not env.terminations[env.agent_selection]:
        play_random(env, rng, 1)
        length += 1
    env.reset(seed=seed)
    rng = random.Random(seed)
    play_random(env, rng, int(cut * (length - 1)))
    obs, *_ = env.last()
    illegal = np.flatnonzero(obs["action_mask"] == 0)
    env.step(int(illegal[pick % len(illegal)]))
    assert all(env.terminations.values())
    assert_own_views(env)
    step_everyone_out(env)


@pytest.mark.parametrize("wrapped", [True, False], ids=["env", "raw_env"])
@pytest.mark.parametrize("n", PLAYERS)
def test_a_game_played_to_its_end_leaks_nothing(n, wrapped):
    env = (borders_v0.env if wrapped else borders_v0.raw_env)(num_players=n)
    env.reset(seed=100 + n)
    play_random(env, random.Random(n), 10**6)
    assert env.unwrapped.game.is_terminal
    assert_own_views(env)
    step_everyone_out(env)


@pytest.mark.parametrize("wrapped", [True, False], ids=["env", "raw_env"])
@pytest.mark.parametrize("n", PLAYERS)
def test_close_mid_game_leaves_own_views_and_refuses_play(n, wrapped):
    env = (borders_v0.env if wrapped else borders_v0.raw_env)(num_players=n)
    env.reset(seed=200 + n)
    rng = random.Random(n)
    play_random(env, rng, rng.randrange(1, 300))
    mover = env.agent_selection
    env.observe(mover)  # the mover's view is cached now
    env.close()
    assert_own_views(env)
    with pytest.raises(RuntimeError, match=r"after close\(\)"):
        env.unwrapped.step(0)
    with pytest.raises(RuntimeError, match=r"after close\(\)"):
        env.unwrapped.last()
    env.reset(seed=1)  # a new game after close
    obs, *_ = env.last()
    assert obs["action_mask"].any()


def test_the_raw_env_ended_by_a_wrapper_steps_dead_agents_only():
    """``TerminateIllegalWrapper`` ends the game by setting the raw env's terminations; the raw
    env then treats its step as a dead agent's step and never plays the cut game on."""
    env = borders_v0.env(num_players=4)
    env.reset(seed=1)
    play_random(env, random.Random(1), 7)
    before = env.unwrapped.game.to_dict()
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    raw = env.unwrapped
    while raw.agents:
        raw.step(None)
    assert raw.game.to_dict() == before


@pytest.mark.parametrize("n", [3, 8])
def test_single_seat_env_after_an_illegal_move_and_at_the_end(n):
    env = SingleSeatEnv(num_players=n, seat=1, seed=n)
    obs, info = env.reset()
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    obs, reward, terminated, _trunc, info = env.step(illegal)
    assert terminated and reward == -1.0 and info["illegal_action"]
    assert np.array_equal(obs, observe(env.game, 1))
    assert not info["action_mask"].any() and not env.action_masks().any()

    rng = np.random.default_rng(n)
    obs, info = env.reset()
    terminated = False
    while not terminated:
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, _r, terminated, _t, info = env.step(action)
    assert np.array_equal(obs, observe(env.game, 1))
    assert not info["action_mask"].any() and not env.action_masks().any()


# --- the compiled envs: the row of a game that ended shows the next game or the learner's own
# final view, never another seat's ---------------------------------------------------------------
def test_vector_env_rows_after_an_end_are_the_new_games_first_decision():
    env = VectorEnv(6, num_players=3, seed=5)
    out = env.reset()
    rng = np.random.default_rng(0)
    ends = 0
    while ends < 12:
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in out.action_mask])
        out = env.step(actions)
        for k in np.flatnonzero(out.terminated):
            ends += 1
            game = env.game(k)
            assert game.current_player == out.current_player[k]
            assert np.array_equal(out.observation[k], observe(game, int(out.current_player[k])))
            assert np.array_equal(out.action_mask[k], game.legal_mask().astype(bool))


@pytest.mark.parametrize("mode", ["next_step", "same_step"])
def test_training_env_shows_the_learner_its_own_final_view(mode):
    """Every seat but the learner's is external, so each step is one decision and a Python copy
    of each game follows it; at an end the final view is the learner's own of the finished game.
    (``NEXT_STEP``'s all-True mask on that row is a constant placeholder for the ignored next
    action, documented in :mod:`borders_sim.envs.training`; it depends on nothing.)"""
    env = TrainingEnv(4, num_players=3, opponents=("external:outside",), seed=3,
                      autoreset_mode=mode, scale_obs=False)  # observe()'s raw vector
    obs, infos = env.reset()
    rng = np.random.default_rng(1)
    ends = 0
    while ends < 8:
        pending = ~env.state_arrays()["_autoreset"] if mode == "next_step" else np.ones(4, bool)
        states = env.state_arrays()["_states"]
        copies = [Game.from_state(states[k:k + 1].copy()) for k in range(4)]
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in infos["action_mask"]])
        obs, _rewards, terms, _truncs, infos = env.step(actions)
        for k in np.flatnonzero(terms):
            ends += 1
            assert pending[k]
            copies[k].step(int(actions[k]))
            assert copies[k].is_terminal
            seat = int(np.flatnonzero(infos["ended_members"][k] == LEARNER)[0])
            final = obs[k] if mode == "next_step" else infos["final_obs"][k]
            assert np.array_equal(final, observe(copies[k], seat))
            if mode == "next_step":
                assert infos["action_mask"][k].all() and infos["seat"][k] == seat


# --- OpenSpiel: the observation tensors of every player after the end ---------------------------
def test_openspiel_views_after_the_end_are_each_players_own():
    pyspiel = pytest.importorskip("pyspiel")
    import borders_sim.openspiel  # noqa: F401  (registers python_borders)

    game = pyspiel.load_game("python_borders(players=4)")
    state = game.new_initial_state()
    for a in borders_sim.openspiel.deal_actions(7):
        state.apply_action(a)
    rng = random.Random(7)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    for p in range(4):
        assert np.array_equal(np.asarray(state.observation_tensor(p), dtype=np.float32),
                              observe(state.game, p))
        assert state.legal_actions(p) == []
        with pytest.raises(pyspiel.SpielError):
            state.information_state_tensor(p)


# --- the web API: after the end each seat's view is its own, no legal action is left ----------
def test_web_api_views_after_the_end_and_after_a_refused_move():
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from borders_sim.game.views import observe_json
    from borders_sim.serve import Settings, create_app

    app = create_app(Settings(allow_seeds=True))  # (a replicated deal)
    with TestClient(app, raise_server_exceptions=False) as client:
        r = client.post("/api/games", json={"players": 3, "seat": 0, "seed": 4,
                                            "bots": ["honest", "strict"]})
        game_id = r.json()["id"]
        refused = False
        while True:
            status = client.get(f"/api/games/{game_id}").json()["game"]
            if status["over"]:
                break
            legal = client.get(f"/api/games/{game_id}/legal").json()["actions"]
            if legal and not refused:  # an illegal move is refused and changes nothing
                before = client.get(f"/api/games/{game_id}/view").json()
                ids = {a["id"] for a in legal}
                bad = next(i for i in range(NUM_ACTIONS) if i not in ids)
                assert client.post(f"/api/games/{game_id}/act",
                                   json={"action": bad}).status_code == 422
                assert client.get(f"/api/games/{game_id}/view").json() == before
                refused = True
            r = (client.post(f"/api/games/{game_id}/act", json={"action": legal[0]["id"]})
                 if legal else client.post(f"/api/games/{game_id}/step"))
            assert r.status_code == 200, r.text
        table = Game.from_dict(client.get(f"/api/games/{game_id}/view?seat=table")
                               .json()["table"])
        assert table.is_terminal
        for seat in range(3):
            view = client.get(f"/api/games/{game_id}/view?seat={seat}").json()
            assert view["view"] == observe_json(table, seat)
            assert view["view"]["legal_actions"] == []
        assert client.get(f"/api/games/{game_id}/legal").json()["actions"] == []
    assert app.state.bugs == 0
