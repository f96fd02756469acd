"""The interface of an update rule, how the trainer finds one, and its settings.

A :class:`~.learner.Learner` collects a rollout (:class:`~.rollout.Rollout`: observations,
masks, actions, their log-probabilities and values, rewards, game ends) with its compiled
actor, then asks its algorithm for one update of the network from it. Everything else (the
league, the games, checkpoints, evaluations, the curve, the policy file) is the trainer's and
stays the same whatever the rule.

**An algorithm** is an object with the four methods of :class:`Algorithm`. **A factory**
(:class:`Factory`) makes one: ``factory(model, settings, config, seed)``, where ``model`` is
the :class:`~.model.PolicyValueNet` to train, ``settings`` an instance of the factory's own
settings dataclass ``factory.Settings`` (or None for a factory without one), ``config`` the
run's :class:`~.config.TrainConfig` (its ``lr`` and the schedule
:meth:`~.config.TrainConfig.learning_rate` are shared by every rule) and ``seed`` the seed of
the rule's own draws (minibatch shuffles). A class whose ``__init__`` takes those four and
that has a ``Settings`` class attribute is a factory (:class:`~.ppo.PPO`, :class:`~.a2c.A2C`).

**Naming one**: ``TrainConfig.algorithm`` (``borders-sim train --algorithm``) is a name of
:data:`ALGORITHMS` or ``MODULE:FACTORY``, an importable module and a factory in it (the command
line imports from the current directory too). Its settings are ``TrainConfig.algorithm_args``
(``--algorithm-arg KEY=VALUE``, repeatable), set over the dataclass's defaults, text typed by
the field's annotation (:func:`settings_of`), over ``TrainConfig.settings`` when it holds an
instance of the dataclass.

**The anchor.** A rule whose settings have ``anchor_coef`` (and optionally ``anchor_every``)
gets from the trainer, while ``anchor_coef > 0``, a frozen anchor network in each
:meth:`Algorithm.update` (the policy the run started from, or a magnet moved every
``anchor_every`` updates: :mod:`.trainer`); :meth:`~.minibatch.Batch.forward` computes the KL to
it.

This module imports neither torch nor a rule until a rule is asked for.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from typing import TYPE_CHECKING, Any, Protocol

from ..settings import check_settings
from ..user_code import NAMED, import_named

if TYPE_CHECKING:
    import torch

    from .model import PolicyValueNet
    from .rollout import Rollout

#: The registered algorithms, by name: the ``MODULE:FACTORY`` each stands for.
ALGORITHMS = {"ppo": "borders_sim.train.ppo:PPO", "a2c": "borders_sim.train.a2c:A2C"}


class Algorithm(Protocol):
    """An update rule of a learner's policy-value network."""

    def update(self, rollout: Rollout, last_value: torch.Tensor, update: int,
               anchor: PolicyValueNet | None = None) -> Any:
        """One update of the network from ``rollout``; ``last_value`` holds the values of the
        decisions pending after its last step, ``update`` the updates made before this one,
        ``anchor`` a network to stay near (or None). Returns a dataclass of floats, the
        curve's columns for this update."""

    def reset(self) -> None:
        """Start afresh (the network's weights were replaced): a new optimizer state."""

    def state(self) -> dict:
        """What a checkpoint keeps of the rule: tensors and plain values only (the checkpoint
        keeps it under its own key)."""

    def restore(self, state: dict) -> None:
        """Continue from :meth:`state` exactly (the next update is the one it would have
        made)."""


class Factory(Protocol):
    """What ``MODULE:FACTORY`` names (module docstring): a callable making the rule; its
    ``Settings``, a dataclass whose fields all have defaults (fields declared by
    :func:`~borders_sim.settings.setting` are checked by their declarations; an optional
    ``check()`` raising ValueError checks the rest), or None for a rule without settings."""

    Settings: type | None

    def __call__(self, model: PolicyValueNet, settings: Any, config: Any,
                 seed: int) -> Algorithm:
        """The rule training ``model`` with ``settings`` in the run ``config`` (its
        :class:`~.config.TrainConfig`, which imports this module: hence ``Any`` here), its
        draws seeded by ``seed``."""


def factory_of(spec: str) -> Factory:
    """The factory ``spec`` names: a name of :data:`ALGORITHMS` or ``MODULE:FACTORY``.

    Raises:
        ValueError: a spec of neither form, a module that cannot be found, a name it lacks
            or that is not callable (one line).
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"algorithm must be a name ({', '.join(ALGORITHMS)}) or "
                         f"MODULE:FACTORY, got {spec!r}")
    target = ALGORITHMS.get(spec, spec)
    if not NAMED.fullmatch(target):
        raise ValueError(f"algorithm {spec!r} is neither a registered one "
                         f"({', '.join(ALGORITHMS)}) nor MODULE:FACTORY (an importable module "
                         f"and a factory in it, e.g. my_algo:make)")
    return import_named(target, "algorithm",
                        "a factory (a callable: factory(model, settings, config, seed))")


def setting_names(spec: str) -> tuple[str, ...]:
    """The names of the settings of the algorithm ``spec`` (its ``Settings`` dataclass's
    fields; none for a factory without one). Imports the algorithm.

    Raises:
        ValueError: an algorithm :func:`factory_of` cannot find (one line).
    """
    kind = getattr(factory_of(spec), "Settings", None)
    return () if kind is None else tuple(f.name for f in dataclasses.fields(kind))


def settings_of(spec: str, args: dict[str, Any], base: Any = None) -> Any:
    """The settings of the algorithm ``spec``: ``base`` (an instance of ``factory.Settings``;
    default: ``factory.Settings()``) with
    each of ``args`` set over it, a text value (the command line's) typed by the field's
    annotation (bool, int, float, str, ``X | None`` from ``none``), then checked: the fields
    declared by :func:`~borders_sim.settings.setting` by their declarations, then by the
    settings' ``check()`` if they have one. None for a factory without ``Settings``.

    Raises:
        ValueError: an unknown key or a value of the wrong type (one line naming it), a
            ``base`` of another type, or what ``check()`` refuses.
    """
    kind = getattr(factory_of(spec), "Settings", None)
    if kind is None:
        if args or base is not None:
            given = ", ".join(args) if args else repr(base)
            raise ValueError(f"algorithm {spec} takes no settings, got {given}")
        return None
    if base is not None and not isinstance(base, kind):
        raise ValueError(f"the settings of algorithm {spec} must be a {kind.__name__}, got "
                         f"{type(base).__name__} {base!r}")
    settings = kind() if base is None else base
    hints = typing.get_type_hints(kind)
    names = [f.name for f in dataclasses.fields(kind)]
    changes = {}
    for key, value in args.items():
        if key not in names:
            raise ValueError(f"algorithm {spec} has no setting {key!r} (its settings: "
                             f"{', '.join(names)})")
        changes[key] = typed(value, hints[key], f"algorithm {spec}'s setting {key}")
    settings = dataclasses.replace(settings, **changes)
    check_settings(settings)
    if callable(getattr(settings, "check", None)):
        settings.check()
    return settings


def typed(value: Any, kind: Any, name: str) -> Any:
    """``value`` as the type ``kind`` (a field's annotation): text is parsed (``true``/``false``
    for a bool, ``none`` for an optional), another value must be of that type already (an int
    is a float)."""
    options = typing.get_args(kind)
    if typing.get_origin(kind) in (typing.Union, types.UnionType) and type(None) in options:
        if value is None or (isinstance(value, str) and value.lower() == "none"):
            return None
        rest = [k for k in options if k is not type(None)]
        return typed(value, rest[0], name) if len(rest) == 1 else value
    if kind is bool:
        if isinstance(value, bool):
            return value
        text = str(value).lower()
        if isinstance(value, str) and text in ("true", "false", "yes", "no", "1", "0"):
            return text in ("true", "yes", "1")
    elif kind is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, str):
            try:
                return int(value)
            except ValueError:
                pass
    elif kind is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                pass
    elif kind is str:
        if isinstance(value, str):
            return value
    elif not isinstance(value, str):
        return value
    shown = getattr(kind, "__name__", str(kind))
    raise ValueError(f"{name} must be {'a' if shown != 'int' else 'an'} {shown}, got {value!r}")


def parse_pairs(items: list[str], option: str) -> dict[str, str]:
    """``KEY=VALUE`` texts (a repeatable option's, ``option`` names it) as a dict, the last of a
    key winning.

    Raises:
        ValueError: an item without ``=`` or with an empty key.
    """
    out = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"{option} {item!r}: give KEY=VALUE (a setting of the algorithm)")
        out[key.strip()] = value.strip()
    return out


def anchor_settings(settings: Any) -> tuple[float, int]:
    """``(anchor_coef, anchor_every)`` of an algorithm's settings (0 for a missing field):
    whether and how the trainer keeps an anchor for it (module docstring)."""
    return float(getattr(settings, "anchor_coef", 0.0)), int(getattr(settings, "anchor_every", 0))


def record(spec: str, settings: Any) -> dict:
    """The provenance of a run's algorithm, as checkpoints and policy files keep it:
    ``{"name": spec, "settings": {field: value}}`` in plain values."""
    values = {} if settings is None else dataclasses.asdict(settings)
    return {"name": spec, "settings": json.loads(json.dumps(values, default=str))}
