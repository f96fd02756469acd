"""A user's code named ``MODULE:NAME``: a bot, a bot factory or a training algorithm.

``MODULE`` is a dotted module path as ``import`` takes it (the current directory is on the path
of a command run from the shell), ``NAME`` a callable in it. :func:`import_named` imports it and
says in one line what is wrong: a module that is not there, a name it lacks, a name that is not
callable. :func:`on_path_from_here` puts the current directory on the import path, as the
commands do before they read a ``MODULE:NAME``.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from collections.abc import Callable

#: ``MODULE:NAME``: a dotted module path and a name in it.
NAMED = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*")


def import_named(text: str, what: str, callable_as: str) -> Callable:
    """The callable ``text`` (``MODULE:NAME``) names.

    Args:
        text: ``MODULE:NAME``.
        what: what it is, for the messages (``"bot"``, ``"algorithm"``).
        callable_as: what NAME must be, for the message when it is not callable (``"a bot class
            or a factory (seed) -> bot"``).

    Raises:
        ValueError: ``text`` is not ``MODULE:NAME``, the module cannot be imported from here,
            it has no NAME, or NAME is not callable (one line naming it).
    """
    if not isinstance(text, str) or not NAMED.fullmatch(text):
        raise ValueError(f"{what} {text!r} is not MODULE:NAME (an importable module and a "
                         f"name in it, e.g. my_module:Name)")
    module_name, _, attr = text.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name is None or not module_name.startswith(err.name):
            raise  # the module was found; something it imports was not
        raise ValueError(f"{what} {text!r}: no module named {err.name!r} can be imported from "
                         f"here (MODULE:NAME, MODULE as in 'import {module_name}')") from None
    found = getattr(module, attr, None)
    if found is None:
        raise ValueError(f"{what} {text!r}: module {module_name} has no {attr!r}")
    if not callable(found):
        raise ValueError(f"{what} {text!r}: {attr} is a {type(found).__name__}, not "
                         f"{callable_as}")
    return found


def on_path_from_here() -> None:
    """Put the current directory first on ``sys.path`` (once), so that a ``MODULE:NAME`` of a
    file beside the user imports, as ``python -m`` would find it."""
    here = os.getcwd()
    if here not in sys.path:
        sys.path.insert(0, here)
