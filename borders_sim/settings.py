"""Settings declared once: a dataclass field carries its help, bounds and command-line flag.

A field made by :func:`setting` holds a :class:`Setting` in its metadata. From it
:func:`check_settings` checks an instance (the rules of :mod:`borders_sim.checks`) and
:mod:`borders_sim.cli.flags` builds the command line's options, so a bound, a help text or a
flag's name is written in one place, the field (CleanRL's dataclass-as-arguments, without a
parsing dependency). The type of a field is its annotation: ``int``, ``float``, ``bool``,
``str``, any of them ``| None``, ``tuple[int, int]`` (a flag of two values), or another type
the field's own ``parse`` and ``check`` handle (a list given as text, ``KEY=VALUE`` pairs).

>>> from dataclasses import dataclass
>>> @dataclass
... class Run:
...     steps: int = setting(64, help="decisions per update", lo=1, hi=4096)
>>> check_settings(Run(steps=0))
Traceback (most recent call last):
...
ValueError: steps must be an int from 1 to 4096, got 0
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable, Sequence
from typing import Any

from .checks import as_bool, as_choice, as_float, as_int, as_sequence, as_str

_NONE = dataclasses.MISSING


@dataclasses.dataclass(frozen=True)
class Setting:
    """One setting's declaration (the metadata of its field; see :func:`setting`)."""

    help: str
    lo: float | None = None
    hi: float | Callable[[], float] | None = None
    above: bool = False
    choices: Sequence[str] | Callable[[], Sequence[str]] | None = None
    flag: str | None = None
    invert: bool = False
    metavar: str | tuple[str, ...] | None = None
    what: str | Callable[[], str] | None = None
    default_help: str | Callable[[], str] | None = None
    parse: Callable[[str], Any] | None = None
    check: Callable[[Any, str], Any] | None = None

    def upper(self) -> float | None:
        """The upper bound (a callable bound, such as a machine's thread count, is asked)."""
        return self.hi() if callable(self.hi) else self.hi

    def options(self) -> Sequence[str] | None:
        """The choices (a callable list is asked)."""
        return self.choices() if callable(self.choices) else self.choices

    def words(self) -> str | None:
        """What the value is, in words, for messages (a callable text is asked), or None."""
        return self.what() if callable(self.what) else self.what


def setting(default: Any = _NONE, *, factory: Callable[[], Any] | None = None, help: str,
            lo: float | None = None, hi: float | Callable[[], float] | None = None,
            above: bool = False, choices: Sequence[str] | Callable[[], Sequence[str]] | None
            = None, flag: str | None = None, invert: bool = False,
            metavar: str | tuple[str, ...] | None = None,
            what: str | Callable[[], str] | None = None,
            default_help: str | Callable[[], str] | None = None,
            parse: Callable[[str], Any] | None = None,
            check: Callable[[Any, str], Any] | None = None) -> Any:
    """A dataclass field declaring a setting: its ``default`` (or ``factory``), ``help``, the
    bounds ``lo``..``hi`` (``above``: ``lo`` itself excluded; ``hi`` may be a callable asked
    when checking), ``choices`` for a string, its ``flag`` (default ``--NAME`` with dashes; ``""``:
    none), ``invert`` (a bool flag that sets the opposite of its default, ``--sparse`` for
    ``dense``), the ``metavar``, ``what`` the value is in words (messages), ``default_help`` (the
    help's default where the field's is None and filled in later), ``parse`` (text to value, for
    a field the flag gives as text) and ``check`` (``check(value, name)`` raising ValueError, for
    what the bounds cannot say)."""
    meta = {"setting": Setting(help, lo, hi, above, choices, flag, invert, metavar, what,
                               default_help, parse, check)}
    if factory is not None:
        return dataclasses.field(default_factory=factory, metadata=meta)
    return dataclasses.field(default=default, metadata=meta)


def declared(cls: type) -> list[tuple[dataclasses.Field, Setting, Any]]:
    """The declared settings of the dataclass ``cls``, in order: each field, its
    :class:`Setting` and its type (the annotation, resolved)."""
    hints = typing.get_type_hints(cls)
    return [(f, f.metadata["setting"], hints[f.name]) for f in dataclasses.fields(cls)
            if "setting" in f.metadata]


def default_of(f: dataclasses.Field) -> Any:
    """A field's default value (a fresh one from its factory)."""
    return f.default_factory() if f.default is _NONE else f.default


def flag_of(f: dataclasses.Field) -> str | None:
    """The command-line option of a declared field, or None for one only Python sets."""
    flag = f.metadata["setting"].flag
    if flag == "":
        return None
    return flag or "--" + f.name.replace("_", "-")


def optional(kind: Any) -> tuple[Any, bool]:
    """``(the type, whether None is allowed)`` of an annotation ``X`` or ``X | None``."""
    options = typing.get_args(kind)
    if typing.get_origin(kind) in (typing.Union, types.UnionType) and type(None) in options:
        rest = [k for k in options if k is not type(None)]
        return (rest[0] if len(rest) == 1 else kind), True
    return kind, False


def check_value(value: Any, name: str, s: Setting, kind: Any) -> Any:
    """``value`` of the setting ``name`` checked by its declaration ``s`` and type ``kind``.

    Raises:
        ValueError: the value out of its bounds or of the wrong type (one line naming it).
    """
    kind, nullable = optional(kind)
    if value is None and nullable:
        return None
    if s.check is not None:
        return s.check(value, name)
    if kind is bool:
        return as_bool(value, name)
    if kind is int:
        return as_int(value, name, s.lo, s.upper(), s.words())
    if kind is float:
        return as_float(value, name, None if s.above else s.lo, s.upper(),
                        s.lo if s.above else None, finite=True)
    if kind is str:
        if s.options() is not None:
            return as_choice(value, name, s.options())
        return as_str(value, name, s.words() or "a string")
    if typing.get_origin(kind) is tuple:
        items = typing.get_args(kind)
        what = f"{len(items)} values"
        values = as_sequence(value, name, what)
        if len(values) != len(items):
            raise ValueError(f"{name} must be {what}, got {value!r}")
        return tuple(check_value(v, f"{name}[{k}]", s, items[k])
                     for k, v in enumerate(values))
    raise TypeError(f"setting {name} of type {kind} needs its own check")


def check_settings(obj: Any) -> None:
    """Check every declared setting of the dataclass instance ``obj`` (:func:`check_value`),
    in the fields' order.

    Raises:
        ValueError: the first setting out of its bounds or of the wrong type, named.
    """
    for f, s, kind in declared(type(obj)):
        check_value(getattr(obj, f.name), f.name, s, kind)
