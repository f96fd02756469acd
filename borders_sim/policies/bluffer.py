"""The ``bluffer`` bot: a smuggler who reads the inspectors.

As a smuggler:

* **Market.** Keeps its action cards, the legal goods of its *cover type* (the legal type it
  holds most of) and every contraband or premium card it would smuggle; discards the rest.
* **Packing.** Estimates the chance ``q`` that its crate is opened from the badges' public
  history (opens / crates inspected, ``(opens + 1) / (inspected + 3)``, combined over both
  badges). It packs every contraband or premium card whose expected value is positive,
  ``(1 - q) * value - q * fine > 0``, most valuable first, and fills the crate up to 5 with cover
  cards. So against inspectors who rarely open it smuggles everything; against one who opens
  more than 60% of crates it packs only legal goods.
* **Announcement.** Announces its cover type, a lie whenever contraband is inside (with no legal
  card in the crate: the type it shows most of face up).
* **Haggling.** For a lying crate it offers every badge a bribe in proportion to the fine at
  risk: half of it in the first exchange, three quarters in the second, the whole in the third;
  it accepts a demand up to 70% of the fine plus the value at risk. For a truthful crate it
  offers nothing and refuses demands (an open would pay it).
* **Cards.** Night Raid and Robbery (the opponent with the most free gold) at the first chance;
  Secret Route, else False Bottom, when a lying crate is opened; the Lawyer on every payment;
  the Syndicate Fund whenever it paid gold; no bounties or gifts.
* **Collection.** The main resource worth most points, whenever it can.

As an inspector it suspects others of doing what it does: it starts from a 50% lie rate per
owner (then lies caught / crates opened), treats an offer on the table as a sign of contraband,
and opens whenever the expected fine beats the offer and the fines of a truthful crate (no
margin), bounties for opening included; otherwise it accepts an offer at least as good, demands
half the expected fine, waits, or passes.
"""

from __future__ import annotations


from .._compile.jit import kernel
from .heuristics import SMUGGLE_EV, heuristic_act

#: (smuggling, bribe share, pay cap, prior lie rate, open margin, collector): see
#: :mod:`.heuristics` ``S_*``.
BLUFFER = (float(SMUGGLE_EV), 0.5, 0.7, 0.5, 0.0, 0.0)


@kernel
def bluffer_policy(obs, mask, words, count, rng):
    """The bluffer bot's action (deterministic: it draws nothing from ``rng``)."""
    return heuristic_act(BLUFFER, obs, mask, words)
