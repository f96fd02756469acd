"""A dataclass's declared settings (:mod:`borders_sim.settings`) as command-line options.

:func:`add_settings` adds one option per declared field, its type, bounds, help and default read
from the declaration, so the option refuses exactly what the field's check refuses, in the same
words; :func:`given_settings` reads the values back by field name.
"""

from __future__ import annotations

import argparse
import typing
from typing import Any

from ..settings import check_value, declared, default_of, flag_of, optional

#: What an option of this kind shows for its value when the field declares no metavar.
_METAVARS = {int: "N", float: "X", str: "TEXT"}


def _typed(f: Any, s: Any, kind: Any) -> Any:
    """The argparse type of the field ``f``: text to the value, checked by its declaration, a
    refusal in the check's own words (argparse puts the option's name before them)."""
    def parse(text: str) -> Any:
        try:
            if s.parse is not None:
                return s.parse(text)
            value: Any = text
            if kind in (int, float):
                try:
                    value = kind(text)
                except ValueError:  # checked as the text, refused in the check's words
                    pass
            return check_value(value, f.name, s, kind)
        except ValueError as err:
            why = str(err).removesuffix(" (str)")
            raise argparse.ArgumentTypeError(why.removeprefix(f.name + " ")) from None
    parse.__name__ = f.name  # argparse names the type in some messages
    return parse


def _help(s: Any, default: Any) -> str:
    """The option's help: the declaration's, with its default where the help does not say."""
    text = s.help.replace("%", "%%")
    if "default:" in text or isinstance(default, bool):
        return text
    if default is None:
        shown = s.default_help() if callable(s.default_help) else s.default_help
        return f"{text} (default: {shown})" if shown else text
    if isinstance(default, tuple):
        default = " ".join(map(str, default))
    if isinstance(default, dict):
        return text
    return f"{text} (default: {default})"


def add_settings(parser: argparse.ArgumentParser | argparse._ArgumentGroup, cls: type,
                 given_only: bool = False) -> list[str]:
    """Add an option for each declared field of ``cls`` that has a flag; returns their field
    names (the options' ``dest``). ``given_only``: an option left out is absent from the parsed
    namespace (``argparse.SUPPRESS``), so :func:`given_settings` returns only what was given."""
    names = []
    for f, s, kind in declared(cls):
        flag = flag_of(f)
        if flag is None:
            continue
        default = default_of(f)
        base, _ = optional(kind)
        options: dict[str, Any] = {"dest": f.name, "help": _help(s, default)}
        if base is bool:
            options["action"] = "store_false" if s.invert else "store_true"
        elif typing.get_origin(base) is dict:
            options.update(action="append", metavar=s.metavar)
        elif typing.get_origin(base) is tuple and s.parse is None:
            items = typing.get_args(base)
            options.update(nargs=len(items), type=_typed(f, s, items[0]),
                           metavar=s.metavar or _METAVARS.get(items[0]))
            default = list(default)
        else:
            choices = s.options()
            shown = "{" + ",".join(choices) + "}" if choices else _METAVARS.get(base)
            options.update(type=_typed(f, s, base), metavar=s.metavar or shown)
        if base is not bool and typing.get_origin(base) is not dict:
            options["default"] = default
        if given_only:
            options["default"] = argparse.SUPPRESS
        parser.add_argument(flag, **options)
        names.append(f.name)
    return names


def given_settings(args: argparse.Namespace, names: list[str]) -> dict[str, Any]:
    """The values of the options :func:`add_settings` added (``names``) that ``args`` holds,
    by field name: two values as a tuple, a repeatable ``KEY=VALUE`` option's texts as they
    were given (a list)."""
    out = {}
    for name in names:
        if hasattr(args, name):
            value = getattr(args, name)
            out[name] = tuple(value) if isinstance(value, list) and value and \
                not isinstance(value[0], str) else value
    return out
