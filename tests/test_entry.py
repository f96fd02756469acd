"""rules/entry.py: compiled entry points without dispatch, typed once per array kind."""

import numba
import numpy as np
import pytest

from borders_sim.rules import entry
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
    assert entry._typeof(value) == numba.typeof(value)
    assert entry._typeof(make()) == numba.typeof(make())


def test_entry_is_compiled_once_per_signature():
    @numba.njit
    def add(a, k):
        a[0] += k
        return a[0]

    a = np.zeros(2, np.int64)
    f = entry.direct_entry(add, a, 1)
    assert f is entry.direct_entry(add, np.ones(3, np.int64), 5)
    assert f(a, 3) == 3 and a[0] == 3
    assert entry.direct_entry(add, np.zeros(2, np.float64), 1) is not f
