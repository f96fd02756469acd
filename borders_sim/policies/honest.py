"""The ``honest`` bot: a law-abiding trader.

As a smuggler:

* **Market.** Keeps its action cards and the legal goods of its *cover type* (the legal type it
  holds most of, ties to the more valuable); discards every other goods card (contraband,
  premium, other legal types), at most 5, since the hand is drawn back to 6 anyway.
* **Packing.** Packs every card of its cover type it holds, up to 5, and nothing else. Only with
  no legal goods at all does it pack one card, the one with the lowest fine.
* **Announcement.** Announces the type it packed: the truth.
* **Haggling.** Offers nothing for a truthful crate (an open would make the inspector pay it the
  fines, 4.4-B1) and refuses every demand. Bribes only in the rare round it was forced to pack
  contraband: half the fine at risk, up by a quarter of it each later exchange, and accepts a
  demand up to half of the fine plus the value at risk.
* **Cards.** Plays Night Raid and Robbery (on the opponent with the most free gold) at the first
  chance; Secret Route, then False Bottom, only if a crate that lies is opened; the Lawyer on
  every payment it makes; the Syndicate Fund whenever it paid gold; never offers bounties or
  gifts (they only help an opponent).
* **Collection.** Collects the main resource worth most points whenever it can.

As an inspector it is trusting: it takes an owner's lie rate (lies caught / crates opened,
starting from 40%) and opens only when the expected fine beats the fines it would pay on a
truthful crate, the offer on the table and the bounties for opening by 2 gold; it accepts any
offer worth at least the open; otherwise it demands half the expected fine of a lying crate
while exchanges remain, or waits, or passes (see :func:`~.heuristics.act_respond`). It joins
another badge's open, or voids a held deal to open, on the same arithmetic.
"""

from __future__ import annotations


from .._compile.jit import kernel
from .heuristics import SMUGGLE_NEVER, heuristic_act

#: (smuggling, bribe share, pay cap, prior lie rate, open margin, collector): see
#: :mod:`.heuristics` ``S_*``.
HONEST = (float(SMUGGLE_NEVER), 0.5, 0.5, 0.4, 2.0, 0.0)


@kernel
def honest_policy(obs, mask, words, count, rng):
    """The honest bot's action (deterministic: it draws nothing from ``rng``)."""
    return heuristic_act(HONEST, obs, mask, words)
