"""``_compile.jit.kernel``: compiled callers share one version of a kernel whatever kind of int or
bool they pass (constants, int32 record fields, int64 indices), and get the same results."""

import numpy as np
from numba import njit

from borders_sim._compile import jit
from borders_sim.rules import piles


def _fresh_pair():
    """A callee typed by kind and a caller passing it every kind of argument (uncached, so
    the test sees the compilations)."""
    @njit
    def add(a, b, flag):
        return a + b if flag else a - b

    callee = jit._typed_by_kind(add)

    @njit
    def caller(small, big):
        s = small[0]  # an int32, as a record field is
        return (callee(s, 3, True), callee(big, s, False), callee(-1, big, flag=True),
                callee(s, np.int8(2), s > 0))

    return callee, caller


def test_a_kernel_is_compiled_once_for_literals_and_narrow_ints():
    callee, caller = _fresh_pair()
    small = np.array([7], dtype=np.int32)
    assert caller(small, np.int64(10)) == (10, 3, 9, 9)
    assert len(callee.signatures) == 1
    assert all(str(t) in ("int64", "bool") for t in callee.signatures[0])


def test_unsigned_and_array_arguments_keep_their_types():
    assert jit._widen(jit.types.uint64) is jit.types.uint64
    arr = jit.types.Array(jit.types.int32, 1, "C")
    assert jit._widen(arr) is arr
    assert jit._widen(jit.types.int32) is jit.types.int64
    assert jit._widen(jit.types.literal(True)) is jit.types.boolean


def test_the_rules_helpers_are_kernels():
    """The helpers compiled 6-14 times before (one per constant) are typed by kind."""
    for helper in (piles.remove_from_hand, piles.hand_over_goods):
        assert helper.get_call_template.__qualname__.startswith("_typed_by_kind")
