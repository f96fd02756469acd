"""BORDERS as an OpenSpiel game (borders_sim.openspiel) and OpenSpiel's bots in the arena
(borders_sim.openspiel): registration and parameters, the game equals borders_sim.Game
step for step, observations, resampling, serialization, OpenSpiel's own random_sim_test,
evaluate_bots and IS-MCTS, and the bots both ways. Skipped without open_spiel
(pip install ".[bench]" in the source checkout)."""

from __future__ import annotations

import re

import json
import pickle
import subprocess
import sys

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason='OpenSpiel is not installed (pip install ".[bench]")')

from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

import borders_sim.openspiel as bo  # noqa: E402
from borders_sim import Game, GameConfig, NUM_ACTIONS  # noqa: E402
from borders_sim.agents import make  # noqa: E402
from borders_sim.openspiel import (BordersObserver, CompiledRolloutEvaluator,  # noqa: E402
                                   OpenSpielBot, parse_name)
from borders_sim.arena import parse_lineup  # noqa: E402
from borders_sim.game.belief import sample_consistent_state  # noqa: E402
from borders_sim.game.views import observe, observe_text  # noqa: E402
from borders_sim.rules.config import DEFAULT_GOLD_MENU  # noqa: E402
from borders_sim.rules.limits import max_game_length  # noqa: E402
from borders_sim.rules.observation import OBS_SIZE, OBSERVATION_LAYOUT  # noqa: E402
from borders_sim.rules.rewards import final_rewards_at, reward_mode  # noqa: E402


def load(**params):
    return pyspiel.load_game(bo.GAME_NAME, params)


def random_walk(state, rng, steps: int):
    """``steps`` uniformly random actions (fewer if the game ends)."""
    for _ in range(steps):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        state.apply_action(legal[rng.integers(len(legal))])
    return state


def deal(state, k: int):
    """Draw deal ``k`` at ``state``'s chance nodes."""
    for a in bo.deal_actions(k):
        state.apply_action(a)
    return state


def dealt(game, deal_k: int = 0, steps: int = 0, seed: int = 0):
    state = deal(game.new_initial_state(), deal_k)
    return random_walk(state, np.random.default_rng(seed), steps)


# --- registration, parameters, type and info --------------------------------------------------
def test_loads_and_plays():
    game = load(players=4)
    state = dealt(game, 3, 10**6)
    assert state.is_terminal() and len(state.returns()) == 4


def test_every_flag_is_a_parameter_with_its_default():
    spec = pyspiel.load_game(bo.GAME_NAME).get_type().parameter_specification
    flags = GameConfig().to_dict()
    assert set(spec) == (set(flags) - {"num_players"}) | {"players", "seed", "reward"}
    for name, value in flags.items():
        if name == "num_players":
            assert spec["players"] == value
        elif name == "gold_menu":
            assert bo.parse_gold_menu(spec[name]) == DEFAULT_GOLD_MENU
        else:
            assert spec[name] == value, name
    assert spec["seed"] == 0 and spec["reward"] == "win"


def test_parameters_reach_the_config():
    game = load(players=6, haggling="gold_only", haggle_rounds=2, gold_menu="1/5/10",
                bounties=False, action_cards=False, first_inspector="random",
                lawyer_goods="player_choice", accept_commits=False)
    assert game.config == GameConfig(num_players=6, haggling="gold_only", haggle_rounds=2,
                                     gold_menu=(1, 5, 10), bounties=False, action_cards=False,
                                     first_inspector="random", lawyer_goods="player_choice",
                                     accept_commits=False)
    assert bo.config_from_params(bo.params_from_config(game.config)) == game.config
    # the game string survives OpenSpiel's parser (no commas in the gold menu)
    again = pyspiel.load_game(str(game))
    assert again.config == game.config


@pytest.mark.parametrize("params, words", [
    ({"gold_menu": "1,2,3"}, "not commas"), ({"players": 9}, "num_players"),
    ({"haggling": "some"}, "haggling"), ({"reward": "gold"}, "reward")])
def test_bad_parameters_are_refused(params, words):
    with pytest.raises(ValueError, match=words):
        bo.BordersGame(params)


@pytest.mark.parametrize("reward, utility", [("win", "ZERO_SUM"), ("margin", "ZERO_SUM"),
                                             ("score", "GENERAL_SUM")])
def test_type_and_info(reward, utility):
    config = GameConfig(num_players=5)
    game = load(players=5, reward=reward)
    t = game.get_type()
    assert t.short_name == bo.GAME_NAME
    assert t.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert t.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert t.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert t.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert t.utility == getattr(pyspiel.GameType.Utility, utility)
    assert (t.min_num_players, t.max_num_players) == (3, 8)
    assert t.provides_observation_string and t.provides_observation_tensor
    assert t.provides_information_state_string and not t.provides_information_state_tensor
    assert game.num_players() == 5 and game.num_distinct_actions() == NUM_ACTIONS
    assert game.max_game_length() == max_game_length(config)
    assert game.max_chance_outcomes() == bo.DEAL_OUTCOMES
    assert game.max_chance_nodes_in_history() == bo.DEAL_NODES
    assert game.observation_tensor_shape() == [OBS_SIZE]
    bound = bo.score_bound(config)
    assert (game.min_utility(), game.max_utility()) == \
        {"win": (-1, 1), "score": (0, bound), "margin": (-bound, bound)}[reward]
    if utility == "ZERO_SUM":
        assert game.utility_sum() == 0


def test_score_bound_holds_in_random_games():
    for n in (3, 6):
        config = GameConfig(num_players=n)
        rng = np.random.default_rng(n)
        for seed in range(3):
            game = Game(config, seed)
            while not game.is_terminal:
                legal = game.legal_actions()
                game.step(legal[rng.integers(len(legal))])
            assert 0 <= min(game.scores()) and max(game.scores()) <= bo.score_bound(config)


# --- chance: the same game as borders_sim.Game ------------------------------------------------
@pytest.mark.parametrize("players, reward", [(3, "win"), (5, "score"), (8, "margin")])
def test_same_game_as_borders_sim_step_for_step(players, reward):
    game = load(players=players, seed=100, reward=reward, action_cards=players != 5)
    state = game.new_initial_state()
    assert state.is_chance_node() and state.current_player() == pyspiel.PlayerId.CHANCE
    for digit in bo.deal_actions(7):
        assert state.is_chance_node() and state.current_player() == pyspiel.PlayerId.CHANCE
        outcomes = state.chance_outcomes()
        assert len(outcomes) == bo.DEAL_OUTCOMES and abs(sum(p for _, p in outcomes) - 1) < 1e-9
        state.apply_action(digit)
    ours = Game(game.config, seed=107)
    rng = np.random.default_rng(players)
    while not ours.is_terminal:
        assert state.current_player() == ours.current_player
        assert state.legal_actions() == ours.legal_actions()
        assert state.game.state.tobytes() == ours.state.tobytes()
        a = ours.legal_actions()[rng.integers(len(ours.legal_actions()))]
        assert state.action_to_string(a) == ours.action_to_string(a)
        ours.step(a)
        state.apply_action(a)
    assert state.is_terminal() and state.current_player() == pyspiel.PlayerId.TERMINAL
    out = np.zeros(8)
    final_rewards_at(ours.state, 0, reward_mode(reward), out)
    assert state.returns() == pytest.approx(out[:players].tolist())


def test_every_new_initial_state_is_the_deal():
    game = load(players=4, seed=5)
    a, b = game.new_initial_state(), game.new_initial_state()
    assert str(a) == str(b) and a.is_chance_node()
    deal(a, 1), deal(b, 2)
    assert str(a) != str(b)
    assert a.game.state.tobytes() == Game(game.config, 6).state.tobytes()


def test_the_deal_is_four_hex_digits():
    game = load(players=3, seed=10)
    assert bo.DEALS == bo.DEAL_OUTCOMES ** bo.DEAL_NODES == 65536
    assert bo.deal_actions(0) == [0, 0, 0, 0] and bo.deal_actions(7) == [0, 0, 0, 7]
    assert bo.deal_actions(0xbeef) == [0xb, 0xe, 0xe, 0xf]
    for bad in (-1, bo.DEALS, 1.5):
        with pytest.raises(ValueError, match="deal must be"):
            bo.deal_actions(bad)
    state = game.new_initial_state()
    for i, digit in enumerate(bo.deal_actions(0xbeef)):
        assert state.is_chance_node() and len(state.history()) == i
        assert state.action_to_string(pyspiel.PlayerId.CHANCE, digit) == \
            f"deal digit {i + 1} of 4: {digit:x}"
        clone = state.clone()
        assert clone.is_chance_node() and str(clone) == str(state)
        state.apply_action(digit)
    assert not state.is_chance_node()
    assert state.game.state.tobytes() == Game(game.config, 10 + 0xbeef).state.tobytes()
    assert clone.game is None  # a clone of a chance node is its own
    clone.apply_action(0xf)
    assert clone.game.state.tobytes() == state.game.state.tobytes()


def test_state_from_game():
    game = load(players=4)
    ours = Game(game.config, 3)
    random_walk_game(ours, 40)
    state = game.state_from_game(ours)
    assert state.game.state.tobytes() == ours.state.tobytes() and state.history() == []
    with pytest.raises(ValueError, match="config"):
        game.state_from_game(Game(GameConfig(num_players=5), 0))


def random_walk_game(game: Game, steps: int) -> None:
    rng = np.random.default_rng(steps)
    for _ in range(steps):
        legal = game.legal_actions()
        game.step(legal[rng.integers(len(legal))])


# --- observations ------------------------------------------------------------------------------
def test_observation_tensor_string_and_dict():
    game = load(players=5)
    state = dealt(game, 2, 60)
    observer = game.make_py_observer()
    for p in range(5):
        want = observe(state.game, p)
        assert np.array_equal(np.asarray(state.observation_tensor(p), np.float32), want)
        observer.set_from(state, p)
        assert np.array_equal(observer.tensor, want)
        for e in OBSERVATION_LAYOUT:
            assert np.array_equal(observer.dict[e.name].ravel(),
                                  want[e.offset:e.offset + e.size]), e.name
        assert state.observation_string(p) == observe_text(state.game, p)
        assert observer.string_from(state, p) == observe_text(state.game, p)
    # the cached text is dropped by the next step
    p = state.current_player()
    before = state.observation_string(p)
    state.apply_action(state.legal_actions()[0])
    assert state.observation_string(p) == observe_text(state.game, p) != before


def test_chance_node_observation_is_empty():
    state = load(players=3).new_initial_state()
    assert not any(state.observation_tensor(0))
    assert "chance" in state.observation_string(0)


def test_the_information_state_is_a_perfect_recall_record():
    game = load(players=4)
    assert game.get_type().provides_information_state_string
    assert not game.get_type().provides_information_state_tensor
    before = game.new_initial_state()
    assert before.information_state_string(2) == "p2: before the deal, nothing seen"
    state = dealt(game, 3, 40, seed=1)
    # asked late, the record is replayed from the deal; asked early and kept, the same
    tracked = dealt(game, 3, 0, seed=1)
    tracked.information_state_string(0)
    random_walk(tracked, np.random.default_rng(1), 40)
    assert tracked.history() == state.history()
    for p in range(4):
        assert state.information_state_string(p) == tracked.information_state_string(p)
        assert state.information_state_string(p).startswith(f"p{p}: record ")
    assert len({state.information_state_string(p) for p in range(4)}) == 4
    assert state.information_state_string() == state.information_state_string(
        state.current_player())
    # a clone keeps the records; another own action is another record for the mover, and for
    # the others exactly when what they see differs
    p = state.current_player()
    a, b = state.legal_actions()[:2]
    one, two = state.child(a), state.child(b)
    assert one.information_state_string(p) != two.information_state_string(p)
    for q in range(4):
        same_view = np.array_equal(observe(one.game, q), observe(two.game, q))
        if q != p and not same_view:
            assert one.information_state_string(q) != two.information_state_string(q)
    # the record remembers the order of events: the same position reached by another history
    # is another record (the counters of the observation alone would not tell)
    with pytest.raises(pyspiel.SpielError, match="no information-state tensor"):
        state.information_state_tensor(0)
    with pytest.raises(ValueError, match="player must be a seat"):
        state.information_state_string(4)


def test_a_resampled_state_keeps_the_players_record():
    game = load(players=3)
    state = dealt(game, 9, 60, seed=2)
    p = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0, 0.0, 1.0)
    worlds = [state.resample_from_infostate(p, sampler) for _ in range(3)]
    for world in worlds:
        assert world.information_state_string(p) == state.information_state_string(p)
        assert world.history() == []
    # the other seats' records in the worlds depend on p's record only: the same in each
    q = (p + 1) % 3
    assert len({w.information_state_string(q) for w in worlds}) == 1


def test_the_perfect_recall_observer_and_the_refused_types():
    game = load(players=4)
    state = dealt(game, 0, 5)
    recall = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    assert recall.tensor is None
    assert recall.string_from(state, 1) == state.information_state_string(1)
    # OpenSpiel's contract: an observation type the game does not provide is None
    # (tests/test_openspiel_playthrough.py); the observer itself refuses one, naming why
    assert game.make_py_observer(pyspiel.IIGObservationType(
        perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE)) is None
    with pytest.raises(ValueError, match="one observation type"):
        BordersObserver(pyspiel.IIGObservationType(
            perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE))


def test_outcome_sampling_mccfr_runs_a_few_iterations():
    """OpenSpiel's outcome-sampling MCCFR keys its tables on the record; its recursion is as
    deep as a game is long, and its importance weights underflow in long games (the docs say
    so): this runs the code, it does not solve the game."""
    import sys
    import warnings

    from open_spiel.python.algorithms import outcome_sampling_mccfr

    game = load(players=3)
    solver = outcome_sampling_mccfr.OutcomeSamplingSolver(game)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * game.max_game_length() // 1000 + 20_000))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # reach probabilities underflow
            for _ in range(2):
                solver.iteration()
    finally:
        sys.setrecursionlimit(limit)
    keys = list(solver._infostates)
    assert keys and all(re.fullmatch(r"p[0-2]: record [0-9a-f]{32} after \d+ moves", k)
                        for k in keys)


def test_openspiel_ismcts_with_its_defaults_keys_on_the_record():
    game = load(players=3)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)), 2.0,
                           10, random_state=np.random.RandomState(0))
    state = dealt(game, 1, 10, seed=3)
    for _ in range(3):
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)


def test_action_strings():
    game = load(players=4, gold_menu="2/4")
    state = dealt(game, 0, 3)
    for a in state.legal_actions():
        assert state.action_to_string(a) == state.game.action_to_string(a)
    assert load(players=4, seed=4).new_initial_state().action_to_string(
        pyspiel.PlayerId.CHANCE, 11) == "deal digit 1 of 4: b"


# --- resampling --------------------------------------------------------------------------------
def test_resample_keeps_the_observation_and_deals_the_rest_anew():
    game = load(players=5)
    state = dealt(game, 4, 120)
    sampler = pyspiel.UniformProbabilitySampler(0, 0.0, 1.0)
    deals = set()
    for player in range(5):
        for _ in range(3):
            other = state.resample_from_infostate(player, sampler)
            assert isinstance(other, bo.BordersState) and other.history() == []
            assert other.observation_string(player) == state.observation_string(player)
            assert np.array_equal(other.observation_tensor(player),
                                  state.observation_tensor(player))
            assert other.current_player() == state.current_player()
            if player == state.current_player():
                assert other.legal_actions() == state.legal_actions()
            deals.add(other.game.state["hand"].tobytes())
    assert len(deals) > 1
    chance = game.new_initial_state().resample_from_infostate(0, sampler)
    assert chance.is_chance_node()


# --- serialization -----------------------------------------------------------------------------
def test_serialize_round_trips_through_json():
    game = load(players=6, reward="margin", gold_menu="1/3/9")
    state = dealt(game, 11, 200)
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(game) and str(state2) == str(state)
    assert state2.history() == state.history()
    assert state2.game.state.tobytes() == state.game.state.tobytes()
    # OpenSpiel's C++ serializer pickles the state's Python attributes: the game as its JSON
    payload = pickle.dumps(state.game)
    assert json.dumps(state.game.to_dict(), separators=(",", ":")).encode() in payload
    assert pickle.loads(payload).state.tobytes() == state.game.state.tobytes()
    random_walk(state, np.random.default_rng(0), 10**6)
    random_walk(state2, np.random.default_rng(0), 10**6)
    assert state.returns() == state2.returns() and str(state) == str(state2)
    chance = game.new_initial_state()
    assert str(pyspiel.deserialize_game_and_state(
        pyspiel.serialize_game_and_state(game, chance))[1]) == str(chance)


@pytest.mark.parametrize("players", [3, 8])
def test_serialize_is_json_and_reads_back_exactly(players):
    """state.serialize() / game.deserialize_state (Python's path, no pickle): the chance node,
    a game in play, a finished game, a state made from a Game and a resampled one."""
    game = load(players=players, reward="margin")
    rng = np.random.default_rng(players)
    chance = game.new_initial_state()
    playing = dealt(game, 5, 150, seed=players)
    over = random_walk(playing.clone(), rng, 10**6)
    made = game.state_from_game(Game(game.config, seed=3))
    sampler = pyspiel.UniformProbabilitySampler(players, 0.0, 1.0)
    resampled = playing.resample_from_infostate(playing.current_player(), sampler)
    for state in (chance, playing, over, made, resampled):
        text = state.serialize()
        assert "__dict__" not in text and json.loads(text)["format"] == bo.STATE_FORMAT
        again = game.deserialize_state(text)
        assert str(again) == str(state) and again.history() == state.history()
        assert again.move_number() == state.move_number()
        assert again.serialize() == text
    random_walk(playing, np.random.default_rng(1), 10**6)
    again = random_walk(game.deserialize_state(dealt(game, 5, 150, seed=players).serialize()),
                        np.random.default_rng(1), 10**6)
    assert again.returns() == playing.returns() and str(again) == str(playing)


# --- OpenSpiel's own tests ---------------------------------------------------------------------
#: One random_sim_test game per player count: the rulebook at 3, 4, 5 and 8 players, shorter
#: negotiation variants at 6 and 7 (OpenSpiel's test takes every player's observation string at
#: every step, ~0.5 ms each, so an 8-player rulebook game of ~2,500 decisions takes ~10 s).
SIM_GAMES = {3: {}, 4: {"reward": "margin"}, 5: {"reward": "score"},
             6: {"haggling": "none"},
             7: {"haggling": "gold_only", "bounties": False, "haggle_rounds": 1,
                 "reward": "margin"},
             8: {"reward": "score"}}


@pytest.mark.parametrize("players", [pytest.param(n, marks=pytest.mark.slow) if n >= 6 else n
                                     for n in sorted(SIM_GAMES)])
def test_random_sim_test(players):
    pyspiel.random_sim_test(load(players=players, seed=players, **SIM_GAMES[players]),
                            num_sims=1, serialize=True, verbose=False)


def test_random_sim_test_without_action_cards():
    pyspiel.random_sim_test(load(players=4, action_cards=False, reward="margin"), num_sims=1,
                            serialize=True, verbose=False)


def test_evaluate_bots_with_random_bots_and_ours():
    game = load(players=4)
    lo, hi = game.min_utility(), game.max_utility()
    bots = [pyspiel.make_uniform_random_bot(p, p) for p in range(3)] + \
        [bo.BordersBot(3, "honest", 1)]
    for seed in range(2):
        returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, seed)
        assert len(returns) == 4 and all(lo <= r <= hi for r in returns)
        assert sum(returns) == pytest.approx(0.0)


def test_borders_bot_plays_as_our_bot():
    game = load(players=4)
    state = dealt(game, 0, 30)
    p = state.current_player()
    ours = make("bluffer", 5)
    bot = bo.BordersBot(p, "bluffer", 5)
    assert bot.step(state) == ours.act(observe(state.game, p), state.game.legal_mask())


def ismcts_bot(game, sims: int, seed: int, evaluator=None):
    evaluator = evaluator or CompiledRolloutEvaluator("random", 1, seed)
    return ismcts.ISMCTSBot(game, evaluator, 2.0, sims, random_state=np.random.RandomState(seed),
                            use_observation_string=True)


@pytest.mark.parametrize("players", [3, 5, pytest.param(8, marks=pytest.mark.slow)])
def test_openspiel_ismcts_plays_a_whole_game(players):
    game = load(players=players)
    bots = [ismcts_bot(game, 2, 0)] + \
        [pyspiel.make_uniform_random_bot(p, p) for p in range(1, players)]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, players)
    assert len(returns) == players and -1 <= min(returns) and max(returns) <= 1


def test_openspiel_ismcts_with_its_own_random_rollouts():
    game = load(players=3, action_cards=False)
    state = dealt(game, 1, 20)
    bot = ismcts_bot(game, 2, 0, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)))
    assert bot.step(state) in state.legal_actions()


# --- OpenSpiel's bots in the arena --------------------------------------------------------------
def test_compiled_rollout_evaluator():
    game = load(players=4, reward="score")
    state = dealt(game, 0, 50)
    ev = CompiledRolloutEvaluator("honest", 3, 7)
    values = ev.evaluate(state)
    assert values.shape == (4,) and (values >= 0).all() and (values <= game.max_utility()).all()
    assert np.array_equal(values, CompiledRolloutEvaluator("honest", 3, 7).evaluate(state))
    assert not state.is_terminal()  # the state itself is not played
    assert sum(p for _, p in ev.prior(state)) == pytest.approx(1.0)


def test_bot_names_with_options():
    assert parse_name("openspiel-ismcts")[1] == {"sims": 100, "c": 2.0, "rollout": "random",
                                                 "rollouts": 1, "worlds": -1, "reward": "win"}
    kind, options = parse_name("openspiel-mcts:sims=7:c=0.5:rollout=honest")
    assert kind == "openspiel-mcts" and options["sims"] == 7 and options["c"] == 0.5
    assert parse_lineup("openspiel-ismcts:sims=5:worlds=4,honest,openspiel-random") == \
        ("openspiel-ismcts:sims=5:worlds=4", "honest", "openspiel-random")
    for bad, words in [("openspiel-ismcts:sims=0", "at least 1"),
                       ("openspiel-ismcts:depth=3", "takes sims="),
                       ("openspiel-random:sims=3", "no options"),
                       ("openspiel-mcts:worlds=3", "takes sims="),
                       ("openspiel-ismcts:rollout=smart", "rollout must be"),
                       ("openspiel-magic", "unknown bot")]:
        with pytest.raises(ValueError, match=words):
            parse_lineup(f"{bad},honest")


def test_openspiel_bots_need_openspiel():
    """Without OpenSpiel a lineup naming its bot is one ValueError with the install line, and
    the rest of borders_sim never imports the package."""
    code = ("import sys; sys.modules['pyspiel'] = None\n"
            "from borders_sim.arena import parse_lineup, run_tournament\n"
            "run_tournament(4, ['honest'] * 4, 4, seed=1)\n"
            "assert 'borders_sim.openspiel' not in sys.modules\n"
            "try:\n    parse_lineup('openspiel-ismcts,honest')\n"
            "except ValueError as err:\n    print(err)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    from borders_sim.install_hints import install_hint
    assert out.startswith("bot 'openspiel-ismcts': ")
    assert install_hint("bench", alone=("open_spiel",)) in out


def test_the_game_module_says_how_to_install_openspiel():
    code = ("import sys; sys.modules['pyspiel'] = None\n"
            "try:\n    import borders_sim.openspiel\n"
            "except ImportError as err:\n    print(err)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert 'pip install ".[bench]" in the borders_sim source checkout' in out


@pytest.mark.parametrize("name", ["openspiel-ismcts:sims=3", "openspiel-mcts:sims=3",
                                  "openspiel-random"])
def test_openspiel_bot_sees_only_the_observation(name):
    """The same observation and mask give the same action, whatever the hidden cards."""
    real = Game(GameConfig(num_players=4), 2)
    random_walk_game(real, 25)
    while len(real.legal_actions()) < 2:
        real.step(real.legal_actions()[0])
    p = real.current_player
    other = sample_consistent_state(real, p, 9)
    assert other.state.tobytes() != real.state.tobytes()
    actions = {OpenSpielBot(name, 4).act(observe(g, p), g.legal_mask()) for g in (real, other)}
    assert len(actions) == 1 and real.legal_mask()[actions.pop()]


def test_openspiel_bot_in_a_tournament(capsys):
    from borders_sim import cli
    code = cli.main(["tournament", "--players", "3", "--bots",
                     "openspiel-ismcts:sims=2,random,openspiel-random", "--games", "1",
                     "--threads", "1", "--no-progress"])
    out = capsys.readouterr().out
    assert code == 0 and "openspiel-ismcts:sims=2" in out and "openspiel-random" in out
    assert "python path" in out
