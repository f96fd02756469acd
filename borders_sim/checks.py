"""Checks of the arguments users hand in: one rule per kind of argument, for every entry point.

Every public function, class and command of borders_sim that takes an int, a seed, a seat, a
flag or a choice checks it here, so the same value is accepted or refused the same way
everywhere (:class:`~borders_sim.Game`, :class:`~borders_sim.GameConfig`, the environments,
``agents.make``, tournaments, the command line).

**Ints.** A Python ``int`` or a numpy integer of any width; ``bool`` and ``numpy.bool_`` are
refused (``True`` is not a count), and so are floats (``2.0`` included), strings and everything
else.

**Seeds.** An int (as above) from 0 to ``2**64 - 1``, the range of the kernels' unsigned 64-bit
seeds. Negative values and values of ``2**64`` and above are refused, never reduced modulo
``2**64``: two different seeds always mean two different streams. Where a seed ``S`` stands for
a run of ``G`` games (a tournament or ``borders-sim simulate`` deals game ``g`` from seed
``S + g``), the last game's seed ``S + G - 1`` must be at most ``2**64 - 1`` too.

**Seats, flags, choices, numbers.** A seat of an ``n``-player game is an int from 0 to
``n - 1``; a flag is ``True`` or ``False`` (or a numpy bool), never ``0``/``1`` or a string; a
choice is one of the listed strings; a number (a search's time limit, a margin) is an int or a
float, not a bool, not NaN (and, where it must be finite, not infinite). Seed arrays for the
whole-game kernels are int arrays (or sequences of seeds) checked by the seed rule and passed as
uint64.

**Lists, strings, addresses, action batches.** A list argument (a pool of opponents, weights) is
a list, a tuple, a one-dimensional array or another sequence, never a string (whose characters
would pass for its items) nor a set (which has no order); a string is a ``str``; a network
address is ``host:port``. A vector env's actions are an int array (or a sequence of ints) of one
action per game, checked as they are: never cast, so ``11.9``, ``"13"`` or ``True`` are refused,
not played as 11, 13 or 1.

**Errors.** A value of the wrong type raises :class:`ArgumentTypeError`, one of the right type
but out of range :class:`ValueError`; both messages name the argument, what it takes and what
it got. :class:`ArgumentTypeError` is a ``TypeError`` and a ``ValueError`` at once, so
``except ValueError`` catches every bad argument.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

#: The largest seed, ``2**64 - 1`` (the seeds of the kernels are unsigned 64-bit words).
SEED_MAX = 2**64 - 1
#: How the error messages spell the seed range.
SEED_RANGE = "an int from 0 to 2**64 - 1"
_SHOWN_MAX = 80  # characters of a value's repr shown in a message
_DIGITS_MAX = 40  # an int of more digits is shown by its size
_HOST_MAX = 253  # characters of a DNS name
_PORT_MAX = 65535


class ArgumentTypeError(TypeError, ValueError):
    """An argument of the wrong type (also a ``ValueError``, see the module docstring)."""


def is_int(value: Any) -> bool:
    """Whether ``value`` is an int by this module's rule (a Python or numpy integer, no bool)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def shown(value: Any) -> str:
    """``value`` as an error message shows it: its repr, cut to a readable length; an int of
    more than 40 digits by its size (such an int may be too long to convert to a string)."""
    if is_int(value):
        v = int(value)
        if v.bit_length() > _DIGITS_MAX * math.log2(10):
            return f"{'-' if v < 0 else ''}an int of {v.bit_length()} bits"
        return str(v)
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a broken __repr__ must not hide the real error
        text = f"<{type(value).__name__} object>"
    return text if len(text) <= _SHOWN_MAX else text[:_SHOWN_MAX - 3] + "..."


def _wrong_type(name: str, what: str, value: Any) -> ArgumentTypeError:
    return ArgumentTypeError(f"{name} must be {what}, got {shown(value)} "
                             f"({type(value).__name__})")


def _range(lo: int | None, hi: int | None) -> str:
    if lo is not None and hi is not None:
        return f"an int from {lo} to {hi}"
    if lo is not None:
        return f"an int of at least {lo}"
    if hi is not None:
        return f"an int of at most {hi}"
    return "an int"


def as_int(value: Any, name: str, lo: int | None = None, hi: int | None = None,
           what: str | None = None) -> int:
    """``value`` as a Python int, checked to be an int within ``[lo, hi]`` (either bound may be
    None: no bound). ``what`` replaces the description of the range in the messages (e.g.
    ``"a seat, an int from 0 to 3"``)."""
    what = what or _range(lo, hi)
    if not is_int(value):
        raise _wrong_type(name, what, value)
    v = int(value)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise ValueError(f"{name} must be {what}, got {shown(v)}")
    return v


def as_seed(value: Any, name: str = "seed", span: int = 1) -> int:
    """``value`` as a seed (module docstring). With ``span`` > 1 it is the first seed of a run
    of ``span`` games, so ``value + span - 1`` must be a seed too."""
    seed = as_int(value, name, 0, SEED_MAX, f"a seed, {SEED_RANGE}")
    if seed + span - 1 > SEED_MAX:
        raise ValueError(f"{name} {seed} with {span} games: the last game's seed, {name} + "
                         f"{span - 1}, must be at most 2**64 - 1 = {SEED_MAX}")
    return seed


def as_seat(value: Any, num_players: int, name: str = "seat") -> int:
    """``value`` as a seat of a game of ``num_players``: an int from 0 to ``num_players - 1``."""
    return as_int(value, name, 0, num_players - 1,
                  f"a seat, an int from 0 to {num_players - 1}")


def as_bool(value: Any, name: str) -> bool:
    """``value`` as a bool: ``True``/``False`` or a numpy bool (not 0/1, not strings)."""
    if not isinstance(value, (bool, np.bool_)):
        raise _wrong_type(name, "True or False (a bool)", value)
    return bool(value)


def as_str(value: Any, name: str, what: str = "a string") -> str:
    """``value`` as a plain ``str`` (a ``str`` subclass becomes one); ``what`` describes it in
    the message."""
    if not isinstance(value, str):
        raise _wrong_type(name, what, value)
    return str(value)


def as_mapping(value: Any, name: str, what: str = "a dict") -> Mapping:
    """``value``, checked to be a mapping (a ``dict``, an ``np.load`` archive, ...)."""
    if not isinstance(value, Mapping):
        raise _wrong_type(name, what, value)
    return value


def as_sequence(value: Any, name: str, what: str = "a list") -> list:
    """``value``'s items as a list: ``value`` is a list, a tuple, a one-dimensional numpy array or
    another sequence; a string or bytes (whose characters would pass for items), a set (no
    order), a dict and anything else are refused. ``what`` describes the list in the message
    (e.g. ``"a list of pool members, e.g. ['honest']"``)."""
    if isinstance(value, np.ndarray):
        if value.ndim != 1:
            raise ValueError(f"{name} must be {what}, got an array of shape {value.shape}")
        return list(value)
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise _wrong_type(name, what, value)
    return list(value)


def as_host_port(value: Any, name: str) -> tuple[str, int]:
    """``value``, a ``"host:port"`` string, as ``(host, port)``: the host a name or an IP
    address (an IPv6 address in brackets, returned without them) of at most 253 characters,
    each dot-separated label 1 to 63 characters; the port an int from 1 to 65535."""
    what = (f"host:port (a host name or IP address of at most {_HOST_MAX} characters, a port "
            f"from 1 to {_PORT_MAX})")
    host, sep, port = as_str(value, name, what).rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not (sep and _is_host(host) and port.isascii() and port.isdigit() and len(port) <= 5
            and 1 <= int(port) <= _PORT_MAX):
        raise ValueError(f"{name} must be {what}, got {shown(value)}")
    return host, int(port)


def _is_host(host: str) -> bool:
    """Whether ``host`` can be looked up: 1 to 253 characters, labels of 1 to 63 (what the
    ``idna`` codec of a name lookup accepts)."""
    if not 0 < len(host) <= _HOST_MAX:
        return False
    try:
        host.encode("idna")
    except UnicodeError:
        return False
    return True


def as_choice(value: Any, name: str, choices: Sequence[str]) -> str:
    """``value`` as one of the strings ``choices`` (a ``str`` subclass becomes a plain str)."""
    what = f"one of {tuple(choices)!r}"
    if not isinstance(value, str):
        raise _wrong_type(name, what, value)
    if value not in choices:
        raise ValueError(f"{name} must be {what}, got {shown(value)}")
    return str(value)


def as_float(value: Any, name: str, lo: float | None = None, hi: float | None = None,
             above: float | None = None, finite: bool = False) -> float:
    """``value`` as a Python float: an int or a float (Python or numpy, no bool), not NaN,
    within ``[lo, hi]``, with ``above`` greater than it, and with ``finite`` not infinite."""
    parts = [f"at least {lo}" if lo is not None else "", f"at most {hi}" if hi is not None
             else "", f"greater than {above}" if above is not None else ""]
    what = " and ".join(p for p in parts if p)
    number = "a finite number" if finite else "a number"
    what = f"{number} {what}" if what else number
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)):
        raise _wrong_type(name, what, value)
    try:
        v = float(value)
    except OverflowError:  # an int too large for a float is above any bound given here
        v = math.inf if value > 0 else -math.inf
    if math.isnan(v) or (finite and math.isinf(v)) or (lo is not None and v < lo) or (
            hi is not None and v > hi) or (above is not None and v <= above):
        raise ValueError(f"{name} must be {what}, got {shown(value)}")
    return v


def as_seed_array(values: Any, name: str = "seeds") -> np.ndarray:
    """``values`` (an int array or a sequence of ints) as a uint64 array of seeds, checked by
    the seed rule: an array of another kind, or negative values, are refused (never wrapped)."""
    if isinstance(values, np.ndarray):
        if values.dtype.kind not in "iu":
            raise ArgumentTypeError(f"{name} must be an array of ints, got an array of "
                                    f"{values.dtype}")
        if values.dtype.kind == "i" and values.size and values.min() < 0:
            raise ValueError(f"{name} must be seeds, {SEED_RANGE}, got "
                             f"{int(values.min())}")
        return np.ascontiguousarray(values, dtype=np.uint64)
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise _wrong_type(name, "an array or a sequence of seeds", values)
    return np.array([as_seed(v, f"{name}[{i}]") for i, v in enumerate(values)],
                    dtype=np.uint64)


def as_action_batch(actions: Any, num_envs: int, illegal: Callable[[int, int], str]
                    ) -> np.ndarray:
    """A vector env's ``actions``, one per game, as int64: an int array of shape
    ``(num_envs,)`` (of any width) or a list or tuple of ``num_envs`` ints, checked as given,
    never cast. ``ValueError`` for another shape; :class:`ArgumentTypeError` naming the first
    entry that is not an int (a float, integral or not, a string, a bool); and
    ``ValueError(illegal(k, a))`` for the first entry ``a`` (in game ``k``) beyond int64, an
    id no game has, which int64 would wrap. Whether each id is legal is the env's check, after
    this one."""
    what = f"an int array of shape ({num_envs},)"
    if isinstance(actions, np.ndarray):
        a = actions
    else:  # a list's items are kept as they are (numpy would turn [True, 1] into ints)
        a = np.asarray(actions, dtype=object if isinstance(actions, (list, tuple)) else None)
    if a.shape != (num_envs,):
        raise ValueError(f"actions must be {what}, got a {a.dtype} array of shape {a.shape}")
    if a.dtype.kind == "O":
        container = "object array" if a is actions else type(actions).__name__
        return _object_actions(a, container, what, illegal)
    if a.dtype.kind not in "iu":
        k = _first_not_whole(a)
        raise ArgumentTypeError(f"actions must be {what}, got a {a.dtype} array: "
                                f"actions[{k}] is {shown(a[k].item())}")
    if a.dtype.kind == "u" and a.max() > np.iinfo(np.int64).max:
        k = int(a.argmax())
        raise ValueError(illegal(k, int(a[k])))
    return a.astype(np.int64, copy=False)


def _object_actions(a: np.ndarray, container: str, what: str,
                    illegal: Callable[[int, int], str]) -> np.ndarray:
    """:func:`as_action_batch` of an array of Python objects (the items of a ``container``,
    a list or a tuple, or an object array)."""
    info = np.iinfo(np.int64)
    for k, v in enumerate(a):
        if not is_int(v):
            raise ArgumentTypeError(f"actions must be {what}, got a {container}: "
                                    f"actions[{k}] is {shown(v)}, a {type(v).__name__}")
        if not info.min <= v <= info.max:
            if int(v).bit_length() > 64:
                raise ValueError(f"actions[{k}] is {shown(v)}, beyond every action id")
            raise ValueError(illegal(k, int(v)))
    return a.astype(np.int64)


def _first_not_whole(a: np.ndarray) -> int:
    """The index of a non-int array's first entry that is not a whole number (the first entry
    when every one is, or the array is not of floats): the one an error shows."""
    if a.dtype.kind == "f":
        bad = np.flatnonzero(~np.isfinite(a) | (a != np.trunc(a)))
        if bad.size:
            return int(bad[0])
    return 0
