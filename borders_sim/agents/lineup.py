"""Bot specs: the names a lineup is written in (``borders-sim tournament --bots``), and how a
lineup plays inside the whole-game kernels.

A *spec* is a bot name of :data:`~.bots.REGISTRY` (``honest``, ``ismcts``, ``ppo``, ...),
``ppo@PATH`` (the ``ppo`` bot playing the policy file ``PATH``, or the ``policy.npz`` of a
``borders-sim train`` output directory) or an OpenSpiel bot with options
(``openspiel-ismcts:sims=50:rollout=honest``, :mod:`.openspiel`). :func:`bot_factory` gives its
factory ``(seed) -> bot``, :func:`make_spec` its bot; :func:`compiled_kinds` says how a lineup
plays in the compiled kernels, when it can: every heuristic is a compiled kind, and the ``ppo``
specs of a lineup become the networks of one :class:`~.ppo.NetStack` (so they must share their
hidden sizes).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..rules.args import as_seed
from . import openspiel
from .bots import REGISTRY, Bot
from .policies import BOT_NET, COMPILED_BOTS
from .ppo import NetStack, load_policy, shipped_policy, stack_nets


def known(spec: str) -> bool:
    """Whether ``spec`` starts with a known bot name (its options aside)."""
    return (spec.partition("@")[0] in REGISTRY
            or spec.partition(":")[0] in openspiel.KINDS)


def split_spec(spec: str) -> tuple[str, dict]:
    """``"ppo@PATH"`` -> ``("ppo", {"weights": "PATH"})``, any other spec without options ->
    ``(spec, {})`` (an OpenSpiel spec's options are :func:`bot_factory`'s).

    Raises:
        ValueError: an unknown bot name, or ``@`` after a bot other than ``ppo``.
    """
    name, at, arg = spec.partition("@")
    if name not in REGISTRY:
        raise ValueError(f"unknown bot {name!r}; known bots: {', '.join(sorted(REGISTRY))} "
                         "(and ppo@PATH: the ppo bot with a policy file; OpenSpiel bots take "
                         "options: openspiel-ismcts:sims=50)")
    if not at:
        return name, {}
    if name != "ppo" or not arg:
        raise ValueError(f"only ppo takes a policy file (ppo@PATH); got {spec!r}")
    return name, {"weights": arg}


def bot_factory(spec: str) -> Callable[[int], Bot]:
    """The factory ``(seed) -> bot`` of ``spec``; a ``ppo@PATH`` file is read and checked, an
    OpenSpiel spec's options too.

    Raises:
        ValueError: naming the problem (an unknown name, a bad option, a file that is no
            policy, OpenSpiel not installed).
    """
    if spec.partition(":")[0] in openspiel.KINDS:
        return openspiel.factory(spec)
    name, options = split_spec(spec)
    if "weights" in options:
        policy_file = options["weights"]
        load_policy(policy_file)
        return lambda seed: REGISTRY[name](seed, weights=policy_file)
    return REGISTRY[name]


def check_spec(spec: str) -> str:
    """``spec`` if :func:`bot_factory` can make its bot; else the ValueError naming why."""
    bot_factory(spec)
    return spec


def make_spec(spec: str, seed: int = 0) -> Bot:
    """The bot of ``spec``, seeded with ``seed`` (a seed of :mod:`borders_sim.rules.args`)."""
    return bot_factory(spec)(as_seed(seed))


def compiled_kinds(specs: Sequence[str]) -> tuple[dict[str, int], NetStack] | None:
    """The compiled kind of every distinct spec of ``specs`` and the networks of its ``ppo``
    specs, or None when some spec has no compiled twin (``ismcts``) or the networks differ in
    hidden sizes."""
    kinds: dict[str, int] = {}
    policies = []
    for spec in dict.fromkeys(specs):
        if not known(spec) or spec.partition(":")[0] in openspiel.KINDS:
            return None
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
