"""The bot kinds and the one dispatch from a kind to its compiled policy.

:func:`act_kernel` is the dispatch by bot kind that the game loop (:mod:`borders_sim.batch.loop`)
and the Python bots (:mod:`borders_sim.agents.bots`) share, over one kernel per bot, each a
function of a player's observation and legal mask only (never the state). The Python bot and
its compiled twin are the same code, so they make the same choice from the same observation,
mask and generator words.

A policy takes ``(obs, mask, words, count, rng)``: ``obs`` float32[OBS_SIZE]
(:data:`~borders_sim.rules.observation.OBSERVATION_LAYOUT`), ``mask`` uint8[MASK_SIZE] (the
legal mask padded to 64-bit words), ``words`` the same mask viewed as uint64, ``count`` the
number of legal actions (at least 1) and ``rng`` the bot's own xorshift128+ words
(uint64[2], advanced in place); it returns a legal action id.

The compiled bots are the entries of :data:`~.registry.BOTS`, and everything here is derived
from that table: the names (:data:`COMPILED_BOTS`, a bot's kind is its index), the kinds
(:data:`BOT_RANDOM`, :data:`BOT_NET`) and :func:`act_kernel`. Kinds from :data:`BOT_NET` on
are policy networks (the ``ppo`` bot, :mod:`borders_sim.agents.ppo_bot`): kind ``BOT_NET + j``
plays network ``j`` of the :class:`~.network.NetStack` that every caller passes
(:data:`~.network.NO_NETS` where no network plays).

:func:`act_kernel` is the compile unit ``"bot policies"`` (:mod:`borders_sim._compile.units`),
registered here, where the kernel is, since the registry sits below the policies and imports
none.
"""

from __future__ import annotations

from typing import Any

import numba
from numba.core import types

from .._compile import units
from .._compile.jit import kernel
from . import registry
from .network import NO_NETS, net_act

#: Bot kinds with a compiled policy, by index (the ``kind`` of :func:`act_kernel`): the names of
#: :data:`~.registry.BOTS`, in its order.
COMPILED_BOTS: tuple[str, ...] = tuple(entry.name for entry in registry.BOTS)
if len(set(COMPILED_BOTS)) != len(COMPILED_BOTS):
    raise ValueError(f"two compiled bots share a name in registry.BOTS: {COMPILED_BOTS}")
#: The random bot's kind (the one bot that reads no observation: the game loop skips it).
BOT_RANDOM = COMPILED_BOTS.index("random")
#: The first kind of a policy network (kind ``BOT_NET + j``: network ``j`` of the stack).
BOT_NET = len(COMPILED_BOTS)

_ACT_DOC = """The action of compiled bot ``kind`` (an index of :data:`COMPILED_BOTS`, or
    ``BOT_NET + j`` for network ``j`` of ``nets``)."""


def _dispatch_source(bots: int) -> str:
    """The source of :func:`act_kernel` for a table of ``bots`` bots: the networks first, then
    one ``if`` per bot after the first, and the first bot (``random``) for any other kind."""
    lines = ["def act_kernel(kind, obs, mask, words, count, rng, nets):",
             "    if kind >= BOT_NET:",
             "        return net_act(nets, kind - BOT_NET, obs, mask, count, rng)"]
    for k in range(1, bots):
        lines += [f"    if kind == {k}:",
                  f"        return policy_{k}(obs, mask, words, count, rng)"]
    lines.append("    return policy_0(obs, mask, words, count, rng)")
    return "\n".join(lines) + "\n"


def _dispatch(bots: tuple[registry.CompiledBotEntry, ...]) -> Any:
    """:func:`act_kernel` for ``bots``, a standalone kernel.

    numba compiles a call only to a function it can name, so a plain ``for`` over a tuple of
    different policies does not compile; the ``if`` chain is written out from the table as
    source and compiled with ``exec``. It is compiled as if it stood in :mod:`.registry`, the
    table's file, for numba's cache: numba stamps a cached function with its file's content
    and keys it by its bytecode (which grows with the table), and the package's cache sync
    (:mod:`borders_sim._compile.cache`) deletes the cached kernels of a file with kernels
    whenever the package's kernel sources (the table and the bots' modules among them) change.
    Neither covers a policy from outside the package, so a table holding one compiles its
    dispatch afresh in each process (about a second) instead of caching it."""
    names = {"__name__": __name__, "BOT_NET": len(bots), "net_act": net_act,
             **{f"policy_{k}": entry.policy for k, entry in enumerate(bots)}}
    exec(compile(_dispatch_source(len(bots)), registry.__file__, "exec"), names)
    act = names["act_kernel"]
    act.__doc__ = _ACT_DOC
    dispatcher = kernel(standalone=True)(act)
    package = __name__.partition(".")[0] + "."
    if any(not getattr(entry.policy, "__module__", "").startswith(package) for entry in bots):
        dispatcher._cache.disable()
    return dispatcher


act_kernel = _dispatch(registry.BOTS)


@units.register("bot policies")
def _policies_unit():
    return [(act_kernel, (types.int64, types.float32[::1], types.uint8[::1], types.uint64[::1],
                          types.int64, types.uint64[::1], numba.typeof(NO_NETS)))]
