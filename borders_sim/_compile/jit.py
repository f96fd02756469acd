"""``kernel``: the project's ``njit``: cached, compiled once per kind of argument rather than once
per constant, and, for the large kernels many others reach, compiled once for all of them.

**One version per kind of argument.** numba compiles a jitted function again for every tuple of
argument types its compiled callers pass, and to numba a constant argument is a type of its own
(``forget(know, n, o, 15, -2)`` passes ``Literal[int](15)`` and ``Literal[int](-2)``), as is an
``int32`` record field where another caller passes an ``int64`` loop index. Each such version is
typed, lowered and optimised anew, so a helper like ``piles.forget``, called with a dozen
different constants, would be compiled a dozen times. A :func:`kernel` is typed at every compiled
call site as if its signed integer arguments were ``int64`` and its constant bools plain ``bool``
(the caller converts them; LLVM still inlines the callee and folds the constants), so one version
serves them all (``tests/test_jit.py`` counts the versions).

**Standalone kernels.** numba links a copy of a callee's LLVM code into every compiled caller
(so LLVM can inline it) and optimises and compiles that copy to machine code again there: code
reached through five layers of kernels goes through LLVM five times, and every whole-game kernel
(random play, the bots, the environments, the search) compiled the whole engine again. A
``@kernel(standalone=True)`` is compiled once; compiled callers call its machine code at its
address, through numba's own calling convention (so its exceptions, ``NUMBA_BOUNDSCHECK``'s
``IndexError`` too, reach the caller as from any kernel), and never receive a copy. The price is
a call that LLVM cannot inline, so it suits large kernels entered once per decision (the engine's
phase dispatch, the collection search, scoring, observation, the bots' policies), not small
helpers in inner loops.

How the call finds the code: when a standalone kernel gets a compiled version (compiled now, or
loaded from numba's cache), its address is registered with LLVM under a name of ours
(:func:`symbol_name`: the function and its argument types), and compiled callers call that name
instead of numba's linked copy. A caller loaded from numba's cache in a later process holds the
name only, so it carries a :class:`LoadCallee` hook, which numba's cache runs before it loads
the caller's machine code (numba's ``reload_init``, the mechanism its parallel kernels use): the
hook compiles or loads the callee first, so the name is registered before anything refers to it.

**Cached, shipped, compiled once across processes.** Every kernel is cached by
:class:`~borders_sim._compile.shipped.KernelCache`: numba's on-disk cache, then the kernels shipped
inside an installed package. A kernel is compiled under a lock file beside numba's index
(:meth:`~borders_sim._compile.shipped.KernelCache.compile_lock`), so processes that start with an
empty cache together (the parallel warm-up, a tournament's workers) do not compile the same kernel
twice: the second waits for the first and loads its result.

Use ``@kernel``, ``@kernel(nogil=True)`` or ``@kernel(standalone=True)`` where numba's
``@njit(cache=True)`` would go; ``inline="always"`` helpers stay plain ``@njit`` (numba inlines
them before typing the call). Calls from Python are typed by numba as usual (a Python int is an
``int64`` anyway). Kernels are compiled without numba's C-callable wrapper (``no_cfunc_wrapper``:
only a function passed as a first-class function value needs it, and every kernel would pay for
lowering and optimising one).
"""

from __future__ import annotations

import importlib
from typing import Any, Callable, NamedTuple

import llvmlite.binding as llvm
from numba import njit
from numba.core import cgutils, sigutils, types
from numba.core.base import OverloadSelector
from numba.core.compiler_lock import global_compiler_lock
from numba.core.imputils import fix_returning_optional, impl_ret_new_ref

from .shipped import KernelCache
from .symbols import registered, symbol_name


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


# --- standalone kernels --------------------------------------------------------------------------
class LoadCallee(NamedTuple):
    """A caller's hook that numba's cache runs before loading the caller's machine code
    (module docstring): compile or load the standalone kernel ``module.qualname`` for the
    argument types ``args``, which registers the name the caller calls. Picklable by reference
    (numba stores it in the caller's cache entry)."""

    module: str
    qualname: str
    args: tuple

    def __call__(self) -> None:
        callee: Any = importlib.import_module(self.module)
        for part in self.qualname.split("."):
            callee = getattr(callee, part)
        callee.compile(self.args)
        name = symbol_name(callee.py_func, self.args)
        if name not in registered:  # a bug here would otherwise be LLVM aborting the process
            raise RuntimeError(f"standalone kernel {self.qualname}{self.args} did not register "
                               f"{name}")


def _call_by_name(fndesc: Any, name: str, hook: LoadCallee) -> Callable:
    """numba's lowering of a call to a compiled function (``numba.core.imputils.user_function``)
    with the callee declared as ``name`` and not linked into the caller; the caller's library
    keeps ``hook`` for its cache entry."""
    def call(context, builder, sig, args):
        fnty = context.call_conv.get_function_type(fndesc.restype, fndesc.argtypes)
        fn = cgutils.get_or_insert_function(builder.module, fnty, name)
        context.call_conv.decorate_function(fn, fndesc.args, fndesc.argtypes,
                                            noalias=fndesc.noalias)
        status, retval = context.call_conv.call_function(builder, fn, fndesc.restype,
                                                         fndesc.argtypes, args)
        with cgutils.if_unlikely(builder, status.is_error):
            context.call_conv.return_status_propagate(builder, status)
        retval = fix_returning_optional(context, builder, sig, status, retval)
        context.active_code_library._reload_init.add(hook)
        return impl_ret_new_ref(context, builder, fndesc.restype, retval)

    call.signature = fndesc.argtypes
    call.libs = ()  # what numba would link into the caller: nothing
    return call


def _standalone(dispatcher: Any) -> Any:
    """Make compiled callers call ``dispatcher``'s versions by name (module docstring): each new
    version (compiled or loaded from the cache) is registered with LLVM, and numba's lowering
    of calls to it, which the dispatcher has just installed, is replaced by
    :func:`_call_by_name`."""
    add_overload = dispatcher.add_overload
    target = dispatcher.targetctx
    py_func = dispatcher.py_func

    def add_and_register(cres: Any) -> None:
        add_overload(cres)
        args = tuple(cres.signature.args)
        name = symbol_name(py_func, args)
        address = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
        if not address:
            raise RuntimeError(f"no machine code for {py_func.__qualname__}{args}")
        llvm.add_symbol(name, address)
        registered.add(name)
        lowering = _call_by_name(cres.fndesc, name,
                                 LoadCallee(py_func.__module__, py_func.__qualname__, args))
        selector = OverloadSelector()
        selector.append(lowering, lowering.signature)
        target._defns[cres.entry_point] = selector

    dispatcher.add_overload = add_and_register
    return dispatcher


def _compiled_under_lock(dispatcher: Any) -> Any:
    """Compile (or load) each new version of ``dispatcher`` under its cache's lock file (module
    docstring). The lock is taken inside numba's compiler lock, so threads of one process,
    which numba serialises anyway, never wait on each other's file locks."""
    compile_now = dispatcher.compile

    def compile_locked(sig: Any) -> Any:
        with global_compiler_lock:
            args, _ = sigutils.normalize_signature(sig)
            if tuple(args) in dispatcher.overloads:
                return compile_now(sig)
            with dispatcher._cache.compile_lock():
                return compile_now(sig)

    dispatcher.compile = compile_locked
    return dispatcher


def kernel(fn: Callable | None = None, *, standalone: bool = False, **options: Any) -> Any:
    """``numba.njit(cache=True, **options)`` with the project's cache, whose compiled callers
    share one version per kind of argument; with ``standalone``, compiled once and called by
    address (module docstring). ``@kernel``, ``@kernel(nogil=True)``,
    ``@kernel(standalone=True)``."""
    options.setdefault("no_cfunc_wrapper", True)

    def make(f: Callable) -> Any:
        dispatcher = njit(**options)(f)
        dispatcher._cache = KernelCache(dispatcher.py_func)  # numba's enable_caching, ours
        _compiled_under_lock(_typed_by_kind(dispatcher))
        return _standalone(dispatcher) if standalone else dispatcher

    return make if fn is None else make(fn)
