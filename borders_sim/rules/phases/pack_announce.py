"""Phases 2 and 3 of a round: packing the crate (P-3, §4.2) and the announcement (P-4, §4.3)."""

from __future__ import annotations


from ..actions import A_ANNOUNCE, A_CLOSE, A_PACK
from ..cards import MAX_CRATE, NUM_GOODS, NUM_LEGAL, TOBACCO
from ..._compile.jit import kernel
from ..piles import NOBODY, goods_in_hand, is_inspector, num_players, remove_from_hand
from ..state import (CFG_TOBACCO_3P, CRATE_ANNOUNCED, CRATE_CLOSED, CRATE_PACKING,
                    CRATE_SITTING_OUT, PH_ANNOUNCE, PH_CHOOSE_CRATE)


@kernel
def seek_pack(s):
    """Smugglers pack in round order; one with no goods sits the round out (R-23). Nobody
    learns anything of a crate but that it was packed until the announcement (P-3)."""
    n = num_players(s)
    while s.pos < n:
        p = s.order[s.pos]
        if is_inspector(s, p):
            s.pos += 1
        elif s.crate_status[p] == CRATE_PACKING and s.crate_size[p] < MAX_CRATE \
                and goods_in_hand(s, p) > 0:
            s.turn = p
            return True
        elif s.crate_size[p] > 0:
            s.crate_status[p] = CRATE_CLOSED
            s.pos += 1
        else:
            s.crate_status[p] = CRATE_SITTING_OUT
            s.pos += 1
    s.phase = PH_ANNOUNCE
    s.pos = 0
    return False


@kernel
def legal_pack(s, out):
    p = s.turn
    for t in range(NUM_GOODS):  # a store per id, no branch to mispredict (see legal_mask)
        out[A_PACK + t] = s.hand[p, t] > 0
    if s.crate_size[p] > 0:
        out[A_CLOSE] = 1


@kernel
def apply_pack(s, a):
    p = s.turn
    if a == A_CLOSE:
        s.crate_status[p] = CRATE_CLOSED
        s.pos += 1
    else:
        t = a - A_PACK
        remove_from_hand(s, p, t, NOBODY)  # packing is private (P-3)
        s.crate[p, t] += 1
        s.crate_size[p] += 1


@kernel
def seek_announce(s):
    n = num_players(s)
    while s.pos < n:
        p = s.order[s.pos]
        if s.crate_status[p] == CRATE_CLOSED:
            s.turn = p
            return True
        s.pos += 1
    s.phase = PH_CHOOSE_CRATE
    s.pos = 0
    return False


@kernel
def legal_announce(s, out):
    for t in range(NUM_LEGAL):
        if t == TOBACCO and num_players(s) == 3 and s.cfg[CFG_TOBACCO_3P] == 0:
            continue  # R-24 variant
        out[A_ANNOUNCE + t] = 1


@kernel
def apply_announce(s, a):
    """The count is filled in by the engine (4.3-1a); the type may be a lie (4.3-2)."""
    p = s.turn
    s.announced[p] = a - A_ANNOUNCE
    s.crate_status[p] = CRATE_ANNOUNCED
    s.pos += 1
