"""The ``strict`` bot: an honest trader who, as an inspector, opens nearly every crate.

As a smuggler it plays exactly like ``honest`` (:mod:`.honest`): it keeps and packs the legal
goods of its cover type, announces the truth, offers nothing for a truthful crate and refuses
demands.

As an inspector it trusts nobody: it starts from a 90% lie rate per owner (then lies caught /
crates opened, as every heuristic reckons it) and opens unless the offer on the table is worth
30 gold more than opening (an open of a truthful crate costs it at most 10 in fines), so it
opens almost every crate it handles, joins every open and voids a held deal to open. It is the
inspector a lying smuggler fears most, and a truthful one profits from (4.4-B1): a sparring
partner that punishes bluffing, which the other heuristics, opening 8 to 60% of crates, do not.
"""

from __future__ import annotations


from .._compile.jit import kernel
from .heuristics import SMUGGLE_NEVER, heuristic_act

#: (smuggling, bribe share, pay cap, prior lie rate, open margin, collector): see
#: :mod:`.heuristics` ``S_*``.
STRICT = (float(SMUGGLE_NEVER), 0.5, 0.5, 0.9, -30.0, 0.0)


@kernel
def strict_policy(obs, mask, words, count, rng):
    """The strict bot's action (deterministic: it draws nothing from ``rng``)."""
    return heuristic_act(STRICT, obs, mask, words)
