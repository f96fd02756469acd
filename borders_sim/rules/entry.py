"""Compiled kernels called without numba's per-call type dispatch (the hot Python paths).

Calling an ``@njit`` function from Python makes numba type every argument and look up the
matching compiled version on every call; for a kernel that runs in a microsecond that dispatch
is a third of the cost. :func:`direct_entry` does the typing once, for example arguments, and
returns the compiled entry point itself. The caller must then pass arguments of exactly those
types (the same arrays, or arrays of the same dtype, dimensions and layout, and ints): a caller
binds once per array it owns and binds again when the array is replaced.
"""

from __future__ import annotations

from typing import Any, Callable

import numba
import numpy as np

_entries: dict = {}  # (dispatcher, argument types) -> compiled entry point
_array_types: dict = {}  # (dtype, ndim, layout, writeable, aligned) -> numba array type


def _typeof(arg: Any) -> Any:
    """``numba.typeof(arg)``, remembered per array dtype and layout: typing the game state's
    record dtype from scratch takes over a millisecond, and every new game binds again."""
    if type(arg) is not np.ndarray:
        return numba.typeof(arg)
    flags = arg.flags
    layout = "C" if flags.c_contiguous else "F" if flags.f_contiguous else "A"
    key = (arg.dtype, arg.ndim, layout, flags.writeable, flags.aligned)
    found = _array_types.get(key)
    if found is None:
        found = _array_types[key] = numba.typeof(arg)
    return found


def direct_entry(kernel: Any, *args: Any) -> Callable:
    """``kernel`` (an ``@njit`` dispatcher) compiled, or loaded from numba's cache, for the
    numba types of ``args``: a function with the same arguments and result, without dispatch."""
    sig = tuple(_typeof(a) for a in args)
    entry = _entries.get((kernel, sig))
    if entry is None:
        entry = _entries[(kernel, sig)] = kernel.compile(sig)
    return entry
