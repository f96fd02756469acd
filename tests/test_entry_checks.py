"""Public entries check what they are handed before using it (borders_sim.checks), and
the OpenSpiel state's serialization carries no code. One regression test per hole found:

* the argument checker's own helpers: finite floats, lists that are not strings, host:port
  addresses, action batches checked as given (never cast);
* TrainingEnv: a bare string of opponents, string flags, non-finite floats, a string ``mixed``,
  state arrays missing, misshapen or of another env;
* SB3VecEnv: actions checked by the env's checker before any cast, a refused seed that leaves
  the env as it was;
* the OpenSpiel game: a pickle payload refused unrun, its JSON serialization checked when read,
  chance outcomes and game parameters in range, the bots' arguments;
* the Ray backend: a listener that is not Ray, and malformed addresses, refused in seconds;
* Game.from_dict: a huge ``format`` cut in the message, a huge ``rng`` string named.
"""

from __future__ import annotations

import base64
import json
import pickle
import socket
import threading
import time

import numpy as np
import pytest

from borders_sim import Game, GameConfig
from borders_sim.envs.training import TrainingEnv
from borders_sim.rules.observation import OBS_SIZE
from borders_sim.checks import (ArgumentTypeError, as_action_batch, as_float, as_host_port,
                                    as_sequence)

POOL = ("honest", "bluffer", "collector")
#: Code a pickle payload would run: it records that it ran (see test_a_pickle_payload_...).
RAN: list = []


def _illegal(k: int, action: int) -> str:
    return f"illegal action {action} in env {k}"


# --- the argument checker -------------------------------------------------------------------
def test_finite_floats_refuse_nan_and_infinities():
    assert as_float(2, "x", finite=True) == 2.0
    for bad in (float("nan"), float("inf"), -float("inf"), np.float32("inf"), 2**2000):
        with pytest.raises(ValueError, match="x must be a finite number"):
            as_float(bad, "x", finite=True)
    assert as_float(float("inf"), "x") == float("inf")  # without finite, as before


def test_lists_are_lists_not_strings_or_sets():
    assert as_sequence(("a", "b"), "xs") == ["a", "b"]
    assert as_sequence(np.array([1.0, 2.0]), "xs") == [1.0, 2.0]
    for bad in ("honest", b"honest", {"honest"}, {"honest": 1}, 3, None):
        with pytest.raises(ArgumentTypeError, match="xs must be a list"):
            as_sequence(bad, "xs")
    with pytest.raises(ValueError, match="shape"):
        as_sequence(np.zeros((2, 2)), "xs")


def test_host_port_addresses():
    assert as_host_port("head.example.org:6379", "a") == ("head.example.org", 6379)
    assert as_host_port("[::1]:80", "a") == ("::1", 80)
    for bad in ("a" * 5000 + ":80", "x" * 64 + ".org:80", "a..b:1", "host", ":80", "host:0",
                "host:65536", "host:+80", "host:" + "9" * 5000, "host:８０"):
        with pytest.raises(ValueError, match="a must be host:port") as err:
            as_host_port(bad, "a")
        assert len(str(err.value)) < 300
    with pytest.raises(ArgumentTypeError, match="a must be host:port"):
        as_host_port(6379, "a")


@pytest.mark.parametrize("actions, words", [
    (np.array([11.9, 3.0]), r"float64 array: actions\[0\] is 11.9"),
    (np.array([3.0, 4.0]), r"float64 array: actions\[0\] is 3.0"),
    (np.array([1.0, np.nan]), r"actions\[1\] is nan"),
    (np.array(["13", "1"]), r"actions\[0\] is '13'"),
    (np.array([True, False]), r"bool array: actions\[0\] is True"),
    ([1, True], r"list: actions\[1\] is True, a bool"),
    ((1, 2.0), r"tuple: actions\[1\] is 2.0, a float"),
    (["13", 1], r"list: actions\[0\] is '13', a str"),
], ids=["float", "integral-float", "nan", "str", "bool-array", "bool-in-list", "float-in-tuple",
        "str-in-list"])
def test_action_batches_are_never_cast(actions, words):
    with pytest.raises(ArgumentTypeError, match="actions must be an int array of shape \\(2,\\)"
                       ) as err:
        as_action_batch(actions, 2, _illegal)
    assert err.match(words)


def test_action_batches_of_any_int_width_pass_and_beyond_int64_is_no_id():
    for kind in (np.int8, np.uint16, np.int32, np.uint64):
        assert as_action_batch(np.array([3, 4], dtype=kind), 2, _illegal).tolist() == [3, 4]
    assert as_action_batch([3, np.int16(4)], 2, _illegal).dtype == np.int64
    with pytest.raises(ValueError, match=f"illegal action {2**64 - 1} in env 1"):
        as_action_batch(np.array([0, 2**64 - 1], dtype=np.uint64), 2, _illegal)
    with pytest.raises(ValueError, match=f"illegal action {2**64 - 1} in env 0"):
        as_action_batch([2**64 - 1, 0], 2, _illegal)
    with pytest.raises(ValueError, match=r"actions\[0\] is an int of \d+ bits"):
        as_action_batch([10**5000, 0], 2, _illegal)


# --- TrainingEnv ------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs, words", [
    ({"opponents": "honest"}, r"opponents must be a list .*\['honest'\].*got 'honest' \(str\)"),
    ({"opponents": {"honest"}}, "opponents must be a list"),
    ({"dense": "False"}, r"dense must be True or False \(a bool\), got 'False'"),
    ({"dense": 1}, "dense must be True or False"),
    ({"potential_scale": float("nan")}, "potential_scale must be a finite number, got nan"),
    ({"potential_scale": float("inf")}, "potential_scale must be a finite number, got inf"),
    ({"potential_scale": "0.1"}, "potential_scale must be a finite number"),
    ({"mixed": "0.5"}, r"mixed must be a number at least 0 and at most 1, got '0.5' \(str\)"),
    ({"mixed": float("nan")}, "mixed must be a number"),
    ({"weights": ["1", "1", "1"]}, r"weights\[0\] must be a finite number"),
    ({"weights": [1, float("inf"), 1]}, r"weights\[1\] must be a finite number"),
    ({"weights": [True, 1, 1]}, r"weights\[0\] must be a finite number"),
    ({"weights": "111"}, "weights must be a list"),
    ({"seat": "Random"}, "seat must be a seat, an int from 0 to 3, or 'random'"),
    ({"seat": 1.0}, "seat must be a seat"),
    ({"reward": 1}, "reward must be one of"),
], ids=lambda v: v if isinstance(v, str) else None)
def test_training_env_checks_its_arguments(kwargs, words):
    with pytest.raises(ValueError, match=words):
        TrainingEnv(2, **{"opponents": POOL, **kwargs})


def test_training_env_weights_may_be_an_array():
    env = TrainingEnv(2, opponents=POOL, weights=np.array([1.0, 2.0, 1.0]))
    assert env.weights.tolist() == [0.25, 0.5, 0.25]
    with pytest.raises(ValueError, match="weights must be a list of 3"):
        env.set_weights([1.0, 1.0])


def test_load_state_arrays_names_what_is_missing_or_misshapen():
    env = TrainingEnv(2, opponents=POOL, seed=0)
    with pytest.raises(ValueError, match="missing _states, _episodes, .*, _cur_member, seed$"):
        env.load_state_arrays({})
    with pytest.raises(ArgumentTypeError, match="arrays must be a dict of arrays"):
        env.load_state_arrays([])
    env.reset()
    saved = env.state_arrays()
    bad = {**saved, "_obs": saved["_obs"].astype(np.float64), "_pot": saved["_pot"][:1],
           "seed": 3}
    with pytest.raises(ValueError) as err:
        env.load_state_arrays(bad)
    for words in (f"_obs is float64 of shape (2, {OBS_SIZE}), this env's float32 of shape "
                  f"(2, {OBS_SIZE})",
                  "_pot is float64 of shape (1,), this env's float64 of shape (2,)",
                  "seed is 3, not an array (int)"):
        assert words in str(err.value)
    env.load_state_arrays(saved)  # the good arrays still load


def test_load_state_arrays_refuses_games_of_another_env():
    env = TrainingEnv(2, opponents=POOL, seed=0)
    env.reset()
    saved = env.state_arrays()
    with pytest.raises(ValueError, match=r"not lineups of the pool \('random',\)"):
        TrainingEnv(2, opponents=("random",)).load_state_arrays(saved)
    with pytest.raises(ValueError, match="_states are games of another config"):
        TrainingEnv(2, opponents=POOL, action_cards=False).load_state_arrays(saved)


def test_training_env_step_checks_actions_as_given():
    env = TrainingEnv(2, opponents=POOL, seed=0)
    _, infos = env.reset()
    before = env.state_arrays()
    legal = np.array([np.flatnonzero(m)[0] for m in infos["action_mask"]])
    for bad in (legal + 0.9, legal.astype(str), np.array([legal[0], np.nan]),
                legal.astype(bool)):
        with pytest.raises(ArgumentTypeError, match=r"actions\[\d\] is"):
            env.step(bad)
    with pytest.raises(ValueError, match=f"illegal action {2**64 - 1} "):
        env.step(np.array([2**64 - 1, legal[1]], dtype=np.uint64))
    after = env.state_arrays()
    assert all(np.array_equal(before[k], after[k]) for k in before)  # nothing was stepped
    env.step(legal.astype(np.int16))  # any int width


# --- SB3VecEnv --------------------------------------------------------------------------------
@pytest.fixture
def sb3_env():
    pytest.importorskip("stable_baselines3")
    from borders_sim.envs.sb3 import SB3VecEnv
    return SB3VecEnv(2, num_players=4, opponents=POOL, seed=0)


def test_sb3_actions_are_checked_before_any_cast(sb3_env):
    sb3_env.reset()
    legal = np.array([np.flatnonzero(m)[0] for m in sb3_env.action_masks()])
    cases = [(legal + 0.9, r"actions\[0\] is \d+\.9"),
             (np.array([str(a) for a in legal]), r"actions\[0\] is '\d+'"),
             (np.array([2**64 - 1, legal[1]], dtype=np.uint64),
              f"illegal action {2**64 - 1} "),
             (np.array([legal[0], np.nan]), r"actions\[1\] is nan"),
             ([True, legal[1]], r"actions\[0\] is True")]
    for actions, words in cases:
        with pytest.raises(ValueError, match=words):
            sb3_env.step_async(actions)
    with pytest.raises(RuntimeError, match="step_async"):
        sb3_env.step_wait()
    sb3_env.step_async(legal.astype(np.uint16))
    obs, _, _, _ = sb3_env.step_wait()
    assert obs.shape == (2, OBS_SIZE)


def test_a_refused_sb3_seed_changes_nothing(sb3_env):
    from borders_sim.envs.sb3 import SB3VecEnv
    sb3_env.seed(5)
    for bad in (-1, 2**64, 1.5, "5"):
        with pytest.raises(ValueError, match="seed must be a seed"):
            sb3_env.seed(bad)
    fresh = SB3VecEnv(2, num_players=4, opponents=POOL, seed=5)
    assert np.array_equal(sb3_env.reset(), fresh.reset())  # the seed 5 given before
    sb3_env.reset()  # and every later reset works
    with pytest.raises(ValueError, match=r"indices\[1\] must be an int from 0 to 1"):
        sb3_env.env_method("action_masks", indices=[0, 2])


# --- the OpenSpiel game -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def spiel():
    pyspiel = pytest.importorskip("pyspiel")
    import borders_sim.openspiel  # noqa: F401 - registers the game
    return pyspiel


class _Payload:
    """Unpickling it runs code: it appends to RAN."""

    def __reduce__(self):
        return exec, ("import tests.test_entry_checks as t; t.RAN.append('ran')",)


def test_a_pickle_payload_is_refused_and_never_run(spiel):
    game = spiel.load_game("python_borders", {"players": 4})
    pickle.loads(pickle.dumps(_Payload()))  # unpickled, it does run
    assert RAN.pop() == "ran"
    payload = base64.b64encode(pickle.dumps({"game": _Payload()})).decode()
    with pytest.raises(ValueError, match="unpickling runs whatever code"):
        game.deserialize_state(f"history=\nmove_number=0\n__dict__={payload}")
    assert RAN == []
    state = game.new_initial_state()
    _deal(state, 4)
    written = spiel.serialize_game_and_state(game, state).split("[State]\n")[1]
    with pytest.raises(ValueError, match="state.serialize"):  # OpenSpiel's own format
        game.deserialize_state(written)


def test_the_serialization_is_json_without_code(spiel):
    game = spiel.load_game("python_borders", {"players": 4})
    state = game.new_initial_state()
    _deal(state, 4)
    state.apply_action(state.legal_actions()[0])
    state.apply_action(state.legal_actions()[-1])
    doc = json.loads(state.serialize())
    assert doc == {"format": "borders_sim.openspiel_state/2",
                   "history": [[h.player, h.action] for h in state.full_history()],
                   "game": state.game.to_dict()}
    again = game.deserialize_state(state.serialize())
    assert again.history() == state.history() and again.move_number() == state.move_number()
    assert again.game.state.tobytes() == state.game.state.tobytes()


def test_a_state_of_format_1_reads_with_its_one_deal_action(spiel):
    """Version 1 of the serialization dealt in one chance action; it reads as the same state."""
    game = spiel.load_game("python_borders", {"players": 4})
    state = game.new_initial_state()
    _deal(state, 0x1234)
    state.apply_action(state.legal_actions()[0])
    doc = json.loads(state.serialize())
    old = {**doc, "format": "borders_sim.openspiel_state/1",
           "history": [[-1, 0x1234]] + doc["history"][4:]}
    again = game.deserialize_state(json.dumps(old))
    assert again.history() == state.history()
    assert again.game.state.tobytes() == state.game.state.tobytes()


def _deal(state, k: int) -> None:
    from borders_sim.openspiel import deal_actions
    for a in deal_actions(k):
        state.apply_action(a)


def _serialized(spiel, **changes) -> str:
    game = spiel.load_game("python_borders", {"players": 4})
    state = game.new_initial_state()
    _deal(state, 4)
    state.apply_action(state.legal_actions()[0])
    doc = {**json.loads(state.serialize()), **changes}
    return json.dumps(doc)


DEAL_4 = [[-1, 0], [-1, 0], [-1, 0], [-1, 4]]


def test_a_serialized_state_is_checked_when_read(spiel):
    game = spiel.load_game("python_borders", {"players": 4})
    dealt = json.loads(_serialized(spiel))
    first = dealt["history"][4][0]  # the first player to move after deal 4
    other = Game(GameConfig(num_players=4), seed=99).to_dict()
    for text, words in [
            ("", "cannot be read as JSON"), ("[" * 100_000, "cannot be read as JSON"),
            ("[1]", "JSON object of the keys"), (_serialized(spiel, extra=1), "keys"),
            (_serialized(spiel, format="x" * 10**6), "format must be"),
            (_serialized(spiel, history="0"), "history must be a list"),
            (_serialized(spiel, history=[[-1, True]]), "history must be a list"),
            (_serialized(spiel, history=[[-1, 16]], game=None), r"history\[0\]: action 16"),
            (_serialized(spiel, history=[[0, 1]], game=None), r"history\[0\]: player 0 moves, "
                                                             r"but chance \(-1\) is to move"),
            (_serialized(spiel, history=DEAL_4 + [[first, 513]]), r"history\[4\]: action 513"),
            (_serialized(spiel, history=DEAL_4, game=None), "the game is null"),
            (_serialized(spiel, history=DEAL_4[:3] + [[-1, 5]]), "does not reach the game"),
            (_serialized(spiel, history=[], game={**dealt["game"], "round": "x"}), "game: "),
            (_serialized(spiel, history=[], game=Game(GameConfig(num_players=5)).to_dict()),
             "not this game's"),
            (_serialized(spiel, game=other), "does not reach the game")]:
        with pytest.raises(ValueError, match=words) as err:
            game.deserialize_state(text)
        assert len(str(err.value)) < 2000
    with pytest.raises(ArgumentTypeError, match="text must be a state's JSON"):
        game.deserialize_state(b"{}")


def test_chance_outcomes_and_parameters_are_checked(spiel):
    game = spiel.load_game("python_borders", {"players": 4})
    for outcome in (70000, 16):
        with pytest.raises(ValueError, match="chance outcome must be an int from 0 to 15"):
            game.new_initial_state().apply_action(outcome)
    game.new_initial_state().apply_action(15)
    for params, words in [({"seed": -5}, "seed must be a seed"),
                          ({"reward": "points"}, "reward must be one of"),
                          ({"gold_menu": "1/" + "2" * 10**6}, "gold_menu must be whole"),
                          ({"gold_menu": "1/+2"}, "gold_menu must be whole"),
                          ({"players": 9}, "from 3 to 8")]:
        with pytest.raises(ValueError, match=words) as err:
            spiel.load_game("python_borders", params)
        assert len(str(err.value)) < 300
    from borders_sim.openspiel import BordersGame, params_from_config
    for seed in (2**31, 2**64, 1.0, True):
        with pytest.raises(ValueError, match=r"seed must be a seed of the deals, an int from 0 "
                                             r"to 2\*\*31 - 1"):
            BordersGame({"seed": seed})
    assert BordersGame({"seed": 2**31 - 1}).seed == 2**31 - 1
    with pytest.raises(ValueError, match="seed must be a seed"):
        params_from_config(GameConfig(), seed=-1)
    with pytest.raises(ArgumentTypeError, match="config must be a GameConfig"):
        params_from_config({"num_players": 4})


def test_openspiel_states_and_bots_check_their_arguments(spiel):
    from borders_sim.openspiel import CompiledRolloutEvaluator, OpenSpielBot, parse_name
    from borders_sim.openspiel import BordersBot
    game = spiel.load_game("python_borders", {"players": 4})
    state = game.new_initial_state()
    _deal(state, 1)
    sampler = spiel.UniformProbabilitySampler(0, 0.0, 1.0)
    for player in (4, -1, 1.0, "0"):
        with pytest.raises(ValueError, match="player_id must be a seat"):
            state.resample_from_infostate(player, sampler)
    with pytest.raises(ValueError, match=r"probability_sampler\(\) must be a finite number"):
        state.resample_from_infostate(0, lambda: float("nan"))
    with pytest.raises(ArgumentTypeError, match="game must be a borders_sim.Game"):
        game.state_from_game(state)
    for make, words in [(lambda: BordersBot(8, "honest"), "player must be an int"),
                        (lambda: BordersBot(0, "honest", seed=-1), "seed must be a seed"),
                        (lambda: CompiledRolloutEvaluator("smart"), "policy must be one of"),
                        (lambda: CompiledRolloutEvaluator(n_rollouts=0), "n_rollouts must be"),
                        (lambda: CompiledRolloutEvaluator(seed=1.5), "seed must be a seed"),
                        (lambda: OpenSpielBot("openspiel-random", seed=-1), "seed must be"),
                        (lambda: parse_name(5), "name must be an OpenSpiel bot name"),
                        (lambda: parse_name("openspiel-mcts:c=inf"), "c must be a finite"),
                        (lambda: parse_name("openspiel-mcts:sims=+5"), "sims must be a whole")]:
        with pytest.raises(ValueError, match=words):
            make()


# --- the Ray backend --------------------------------------------------------------------------
class _Listener:
    """A TCP listener on 127.0.0.1 that is not Ray: it accepts connections and then says
    ``reply`` (nothing: it stays silent) until closed."""

    def __init__(self, reply: bytes = b"") -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self.server.getsockname()[1]}"
        self.reply = reply
        self.held: list[socket.socket] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        try:
            while True:
                connection, _ = self.server.accept()
                self.held.append(connection)
                if self.reply:
                    connection.sendall(self.reply)
        except OSError:  # closed
            pass

    def close(self) -> None:
        self.server.close()
        for connection in self.held:
            connection.close()


@pytest.fixture
def listener(request):
    made = _Listener(getattr(request, "param", b""))
    yield made
    made.close()


def test_a_silent_listener_is_not_a_ray_cluster(listener):
    from borders_sim.arena.ray_backend import check_address
    t0 = time.perf_counter()
    with pytest.raises(RuntimeError, match=f"no Ray cluster answers at '{listener.address}': "
                                           "connected, then no answer within 5 s"):
        check_address(listener.address)
    assert time.perf_counter() - t0 < 10


@pytest.mark.parametrize("listener", [b"HTTP/1.1 400 Bad Request\r\n\r\n", b"hello\n"],
                         indirect=True, ids=["http", "text"])
def test_a_listener_that_answers_otherwise_is_not_a_ray_cluster(listener):
    from borders_sim.arena.ray_backend import check_address
    t0 = time.perf_counter()
    with pytest.raises(RuntimeError, match="does not speak gRPC"):
        check_address(f"ray://{listener.address}")
    assert time.perf_counter() - t0 < 5


@pytest.mark.parametrize("listener", [bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])], indirect=True,
                         ids=["settings"])
def test_a_grpc_answer_passes_the_check(listener):
    from borders_sim.arena.ray_backend import check_address
    check_address(listener.address)  # a server's SETTINGS frame, as a Ray head sends it


def test_malformed_ray_addresses_are_refused_in_one_line():
    from borders_sim.arena.ray_backend import check_address
    for bad in ("a" * 5000 + ":6379", "ray://" + "b" * 300 + ":1", "localhost",
                "localhost:70000", "localhost:0", "ray://:80"):
        with pytest.raises(ValueError, match="the Ray address must be host:port") as err:
            check_address(bad)
        assert "\n" not in str(err.value) and len(str(err.value)) < 300
    with pytest.raises(ArgumentTypeError, match="the Ray address must be host:port"):
        check_address(6379)


def test_start_ray_gives_up_on_a_listener_that_is_not_ray(listener, monkeypatch):
    ray = pytest.importorskip("ray")
    if ray.is_initialized():
        pytest.skip("Ray is already initialized in this process")
    from borders_sim.arena import ray_backend
    from borders_sim.arena.ray_backend import start_ray
    monkeypatch.setattr(ray_backend, "CONNECT_TIMEOUT", 1.0)  # (the default: the test above)
    t0 = time.perf_counter()
    with pytest.raises(RuntimeError, match="no Ray cluster answers"):
        start_ray(listener.address, None)
    assert time.perf_counter() - t0 < 5 and not ray.is_initialized()
    with pytest.raises(ValueError, match="the Ray address must be host:port"):
        start_ray("h" * 5000 + ":6379", None)


# --- Game.from_dict's messages ----------------------------------------------------------------
def test_from_dict_cuts_a_huge_format_and_names_a_huge_rng():
    d = Game(GameConfig(), seed=0).to_dict()
    with pytest.raises(ValueError, match="format") as err:
        Game.from_dict({**d, "format": "x" * 10**6})
    assert len(str(err.value)) < 300
    with pytest.raises(ValueError, match=r"rng\[0\].*decimal string of 5000 digits"):
        Game.from_dict({**d, "rng": ["9" * 5000, d["rng"][1]]})
