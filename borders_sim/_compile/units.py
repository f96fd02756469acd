"""The compile units: the standalone kernels that whole families of kernels share, each of which
can be compiled alone, in any process, for the argument types its callers pass.

Every whole-game kernel (random play, the bots, the environments, the search) and the
:class:`~borders_sim.Game` builtin call the engine's three phase dispatchers, and most call the
bots' policies, the observation and the scoring, all ``@kernel(standalone=True)``
(:mod:`borders_sim._compile.jit`): compiled once, then called by address. So those can be
compiled in parallel processes into the shared cache before (or while) a family's own kernel is
compiled on top of them (:mod:`borders_sim._compile.parallel`). Their argument types are written
out here; ``tests/test_parallel_compile.py`` checks that they are exactly the types the package's
callers compile them for (a wrong type would compile a version nobody calls).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numba
from numba.core import types


def _state() -> Any:
    from ..rules.state import state_type
    return state_type()


def _array(dtype: Any) -> Any:
    return types.Array(dtype, 1, "C")


def _apply() -> list[tuple[Any, tuple]]:
    from ..rules import engine
    return [(engine._apply, (_state(), types.int64))]


def _seek() -> list[tuple[Any, tuple]]:
    from ..rules import engine
    return [(engine._seek, (_state(),))]


def _legal_mask() -> list[tuple[Any, tuple]]:
    from ..rules import engine
    return [(engine.legal_mask, (_state(), _array(types.uint8)))]


def _scoring() -> list[tuple[Any, tuple]]:
    from ..rules import rewards, scoring, setup
    s = _state()
    return [(setup.setup_kernel, (s,)),
            (scoring.scores, (s, _array(types.int64))),
            (scoring.winners, (s, _array(types.int64))),
            (rewards.final_rewards, (s, types.int64, _array(types.float32))),
            (rewards.final_rewards, (s, types.int64, _array(types.float64)))]


def _observe() -> list[tuple[Any, tuple]]:
    from ..rules import observation
    return [(observation.observe_kernel, (_state(), types.int64, _array(types.float32)))]


def _policies() -> list[tuple[Any, tuple]]:
    from ..agents import policies
    from ..agents.ppo import NO_NETS
    return [(policies.act_kernel, (types.int64, _array(types.float32), _array(types.uint8),
                                   _array(types.uint64), types.int64, _array(types.uint64),
                                   numba.typeof(NO_NETS)))]


#: Unit name -> the (kernel, argument types) it compiles.
UNITS: dict[str, Callable[[], list[tuple[Any, tuple]]]] = {
    "engine: apply": _apply,
    "engine: seek": _seek,
    "engine: legal mask": _legal_mask,
    "bot policies": _policies,
    "observation": _observe,
    "scoring and setup": _scoring,
}

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


def compile_unit(name: str) -> None:
    """Compile (or load from the cache) every kernel of the unit ``name``."""
    for dispatcher, args in UNITS[name]():
        dispatcher.compile(args)


def is_cached(name: str) -> bool:
    """Whether every kernel of unit ``name`` is compiled in this process or can be loaded from
    a cache (numba's own or the shipped kernels) without compiling."""
    return all(tuple(args) in dispatcher.overloads
               or dispatcher._cache.has(args, dispatcher.targetctx)
               for dispatcher, args in UNITS[name]())
