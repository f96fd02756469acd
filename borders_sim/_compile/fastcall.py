"""Compiled kernels called from Python at the lowest cost per call (the hot Python paths).

Calling an ``@njit`` function from Python makes numba type every argument and look up the
matching compiled version on every call; for a kernel that runs in a microsecond that dispatch
is a third of the cost. :func:`direct_entry` does the typing once, for example arguments, and
returns the compiled entry point itself. The caller must then pass arguments of exactly those
types (the same arrays, or arrays of the same dtype, dimensions and layout, and ints): a caller
binds once per array it owns and binds again when the array is replaced.

That entry point still unboxes every argument (an array costs tens of nanoseconds: numba reads
its shape, strides, dtype and flags) and packs the arguments into a tuple first. A
:func:`fastcall` function goes below it: a Python builtin (``METH_FASTCALL``, the calling
convention of CPython's own builtins) whose C body is a numba ``cfunc``. It takes Python ints,
reads them with ``PyLong_AsLongLong`` and calls the kernels it holds directly. A trivial one
costs ~30 ns a call where the entry point of a kernel taking a record array, a uint8 array and
two ints costs ~160 ns. Its arrays are passed as addresses, so it is unchecked: a wrong address
is a wrong write. Only the class that owns the arrays calls it (:class:`~borders_sim.Game`, with
addresses of arrays it holds and has checked).

The builtins in use are :class:`~borders_sim.Game`'s, in :mod:`borders_sim.game.fastpath`.
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any, Callable

import numba
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.ccallback import CFunc
from numba.core.compiler_lock import global_compiler_lock
from numba.extending import intrinsic

from .shipped import KernelCache

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


# --- builtins with a compiled body ------------------------------------------------------------
#: The C signature of a ``METH_FASTCALL`` builtin:
#: ``PyObject *f(PyObject *self, PyObject *const *args, Py_ssize_t nargs)``.
FASTCALL_SIGNATURE = types.voidptr(types.voidptr, types.CPointer(types.voidptr), types.intp)
_METH_FASTCALL = 0x0080


class _MethodDef(ctypes.Structure):
    """CPython's ``PyMethodDef``."""
    _fields_ = [("ml_name", ctypes.c_char_p), ("ml_meth", ctypes.c_void_p),
                ("ml_flags", ctypes.c_int), ("ml_doc", ctypes.c_char_p)]


_new_builtin = ctypes.pythonapi.PyCFunction_NewEx
_new_builtin.restype = ctypes.py_object
_new_builtin.argtypes = [ctypes.POINTER(_MethodDef), ctypes.py_object, ctypes.py_object]


@intrinsic
def int_arg(typingctx, args, k):
    """``PyLong_AsLongLong(args[k])``: -1 with a Python error set if it is not an int that fits
    (check :func:`error_set`)."""
    def codegen(context, builder, sig, llargs):
        obj = builder.load(builder.gep(llargs[0], [llargs[1]]))
        return context.get_python_api(builder).long_as_longlong(obj)
    return types.int64(args, k), codegen


@intrinsic
def error_set(typingctx):
    """Whether a Python error is set (``PyErr_Occurred() != NULL``)."""
    def codegen(context, builder, sig, llargs):
        return cgutils.is_not_null(builder, context.get_python_api(builder).err_occurred())
    return types.boolean(), codegen


@intrinsic
def clear_error(typingctx):
    """``PyErr_Clear()``."""
    def codegen(context, builder, sig, llargs):
        context.get_python_api(builder).err_clear()
        return context.get_dummy_value()
    return types.none(), codegen


@intrinsic
def arity_error(typingctx, nargs):
    """Set a ``TypeError`` for a wrong number of arguments; returns NULL, the builtin's answer."""
    def codegen(context, builder, sig, llargs):
        context.get_python_api(builder).err_set_string(
            "PyExc_TypeError", "wrong number of arguments for a borders_sim fastcall builtin")
        return cgutils.voidptr_t(None)
    return types.voidptr(nargs), codegen


@intrinsic
def null(typingctx):
    """NULL, a builtin's answer when a Python error is set."""
    def codegen(context, builder, sig, llargs):
        return cgutils.voidptr_t(None)
    return types.voidptr(), codegen


@intrinsic
def new_int(typingctx, value):
    """``PyLong_FromLongLong(value)``: a new reference, a builtin's answer."""
    def codegen(context, builder, sig, llargs):
        v = context.cast(builder, llargs[0], sig.args[0], types.int64)
        return context.get_python_api(builder).long_from_longlong(v)
    return types.voidptr(value), codegen


@intrinsic
def at_address(typingctx, address):
    """The pointer with address ``address`` (an int64)."""
    def codegen(context, builder, sig, llargs):
        return builder.inttoptr(llargs[0], cgutils.voidptr_t)
    return types.voidptr(types.int64), codegen


@intrinsic
def new_list(typingctx, size):
    """``PyList_New(size)``: a new list of ``size`` empty slots, or NULL with an error set."""
    def codegen(context, builder, sig, llargs):
        n = context.cast(builder, llargs[0], sig.args[0], types.intp)
        return context.get_python_api(builder).list_new(n)
    return types.voidptr(size), codegen


@intrinsic
def list_put(typingctx, lst, k, items, i):
    """Fill slot ``k`` of the new list ``lst`` with item ``i`` of the tuple ``items`` (a new
    reference to it); False (with an error set) if ``items`` has no item ``i``."""
    def codegen(context, builder, sig, llargs):
        pyapi = context.get_python_api(builder)
        # (pyapi.tuple_getitem takes a constant index)
        getitem = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(pyapi.pyobj, [pyapi.pyobj, pyapi.py_ssize_t]),
            "PyTuple_GetItem")
        i = context.cast(builder, llargs[3], sig.args[3], types.intp)
        item = builder.call(getitem, [llargs[2], i])  # a borrowed reference, or NULL
        found = cgutils.is_not_null(builder, item)
        with builder.if_then(found, likely=True):
            pyapi.incref(item)
            pyapi.list_setitem(llargs[0], context.cast(builder, llargs[1], sig.args[1],
                                                       types.intp), item)
        return found
    return types.boolean(lst, k, items, i), codegen


@intrinsic
def tuple_length(typingctx, obj):
    """``PyTuple_Size(obj)``: -1 with an error set if ``obj`` is not a tuple."""
    def codegen(context, builder, sig, llargs):
        return context.get_python_api(builder).tuple_size(llargs[0])
    return types.intp(obj), codegen


@intrinsic
def is_null(typingctx, ptr):
    """Whether the pointer ``ptr`` is NULL."""
    def codegen(context, builder, sig, llargs):
        return cgutils.is_null(builder, llargs[0])
    return types.boolean(ptr), codegen


@intrinsic
def release(typingctx, obj):
    """``Py_DECREF(obj)``; returns NULL, a builtin's answer when a Python error is set."""
    def codegen(context, builder, sig, llargs):
        context.get_python_api(builder).decref(llargs[0])
        return cgutils.voidptr_t(None)
    return types.voidptr(obj), codegen


class _CFunc(CFunc):
    """numba's ``cfunc`` with the kernels' cache (:class:`~borders_sim._compile.shipped.KernelCache`),
    keeping the load hooks of the standalone kernels it calls
    (:class:`~borders_sim._compile.jit.LoadCallee`) in its cache entry: numba compiles a cfunc
    in two steps and leaves the hooks that its lowering added to the library out of the
    compile result it caches, so a later process would load the cfunc before the kernels it
    calls by name."""

    def enable_caching(self) -> None:
        self._cache = KernelCache(self._pyfunc)

    def _compile_uncached(self) -> Any:
        cres = super()._compile_uncached()
        for hook in cres.library._reload_init:
            if hook not in cres.reload_init:
                cres.reload_init.append(hook)
        return cres


#: Held while a builtin is built: one thread builds it, the others wait and share it.
_BUILDING = threading.Lock()


class fastcall:
    """Decorator: ``pyfunc(self, args, nargs)``, written with the intrinsics above, becomes a
    Python builtin (:data:`FASTCALL_SIGNATURE`) the first time :meth:`builtin` is asked for it,
    compiled as a cached numba ``cfunc`` (or loaded from numba's cache)."""

    def __init__(self, pyfunc: Callable) -> None:
        self.pyfunc = pyfunc
        self._builtin: Callable | None = None

    def builtin(self) -> Callable:
        """The builtin function (compiled on the first call; threads asking at once wait for
        the one that builds it)."""
        if self._builtin is not None:
            return self._builtin
        with _BUILDING:
            if self._builtin is not None:
                return self._builtin
            self._cfunc = _CFunc(self.pyfunc, (FASTCALL_SIGNATURE.args,
                                               FASTCALL_SIGNATURE.return_type), {}, {})
            self._cfunc.enable_caching()
            with global_compiler_lock, self._cfunc._cache.compile_lock():
                self._cfunc.compile()
            self._name = self.pyfunc.__name__.encode()
            self._doc = (self.pyfunc.__doc__ or "").encode()
            # the definition must live as long as the builtin: both are kept on self
            self._def = _MethodDef(self._name, self._cfunc.address, _METH_FASTCALL, self._doc)
            self._builtin = _new_builtin(ctypes.byref(self._def), None, None)
        return self._builtin
