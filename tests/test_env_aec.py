"""The PettingZoo AEC environment ``borders_v0`` and the words forms of an observation.

* PettingZoo's ``api_test`` (warnings are errors, borders_v0 in its allow-lists of envs with
  dict observations; unpatched, those lists' two warnings are its only ones) and ``seed_test``
  for 3..8 players, with action cards on and off; its ``render_test`` and
  ``performance_benchmark``; a pickle round trip mid-game, raw and
  wrapped, continues identically.
* Rewards come only at the end, all agents terminating together, in the three ``reward`` modes;
  the reward kernel on constructed end states (a shared victory, a tie of every seat).
* Bad input: unknown keywords and bad values name themselves; an illegal action raises
  ``IllegalActionError`` in ``raw_env`` and changes nothing, ends the game with -1 for the
  offender in ``env()``; ``raw_env`` before ``reset`` and after every agent is done says so, and
  unknown agents are named by the spaces too.
* ``observe_json`` / ``observe_text`` at random mid-game points: JSON-ready, consistent with the
  game, the text shows the viewer's hand and legal actions.
* ``docs/borders_v0.md`` is the page ``docs/generate.py`` makes from the code (its ``--check``
  exits 1 on drift), and the page's example runs.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import pickle
import random
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from borders_sim import Game, GameConfig, IllegalActionError
from borders_sim.envs import OBS_SIZE, borders_v0, observe, observe_json, observe_text
from borders_sim.rules.rewards import REWARD_MODES, REWARDS, final_rewards_at, reward_mode
from borders_sim.rules import actions as act
from borders_sim.rules.actions import NUM_ACTIONS
from borders_sim.rules.observation import layout_table
from borders_sim.rules.state import MAX_PLAYERS

PLAYERS = range(3, 9)
# every player count with action cards, and two with goods only
CONFIGS = [(n, True) for n in PLAYERS] + [(3, False), (6, False)]


def config_id(c) -> str:
    return f"{c[0]}p" + ("" if c[1] else "-goods-only")


def random_actions(env, rng: random.Random, steps: int) -> None:
    """Take up to ``steps`` random legal actions (None for agents that are done)."""
    for _ in range(steps):
        if not env.agents:
            return
        obs, _reward, term, trunc, _info = env.last()
        env.step(None if term or trunc else rng.choice(np.flatnonzero(obs["action_mask"])))


def mid_game(n: int, seed: int, action_cards: bool = True) -> Game:
    """A game of ``n`` players after a random number of random legal actions (not over)."""
    rng = random.Random(seed)
    game = Game(GameConfig(num_players=n, action_cards=action_cards), seed=seed)
    history = []
    while not game.is_terminal:
        history.append(rng.choice(game.legal_actions()))
        game.step(history[-1])
    replay = Game(GameConfig(num_players=n, action_cards=action_cards), seed=seed)
    for a in history[:rng.randrange(len(history))]:
        replay.step(a)
    return replay


# --- the doc page ----------------------------------------------------------------------------
DOCS = Path(__file__).resolve().parents[1] / "docs"


@pytest.fixture(scope="module")
def generate():
    """``docs/generate.py`` as a module (``docs/`` is not a package)."""
    spec = importlib.util.spec_from_file_location("docs_generate", DOCS / "generate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_doc_page_is_generated_from_the_code(generate):
    assert generate.main(["--check"]) == 0, (
        "docs/borders_v0.md is out of date; regenerate it with:\n    python docs/generate.py")
    page = (DOCS / "borders_v0.md").read_text(encoding="utf-8")
    assert layout_table() in page and act.ranges_table() in page
    for f in GameConfig.__dataclass_fields__:
        assert f"| `{f}` |" in page


def test_doc_page_check_fails_on_drift(generate, tmp_path):
    assert generate.write_pages(tmp_path) == ["borders_v0.md"]
    assert generate.stale_pages(tmp_path) == []
    page = tmp_path / "borders_v0.md"
    page.write_text(page.read_text(encoding="utf-8").replace("Discrete", "Box"),
                    encoding="utf-8")
    assert generate.stale_pages(tmp_path) == ["borders_v0.md"]


def test_doc_page_example_runs():
    page = DOCS / "borders_v0.md"
    code = re.search(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), re.S).group(1)
    exec(compile(code, str(page), "exec"), {})


# --- PettingZoo's own tests ------------------------------------------------------------------
#: What PettingZoo's api_test warns for an env with a Dict observation {"observation",
#: "action_mask"} unless the env's name is in its allow-lists env_obs_dicts and env_obs_space,
#: which name only PettingZoo's own classic games (texas_holdem_v4, connect_four_v3, ...).
DICT_OBSERVATION_WARNINGS = {
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or "
    "gymnasium.spaces.discrete",
}


@pytest.fixture
def dict_observations_allowed(monkeypatch):
    """Register borders_v0 in api_test's allow-lists of envs with dict observations, as
    PettingZoo does for its own classic games; without this, api_test gives the
    :data:`DICT_OBSERVATION_WARNINGS` (docs/environments.md says so)."""
    module = importlib.import_module("pettingzoo.test.api_test")
    monkeypatch.setattr(module, "env_obs_dicts", module.env_obs_dicts + ["borders_v0"])
    monkeypatch.setattr(module, "env_obs_space", module.env_obs_space + ["borders_v0"])


@pytest.mark.parametrize("make", [borders_v0.env, borders_v0.raw_env], ids=["env", "raw_env"])
def test_pettingzoo_api_test_as_a_user_runs_it_warns_only_of_the_dict_observation(make):
    """``api_test`` with its allow-lists as PettingZoo ships them (nothing patched): it passes,
    and its only warnings are the ones those lists would silence (none, once PettingZoo drops
    them: its issue #1259), so with borders_v0 added to them it passes with warnings as
    errors, as docs/environments.md says."""
    module = importlib.import_module("pettingzoo.test.api_test")
    assert "borders_v0" not in module.env_obs_dicts + module.env_obs_space
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(make(num_players=4), num_cycles=1000)
    assert {str(w.message) for w in caught} <= DICT_OBSERVATION_WARNINGS


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_pettingzoo_api_test_with_warnings_as_errors(config, dict_observations_allowed):
    n, action_cards = config
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        api_test(borders_v0.env(num_players=n, action_cards=action_cards), num_cycles=1000)
        api_test(borders_v0.raw_env(num_players=n, action_cards=action_cards), num_cycles=1000)


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_pettingzoo_seed_test(config):
    n, action_cards = config
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        seed_test(lambda: borders_v0.env(num_players=n, action_cards=action_cards))


@pytest.mark.parametrize("n", [3, 8])
def test_pettingzoo_render_test(n, capsys):
    """PettingZoo's ``render_test``: every render mode of ``metadata`` renders (``rgb_array``
    needs the ``render`` extra)."""
    pytest.importorskip("resvg_py")
    from pettingzoo.test import render_test

    render_test(lambda render_mode=None: borders_v0.env(num_players=n, render_mode=render_mode))
    assert "Your legal actions" in capsys.readouterr().out  # "human" printed the view


def test_pettingzoo_performance_benchmark(capsys):
    """PettingZoo's ``performance_benchmark`` (five seconds of random play through ``env()``)
    runs and reports its turns per second; the figure itself belongs to ``benchmarks/``."""
    from pettingzoo.test import performance_benchmark

    performance_benchmark(borders_v0.env(num_players=4))
    out = capsys.readouterr().out
    turns = re.search(r"([0-9.e+]+) turns per second", out)
    assert turns and float(turns.group(1)) > 0 and "Finished performance benchmark" in out


# --- reset, agents, observations ---------------------------------------------------------------
@pytest.mark.parametrize("n", PLAYERS)
def test_reset_seed_gives_the_game_of_that_seed(n):
    env = borders_v0.env(num_players=n)
    env.reset(seed=7)
    assert env.unwrapped.game.to_dict() == Game(GameConfig(num_players=n), seed=7).to_dict()
    assert env.agents == env.possible_agents == [f"player_{i}" for i in range(n)]
    assert env.agent_selection == f"player_{env.unwrapped.game.current_player}"
    # reset() continues a stream of seeds that reset(seed=...) reseeds
    other = borders_v0.env(num_players=n)
    other.reset(seed=7)
    games = []
    for e in (env, other):
        e.reset()
        games.append(e.unwrapped.game.to_dict())
        e.reset()
        games.append(e.unwrapped.game.to_dict())
    assert games[0] == games[2] and games[1] == games[3] and games[0] != games[1]


@pytest.mark.parametrize("n", PLAYERS)
def test_observation_and_mask_of_every_agent(n):
    env = borders_v0.raw_env(num_players=n)
    env.reset(seed=n)
    random_actions(env, random.Random(n), 100)
    game = env.unwrapped.game
    for seat, agent in enumerate(env.possible_agents):
        o = env.observe(agent)
        assert env.observation_space(agent).contains(o)
        assert o["observation"].dtype == np.float32 and o["observation"].shape == (OBS_SIZE,)
        np.testing.assert_array_equal(o["observation"], observe(game, seat))
        assert o["action_mask"].dtype == np.int8 and o["action_mask"].shape == (NUM_ACTIONS,)
        if seat == game.current_player:
            np.testing.assert_array_equal(o["action_mask"], game.legal_mask())
        else:
            assert not o["action_mask"].any()
    assert env.action_space(env.agent_selection).n == NUM_ACTIONS


def test_flags_reach_the_game():
    env = borders_v0.env(num_players=5, reward="margin", action_cards=False, haggle_rounds=2,
                         gold_menu=(1, 5, 10))
    env.reset(seed=1)
    assert env.unwrapped.game.config == GameConfig(num_players=5, action_cards=False,
                                                   haggle_rounds=2, gold_menu=(1, 5, 10))
    assert env.unwrapped.reward == "margin"


# --- pickling ----------------------------------------------------------------------------------
def trajectory(env, rng: random.Random) -> list:
    out = []
    while env.agents:
        obs, reward, term, trunc, _info = env.last()
        action = None if term or trunc else rng.choice(np.flatnonzero(obs["action_mask"]))
        out.append((env.agent_selection, obs["observation"].tobytes(),
                    obs["action_mask"].tobytes(), reward, term, trunc, action))
        env.step(action)
    return out


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
@pytest.mark.parametrize("make", [borders_v0.env, borders_v0.raw_env], ids=["env", "raw_env"])
def test_pickle_round_trip_mid_game_continues_identically(config, make):
    n, action_cards = config
    env = make(num_players=n, action_cards=action_cards)
    env.reset(seed=11)
    random_actions(env, random.Random(3), 150)
    assert env.agents and not any(env.terminations.values())
    copy = pickle.loads(pickle.dumps(env))
    assert copy.unwrapped.game.to_dict() == env.unwrapped.game.to_dict()
    assert trajectory(copy, random.Random(5)) == trajectory(env, random.Random(5))
    copy.reset()  # the stream of seeds was pickled too
    env.reset()
    assert copy.unwrapped.game.to_dict() == env.unwrapped.game.to_dict()


# --- rewards -----------------------------------------------------------------------------------
def _win_rewards(sc: list[int], win: list[int], n: int) -> list[float]:
    k = len(win)
    return [0.0] * n if k == n else [1 / k if p in win else -1 / (n - k) for p in range(n)]


#: Reward mode -> the final rewards from the Python game's scores and winners, written
#: independently of the kernels; a mode of REWARDS without one fails the tests below by name.
ORACLES = {
    "win": _win_rewards,
    "score": lambda sc, win, n: [float(x) for x in sc],
    "margin": lambda sc, win, n: [sc[p] - (sum(sc) - sc[p]) / (n - 1) for p in range(n)],
}


def expected_rewards(game: Game, mode: str) -> list[float]:
    assert mode in ORACLES, f"no oracle for the reward mode {mode!r}: add one to ORACLES"
    return ORACLES[mode](game.scores(), game.winners(), game.num_players)


@pytest.mark.parametrize("n", PLAYERS)
@pytest.mark.parametrize("mode", REWARD_MODES)
def test_rewards_only_at_the_end_all_agents_together(n, mode):
    env = borders_v0.env(num_players=n, reward=mode)
    env.reset(seed=100 + n)
    rng = random.Random(n)
    total = dict.fromkeys(env.possible_agents, 0.0)
    while not any(env.terminations.values()):
        obs, reward, *_ = env.last()
        assert reward == 0 and not any(env.rewards.values())
        env.step(rng.choice(np.flatnonzero(obs["action_mask"])))
    game = env.unwrapped.game
    assert game.is_terminal and all(env.terminations.values())
    assert not any(env.truncations.values())
    while env.agents:  # every agent sees its reward once, in last(), then steps None
        _obs, reward, term, _trunc, _info = env.last()
        assert term
        total[env.agent_selection] += reward
        env.step(None)
    want = expected_rewards(game, mode)
    assert [total[a] for a in env.possible_agents] == pytest.approx(want)
    if REWARDS[mode].total is not None:  # zero- or constant-sum, as the table says
        assert sum(want) == pytest.approx(REWARDS[mode].total, abs=1e-9)
    if mode == "win":
        assert all(total[f"player_{p}"] > 0 for p in game.winners())


def finished(n: int, seed: int) -> Game:
    game = Game(GameConfig(num_players=n), seed=seed)
    rng = random.Random(seed)
    while not game.is_terminal:
        game.step(rng.choice(game.legal_actions()))
    return game


SCORING_FIELDS = ("gold", "wh_up", "wh_down", "main_held")


def copy_seat(game: Game, src: int, dst: int) -> None:
    for f in SCORING_FIELDS:
        game.state[f][0, dst] = game.state[f][0, src]


def kernel_rewards(game: Game, mode: str) -> list[float]:
    out = np.full(MAX_PLAYERS, np.nan)
    final_rewards_at(game.state, 0, reward_mode(mode), out)
    assert not out[game.num_players:].any()
    return out[:game.num_players].tolist()


@pytest.mark.parametrize("n", PLAYERS)
def test_rewards_on_a_shared_victory(n):
    game = finished(n, seed=n)
    copy_seat(game, 0, 1)  # seats 0 and 1 identical; every other seat left with nothing
    for p in range(2, n):
        for f in SCORING_FIELDS:
            game.state[f][0, p] = 0
    assert game.winners() == [0, 1]
    sc = game.scores()
    assert sc[0] == sc[1] > max(sc[2:])
    assert kernel_rewards(game, "win") == pytest.approx([0.5, 0.5] + [-1 / (n - 2)] * (n - 2))
    assert kernel_rewards(game, "score") == pytest.approx(sc)
    assert kernel_rewards(game, "margin") == pytest.approx(expected_rewards(game, "margin"))
    assert sum(kernel_rewards(game, "win")) == pytest.approx(0)


@pytest.mark.parametrize("n", PLAYERS)
def test_rewards_when_every_seat_ties(n):
    game = finished(n, seed=50 + n)
    for p in range(1, n):
        copy_seat(game, 0, p)
    assert game.winners() == list(range(n))
    sc = game.scores()
    assert len(set(sc)) == 1
    assert kernel_rewards(game, "win") == [0.0] * n
    assert kernel_rewards(game, "score") == [float(sc[0])] * n
    assert kernel_rewards(game, "margin") == [0.0] * n


@pytest.mark.parametrize("n", PLAYERS)
def test_win_rewards_of_random_games_are_zero_sum(n):
    for seed in range(3):
        game = finished(n, seed=200 + seed)
        rewards = kernel_rewards(game, "win")
        assert sum(rewards) == pytest.approx(0)
        assert rewards == pytest.approx(expected_rewards(game, "win"))
        assert kernel_rewards(game, "margin") == pytest.approx(expected_rewards(game, "margin"))


# --- bad input ---------------------------------------------------------------------------------
@pytest.mark.parametrize("make", [borders_v0.env, borders_v0.raw_env])
@pytest.mark.parametrize("kwargs, word", [
    ({"frobnicate": 1}, "frobnicate"),
    ({"reward": "x"}, "reward"),
    ({"num_players": 9}, "num_players"),
    ({"num_players": 2}, "num_players"),
    ({"haggling": "lots"}, "haggling"),
    ({"action_cards": "yes"}, "action_cards"),
    ({"render_mode": "rgb"}, "render_mode"),
])
def test_bad_keywords_are_named(make, kwargs, word):
    with pytest.raises(ValueError, match=word):
        make(**kwargs)


@pytest.mark.parametrize("seed", [-1, 1.5, "7", True, 2**64])
def test_bad_seed_is_named(seed):
    env = borders_v0.raw_env()
    with pytest.raises(ValueError, match="seed must be a seed, an int from 0 to 2"):
        env.reset(seed=seed)


def test_the_top_seed_is_a_seed():
    env = borders_v0.raw_env()
    env.reset(seed=2**64 - 1)
    assert env.unwrapped.game.to_dict() == Game(GameConfig(), seed=2**64 - 1).to_dict()


@pytest.mark.parametrize("player", [-1, 4, 8, "p0", 1.0, True, None])
@pytest.mark.parametrize("fn", [observe, observe_json, observe_text])
def test_seat_out_of_range_is_named(fn, player):
    with pytest.raises(ValueError, match="player must be a seat, an int from 0 to 3"):
        fn(Game(GameConfig(num_players=4)), player)


def test_unknown_agent_is_named():
    env = borders_v0.raw_env(num_players=3)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="player_3"):
        env.observe("player_3")
    for space in (env.action_space, env.observation_space):
        for agent in ("nobody", "player_3", 0, None, ["player_0"]):
            with pytest.raises(ValueError, match=r"unknown agent .*; agents are \['player_0'"):
                space(agent)
    assert env.action_space("player_2").n == NUM_ACTIONS


def raw_env_calls(env):
    return {"step(0)": lambda: env.step(0), "step(None)": lambda: env.step(None),
            "last()": env.last, "observe": lambda: env.observe("player_0"),
            "render()": env.render}


def test_raw_env_before_reset_says_so():
    env = borders_v0.raw_env(num_players=3, render_mode="ansi")
    assert env.agents == [] and list(env.agent_iter()) == []
    for what, call in raw_env_calls(env).items():
        with pytest.raises(RuntimeError, match=r"before reset\(\): call reset\(\) to start a "
                                               r"game"):
            call()
    env.reset(seed=1)
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))


def test_raw_env_after_every_agent_is_done_says_so():
    env = borders_v0.raw_env(num_players=3, render_mode="ansi")
    env.reset(seed=2)
    random_actions(env, random.Random(2), 10**6)
    assert env.agents == [] and env.unwrapped.game.is_terminal
    for what in ("step(0)", "step(None)", "last()"):
        with pytest.raises(RuntimeError, match=r"every agent is done .*; call reset\(\) to start "
                                               r"a new game"):
            raw_env_calls(env)[what]()
    assert env.observe("player_0")["observation"].shape == (OBS_SIZE,)  # the final view
    assert "p0" in env.render()
    env.reset(seed=3)
    assert len(env.agents) == 3


@pytest.mark.parametrize("n", PLAYERS)
def test_raw_env_illegal_action_raises_and_changes_nothing(n):
    env = borders_v0.raw_env(num_players=n)
    env.reset(seed=n)
    random_actions(env, random.Random(n), 60)
    before = (env.unwrapped.game.to_dict(), env.agent_selection, dict(env.rewards),
              dict(env._cumulative_rewards), dict(env.terminations), dict(env.truncations))
    mask = env.observe(env.agent_selection)["action_mask"]
    for bad in (int(np.flatnonzero(mask == 0)[0]), NUM_ACTIONS, -1):
        with pytest.raises(IllegalActionError):
            env.step(bad)
        after = (env.unwrapped.game.to_dict(), env.agent_selection, dict(env.rewards),
                 dict(env._cumulative_rewards), dict(env.terminations), dict(env.truncations))
        assert after == before
    random_actions(env, random.Random(0), 5)  # still playable


@pytest.mark.parametrize("n", PLAYERS)
def test_wrapped_env_illegal_action_ends_the_game_with_minus_one(n):
    env = borders_v0.env(num_players=n)
    env.reset(seed=n)
    random_actions(env, random.Random(n), 60)
    offender = env.agent_selection
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))  # PettingZoo logs a warning
    assert all(env.terminations.values())
    final = {}
    while env.agents:
        _obs, reward, term, trunc, _info = env.last()
        assert term or trunc
        final[env.agent_selection] = reward
        env.step(None)
    assert final == {a: (-1 if a == offender else 0) for a in env.possible_agents}


def test_wrapped_env_refuses_ids_outside_the_action_space():
    env = borders_v0.env()
    env.reset(seed=0)
    with pytest.raises(AssertionError, match="action space"):
        env.step(NUM_ACTIONS)


# --- rendering ---------------------------------------------------------------------------------
@pytest.mark.parametrize("n", PLAYERS)
def test_render_ansi_shows_the_viewers_hand(n):
    env = borders_v0.env(num_players=n, render_mode="ansi")
    env.reset(seed=n)
    random_actions(env, random.Random(n), 40)
    game = env.unwrapped.game
    viewer = game.current_player
    text = env.render()
    assert isinstance(text, str) and text == observe_text(game, viewer)
    assert f"you are p{viewer}" in text
    hand = observe_json(game, viewer)["own"]["hand"]
    assert f"hand: {', '.join(f'{k} {v}' for k, v in hand.items())}" in text
    # at the end the last mover is the viewer
    last = None
    while not game.is_terminal:
        last = env.agent_selection
        obs, *_ = env.last()
        env.step(random.Random(1).choice(np.flatnonzero(obs["action_mask"])))
    assert env.render() == observe_text(game, int(last.split("_")[1]))


def test_render_human_prints(capsys):
    env = borders_v0.raw_env(num_players=3, render_mode="human")
    env.reset(seed=0)
    assert env.render() is None
    assert "you are p" in capsys.readouterr().out
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert "you are p" in capsys.readouterr().out  # every step shows the table


# --- observe_json / observe_text ------------------------------------------------------------------
def plain(x) -> bool:
    if isinstance(x, dict):
        return all(isinstance(k, str) and plain(v) for k, v in x.items())
    if isinstance(x, list):
        return all(plain(v) for v in x)
    return x is None or type(x) in (str, int, float, bool)


@pytest.mark.parametrize("n", PLAYERS)
@pytest.mark.parametrize("seed", range(4))
def test_observe_json_and_text_at_random_points(n, seed):
    game = mid_game(n, seed=10 * n + seed, action_cards=seed != 3)
    full = game.to_dict()  # the truth, to check the words against
    for p in range(n):
        j = observe_json(game, p)
        assert plain(j) and json.loads(json.dumps(j)) == j
        assert j["viewer"] == f"p{p}" and j["config"] == full["config"]
        for key in ("round", "phase", "to_move", "round_order", "discard_pile",
                    "main_resources_in_middle"):
            assert j[key] == full[key], key
        assert j["inspectors"] == {k: v for k, v in full["inspectors"].items() if v}
        assert [s["viewer"] for s in j["seats"]] == [q == p for q in range(n)]
        for mine, truth in zip(j["seats"], full["players"]):
            assert mine["seat"] == truth["seat"]
            assert mine["hand_size"] == sum(truth["hand"].values())
            assert mine["warehouse_face_down"] == sum(truth["warehouse_face_down"].values())
            for key in ("gold", "reserved_gold", "warehouse_face_up", "reserved_warehouse",
                        "main_resources", "announced", "crate_status"):
                assert mine[key] == truth[key], key
        own = full["players"][p]
        assert j["own"]["hand"] == own["hand"] and j["own"]["crate"] == own["crate"]
        assert j["own"]["warehouse_face_down"] == own["warehouse_face_down"]

        text = observe_text(game, p)
        hand = ", ".join(f"{k} {v}" for k, v in own["hand"].items()) or "-"
        assert f"hand: {hand}" in text
        if p == game.current_player:
            legal = game.legal_actions()
            assert [a["id"] for a in j["legal_actions"]] == legal
            for a in legal:
                assert f"  {a}: {game.action_to_string(a)}\n" in text + "\n"
        else:
            assert j["legal_actions"] == [] and "legal actions" not in text


def test_observe_json_at_the_end_has_no_one_to_move():
    game = finished(4, seed=1)
    j = observe_json(game, 2)
    assert j["phase"] == "game over" and j["to_move"] is None and j["legal_actions"] == []
    assert "the game is over" in observe_text(game, 2)
