"""The ``collector`` bot: plays for main resources and King/Queen majorities.

As a smuggler it picks a *target*: the main resource in the middle with the most points less 6
per card its warehouse still lacks (none once it holds two, 5-13).

* **Market.** Keeps its action cards, the legal goods of its cover type and every card the
  target needs (its legal pieces, its named contraband, "any contraband" cards); discards the
  rest.
* **Packing.** Its *cover type* is the legal type it holds most of, +2 if the target needs it,
  +1 where its face-up cards match or beat every other seat's (a King/Queen majority, §9). With
  ``q`` the chance its crate is opened (as the bluffer reckons it), it smuggles a contraband or
  premium card the target needs when ``(1 - q) * (value + 6) - q * fine > 0`` and any other one
  only when ``(1 - q) * value - q * fine > 3``; the crate is filled up to 5 with cover cards.
* **Announcement.** Its cover type (a lie when contraband is inside).
* **Haggling.** For a lying crate it offers 60% of the fine at risk in the first exchange,
  rising by half of that each exchange, up to 80% of the fine plus the value at risk, and accepts
  demands up to that cap: it would rather pay than lose the cards its target needs. Nothing for
  a truthful crate.
* **Cards.** Night Raid and Robbery (richest opponent) at once; Secret Route, else False Bottom,
  on an open of a lying crate; the Lawyer on every payment; the Syndicate Fund whenever it paid
  gold; no bounties or gifts.
* **Collection.** The main resource worth most points, whenever it can.

As an inspector it starts from a 45% lie rate per owner (then lies caught / crates opened),
reads an offer on the table as a sign of contraband, and opens when the expected fine beats
the offer and the fines of a truthful crate by 1 gold, bounties included; otherwise it accepts
an offer at least as good, demands half the expected fine, waits, or passes.
"""

from __future__ import annotations


from .._compile.jit import kernel
from .heuristics import SMUGGLE_NEEDED, heuristic_act

#: (smuggling, bribe share, pay cap, prior lie rate, open margin, collector): see
#: :mod:`.heuristics` ``S_*``.
COLLECTOR = (float(SMUGGLE_NEEDED), 0.6, 0.8, 0.45, 1.0, 1.0)


@kernel
def collector_policy(obs, mask, words, count, rng):
    """The collector bot's action (deterministic: it draws nothing from ``rng``)."""
    return heuristic_act(COLLECTOR, obs, mask, words)
