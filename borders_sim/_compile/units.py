"""The compile units: the standalone kernels that whole families of kernels share, each of which
can be compiled alone, in any process, for the argument types its callers pass.

Every whole-game kernel (random play, the bots, the environments, the search) and the
:class:`~borders_sim.Game` builtin call the engine's three phase dispatchers, and most call the
bots' policies, the observation and the scoring, all ``@kernel(standalone=True)``
(:mod:`borders_sim._compile.jit`): compiled once, then called by address. So those can be
compiled in parallel processes into the shared cache before (or while) a family's own kernel is
compiled on top of them (:mod:`borders_sim._compile.parallel`).

This module is a registry. It sits below the rules and the agents, so it imports neither: the
module that owns a unit's kernels registers it (:func:`register`) with a provider that lists
them with their argument types, and imports only point down. The owners are
:mod:`borders_sim.rules.engine` (the three engine units), :mod:`borders_sim.rules.observation`,
:mod:`borders_sim.rules.setup` (scoring and setup) and :mod:`borders_sim.policies.dispatch`; a
unit exists once its owner is imported, and asking for one before that is an error naming
the unit. ``tests/test_parallel_compile.py`` checks that the providers' argument types are
exactly the types the package's callers compile them for (a wrong type would compile a
version nobody calls).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

#: A unit's provider: the (dispatcher, argument types) of each of its kernels, computed when
#: asked for (the types of the state record and the networks exist only once their modules do).
Provider = Callable[[], list[tuple[Any, tuple]]]

#: Every unit, in the order ``borders-sim warmup`` compiles them.
NAMES: tuple[str, ...] = ("engine: apply", "engine: seek", "engine: legal mask", "bot policies",
                          "observation", "scoring and setup")

#: Unit name -> its provider, for the units whose owners are imported.
UNITS: dict[str, Provider] = {}

#: The units each family of first uses needs: the one its own first call reaches first (and so
#: compiles itself) in front, then the helpers' share in the order they take it (the Game's
#: first step reaches ``_apply`` first, which shares most phase kernels with ``_seek``, so a
#: helper starts on the legal mask and the scoring instead).
FAMILIES: dict[str, tuple[str, ...]] = {
    "game": ("engine: apply", "engine: legal mask", "scoring and setup", "engine: seek"),
    "rollouts": ("engine: seek", "engine: apply", "engine: legal mask", "scoring and setup"),
    "bots": ("engine: seek", "bot policies", "engine: apply", "observation", "engine: legal mask",
             "scoring and setup"),
    "vector": ("engine: seek", "observation", "engine: apply", "engine: legal mask",
               "scoring and setup"),
}


def register(name: str) -> Callable[[Provider], Provider]:
    """Decorator: the provider of unit ``name`` (one of :data:`NAMES`), defined in the module
    that owns the unit's kernels (:func:`owner`)."""
    if name not in NAMES:
        raise ValueError(f"no compile unit {name!r}; the units are {', '.join(NAMES)}")

    def add(provider: Provider) -> Provider:
        UNITS[name] = provider
        return provider
    return add


def _provider(name: str) -> Provider:
    if name not in UNITS:
        raise LookupError(f"compile unit {name!r} is not registered: the module that owns its "
                          f"kernels registers it when imported, and it is not imported yet")
    return UNITS[name]


def owner(name: str) -> str:
    """The module that registered unit ``name``: a process that has not imported it imports
    it before compiling the unit (a compile worker)."""
    return _provider(name).__module__


def compile_unit(name: str) -> None:
    """Compile (or load from the cache) every kernel of the unit ``name``."""
    for dispatcher, args in _provider(name)():
        dispatcher.compile(args)


def is_cached(name: str) -> bool:
    """Whether every kernel of unit ``name`` is compiled in this process or can be loaded from
    a cache (numba's own or the shipped kernels) without compiling."""
    return all(tuple(args) in dispatcher.overloads
               or dispatcher._cache.has(args, dispatcher.targetctx)
               for dispatcher, args in _provider(name)())
