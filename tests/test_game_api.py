"""The Python ``Game`` object: pickling and copies, and the ``player`` argument of ``step``.

* ``pickle``, ``copy.deepcopy``, ``copy.copy`` and ``Game.copy`` give an independent game whose
  ``phase``, ``current_player``, ``round``, ``is_terminal`` and legal mask follow its own state
  after steps (field views must not come back detached), at the start, mid-game and at the end;
* a game crosses a process pool (spawn: a fresh interpreter, as Ray workers are) and continues
  there exactly as it would have at home;
* ``step(..., player=...)`` takes a seat 0..n-1 (numpy ints too) and names anything else;
* ``step_observe`` is ``step`` plus the next mover's view in new arrays, refusing what ``step``
  refuses with the same message and keeping the game's legal ids and end right;
* ``refresh()`` and ``from_state`` check a state as ``from_dict`` checks a dict: a hand edit
  that makes it unplayable is refused naming the field, and the game then refuses to play it
  (``EngineError``) until it is fixed; a replaced state array is checked before it is played.
"""

from __future__ import annotations

import copy
import multiprocessing
import pickle
import random
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

from borders_sim import NUM_ACTIONS, EngineError, Game, GameConfig, IllegalActionError
from borders_sim.envs import observe
from borders_sim.rules import state as st

COPIERS = {
    "pickle": lambda g: pickle.loads(pickle.dumps(g)),
    "pickle protocol 2": lambda g: pickle.loads(pickle.dumps(g, protocol=2)),
    "deepcopy": copy.deepcopy,
    "copy.copy": copy.copy,
    "Game.copy": Game.copy,
}


def view(game: Game) -> tuple:
    """Everything a caller reads from a game."""
    return (game.state.tobytes(), game.phase, game.current_player, game.round,
            game.is_terminal, game.legal_actions(), game.legal_mask().tobytes())


def assert_tracks_own_state(game: Game) -> None:
    """The properties agree with the game's own state record (not a detached copy of it)."""
    rec = game.state[0]
    assert game.phase == st.PHASE_NAMES[int(rec["phase"])]
    assert game.round == int(rec["round"])
    assert game.is_terminal == (int(rec["phase"]) == st.PH_GAME_OVER)
    assert game.current_player == (-1 if game.is_terminal else int(rec["turn"]))
    assert game.legal_actions() == Game.from_state(game.state.copy()).legal_actions()


def game_at(where: str, rng: random.Random) -> Game:
    game = Game(GameConfig(num_players=6), seed=11)
    steps = {"start": 0, "mid-game": 150, "end": 10**9}[where]
    while steps and not game.is_terminal:
        game.step(rng.choice(game.legal_actions()))
        steps -= 1
    return game


@pytest.mark.parametrize("how", COPIERS)
@pytest.mark.parametrize("where", ["start", "mid-game", "end"])
def test_copies_are_independent_games_that_follow_their_own_state(how, where):
    rng = random.Random(3)
    game = game_at(where, rng)
    twin = COPIERS[how](game)
    assert type(twin) is Game and twin is not game
    assert twin.config == game.config
    assert view(twin) == view(game)
    assert not np.shares_memory(twin.state, game.state)
    assert_tracks_own_state(twin)
    if where == "end":
        assert twin.is_terminal and twin.current_player == -1
        with pytest.raises(IllegalActionError, match="game is over"):
            twin.step(0)
        return
    # the same actions keep the two equal, and every property follows each game's own state
    while not game.is_terminal:
        a = rng.choice(game.legal_actions())
        game.step(a)
        twin.step(a)
        assert view(twin) == view(game)
    assert_tracks_own_state(twin)
    assert twin.scores() == game.scores() and twin.winners() == game.winners()


def test_a_game_on_a_view_of_a_batch_steps_that_batch_in_place():
    """Game.step runs the step kernel bound to the game's own state array (no per-call numba
    dispatch): on a view into a batch it plays the batch's record, as a standalone game would."""
    batch = np.concatenate([Game(GameConfig(num_players=5), seed=s).state for s in range(3)])
    alone = Game(GameConfig(num_players=5), seed=1)
    on_view = Game.from_state(batch[1:2])
    rng = random.Random(9)
    for _ in range(60):
        a = rng.choice(alone.legal_actions())
        alone.step(a)
        on_view.step(a)
    assert batch[1].tobytes() == alone.state[0].tobytes()
    assert on_view.legal_actions() == alone.legal_actions()
    assert batch[0].tobytes() == Game(GameConfig(num_players=5), seed=0).state[0].tobytes()


@pytest.mark.parametrize("how", COPIERS)
def test_stepping_a_copy_leaves_the_original_alone(how):
    rng = random.Random(5)
    game = game_at("mid-game", rng)
    before = view(game)
    twin = COPIERS[how](game)
    for _ in range(40):
        twin.step(rng.choice(twin.legal_actions()))
    assert view(game) == before
    assert view(twin) != before
    assert_tracks_own_state(twin)
    assert_tracks_own_state(game)


def test_deepcopy_of_a_container_keeps_shared_games_shared():
    game = Game(GameConfig(num_players=3), seed=2)
    pair = copy.deepcopy([game, game])
    assert pair[0] is pair[1] and pair[0] is not game


def _continue(game: Game, actions: list[int]) -> Game:
    """Runs in a worker process: play ``actions`` on the unpickled game and send it back."""
    for a in actions:
        game.step(a)
    return game


def test_a_game_crosses_a_spawned_process_pool():
    rng = random.Random(9)
    game = game_at("mid-game", rng)
    expected = game.copy()
    actions = []
    for _ in range(60):
        a = rng.choice(expected.legal_actions())
        expected.step(a)
        actions.append(a)
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        back = pool.apply(_continue, (game, actions))
    assert view(back) == view(expected)
    assert_tracks_own_state(back)
    a = back.legal_actions()[0]
    back.step(a)
    expected.step(a)
    assert view(back) == view(expected)


# --- step(..., player=...) -------------------------------------------------------------------
def test_player_may_be_any_int_seat():
    game = Game(GameConfig(num_players=4), seed=1)
    for kind in (int, np.int8, np.int64, np.uint32):
        trial = game.copy()
        trial.step(trial.legal_actions()[0], player=kind(game.current_player))
        assert trial.state.tobytes() != game.state.tobytes()


@pytest.mark.parametrize("player", ["p1", "1", 1.0, True, np.bool_(False), (0,), [1],
                                    -1, 4, np.int64(7)])
def test_player_that_is_not_a_seat_is_refused_by_name(player):
    game = Game(GameConfig(num_players=4), seed=1)
    before = game.state.tobytes()
    with pytest.raises(IllegalActionError,
                       match=r"player must be a seat, an int from 0 to 3, got ") as err:
        game.step(game.legal_actions()[0], player=player)
    is_int = isinstance(player, (int, np.integer)) and not isinstance(player, (bool, np.bool_))
    shown = str(int(player)) if is_int else repr(player)
    assert f"got {shown}" in str(err.value)
    assert "pp1" not in str(err.value)
    assert game.state.tobytes() == before


def test_out_of_turn_names_both_seats():
    game = Game(GameConfig(num_players=4), seed=1)
    other = (game.current_player + 1) % 4
    with pytest.raises(IllegalActionError,
                       match=rf"out of turn: player p{other} tried to act, but it is "
                             rf"p{game.current_player}'s turn"):
        game.step(game.legal_actions()[0], player=np.int16(other))


@pytest.mark.parametrize("n", [3, 5, 8])
def test_legal_actions_listed_by_the_step_kernel_match_the_mask_at_every_step(n):
    """``step`` lists the next legal ids in its compiled call; refused actions (illegal ids,
    the game over) leave the list as it was, and it always equals the mask's ids."""
    game, rng = Game(GameConfig(num_players=n), seed=n), random.Random(n)
    while True:
        legal = game.legal_actions()
        assert legal == np.flatnonzero(game.legal_mask()).tolist()
        assert type(game.is_terminal) is bool and game.is_terminal == (not legal)
        illegal = next(a for a in range(513) if a not in legal)
        before = game.state.tobytes()
        with pytest.raises(IllegalActionError):
            game.step(illegal)
        assert game.state.tobytes() == before and game.legal_actions() == legal
        if game.is_terminal:
            break
        game.step(rng.choice(legal))


def test_legal_actions_follow_a_game_stepped_by_its_aec_env():
    """The AEC env steps its game with its own compiled call; the game's list follows."""
    from borders_sim.envs import borders_v0

    env = borders_v0.raw_env(num_players=4)
    env.reset(seed=3)
    rng = random.Random(3)
    game = env.unwrapped.game
    for _ in range(300):
        if game.is_terminal:
            break
        mask = env.observe(env.agent_selection)["action_mask"]
        assert game.legal_actions() == np.flatnonzero(mask).tolist()
        env.step(rng.choice(game.legal_actions()))


# --- step_observe -----------------------------------------------------------------------------
def test_step_observe_is_step_then_the_next_movers_view():
    """``step_observe`` plays as ``step`` does and hands out the next mover's observation and
    mask as new arrays; the game's own bookkeeping (legal ids, the end) follows."""
    game, twin, rng = Game(GameConfig(num_players=5), seed=4), Game(GameConfig(num_players=5),
                                                                    seed=4), random.Random(4)
    kept = []
    while True:
        a = rng.choice(game.legal_actions())
        kind = rng.choice([int, np.int16, game.action_to_string])
        seat, obs, mask = game.step_observe(kind(a))
        twin.step(a)
        assert game.state.tobytes() == twin.state.tobytes()
        assert game.legal_actions() == twin.legal_actions()
        assert game.is_terminal == twin.is_terminal and game.current_player == seat
        if seat < 0:
            assert obs is None and mask is None and game.is_terminal
            break
        np.testing.assert_array_equal(obs, observe(game, seat))
        assert mask.dtype == np.int8 and mask.tolist() == game.legal_mask().tolist()
        kept.append((obs, obs.copy()))
    assert all(np.array_equal(a, b) for a, b in kept)  # never written again
    with pytest.raises(IllegalActionError, match="game is over"):
        game.step_observe(0)


@pytest.mark.parametrize("action", [-1, NUM_ACTIONS, 2**63, 2**70, -2**70, 1.0, True, "fly",
                                    None])
def test_step_observe_refuses_what_step_refuses_and_changes_nothing(action):
    game = Game(GameConfig(num_players=4), seed=2)
    before = (game.state.tobytes(), game.legal_actions())
    with pytest.raises(IllegalActionError) as err:
        game.step_observe(action)
    with pytest.raises(IllegalActionError) as step_err:
        game.step(action)
    assert str(err.value) == str(step_err.value)
    assert (game.state.tobytes(), game.legal_actions()) == before
    illegal = next(a for a in range(NUM_ACTIONS) if a not in game.legal_actions())
    with pytest.raises(IllegalActionError, match=rf"illegal action .* \(id {illegal}\)"):
        game.step_observe(illegal)
    assert (game.state.tobytes(), game.legal_actions()) == before


# --- refresh and from_state check the state as from_dict checks a dict ------------------------
def edit_cfg(s):
    s["cfg"][0, st.CFG_NUM_PLAYERS] = 99


def edit_haggling(s):
    s["cfg"][0, st.CFG_HAGGLING] = 99


def edit_hand(s):
    s["hand"][0, 0, 0] = -5


def edit_turn(s):
    s["turn"][0] = 50


def edit_phase(s):
    s["phase"][0] = 99


def edit_steps(s):
    s["steps"][0] = 2**62


def edit_draw(s):
    s["draw_len"][0] = 10**6


def edit_round(s):
    s["round"][0] = 10**6


@pytest.mark.parametrize("edit,field", [
    (edit_cfg, r"cfg/menu .*num_players must be an int from 3 to 8, got 99"),
    (edit_haggling, r"cfg/menu .*haggling must be one of the codes"),
    (edit_hand, r"players\[0\]\.hand\.sugar: must not be negative, got -5"),
    (edit_turn, r"state field turn = 50 is not a seat of a 4-player game"),
    (edit_phase, r"state field phase = 99 has no name"),
    (edit_steps, r"steps: \d+ decisions, more than max_game_length"),
    (edit_draw, r"state field draw_len = 1000000 is outside"),
    (edit_round, r"round: 1000000, but a game in this position may last until round"),
])
def test_refresh_refuses_a_state_from_dict_would_refuse(edit, field):
    """A hand edit that makes the state unplayable is refused by name, and the game then
    refuses to play it (no segfault, no wrong player, no endless game) until it is fixed."""
    game = Game(GameConfig(num_players=4), seed=3)
    good = game.state.copy()
    edit(game.state)
    bad = game.state.copy()
    with pytest.raises(ValueError, match=field):
        game.refresh()
    with pytest.raises(ValueError, match=field):
        Game.from_state(bad)
    assert game.legal_actions() == [] and not game.legal_mask().any()
    for call in (lambda g: g.step(0), lambda g: g.step_observe(0), lambda g: g.step("pass"),
                 Game.scores, Game.winners, lambda g: observe(g, 0)):
        for target in (game, game.copy()):
            with pytest.raises(EngineError, match="refresh\\(\\) refused this game's state"):
                call(target)
    with pytest.raises(ValueError, match=field):
        pickle.loads(pickle.dumps(game))
    game.state[:] = good
    game.refresh()
    assert view(game) == view(Game(GameConfig(num_players=4), seed=3))
    game.step(game.legal_actions()[0])


def test_refresh_takes_up_a_replaced_state_and_its_config():
    game = Game(GameConfig(num_players=4), seed=3)
    other = Game(GameConfig(num_players=6, haggle_rounds=2), seed=8)
    game.state = other.state.copy()
    game.refresh()
    assert game.config == other.config and view(game) == view(other)
    game.state = np.zeros(2, dtype=st.STATE_DTYPE)
    with pytest.raises(ValueError, match="a state is a one-element array of STATE_DTYPE"):
        game.refresh()
    game.state = other.state.copy()
    game.state["turn"] = 7  # replaced and broken, stepped without a refresh: checked first
    with pytest.raises(ValueError, match="state field turn = 7"):
        game.step(0)


def test_from_state_wraps_a_checked_state_in_place():
    batch = np.concatenate([Game(GameConfig(num_players=3), seed=s).state for s in range(2)])
    game = Game.from_state(batch[1:2])
    game.step(game.legal_actions()[0])
    assert batch[1].tobytes() == game.state[0].tobytes()
    for bad in (batch, batch[0], np.zeros(1, dtype=np.int64), [batch[0]]):
        with pytest.raises(ValueError, match="a state is a one-element array of STATE_DTYPE"):
            Game.from_state(bad)


MUTATIONS = [0, 1, -1, 2, 7, 8, 99, 127, -128, 2**31 - 1, -2**31, 2**62]


@settings(max_examples=120, deadline=None)
@given(data=hst.data())
def test_any_single_edit_is_refreshed_or_refused_by_name(data):
    """One entry of one field set to an awkward value: ``refresh()`` either accepts the state
    (which then loads from its own dict) or raises a ValueError, nothing else."""
    game = Game(GameConfig(num_players=data.draw(hst.integers(3, 8))),
                seed=data.draw(hst.integers(0, 50)))
    rng = random.Random(data.draw(hst.integers(0, 10**6)))
    for _ in range(data.draw(hst.integers(0, 60))):
        if game.is_terminal:
            break
        game.step(rng.choice(game.legal_actions()))
    field = data.draw(hst.sampled_from(st.STATE_DTYPE.names))
    flat = game.state[field].reshape(-1)
    k = data.draw(hst.integers(0, flat.size - 1))
    value = data.draw(hst.sampled_from(MUTATIONS))
    info = np.iinfo(flat.dtype)
    flat[k] = min(max(value, int(info.min)), int(info.max))
    try:
        game.refresh()
    except ValueError as err:
        assert str(err).startswith("not a state the engine can play: ")
        assert game.legal_actions() == []
        return
    assert Game.from_dict(game.to_dict()).state.tobytes() == game.state.tobytes()


def test_games_made_in_threads_at_once_in_a_fresh_process():
    """The first games of a process, made in eight threads at once (a tournament of language
    models does this), prepare the kernels once: the others wait (a race here used to crash
    with numba's NullCache)."""
    code = ("from concurrent.futures import ThreadPoolExecutor\n"
            "from borders_sim import Game, GameConfig\n"
            "def play(seed):\n"
            "    g = Game(GameConfig(num_players=3), seed=seed)\n"
            "    while not g.is_terminal:\n"
            "        g.step(g.legal_actions()[0])\n"
            "    return tuple(g.scores())\n"
            "with ThreadPoolExecutor(8) as pool:\n"
            "    threaded = list(pool.map(play, range(16)))\n"
            "print(threaded == [play(s) for s in range(16)])\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "True", done.stderr[-2000:]
