"""Checks of the arguments users hand in: one rule per kind of argument, for every entry point.

Every public function, class and command of borders_sim that takes an int, a seed, a seat or a
flag checks it here, so the same value is accepted or refused the same way everywhere
(:class:`~borders_sim.Game`, the environments, ``agents.make``, tournaments, the command line).

**Ints.** A Python ``int`` or a numpy integer; ``bool`` is refused (``True`` is not a count),
and so are floats (``2.0`` included), strings and everything else.

**Seeds.** An int (as above) from 0 to ``2**64 - 1``. Negative values and values of ``2**64``
and above are refused, never reduced modulo ``2**64``: two different seeds always mean two
different streams. Where a seed stands for a run of games (a tournament deals game ``g`` from
``seed + g``), the last game's seed must be a seed too.

**Errors.** A value of the wrong type raises :class:`ArgumentTypeError`, one of the right type
but out of range :class:`ValueError`; both messages name the argument and what it takes.
:class:`ArgumentTypeError` is a ``TypeError`` and a ``ValueError`` at once, so ``except
ValueError`` catches every bad argument.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: The largest seed, ``2**64 - 1`` (the seeds of the kernels are unsigned 64-bit words).
SEED_MAX = 2**64 - 1


class ArgumentTypeError(TypeError, ValueError):
    """An argument of the wrong type (also a ``ValueError``, see the module docstring)."""


def is_int(value: Any) -> bool:
    """Whether ``value`` is an int by this module's rule (a Python or numpy integer, no bool)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _range(lo: int | None, hi: int | None) -> str:
    if lo is not None and hi is not None:
        return f"an int from {lo} to {hi}"
    if lo is not None:
        return f"an int of at least {lo}"
    if hi is not None:
        return f"an int of at most {hi}"
    return "an int"


def as_int(value: Any, name: str, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` as a Python int, checked to be an int within ``[lo, hi]`` (either bound may be
    None: no bound)."""
    if not is_int(value):
        raise ArgumentTypeError(f"{name} must be {_range(lo, hi)}, got {value!r} "
                                f"({type(value).__name__})")
    v = int(value)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise ValueError(f"{name} must be {_range(lo, hi)}, got {v}")
    return v


def as_seed(value: Any, name: str = "seed", span: int = 1) -> int:
    """``value`` as a seed (module docstring); with ``span`` > 1 it is the first of ``span``
    consecutive seeds, so ``value + span - 1`` must be a seed too."""
    seed = as_int(value, name, 0, SEED_MAX)
    if seed + span - 1 > SEED_MAX:
        raise ValueError(f"{name} {seed} starts {span} consecutive seeds, but the last one, "
                         f"{name} + {span - 1}, must be at most 2**64 - 1 = {SEED_MAX}")
    return seed


def as_seat(value: Any, num_players: int, name: str = "seat") -> int:
    """``value`` as a seat of a game of ``num_players``: an int from 0 to ``num_players - 1``."""
    return as_int(value, name, 0, num_players - 1)


def as_bool(value: Any, name: str) -> bool:
    """``value`` as a bool: ``True``/``False`` or a numpy bool (not 0/1, not strings)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ArgumentTypeError(f"{name} must be True or False, got {value!r} "
                                f"({type(value).__name__})")
    return bool(value)


def as_choice(value: Any, name: str, choices: tuple) -> Any:
    """``value`` if it is one of ``choices``; otherwise a ValueError listing them."""
    if not isinstance(value, str) or value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, "
                         f"got {value!r}")
    return value
