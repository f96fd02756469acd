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

Kinds from :data:`BOT_NET` on are policy networks (the ``ppo`` bot,
:mod:`borders_sim.agents.ppo_bot`): kind ``BOT_NET + j`` plays network ``j`` of the
:class:`~.network.NetStack` that every caller passes (:data:`~.network.NO_NETS` where no network
plays).

:func:`act_kernel` is the compile unit ``"bot policies"`` (:mod:`borders_sim._compile.units`),
registered here, where the kernel is, since the registry sits below the policies and imports
none.
"""

from __future__ import annotations

import numba
from numba.core import types

from ..rules.engine import kth_legal
from .._compile import units
from .._compile.jit import kernel
from ..rules.rng import next_below
from .bluffer import bluffer_policy
from .collector import collector_policy
from .honest import honest_policy
from .network import NO_NETS, net_act
from .strict import strict_policy

#: Bot kinds with a compiled policy, by index (the ``kind`` of :func:`act_kernel`).
COMPILED_BOTS = ("random", "honest", "bluffer", "collector", "strict")
BOT_RANDOM, BOT_HONEST, BOT_BLUFFER, BOT_COLLECTOR, BOT_STRICT = range(5)
#: The first kind of a policy network (kind ``BOT_NET + j``: network ``j`` of the stack).
BOT_NET = len(COMPILED_BOTS)


@kernel
def random_policy(obs, mask, words, count, rng):
    """Uniform over the legal actions."""
    return kth_legal(mask, words, next_below(rng, count), 0)


@kernel(standalone=True)
def act_kernel(kind, obs, mask, words, count, rng, nets):
    """The action of compiled bot ``kind`` (an index of :data:`COMPILED_BOTS`, or
    ``BOT_NET + j`` for network ``j`` of ``nets``)."""
    if kind >= BOT_NET:
        return net_act(nets, kind - BOT_NET, obs, mask, count, rng)
    if kind == BOT_HONEST:
        return honest_policy(obs, mask, words, count, rng)
    if kind == BOT_BLUFFER:
        return bluffer_policy(obs, mask, words, count, rng)
    if kind == BOT_COLLECTOR:
        return collector_policy(obs, mask, words, count, rng)
    if kind == BOT_STRICT:
        return strict_policy(obs, mask, words, count, rng)
    return random_policy(obs, mask, words, count, rng)


@units.register("bot policies")
def _policies_unit():
    return [(act_kernel, (types.int64, types.float32[::1], types.uint8[::1], types.uint64[::1],
                          types.int64, types.uint64[::1], numba.typeof(NO_NETS)))]
