"""The seat vocabulary: what may sit in a seat of a batch, and its kind in the seat table.

One vocabulary for every caller (the training env's pool, a tournament's compiled lineup):

* a compiled bot name (:data:`~borders_sim.policies.dispatch.COMPILED_BOTS`: ``"random"``,
  ``"honest"``, ...): its index;
* a network spec (``"ppo"``, ``"ppo:argmax@PATH"``, the rest of
  :func:`~borders_sim.policies.network.parse_net_spec`) or a
  :class:`~borders_sim.policies.network.NetPlayer`: ``BOT_NET + j``, network ``j`` of the
  table's :class:`~borders_sim.policies.network.NetStack` (the networks of one table share
  their hidden sizes);
* where the caller plays some seats itself, ``"external:NAME"`` (:data:`EXTERNAL_PREFIX`):
  :data:`~.loop.EXTERNAL`, a seat whose decisions come back to the caller.

Anything else is refused with a ``ValueError`` naming it and the known members, so a typo
(``"honset"``) is an error, never a seat silently handed to someone else.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from ..checks import shown
from ..policies.dispatch import BOT_NET, COMPILED_BOTS
from ..policies.network import NetPlayer, NetStack, is_net_spec, net_player, stack_nets
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


def is_compiled(member: object) -> bool:
    """Whether ``member`` plays inside a kernel: a compiled bot name, a network spec or a
    :class:`NetPlayer` (unchecked: :func:`seat_table` checks a network spec)."""
    return isinstance(member, NetPlayer) or (isinstance(member, str) and (
        member in COMPILED_BOTS or is_net_spec(member)))


def seat_table(members: Sequence[str | NetPlayer], external: bool = True,
               what: str = "member") -> SeatTable:
    """The :class:`SeatTable` of ``members`` (module docstring), with the policy files of
    network specs read. ``external``: whether ``"external:NAME"`` members are allowed; ``what``
    names a member in messages.

    Raises:
        ValueError: a member outside the vocabulary (the message names it and the known ones),
            a bad network spec or policy file, networks of different hidden sizes.
    """
    kinds, players, nets = [], [], []
    for m in members:
        if isinstance(m, str) and is_net_spec(m):
            m = net_player(m)
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
                             f"compiled bot ({', '.join(COMPILED_BOTS)}), a network spec "
                             f"('ppo', 'ppo:argmax', 'ppo@PATH', ...) or a NetPlayer{also}")
        players.append(m)
    return SeatTable(np.array(kinds, dtype=np.int64), tuple(players),
                     stack_nets([p.policy for p in nets], [p.temperature for p in nets]))
