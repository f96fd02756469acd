"""_compile/fastcall.py and game/fastpath.py: compiled entry points without dispatch, typed once
per array kind, and the builtins behind Game."""

import numba
import numpy as np
import pytest

from borders_sim._compile import fastcall
from borders_sim.game import fastpath as entry
from borders_sim.rules.state import STATE_DTYPE


def _readonly(a):
    a.flags.writeable = False
    return a


@pytest.mark.parametrize("make", [
    lambda: np.zeros(1, STATE_DTYPE),
    lambda: np.zeros(3, STATE_DTYPE)[::2],
    lambda: np.zeros((3, 4), np.float32),
    lambda: np.zeros((3, 4), np.float32)[:, ::2],
    lambda: np.zeros((3, 4), np.int8, order="F"),
    lambda: _readonly(np.zeros(5, np.uint8)),
    lambda: np.zeros((), np.int64),
    lambda: 7,
    lambda: 2**63,
], ids=["record", "record-strided", "2d", "2d-strided", "fortran", "readonly", "0d", "int",
        "big-int"])
def test_remembered_types_are_numbas(make):
    """The remembered array types are exactly numba's, twice (the second from memory)."""
    value = make()
    assert fastcall._typeof(value) == numba.typeof(value)
    assert fastcall._typeof(make()) == numba.typeof(make())


def test_entry_is_compiled_once_per_signature():
    @numba.njit
    def add(a, k):
        a[0] += k
        return a[0]

    a = np.zeros(2, np.int64)
    f = fastcall.direct_entry(add, a, 1)
    assert f is fastcall.direct_entry(add, np.ones(3, np.int64), 5)
    assert f(a, 3) == 3 and a[0] == 3
    assert fastcall.direct_entry(add, np.zeros(2, np.float64), 1) is not f


# --- fastcall builtins (Game.step and Game.legal_actions) ---------------------------------------
from borders_sim import Game, GameConfig  # noqa: E402
from borders_sim.game import game as game_module  # noqa: E402
from borders_sim.rules import engine  # noqa: E402
from borders_sim.rules.setup import new_state  # noqa: E402


def _fresh():
    """A new game's state and buffer, advanced to its first decision."""
    states = new_state(GameConfig(num_players=4), 3)
    buf = np.zeros(engine.LISTED_SIZE, np.uint8)
    engine.game_op_at(states, 0, engine.OP_ADVANCE, 0, buf)
    return states, buf


def _call(states, buf, op, a):
    return entry.game_call_builtin()(states.ctypes.data, buf.ctypes.data, op, a)


def test_game_call_builtin_is_game_op_at():
    """The builtin plays a whole game exactly as the dispatcher's game_op_at does: the same
    counts, the same bytes of state and buffer after every step and every listing."""
    a_states, a_buf = _fresh()
    b_states, b_buf = _fresh()
    assert a_states.tobytes() == b_states.tobytes() and a_buf.tobytes() == b_buf.tobytes()
    while True:
        a = int(np.flatnonzero(a_buf[:engine.MASK_SIZE])[-1])
        got = _call(a_states, a_buf, engine.OP_STEP, a)
        want = engine.game_op_at(b_states, 0, engine.OP_STEP, a, b_buf)
        assert got == want
        assert a_states.tobytes() == b_states.tobytes() and a_buf.tobytes() == b_buf.tobytes()
        before = a_states.tobytes() + a_buf.tobytes()
        assert _call(a_states, a_buf, engine.OP_LIST, 0) == got  # listing changes nothing
        assert a_states.tobytes() + a_buf.tobytes() == before
        if got == 0:
            break


def test_game_call_lists_nothing_for_an_unknown_phase():
    states, buf = _fresh()
    states[0]["phase"] = 99
    assert _call(states, buf, engine.OP_LIST, 0) == 0
    assert not buf[:engine.MASK_SIZE].any()


@pytest.mark.parametrize("action", [-1, engine.NUM_ACTIONS, 2**63 - 1, 2**64, -2**70])
def test_game_call_refuses_actions_out_of_range_unchanged(action):
    states, buf = _fresh()
    before = states.tobytes() + buf.tobytes()
    assert _call(states, buf, engine.OP_STEP, action) == engine.ILLEGAL
    assert states.tobytes() + buf.tobytes() == before


@pytest.mark.parametrize("builtin, arity", [(entry.game_call_builtin, 4),
                                            (entry.id_list_builtin, 3)])
def test_fastcall_builtins_refuse_wrong_arguments_with_type_errors(builtin, arity):
    f = builtin()
    with pytest.raises(TypeError, match="wrong number of arguments"):
        f()
    with pytest.raises(TypeError, match="wrong number of arguments"):
        f(*range(arity + 1))
    with pytest.raises(TypeError):
        f("not an address", *range(arity - 1))
    with pytest.raises(OverflowError):
        f(2**64, *range(arity - 1))


@pytest.mark.parametrize("ids", [[], [7], [0, 1, 255, 256, 257, 300, engine.NUM_ACTIONS - 1]])
def test_id_list_builtin_lists_the_int16_ids(ids):
    array = np.array(ids + [-5], dtype=np.int16)  # one more, not to be listed
    got = entry.id_list_builtin()(array.ctypes.data, len(ids), entry.ACTION_INTS)
    assert got == ids and all(type(x) is int for x in got)
    assert all(x is entry.ACTION_INTS[x] for x in got)  # shared, not made per list


def test_id_list_builtin_refuses_a_bad_int_table():
    array = np.array([3, 9], dtype=np.int16)
    f = entry.id_list_builtin()
    with pytest.raises(SystemError):  # PyTuple_Size's answer to a list: a bad internal call
        f(array.ctypes.data, 2, [0] * 10)
    with pytest.raises(IndexError):
        f(array.ctypes.data, 2, (0, 1, 2, 3))  # no item 9


@pytest.mark.parametrize("make, fast", [
    (lambda: np.zeros(1, STATE_DTYPE), True),
    (lambda: np.zeros(3, STATE_DTYPE)[1:2], True),
    (lambda: _readonly(np.zeros(1, STATE_DTYPE)), False),
    (lambda: np.zeros(0, STATE_DTYPE), False),
    (lambda: np.zeros((1, 1), STATE_DTYPE), False),
    (lambda: np.zeros(1, STATE_DTYPE).view(np.recarray), False),
    (lambda: np.zeros(STATE_DTYPE.itemsize, np.uint8), False),
    (lambda: [0], False),
], ids=["array", "view", "readonly", "empty", "2d", "recarray", "bytes", "list"])
def test_fast_state_accepts_only_arrays_the_builtin_can_step(make, fast):
    assert entry.fast_state(make()) is fast


def test_game_plays_a_state_the_builtin_cannot_take_through_numbas_entry(monkeypatch):
    """A state that is not a fast_state is played by game_op_at through numba's entry point:
    the same game."""
    fast = Game(GameConfig(num_players=3), seed=11)
    monkeypatch.setattr(game_module, "fast_state", lambda state: False)
    slow = Game(GameConfig(num_players=3), seed=11)
    while not fast.is_terminal:
        a = fast.legal_actions()[len(fast.legal_actions()) // 2]
        fast.step(a)
        slow.step(a)
        assert slow.legal_actions() == fast.legal_actions()
        assert slow.is_terminal == fast.is_terminal
    assert slow._step_state is None
    assert slow.state.tobytes() == fast.state.tobytes()
