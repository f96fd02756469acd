"""Bot specs: the names a lineup is written in (``borders-sim tournament --bots``), and how a
lineup plays inside the whole-game kernels.

A *spec* is a bot name of :data:`~.bots.REGISTRY` (``honest``, ``ismcts``, ``ppo``, ...),
a network spec ``ppo[:argmax|:temp=T][@PATH]`` (the ``ppo`` bot greedy or at another
temperature, playing the policy file ``PATH`` or the ``policy.npz`` of a ``borders-sim train``
output directory: :func:`~borders_sim.policies.network.parse_net_spec`), a zoo member
``ppo-zoo/NAME[:argmax|:temp=T]`` (:mod:`borders_sim.policies.zoo`) or an OpenSpiel bot with
options (``openspiel-ismcts:sims=50:rollout=honest``, :mod:`borders_sim.openspiel`, imported when
named). :func:`bot_factory` gives its factory ``(seed) -> bot``, :func:`make_spec` its bot;
:func:`compiled_kinds` says how a lineup plays in the compiled kernels, when it can: every
heuristic is a compiled kind, and the ``ppo`` specs of a lineup become the networks of one
:class:`~borders_sim.policies.network.NetStack`, each at its temperature (so they must share their
hidden sizes).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..checks import as_seed
from ..batch.seats import seat_table
from ..policies.dispatch import COMPILED_BOTS
from ..policies.network import (NetPlayer, NetStack, is_net_spec, load_policy, net_player,
                                parse_net_spec, spec_head)
from .bots import REGISTRY, Bot, is_plugin, plugin_factory


def known(spec: str) -> bool:
    """Whether ``spec`` starts with a known bot name (its options aside)."""
    return spec_head(spec) in REGISTRY or is_plugin(spec)


def split_spec(spec: str) -> tuple[str, dict]:
    """A spec other than an OpenSpiel one as its bot name and :func:`~.bots.make` options:
    ``"ppo:argmax@PATH"`` -> ``("ppo", {"weights": "PATH", "temperature": 0.0})``, a plain
    name -> ``(name, {})`` (an OpenSpiel spec's options are :func:`bot_factory`'s).

    Raises:
        ValueError: an unknown bot name, or options or ``@`` after a bot other than ``ppo``,
            or a bad ``ppo`` option.
    """
    name = spec_head(spec)
    if name not in REGISTRY:
        raise ValueError(f"unknown bot {name!r}; known bots: {', '.join(sorted(REGISTRY))} "
                         "(and ppo[:argmax|:temp=T][@PATH]: the ppo bot greedy or at a "
                         "temperature, with a policy file; OpenSpiel bots take options: "
                         "openspiel-ismcts:sims=50)")
    if name != "ppo":
        if spec != name:
            raise ValueError(f"only ppo takes a policy file or options "
                             f"(ppo[:argmax|:temp=T][@PATH]); got {spec!r}")
        return name, {}
    path, temperature = parse_net_spec(spec)
    options: dict = {} if path is None else {"weights": path}
    if spec.partition("@")[0] != "ppo":
        options["temperature"] = temperature  # (a zoo member's is its spec's, 1 by default)
    return name, options


def bot_factory(spec: str) -> Callable[[int], Bot]:
    """The factory ``(seed) -> bot`` of ``spec``; a ``ppo`` spec's policy file is read and checked,
    an OpenSpiel spec's options too.

    Raises:
        ValueError: naming the problem (an unknown name, a bad option, a file that is no
            policy, OpenSpiel not installed).
    """
    if is_plugin(spec):
        return plugin_factory(spec)
    name, options = split_spec(spec)
    if "weights" in options:
        load_policy(options["weights"])
    if options:
        return lambda seed: REGISTRY[name](seed, **options)
    return REGISTRY[name]


def check_spec(spec: str) -> str:
    """``spec`` if :func:`bot_factory` can make its bot; else the ValueError naming why."""
    bot_factory(spec)
    return spec


def make_spec(spec: str, seed: int = 0) -> Bot:
    """The bot of ``spec``, seeded with ``seed`` (a seed of :mod:`borders_sim.checks`)."""
    return bot_factory(spec)(as_seed(seed))


def _compiled_name(name: str) -> bool:
    """Whether the bot ``name`` (a spec's name, options split off) has a compiled twin: a
    compiled bot or a network."""
    return name in COMPILED_BOTS or is_net_spec(name)


def compiled_kinds(specs: Sequence[str | NetPlayer]
                   ) -> tuple[dict[str | int, int], NetStack] | None:
    """The compiled kind of every distinct entry of ``specs`` (a spec, or a policy network in
    memory, a :class:`~borders_sim.policies.network.NetPlayer`) and the networks of its ``ppo``
    specs and networks (each at its temperature), by the seat vocabulary of
    :func:`~borders_sim.batch.seats.seat_table`: a spec's kind under the spec, a network's
    under its ``id()``; or None when some spec has no compiled twin (``ismcts``, a plugin, an
    unknown name) or the networks differ in hidden sizes."""
    distinct = {spec if isinstance(spec, str) else id(spec): spec for spec in specs}
    for spec in distinct.values():
        if isinstance(spec, str) and (not known(spec) or is_plugin(spec)
                                      or not _compiled_name(split_spec(spec)[0])):
            return None
    members = [net_player(s) if isinstance(s, str) and is_net_spec(s) else s
               for s in distinct.values()]
    if len({m.policy.hidden for m in members if isinstance(m, NetPlayer)}) > 1:
        return None
    table = seat_table(members, external=False, what="bot")
    return dict(zip(distinct, (int(k) for k in table.kinds))), table.nets
