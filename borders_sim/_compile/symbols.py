"""The names of the standalone kernels' compiled versions (:mod:`borders_sim._compile.jit`):
how a version is named for LLVM, which names this process has registered, and which names a
piece of machine code calls that are not registered yet (the shipped cache,
:mod:`borders_sim._compile.shipped`, loads no machine code that calls such a name)."""

from __future__ import annotations

import hashlib
import re
from typing import Callable

#: The symbol names registered with LLVM in this process (by ``_register`` of
#: :mod:`borders_sim._compile.jit`).
registered: set[str] = set()


#: What a symbol name of :func:`symbol_name` (of a kernel of the package) looks like inside
#: machine code.
_NAME = re.compile(rb"borders_sim\.[A-Za-z0-9_.]+\.[0-9a-f]{16}")


def unresolved_names(object_code: bytes) -> set[str]:
    """The standalone kernels' names that ``object_code`` (a compiled library) refers to and
    that are not registered in this process."""
    return {m.decode() for m in _NAME.findall(object_code)} - registered


def symbol_name(py_func: Callable, args: tuple) -> str:
    """The name under which the version of a standalone kernel for the argument types ``args``
    is registered with LLVM and called by compiled callers: stable across processes (the same
    function and types give the same name), different for every version."""
    digest = hashlib.sha256(str(args).encode()).hexdigest()[:16]
    return f"{py_func.__module__}.{py_func.__qualname__}.{digest}"
