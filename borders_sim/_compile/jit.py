"""``kernel``: the project's ``njit``: cached, and compiled once per kind of argument rather
than once per constant.

numba compiles a jitted function again for every tuple of argument types its compiled callers
pass, and to numba a constant argument is a type of its own (``forget(know, n, o, 15, -2)``
passes ``Literal[int](15)`` and ``Literal[int](-2)``), as is an ``int32`` record field where
another caller passes an ``int64`` loop index. Each such version is typed, lowered and optimised
anew, so a helper like ``piles.forget``, called with a dozen different constants, would be
compiled a dozen times. A :func:`kernel` is typed at every compiled call site as if its signed
integer arguments were ``int64`` and its constant bools plain ``bool`` (the caller converts
them; LLVM still inlines the callee and folds the constants), so one version serves them all
(``tests/test_jit.py`` counts the versions).

Use ``@kernel`` or ``@kernel(parallel=True)`` where numba's ``@njit(cache=True)`` would go;
``inline="always"`` helpers stay plain ``@njit`` (numba inlines them before typing the call).
Calls from Python are typed by numba as usual (a Python int is an ``int64`` anyway).
"""

from __future__ import annotations

from typing import Any, Callable

from numba import njit
from numba.core import types


def _widen(t: Any) -> Any:
    """The argument type a kernel is compiled for, given the type a compiled caller passes."""
    if isinstance(t, types.BooleanLiteral):
        return types.boolean
    if isinstance(t, types.IntegerLiteral):
        return types.int64
    if isinstance(t, types.Integer) and t.signed and t.bitwidth < 64:
        return types.int64
    return t


def _typed_by_kind(dispatcher: Any) -> Any:
    """Make numba type compiled calls to ``dispatcher`` with widened arguments (module doc)."""
    resolve = dispatcher.get_call_template

    def get_call_template(args, kws):
        return resolve(tuple(_widen(a) for a in args), {k: _widen(v) for k, v in kws.items()})

    dispatcher.get_call_template = get_call_template
    return dispatcher


def kernel(fn: Callable | None = None, **options: Any) -> Any:
    """``numba.njit(cache=True, **options)`` whose compiled callers share one version per kind
    of argument (module docstring). ``@kernel`` or ``@kernel(parallel=True)``."""
    if fn is None:
        return lambda f: _typed_by_kind(njit(cache=True, **options)(f))
    return _typed_by_kind(njit(cache=True, **options)(fn))
