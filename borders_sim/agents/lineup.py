"""Bot specs: the names a lineup is written in (``borders-sim tournament --bots``), and how a
lineup plays inside the whole-game kernels.

A *spec* is a bot name of :data:`~.bots.REGISTRY` (``honest``, ``ismcts``, ``ppo``, ...) or
``ppo@PATH``: the ``ppo`` bot playing the policy file ``PATH`` (or the ``policy.npz`` of a
``borders-sim train`` output directory). :func:`make_spec` makes its bot; :func:`compiled_kinds`
says how a lineup plays in the compiled kernels, when it can: every heuristic is a compiled
kind, and the ``ppo`` specs of a lineup become the networks of one
:class:`~.ppo.NetStack` (so they must share their hidden sizes).
"""

from __future__ import annotations

from collections.abc import Sequence

from .bots import REGISTRY, Bot, make
from .policies import BOT_NET, COMPILED_BOTS
from .ppo import NetStack, load_policy, shipped_policy, stack_nets


def split_spec(spec: str) -> tuple[str, dict]:
    """``"ppo@PATH"`` -> ``("ppo", {"weights": "PATH"})``, any other spec -> ``(spec, {})``.

    Raises:
        ValueError: an unknown bot name, or ``@`` after a bot other than ``ppo``.
    """
    name, at, arg = spec.partition("@")
    if name not in REGISTRY:
        raise ValueError(f"unknown bot {name!r}; known bots: {', '.join(sorted(REGISTRY))} "
                         "(and ppo@PATH: the ppo bot with a policy file)")
    if not at:
        return name, {}
    if name != "ppo" or not arg:
        raise ValueError(f"only ppo takes a policy file (ppo@PATH); got {spec!r}")
    return name, {"weights": arg}


def check_spec(spec: str) -> str:
    """``spec`` if it names a bot that can be made (a ``ppo@PATH`` file is read and checked).

    Raises:
        ValueError: naming the problem.
    """
    name, options = split_spec(spec)
    if "weights" in options:
        load_policy(options["weights"])
    return spec


def make_spec(spec: str, seed: int = 0) -> Bot:
    """The bot of ``spec``, seeded with ``seed``."""
    name, options = split_spec(spec)
    return make(name, seed, **options)


def compiled_kinds(specs: Sequence[str]) -> tuple[dict[str, int], NetStack] | None:
    """The compiled kind of every distinct spec of ``specs`` and the networks of its ``ppo``
    specs, or None when some spec has no compiled twin (``ismcts``) or the networks differ in
    hidden sizes."""
    kinds: dict[str, int] = {}
    policies = []
    for spec in dict.fromkeys(specs):
        name, options = split_spec(spec)
        if name in COMPILED_BOTS:
            kinds[spec] = COMPILED_BOTS.index(name)
        elif name == "ppo":
            kinds[spec] = BOT_NET + len(policies)
            policies.append(load_policy(options["weights"]) if options else shipped_policy())
        else:
            return None
    if len({p.hidden for p in policies}) > 1:
        return None
    return kinds, stack_nets(policies)
