"""The compiled calls behind :class:`~borders_sim.Game`'s hot methods.

:func:`game_call` is the compiled :func:`~borders_sim.rules.engine.game_op` (for
:meth:`~borders_sim.Game.step` and the rest) and :func:`id_list` turns the legal ids it lists
into the Python list of :meth:`~borders_sim.Game.legal_actions`. Both are
:class:`~borders_sim._compile.fastcall.fastcall` builtins: they take the addresses of arrays
that only :class:`~borders_sim.Game` holds and has checked (:func:`fast_state`).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from numba import carray

from .._compile.fastcall import (arity_error, at_address, clear_error, error_set, fastcall,
                                 int_arg, is_null, list_put, new_int, new_list, null, release,
                                 tuple_length)
from ..rules.actions import NUM_ACTIONS
from ..rules.engine import MASK_SIZE, game_op
from ..rules.state import STATE_DTYPE


@fastcall
def game_call(self, args, nargs):
    """game_call(state_address, buf_address, op, action) -> count: engine.game_op (op is one
    of engine.OP_*) on the one-element STATE_DTYPE array at ``state_address`` and the buffer
    of engine.game_op_at (uint8[LISTED_SIZE]: the mask, then the legal ids as int16) at
    ``buf_address``. An action that is not an int64 is refused like an illegal one."""
    if nargs != 4:
        return arity_error(nargs)
    state_address = int_arg(args, 0)
    if state_address == -1 and error_set():
        return null()
    buf_address = int_arg(args, 1)
    if buf_address == -1 and error_set():
        return null()
    op = int_arg(args, 2)
    if op == -1 and error_set():
        return null()
    a = int_arg(args, 3)
    if a == -1 and error_set():  # too big for an int64: no action
        clear_error()
    states = carray(at_address(state_address), 1, dtype=STATE_DTYPE)
    mask = carray(at_address(buf_address), MASK_SIZE, dtype=np.uint8)
    words = carray(at_address(buf_address), MASK_SIZE // 8, dtype=np.uint64)
    ids = carray(at_address(buf_address + MASK_SIZE), NUM_ACTIONS, dtype=np.int16)
    return new_int(game_op(states[0], op, a, mask, words, ids))


@fastcall
def id_list(self, args, nargs):
    """id_list(ids_address, count, ints) -> list: the ``count`` int16 action ids at
    ``ids_address`` (the list ``engine.game_op`` writes) as a new list of the int objects
    ``ints[id]`` (a tuple of every id, :data:`ACTION_INTS`: ids above 256 would otherwise be
    made and freed one by one, which cost more than the rest of the list)."""
    if nargs != 3:
        return arity_error(nargs)
    ids_address = int_arg(args, 0)
    if ids_address == -1 and error_set():
        return null()
    count = int_arg(args, 1)
    if count == -1 and error_set():
        return null()
    if tuple_length(args[2]) == -1 and error_set():
        return null()
    ids = carray(at_address(ids_address), max(count, 0), dtype=np.int16)
    out = new_list(max(count, 0))
    if is_null(out):
        return out
    for k in range(ids.shape[0]):
        if not list_put(out, k, args[2], ids[k]):
            return release(out)
    return out


#: Every action id as a Python int, the items of :func:`id_list`'s lists.
ACTION_INTS = tuple(range(NUM_ACTIONS))


def game_call_builtin() -> Callable:
    """The builtin ``(state_address, buf_address, op, action) -> count`` of
    :func:`game_call`, compiled (or loaded from numba's cache) on first use."""
    return game_call.builtin()


def fast_state(state: Any) -> bool:
    """Whether :func:`game_call` may play ``state`` by its address: a writable, aligned,
    C-contiguous one-dimensional array of :data:`STATE_DTYPE` with at least one element."""
    if type(state) is not np.ndarray:
        return False
    flags = state.flags
    return (state.dtype == STATE_DTYPE and state.ndim == 1 and state.shape[0] >= 1
            and flags.c_contiguous and flags.writeable and flags.aligned)


def id_list_builtin() -> Callable:
    """The builtin ``(ids_address, count, ints) -> list`` of :func:`id_list`, compiled (or
    loaded from numba's cache) on first use."""
    return id_list.builtin()
