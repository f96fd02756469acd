"""Card movements and asset queries shared by every phase, and the state's own random draws.

All randomness comes from the xorshift128+ generator in ``s.rng`` (RULINGS P-0.2;
:mod:`.rng`): :func:`rand_below`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .cards import (CARD_CLASS, CARD_FINE, CARD_VALUE, CLASS_LEGAL, FIRST_ACTION, HAND_LIMIT,
                    NIGHT_RAID, NUM_CARD_TYPES, NUM_GOODS, ROBBERY)
from .._compile.jit import kernel
from .rng import next_below
from .state import CFG_NUM_INSPECTORS, CFG_NUM_PLAYERS, CFG_ROLLOVER_2_5, END_FALLBACK, H_PLAYED


@kernel
def rand_below(s, k):
    """Uniform int in ``[0, k)`` from the state's own generator (P-0.2)."""
    return next_below(s.rng, k)


@kernel
def num_players(s):
    return s.cfg[CFG_NUM_PLAYERS]


@kernel
def num_inspectors(s):
    return s.cfg[CFG_NUM_INSPECTORS]


@kernel
def is_inspector(s, p):
    return p == s.insp[0] or p == s.insp[1]


# --- private knowledge of hidden cards (R-39) -----------------------------------------------
#: ``witness`` values of :func:`forget`: everybody saw the card's type, or only its owner.
PUBLIC, NOBODY = -2, -1


@njit(inline="always")
def forget(know, n, o, t, witness):
    """A hidden card of type ``t`` left ``o``'s hand or face-down warehouse (``know`` is
    ``s.know_hand`` or ``s.know_down``). A viewer who saw the type lowers its bound for that
    type, any other viewer every bound it holds on ``o``: each stays certain (R-39)."""
    for v in range(n):
        if v == o:
            continue
        if witness == PUBLIC or v == witness:
            if know[v, o, t] > 0:
                know[v, o, t] -= 1
        else:
            for u in range(know.shape[2]):  # a subtraction, no branch: most bounds are 0
                know[v, o, u] -= know[v, o, u] > 0


# --- hands and action-card lifetimes (§7.2) ------------------------------------------------
@kernel
def hand_size(s, p):
    n = 0
    for t in range(NUM_CARD_TYPES):
        n += s.hand[p, t]
    return n


@kernel
def goods_in_hand(s, p):
    n = 0
    for t in range(NUM_GOODS):
        n += s.hand[p, t]
    return n


@kernel
def active_cards(s, p, t):
    """Copies of action card type ``t`` that ``p`` may use this round (§7.2 lifetime model)."""
    return s.hand[p, t] - s.hand_later[p, t - FIRST_ACTION]


@kernel
def is_deferred_for_inspector(t):
    """Secret Route, False Bottom, Syndicate Fund and Lawyer wait for a smuggler round (7.2-3)."""
    return t != FIRST_ACTION + 1 and t != FIRST_ACTION + 4


@kernel
def add_to_hand(s, p, t, later):
    """A card enters ``p``'s hand. Action cards are active now unless ``later`` (refill, setup)
    or deferred because ``p`` is an inspector this round (7.2-3, R-20)."""
    s.hand[p, t] += 1
    if t >= FIRST_ACTION and (later or (is_inspector(s, p) and is_deferred_for_inspector(t))):
        s.hand_later[p, t - FIRST_ACTION] += 1


@kernel
def remove_from_hand(s, p, t, witness):
    """A card leaves ``p``'s hand; of an action card the copy that expires soonest goes (P-0.6).
    ``witness`` saw its type besides ``p``: a seat, :data:`PUBLIC` or :data:`NOBODY`."""
    s.hand[p, t] -= 1
    if t >= FIRST_ACTION:
        k = t - FIRST_ACTION
        if s.hand_later[p, k] > s.hand[p, t]:
            s.hand_later[p, k] -= 1
    forget(s.know_hand, num_players(s), p, t, witness)


@kernel
def random_hand_card(s, p):
    """A uniformly random card of ``p``'s hand (Night Raid, NR-2), or -1 for an empty hand."""
    n = hand_size(s, p)
    if n == 0:
        return -1
    r = rand_below(s, n)
    for t in range(NUM_CARD_TYPES):
        r -= s.hand[p, t]
        if r < 0:
            return t
    return -1


# --- draw and discard piles (4.5-6, R-29, R-30) --------------------------------------------
@kernel
def shuffle_discard_into_draw(s):
    n = 0
    for t in range(NUM_CARD_TYPES):
        for _ in range(s.discard[t]):
            s.draw[n] = t
            n += 1
        s.discard[t] = 0
    for i in range(n - 1, 0, -1):
        j = rand_below(s, i + 1)
        tmp = s.draw[i]
        s.draw[i] = s.draw[j]
        s.draw[j] = tmp
    s.draw_len = n


@kernel
def note_runout(s, trigger_round):
    """Count a run-out of the draw pile; the second one starts the fallback (6-6, R-29)."""
    s.runouts += 1
    if s.runouts == 2 and s.trigger_round == 0:
        s.trigger_round = trigger_round
        s.end_reason = END_FALLBACK


@kernel
def draw_up_to_limit(s, p, later, trigger_round):
    """``p`` draws until holding 6 cards, reshuffling lazily (R-30). A draw from an empty pile
    is a run-out; if the discard pile is empty too the hand stays short (R-29). Cards drawn
    now (``later`` False: the market) are active this round (R-19), except a Night Raid or
    Robbery under the ``midround_2_5_rollover`` variant, which waits for the next round."""
    rollover = not later and s.cfg[CFG_ROLLOVER_2_5] != 0
    for _ in range(hand_size(s, p), HAND_LIMIT):
        if s.draw_len == 0:
            note_runout(s, trigger_round)
            shuffle_discard_into_draw(s)
            if s.draw_len == 0:
                return
        s.draw_len -= 1
        t = np.int64(s.draw[s.draw_len])
        add_to_hand(s, p, t, later or (rollover and (t == NIGHT_RAID or t == ROBBERY)))


@kernel
def discard_from_hand(s, p, t):
    """``p`` discards a card of type ``t`` face up onto the open discard pile."""
    remove_from_hand(s, p, t, PUBLIC)
    s.discard[t] += 1


@kernel
def play_card(s, p, t):
    """``p`` plays action card ``t``: it is shown, counted in the public history and
    discarded (§7)."""
    s.hist[p, H_PLAYED + t - FIRST_ACTION] += 1
    discard_from_hand(s, p, t)


# --- warehouses and escrow (R-09, R-33) ----------------------------------------------------
@kernel
def warehouse_count(s, p, t):
    return s.wh_up[p, t] + s.wh_down[p, t]


@kernel
def free_gold(s, p):
    """Gold not reserved by an accepted deal or bounty (R-09)."""
    return s.gold[p] - s.res_gold[p]


@kernel
def free_warehouse(s, p, t):
    return warehouse_count(s, p, t) - s.res_wh[p, t]


@kernel
def store(s, p, t):
    """A goods card enters ``p``'s warehouse: legal face up, the rest face down (4.4-A1, R-33)."""
    if CARD_CLASS[t] == CLASS_LEGAL:
        s.wh_up[p, t] += 1
    else:
        s.wh_down[p, t] += 1


@kernel
def take_from_warehouse(s, p, t, witness):
    """Remove one card of type ``t`` from ``p``'s warehouse, face-up copies first; ``witness``
    (a seat, :data:`PUBLIC` or :data:`NOBODY`) saw the type of a face-down one."""
    if s.wh_up[p, t] > 0:
        s.wh_up[p, t] -= 1
    else:
        s.wh_down[p, t] -= 1
        forget(s.know_down, num_players(s), p, t, witness)


@kernel
def hand_over_goods(s, src, dst, t, from_crate):
    """A goods card of type ``t`` goes from ``src``'s warehouse (or crate) to ``dst``'s
    warehouse. Only the two of them learn a face-down card's type (R-33), so ``src`` now
    knows it lies face down with ``dst`` (R-39)."""
    if from_crate:
        s.crate[src, t] -= 1
    else:
        take_from_warehouse(s, src, t, dst)
    store(s, dst, t)
    if CARD_CLASS[t] != CLASS_LEGAL and s.know_down[src, dst, t] < 127:
        s.know_down[src, dst, t] += 1


@kernel
def card_order_key(t):
    """Sort key for automatic goods payments: lowest value, then lowest fine, then id (R-14d)."""
    return (CARD_VALUE[t] * 16 + CARD_FINE[t]) * 32 + t


@kernel
def cheapest_free_card(s, p, legal):
    """Type of ``p``'s free warehouse card of the given class (legal, or contraband and
    premium) with the lowest :func:`card_order_key`, or -1 if there is none."""
    best = -1
    best_key = 1 << 30
    for t in range(NUM_GOODS):
        if free_warehouse(s, p, t) <= 0 or (CARD_CLASS[t] == CLASS_LEGAL) != legal:
            continue
        k = card_order_key(t)
        if k < best_key:
            best_key = k
            best = t
    return best


@kernel
def pay_debt(s, payer, creditor, amount):
    """Pay a fine of ``amount`` (R-14): free gold, then free legal warehouse cards, then
    contraband and premium, lowest value first; each card counts its value, no change; the
    rest is forgiven. ``creditor`` -1 is the bank (gold only, R-14f). Returns the value paid."""
    if amount <= 0:
        return 0
    paid = min(amount, max(free_gold(s, payer), 0))
    s.gold[payer] -= paid
    if creditor >= 0:
        s.gold[creditor] += paid
    else:
        s.bank_in += paid
        return paid
    for legal in (True, False):
        while paid < amount:
            t = cheapest_free_card(s, payer, legal)
            if t < 0:
                break
            hand_over_goods(s, payer, creditor, t, False)
            paid += CARD_VALUE[t]
    return paid
