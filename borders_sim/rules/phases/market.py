"""Phase 1 of a round: the action window (P-1, R-01, R-02, R-21) and the market (P-2, §4.1).

Each phase has ``seek_*`` (find the next player to decide, or move on to the next phase and
return False), ``legal_*`` (set the legal ids in a mask) and ``apply_*`` (apply one legal id).
"""

from __future__ import annotations


from ..actions import A_DISCARD, A_END_MARKET, A_RAID, A_ROB, A_WINDOW_PASS
from ..cards import (HAND_LIMIT, MAX_MARKET_DISCARDS, NIGHT_RAID, NUM_CARD_TYPES, ROBBERY,
                    ROBBERY_DIE)
from ..._compile.jit import kernel
from ..piles import (active_cards, add_to_hand, discard_from_hand, draw_up_to_limit, free_gold,
                    hand_size, is_inspector, num_players, play_card, rand_below,
                    random_hand_card, remove_from_hand)
from ..state import CFG_ROBBERY_OWN_TURN, PH_MARKET, PH_PACK, PH_RAID_DISCARD, PH_WINDOW


# --- action window (P-1) --------------------------------------------------------------------
@kernel
def _may_rob_in_window(s, p):
    if active_cards(s, p, ROBBERY) == 0:
        return False
    return s.cfg[CFG_ROBBERY_OWN_TURN] == 0 or is_inspector(s, p)


@kernel
def _has_window_play(s, p):
    return active_cards(s, p, NIGHT_RAID) > 0 or _may_rob_in_window(s, p)


@kernel
def seek_window(s):
    """The window goes round in round order until every player has passed in a row (R-02);
    a player with nothing to play passes without being asked."""
    n = num_players(s)
    while s.window_passes < n:
        p = s.order[s.pos]
        if _has_window_play(s, p):
            s.turn = p
            return True
        s.window_passes += 1
        s.pos = (s.pos + 1) % n
    s.phase = PH_MARKET
    s.pos = 0
    s.count = 0
    return False


@kernel
def legal_window(s, out):
    p = s.turn
    if active_cards(s, p, NIGHT_RAID) > 0:
        out[A_RAID] = 1
    if _may_rob_in_window(s, p):
        for q in range(num_players(s)):
            if q != p:
                out[A_ROB + q] = 1
    out[A_WINDOW_PASS] = 1


@kernel
def rob(s, p, target):
    """Robbery (RB-2): roll a d6; the target pays that much gold, or all they have."""
    play_card(s, p, ROBBERY)
    roll = rand_below(s, ROBBERY_DIE) + 1
    paid = min(roll, max(free_gold(s, target), 0))
    s.gold[target] -= paid
    s.gold[p] += paid


@kernel
def night_raid(s, p):
    """Night Raid (NR-2, R-20, R-21): one random card from every opponent, then discard to 6.
    The cards are taken face down: only the raider and each victim learn what was taken (R-39),
    and the victim knows the raider holds it until the raider may have lost it."""
    play_card(s, p, NIGHT_RAID)
    n = num_players(s)
    s.raid_thief = p
    s.raid_taken[p] = -1  # (a second raid in the round: its thief lost nothing to it)
    for i in range(1, n):
        q = (p + i) % n
        t = random_hand_card(s, q)
        s.raid_taken[q] = t
        if t >= 0:
            remove_from_hand(s, q, t, p)
            add_to_hand(s, p, t, False)
            if s.know_hand[q, p, t] < 127:
                s.know_hand[q, p, t] += 1


@kernel
def apply_window(s, a):
    p = s.turn
    n = num_players(s)
    if a == A_WINDOW_PASS:
        s.window_passes += 1
    else:
        s.window_passes = 0
        if a == A_RAID:
            night_raid(s, p)
            if hand_size(s, p) > HAND_LIMIT:
                s.phase = PH_RAID_DISCARD
                return
        else:
            rob(s, p, a - A_ROB)
    s.pos = (s.pos + 1) % n


@kernel
def seek_raid_discard(s):
    if hand_size(s, s.turn) > HAND_LIMIT:
        return True
    s.phase = PH_WINDOW
    s.pos = (s.pos + 1) % num_players(s)
    return False


@kernel
def legal_raid_discard(s, out):
    for t in range(NUM_CARD_TYPES):
        out[A_DISCARD + t] = s.hand[s.turn, t] > 0


@kernel
def apply_raid_discard(s, a):
    discard_from_hand(s, s.turn, a - A_DISCARD)


# --- market (P-2) ----------------------------------------------------------------------------
@kernel
def seek_market(s):
    """Smugglers in round order; inspectors take no part (4.1-3)."""
    n = num_players(s)
    while s.pos < n:
        p = s.order[s.pos]
        if not is_inspector(s, p):
            s.turn = p
            return True
        s.pos += 1
    s.phase = PH_PACK
    s.pos = 0
    return False


@kernel
def legal_market(s, out):
    p = s.turn
    if s.count < MAX_MARKET_DISCARDS:
        for t in range(NUM_CARD_TYPES):  # a store per id, no branch (see legal_mask)
            out[A_DISCARD + t] = s.hand[p, t] > 0
    if s.count == 0 and s.cfg[CFG_ROBBERY_OWN_TURN] != 0 and active_cards(s, p, ROBBERY) > 0:
        for q in range(num_players(s)):
            if q != p:
                out[A_ROB + q] = 1
    out[A_END_MARKET] = 1


@kernel
def apply_market(s, a):
    p = s.turn
    if a == A_END_MARKET:
        draw_up_to_limit(s, p, False, s.round)
        s.pos += 1
        s.count = 0
    elif a >= A_DISCARD and a < A_DISCARD + NUM_CARD_TYPES:
        discard_from_hand(s, p, a - A_DISCARD)
        s.count += 1
    else:
        rob(s, p, a - A_ROB)
