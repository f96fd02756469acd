"""Main-resource collection: which warehouse cards complete a main resource (§5, §12.3, §12.4).

:func:`best_collection` answers, for one warehouse and one main resource ``m``, whether ``m`` can be
collected now and with which cards; :func:`can_collect` is the feasibility-only shortcut used by
the legal-action mask (P-6). Both are numba kernels.

Counting rules (RULINGS 5-4..5-12, R-26)
---------------------------------------
A requirement is up to three *parts* ``MAIN_PARTS[m, j] = (kind, type, n)`` (see
:mod:`borders_sim.rules.cards`):

* ``PART_PIECES(t, n)`` (5-9): n pieces of legal type ``t``; a legal card of type ``t`` is 1 piece,
  a premium card whose ``PIECE_TYPE`` is ``t`` is ``PIECES`` (2 or 3) pieces (5-4). Overshoot is
  allowed, the excess is wasted (R-26a); a premium card is never split between parts (R-26b).
* ``PART_NAMED(t, n)`` (5-8): n cards of exactly contraband type ``t``; premium cards never fill it.
* ``PART_ANY(n)`` (5-5, 5-7): n cards, each a contraband (4..7) or a premium (8..13) card.
* ``PART_DIFFERENT(n)`` (5-11, Bottles): n different legal types, one piece each; a legal card or
  a premium card stands for its own ``PIECE_TYPE``.
* ``PART_SAME(n)`` (5-10, Truck): n pieces of one legal type of the solver's choosing; solved as
  ``PART_PIECES(t, n)`` for each of the four legal types ``t``.

One card fills only one part, and a premium card is used either as pieces of its type or as one
"any contraband", never both (5-6).

Black-market top-up (5-12, R-26c/e/f): at most once per collection, one missing piece of any one
part is bought for :data:`~borders_sim.rules.cards.BLACK_MARKET_PRICE` gold: a legal piece, one
"different type", one "any contraband" or one named contraband card. It is the same as lowering
that part's ``n`` by one. It is used only when no set completes ``m`` without it (R-26f).

Choice of the cards (R-26f): among the valid sets, the lowest total ``CARD_VALUE``; ties broken by
fewer premium cards; then by "lowest card ids", which this module reads as: the lexicographically
smallest *ascending-sorted list of the card type ids spent* (one entry per card, compared like
Python lists, so a list that is a proper prefix of another is the smaller). The choice is a
deterministic function of ``(have, m, top_up_allowed)``.

Algorithm
---------
Exact branch and bound, no recursion:

1. Named parts are forced: exactly ``n`` cards of their type (more would only cost more), so they
   are taken out of the availability first.
2. The other parts become a list of *slots* ``(part, eligible card type)``, cheapest types first.
   An iterative depth-first search with explicit per-slot arrays chooses how many cards of that
   type go to that part, trying the largest useful count first (never more than the part still
   needs; for Bottles at most one card per legal type). A part is checked when its last slot is
   set; a lower count at that slot covers less, so the slot is abandoned on failure.
3. A branch is pruned when ``16 * (cost + lower bound of the rest) + premium cards so far`` exceeds
   the best key found; the lower bound is the part's cheapest value per unit (per piece for
   pieces, per card otherwise) times the units still missing. Equal keys are kept, so leaves with
   the same value and premium count are compared by the sorted-id rule. All cards are worth at
   least 2, so the optimum never holds a useless card.

Without a plain set and with the top-up allowed, the same search runs once per part with that
part's ``n`` lowered by one (and per legal type for Truck); the best of those runs wins under the
same order.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .cards import (
    BLACK_MARKET_PRICE,
    CARD_CLASS,
    CARD_VALUE,
    CLASS_CONTRABAND,
    CLASS_PREMIUM,
    MAIN_PARTS,
    MAX_PARTS,
    NUM_GOODS,
    NUM_LEGAL,
    NUM_MAIN,
    PART_ANY,
    PART_DIFFERENT,
    PART_NAMED,
    PART_NONE,
    PART_PIECES,
    PART_SAME,
    PIECE_TYPE,
    PIECES,
)

@njit(cache=True)
def _lex_less(a, b):
    """True if the ascending sorted id list of count vector ``a`` is < that of ``b`` (R-26f)."""
    ra = 0
    rb = 0
    for t in range(NUM_GOODS):
        ra += a[t]
        rb += b[t]
    for t in range(NUM_GOODS):
        if a[t] != b[t]:
            if a[t] > b[t]:
                # After b[t] copies of t, a goes on with t; b goes on with a larger id or ends.
                return rb - b[t] > 0
            # b goes on with t; a goes on with a larger id (a bigger) or ends (a is a prefix).
            return ra - a[t] == 0
        ra -= a[t]
        rb -= b[t]
    return False


@njit(cache=True)
def _eligible(kind, ptype, c):
    """Whether a card of type ``c`` can fill a non-named part ``(kind, ptype)`` (5-5..5-11)."""
    if kind == PART_PIECES:
        return PIECE_TYPE[c] == ptype
    if kind == PART_DIFFERENT:
        return PIECE_TYPE[c] >= 0
    if kind == PART_ANY:
        return CARD_CLASS[c] == CLASS_CONTRABAND or CARD_CLASS[c] == CLASS_PREMIUM
    return False


@njit(cache=True)
def _any_order(out):
    """Fill ``out`` with the "any contraband" card types (5-7) by value, non-premium first at equal
    value, then id (a good first incumbent for the search); return how many there are."""
    n_any = 0
    for c in range(NUM_GOODS):
        if CARD_CLASS[c] == CLASS_CONTRABAND or CARD_CLASS[c] == CLASS_PREMIUM:
            kc = CARD_VALUE[c] * 2 + (1 if CARD_CLASS[c] == CLASS_PREMIUM else 0)
            i = n_any
            while i > 0:
                d = out[i - 1]
                kd = CARD_VALUE[d] * 2 + (1 if CARD_CLASS[d] == CLASS_PREMIUM else 0)
                if kd <= kc:
                    break
                out[i] = d
                i -= 1
            out[i] = c
            n_any += 1
    return n_any


@njit(cache=True)
def _search(have, kinds, ptypes, needs, any_order, n_any, best, best_used, work):
    """Branch and bound for one fixed requirement (no PART_SAME; needs already lowered for a top-up).

    Updates ``best[0]`` (key ``16 * value + premium count``) and ``best_used`` when it finds a set
    that is better under R-26f than the incumbent. ``work`` is an int64 scratch buffer of
    ``2 * 14 + 5 * 3 * 14 + 6 * 3`` entries (one allocation per :func:`best_collection` call).
    """
    ns = MAX_PARTS * NUM_GOODS
    avail = work[0:NUM_GOODS]
    used = work[NUM_GOODS:2 * NUM_GOODS]
    o = 2 * NUM_GOODS
    slot_part = work[o:o + ns]
    slot_type = work[o + ns:o + 2 * ns]
    slot_last = work[o + 2 * ns:o + 3 * ns]
    nxt = work[o + 3 * ns:o + 4 * ns]
    cur = work[o + 4 * ns:o + 5 * ns]
    o += 5 * ns
    lb_num = work[o:o + MAX_PARTS]                     # cheapest value per unit: lb_num / lb_den
    lb_den = work[o + MAX_PARTS:o + 2 * MAX_PARTS]
    suffix_lb = work[o + 2 * MAX_PARTS:o + 3 * MAX_PARTS]  # lower bound of the later parts
    order = work[o + 3 * MAX_PARTS:o + 4 * MAX_PARTS]
    covered = work[o + 4 * MAX_PARTS:o + 5 * MAX_PARTS]
    dmask = work[o + 5 * MAX_PARTS:o + 6 * MAX_PARTS]

    for c in range(NUM_GOODS):
        avail[c] = have[c] if have[c] > 0 else 0
        used[c] = 0
    for j in range(MAX_PARTS):
        covered[j] = 0
        dmask[j] = 0
    cost = 0
    prem = 0

    # 1. named contraband parts are forced (5-8)
    for j in range(MAX_PARTS):
        if kinds[j] == PART_NAMED and needs[j] > 0:
            t = ptypes[j]
            n = needs[j]
            if avail[t] < n:
                return
            avail[t] -= n
            used[t] += n
            cost += n * CARD_VALUE[t]

    # 2. slots (part, eligible type) of the other parts
    n_active = 0
    S = 0
    for j in range(MAX_PARTS):
        kind = kinds[j]
        if kind == PART_NONE or kind == PART_NAMED or needs[j] <= 0:
            continue
        supply = 0
        mask = 0
        best_num = -1
        best_den = 1
        n_cand = n_any if kind == PART_ANY else NUM_GOODS
        for i in range(n_cand):
            c = any_order[i] if kind == PART_ANY else i
            if avail[c] <= 0 or not _eligible(kind, ptypes[j], c):
                continue
            u = PIECES[c] if kind == PART_PIECES else 1
            slot_part[S] = j
            slot_type[S] = c
            slot_last[S] = 0
            S += 1
            if kind == PART_DIFFERENT:
                mask |= 1 << PIECE_TYPE[c]
            else:
                supply += avail[c] * u
            if best_num < 0 or CARD_VALUE[c] * best_den < best_num * u:
                best_num = CARD_VALUE[c]
                best_den = u
        if kind == PART_DIFFERENT:
            for t in range(NUM_LEGAL):
                if mask & (1 << t):
                    supply += 1
        if supply < needs[j]:
            return  # this part alone cannot be filled
        slot_last[S - 1] = 1
        lb_num[j] = best_num
        lb_den[j] = best_den
        order[n_active] = j
        n_active += 1
    acc = 0
    for k in range(n_active - 1, -1, -1):
        j = order[k]
        suffix_lb[j] = acc
        acc += (needs[j] * lb_num[j]) // lb_den[j]
    if (cost + acc) * 16 > best[0]:
        return

    if S == 0:  # only named parts
        key = cost * 16 + prem
        if key < best[0] or (key == best[0] and _lex_less(used, best_used)):
            best[0] = key
            for c in range(NUM_GOODS):
                best_used[c] = used[c]
        return

    # 3. iterative DFS over slots: nxt = next count to try (descending), cur = count applied
    s = 0
    j = slot_part[0]
    c = slot_type[0]
    rem = needs[j]
    if kinds[j] == PART_PIECES:
        hi = (rem + PIECES[c] - 1) // PIECES[c]
    elif kinds[j] == PART_ANY:
        hi = rem
    else:
        hi = 1
    nxt[0] = min(hi, avail[c])
    cur[0] = -1

    while s >= 0:
        j = slot_part[s]
        c = slot_type[s]
        kind = kinds[j]
        u = PIECES[c] if kind == PART_PIECES else 1
        isp = 1 if CARD_CLASS[c] == CLASS_PREMIUM else 0
        k = cur[s]
        if k > 0:  # undo the count applied at this slot
            avail[c] += k
            used[c] -= k
            cost -= k * CARD_VALUE[c]
            prem -= k * isp
            covered[j] -= k * u
            if kind == PART_DIFFERENT:
                dmask[j] &= ~(1 << PIECE_TYPE[c])
        cur[s] = -1
        k = nxt[s]
        if k < 0:
            s -= 1
            continue
        nxt[s] = k - 1
        if k > 0:
            avail[c] -= k
            used[c] += k
            cost += k * CARD_VALUE[c]
            prem += k * isp
            covered[j] += k * u
            if kind == PART_DIFFERENT:
                dmask[j] |= 1 << PIECE_TYPE[c]
        cur[s] = k
        if slot_last[s] != 0 and covered[j] < needs[j]:
            nxt[s] = -1  # lower counts cover even less
            continue
        rem = needs[j] - covered[j]
        if rem < 0:
            rem = 0
        lb = cost + (rem * lb_num[j]) // lb_den[j] + suffix_lb[j]
        if lb * 16 + prem > best[0]:
            continue
        if s == S - 1:
            key = cost * 16 + prem
            if key < best[0] or (key == best[0] and _lex_less(used, best_used)):
                best[0] = key
                for t in range(NUM_GOODS):
                    best_used[t] = used[t]
            continue
        # enter slot s + 1
        s += 1
        j = slot_part[s]
        c = slot_type[s]
        rem = needs[j] - covered[j]
        if rem <= 0 or avail[c] <= 0:
            hi = 0
        elif kinds[j] == PART_PIECES:
            hi = min((rem + PIECES[c] - 1) // PIECES[c], avail[c])
        elif kinds[j] == PART_ANY:
            hi = min(rem, avail[c])
        elif dmask[j] & (1 << PIECE_TYPE[c]):
            hi = 0
        else:
            hi = 1
        nxt[s] = hi
        cur[s] = -1


@njit(cache=True)
def _search_same(have, kinds, ptypes, needs, any_order, n_any, best, best_used, work):
    """Run :func:`_search`, expanding a PART_SAME (Truck, 5-10) into PART_PIECES of each legal type."""
    js = -1
    for j in range(MAX_PARTS):
        if kinds[j] == PART_SAME:
            js = j
            break
    if js < 0:
        _search(have, kinds, ptypes, needs, any_order, n_any, best, best_used, work)
        return
    kinds[js] = PART_PIECES
    for t in range(NUM_LEGAL):
        ptypes[js] = t
        _search(have, kinds, ptypes, needs, any_order, n_any, best, best_used, work)
    kinds[js] = PART_SAME
    ptypes[js] = -1


@njit(cache=True)
def _part_deficit(have, kind, ptype, n):
    """Units part ``(kind, ptype, n)`` misses when it alone may use the whole warehouse.

    The sum over the parts is a lower bound on the missing units of the whole requirement (the
    parts compete for cards), which rejects most warehouses before any search.
    """
    if kind == PART_NONE or n <= 0:
        return 0
    supply = 0
    if kind == PART_NAMED:
        supply = have[ptype] if have[ptype] > 0 else 0
    elif kind == PART_PIECES:
        for c in range(NUM_GOODS):
            if PIECE_TYPE[c] == ptype and have[c] > 0:
                supply += have[c] * PIECES[c]
    elif kind == PART_ANY:
        for c in range(NUM_GOODS):
            if (CARD_CLASS[c] == CLASS_CONTRABAND or CARD_CLASS[c] == CLASS_PREMIUM) and have[c] > 0:
                supply += have[c]
    elif kind == PART_DIFFERENT:
        mask = 0
        for c in range(NUM_GOODS):
            if PIECE_TYPE[c] >= 0 and have[c] > 0:
                mask |= 1 << PIECE_TYPE[c]
        for t in range(NUM_LEGAL):
            if mask & (1 << t):
                supply += 1
    else:  # PART_SAME: the best single legal type
        for t in range(NUM_LEGAL):
            st = 0
            for c in range(NUM_GOODS):
                if PIECE_TYPE[c] == t and have[c] > 0:
                    st += have[c] * PIECES[c]
            if st > supply:
                supply = st
    return n - supply if supply < n else 0


@njit(cache=True)
def best_collection(have, m, top_up_allowed, out_used):
    """Best set of warehouse cards completing main resource ``m`` (5-4..5-12, R-26).

    have: int32 or int64 array [14] of warehouse goods counts by card type (types 0..13; a longer
    array is accepted and only its first 14 entries are read).
    m: main resource id 0..11. top_up_allowed: bool (player has >= 10 free gold).
    out_used: int64 array [14], filled with the cards to spend (zeros if impossible).
    Returns -1 if m cannot be completed, 0 if it can without the black market, 1 if it needs the
    black-market top-up (one missing piece replaced for 10 gold).
    """
    if m < 0 or m >= NUM_MAIN:
        raise ValueError("best_collection: main resource id out of range")
    if have.shape[0] < NUM_GOODS or out_used.shape[0] < NUM_GOODS:
        raise ValueError("best_collection: have and out_used need 14 entries")
    for c in range(out_used.shape[0]):
        out_used[c] = 0
    # quick rejection on independent per-part deficits (a lower bound on the real deficit)
    d0 = _part_deficit(have, MAIN_PARTS[m, 0, 0], MAIN_PARTS[m, 0, 1], MAIN_PARTS[m, 0, 2])
    d1 = _part_deficit(have, MAIN_PARTS[m, 1, 0], MAIN_PARTS[m, 1, 1], MAIN_PARTS[m, 1, 2])
    d2 = _part_deficit(have, MAIN_PARTS[m, 2, 0], MAIN_PARTS[m, 2, 1], MAIN_PARTS[m, 2, 2])
    lower = d0 + d1 + d2
    if lower >= 2 or (lower == 1 and not top_up_allowed):
        return -1
    # one allocation: parts (3 x 3), best key, best set, ANY order, search scratch
    n_work = 2 * NUM_GOODS + 5 * MAX_PARTS * NUM_GOODS + 6 * MAX_PARTS  # views in _search
    buf = np.empty(3 * MAX_PARTS + 1 + 2 * NUM_GOODS + n_work, dtype=np.int64)
    kinds = buf[0:MAX_PARTS]
    ptypes = buf[MAX_PARTS:2 * MAX_PARTS]
    needs = buf[2 * MAX_PARTS:3 * MAX_PARTS]
    o = 3 * MAX_PARTS
    best = buf[o:o + 1]
    best_used = buf[o + 1:o + 1 + NUM_GOODS]
    any_order = buf[o + 1 + NUM_GOODS:o + 1 + 2 * NUM_GOODS]
    work = buf[o + 1 + 2 * NUM_GOODS:]
    for j in range(MAX_PARTS):
        kinds[j] = MAIN_PARTS[m, j, 0]
        ptypes[j] = MAIN_PARTS[m, j, 1]
        needs[j] = MAIN_PARTS[m, j, 2]
    no_key = 1 << 62  # sentinel key: no set found yet
    best[0] = no_key
    for c in range(NUM_GOODS):
        best_used[c] = 0
    n_any = _any_order(any_order)

    if lower == 0:
        _search_same(have, kinds, ptypes, needs, any_order, n_any, best, best_used, work)
    status = 0
    if best[0] == no_key:
        if not top_up_allowed:
            return -1
        # R-26c: one missing piece of any one part; R-26f: best over all such choices. A part
        # short on its own (lower == 1) cannot be completed by cards, so the top-up goes there.
        for j in range(MAX_PARTS):
            if kinds[j] == PART_NONE or needs[j] <= 0:
                continue
            if lower == 1 and (d0 if j == 0 else (d1 if j == 1 else d2)) == 0:
                continue
            needs[j] -= 1
            _search_same(have, kinds, ptypes, needs, any_order, n_any, best, best_used, work)
            needs[j] += 1
        if best[0] == no_key:
            return -1
        status = 1
    for c in range(NUM_GOODS):
        out_used[c] = best_used[c]
    return status


@njit(cache=True)
def can_collect(have, m, free_gold):
    """-1 / 0 / 1 as :func:`best_collection`; the top-up is allowed iff ``free_gold >= 10`` (R-26d)."""
    scratch = np.zeros(NUM_GOODS, dtype=np.int64)
    return best_collection(have, m, free_gold >= BLACK_MARKET_PRICE, scratch)
