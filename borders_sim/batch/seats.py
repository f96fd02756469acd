"""The seat vocabulary: what may sit in a seat of a batch, and its kind in the seat table.

One vocabulary for every caller (the training env's pool, a tournament's compiled lineup):

* a compiled bot name (:data:`~borders_sim.policies.dispatch.COMPILED_BOTS`: ``"random"``,
  ``"honest"``, ...): its index;
* a :class:`~borders_sim.policies.network.NetPlayer`, a policy network at its temperature:
  ``BOT_NET + j``, network ``j`` of the table's
  :class:`~borders_sim.policies.network.NetStack` (the networks of one table share their hidden
  sizes);
* where the caller plays some seats itself, ``"external:NAME"`` (:data:`EXTERNAL_PREFIX`):
  :data:`~.loop.EXTERNAL`, a seat whose decisions come back to the caller.

Anything else is refused with a ``ValueError`` naming it and the known members, so a typo
(``"honset"``) is an error, never a seat silently handed to someone else. Nothing here reads a
spec: a caller's door turns a network spec (``"ppo:argmax@PATH"``) into its
:class:`~borders_sim.policies.network.NetPlayer` first
(:func:`~borders_sim.policies.network.net_player`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from ..checks import shown
from ..policies.dispatch import BOT_NET, COMPILED_BOTS
from ..policies.network import NetPlayer, NetStack, stack_nets
from .loop import EXTERNAL

#: The prefix of an external member's name (``"external:ismcts"``).
EXTERNAL_PREFIX = "external:"


class SeatTable(NamedTuple):
    """The kinds of a list of members, in order, and the networks their network kinds play."""

    #: int64[M]: the kind of each member (a compiled bot index, ``BOT_NET + j``, or ``EXTERNAL``).
    kinds: np.ndarray
    #: Each member as it plays: a compiled bot's name, a :class:`NetPlayer`, an external name.
    players: tuple[str | NetPlayer, ...]
    #: The networks of the ``BOT_NET`` kinds, at their temperatures.
    nets: NetStack


def seat_table(members: Sequence[str | NetPlayer], external: bool = True,
               what: str = "member") -> SeatTable:
    """The :class:`SeatTable` of ``members`` (module docstring). ``external``: whether
    ``"external:NAME"`` members are allowed; ``what`` names a member in messages.

    Raises:
        ValueError: a member outside the vocabulary (the message names it and the known ones),
            networks of different hidden sizes.
    """
    kinds, players, nets = [], [], []
    for m in members:
        if isinstance(m, NetPlayer):
            kinds.append(BOT_NET + len(nets))
            nets.append(m)
        elif isinstance(m, str) and m in COMPILED_BOTS:
            kinds.append(COMPILED_BOTS.index(m))
        elif (external and isinstance(m, str) and m.startswith(EXTERNAL_PREFIX)
              and m != EXTERNAL_PREFIX):
            kinds.append(EXTERNAL)
        else:
            also = f", or '{EXTERNAL_PREFIX}NAME' for one the caller plays" if external else ""
            raise ValueError(f"{what} {shown(m)} cannot play in a compiled seat: a {what} is a "
                             f"compiled bot ({', '.join(COMPILED_BOTS)}) or a policy network "
                             f"(a NetPlayer: net_player('ppo:argmax@PATH') reads a spec){also}")
        players.append(m)
    return SeatTable(np.array(kinds, dtype=np.int64), tuple(players),
                     stack_nets([p.policy for p in nets], [p.temperature for p in nets]))
