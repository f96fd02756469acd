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

0. Quick rejection: each part's shortfall when it alone may use the whole warehouse; their sum is
   a lower bound on the real shortfall (parts compete for cards). A sum of 2 or more is -1 at once
   (one top-up at most), and a sum of 1 means the top-up must go to that part.
1. Named parts are forced: exactly ``n`` cards of their type (more would only cost more), so they
   are taken out of the availability first.
2. "Any contraband" parts are filled last, greedily, at each leaf of the search (:func:`_finish`):
   for a fixed rest of the set, the cheapest contraband/premium cards in the order (value,
   non-premium first, id) are the best completion under R-26f (proof in :func:`_finish`).
3. The pieces and different-types parts become a list of *slots* ``(part, eligible card type)``.
   An iterative depth-first search with explicit per-slot arrays chooses how many cards of that
   type go to that part, trying the largest useful count first (never more than the part still
   needs; for Bottles at most one card per legal type). A part is checked when its last slot is
   set; a lower count at that slot covers less, so the slot is abandoned on failure.
4. A branch is pruned when ``16 * (cost + lower bound of the rest) + premium cards so far`` exceeds
   the best key found; the lower bound is, for the current part, the cheapest value per unit
   (per piece for pieces, per card otherwise) among its remaining slots times the units still
   missing, plus for each later part its cheapest value per unit times its ``n`` (for the
   contraband parts, the cheapest available contraband/premium card). Equal keys are kept, so leaves with
   the same value and premium count are compared by the sorted-id rule (a set has at most 7 cards,
   so the premium count never reaches 16). All cards are worth at least 2, so the optimum never
   holds a useless card.

Without a plain set and with the top-up allowed, the same search runs once per part with that
part's ``n`` lowered by one (and per legal type for Truck); the best of those runs wins under the
same order. All scratch lives in one int64 matrix allocated per call, indexed by row rather than
sliced into views (the views' bookkeeping measurably slowed the calls); the search only sees that
matrix, so it compiles once whatever the dtype of ``have``.

Cost (one call from numba, 2-core VM): about 0.05-0.1 us when the quick rejection answers, and
0.2-1.3 us on random 10-40 card warehouses averaged over the 12 main resources.
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
from .._compile.jit import kernel


US_ROW = 1  # the row of the work array holding the cards used so far

@kernel
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


@kernel
def _eligible(kind, ptype, c):
    """Whether a card of type ``c`` can fill a non-named part ``(kind, ptype)`` (5-5..5-11)."""
    if kind == PART_PIECES:
        return PIECE_TYPE[c] == ptype
    if kind == PART_DIFFERENT:
        return PIECE_TYPE[c] >= 0
    if kind == PART_ANY:
        return CARD_CLASS[c] == CLASS_CONTRABAND or CARD_CLASS[c] == CLASS_PREMIUM
    return False


@kernel
def _any_order(w, row):
    """Fill ``w[row]`` with the "any contraband" card types (5-7) by value, non-premium first at
    equal value, then id (the greedy order of :func:`_finish`); return how many there are."""
    n_any = 0
    for c in range(NUM_GOODS):
        if CARD_CLASS[c] == CLASS_CONTRABAND or CARD_CLASS[c] == CLASS_PREMIUM:
            kc = CARD_VALUE[c] * 2 + (1 if CARD_CLASS[c] == CLASS_PREMIUM else 0)
            i = n_any
            while i > 0:
                d = w[row, i - 1]
                kd = CARD_VALUE[d] * 2 + (1 if CARD_CLASS[d] == CLASS_PREMIUM else 0)
                if kd <= kc:
                    break
                w[row, i] = d
                i -= 1
            w[row, i] = c
            n_any += 1
    return n_any


# The scratch matrix ``w`` (int64, 22 x 42) of one best_collection call. Its rows are named by
# local constants in each kernel below (same values everywhere). Rows are indexed, not sliced out
# (views slowed the calls); only the rare equal-key tie-break compares two row views.
#   0 avail   1 used   2 slot part   3 slot type   4 slot is last of its part   5 next count
#   6 applied count   7, 8 cheapest value per unit of the later slots of the part (num / den)
#   per part j (column j): 9 kind  10 type  11 n  12, 13 cheapest value per unit (num / den)
#   14 lower bound of the later parts  15 active-part order  16 units covered  17 types mask
#   18 have (int64)  19 best set  20 any-contraband order  21 best key (column 0)


@kernel
def _finish(w, cost, prem, any_need, n_any):
    """Complete a leaf with ``any_need`` "any contraband" cards and offer it as the new best.

    The cards are taken greedily in the any-contraband order (value, then non-premium, then id).
    For a fixed rest of the set this is the best completion under R-26f: the ``any_need`` cheapest
    values give the lowest total; at the threshold value non-premium cards come first; and since
    every completion has exactly ``any_need`` cards, the sorted-id tie-break of the whole set
    prefers the completion with more of the lowest differing id, which lowest-ids-first gives.
    """
    BU, BK = 19, 21
    add_cost, add_prem, rem = _take_any(w, any_need, n_any, 1)
    if rem == 0:
        key = (cost + add_cost) * 16 + prem + add_prem
        if key < w[BK, 0] or (key == w[BK, 0] and _lex_less(w[US_ROW], w[BU])):
            w[BK, 0] = key
            for t in range(NUM_GOODS):
                w[BU, t] = w[US_ROW, t]
    _take_any(w, any_need, n_any, -1)  # undo


@kernel
def _take_any(w, any_need, n_any, sign):
    """Add (``sign`` 1) or take back (-1) the greedy "any contraband" cards of a leaf in the
    used row; returns (their value, their premium count, how many are still missing)."""
    AV, AO = 0, 20
    rem = any_need
    cost = 0
    prem = 0
    for i in range(n_any):
        if rem == 0:
            break
        c = w[AO, i]
        k = w[AV, c] if w[AV, c] < rem else rem
        if k > 0:
            w[US_ROW, c] += sign * k
            cost += k * CARD_VALUE[c]
            if CARD_CLASS[c] == CLASS_PREMIUM:
                prem += k
            rem -= k
    return cost, prem, rem


@njit(inline="always")
def _take_named(w):
    """Step 1: named contraband parts are forced (5-8): take exactly their cards out of the
    availability into the used row. Returns their value, or -1 if a part cannot be filled."""
    AV, US, KI, TY, NE = 0, 1, 9, 10, 11
    cost = 0
    for j in range(MAX_PARTS):
        if w[KI, j] == PART_NAMED and w[NE, j] > 0:
            t = w[TY, j]
            n = w[NE, j]
            if w[AV, t] < n:
                return -1
            w[AV, t] -= n
            w[US, t] += n
            cost += n * CARD_VALUE[t]
    return cost


@njit(inline="always")
def _any_parts(w, n_any):
    """Step 2: the cards the "any contraband" parts need (left to the greedy completion at the
    leaves, :func:`_finish`) and a lower bound on their value; the need is -1 if the warehouse
    lacks them."""
    AV, KI, NE, AO = 0, 9, 11, 20
    any_need = 0
    for j in range(MAX_PARTS):
        if w[KI, j] == PART_ANY and w[NE, j] > 0:
            any_need += w[NE, j]
    any_lb = 0
    if any_need > 0:
        supply = 0
        for i in range(n_any):
            c = w[AO, i]
            if w[AV, c] > 0:
                if supply == 0:
                    any_lb = any_need * CARD_VALUE[c]  # cheapest available contraband
                supply += w[AV, c]
        if supply < any_need:
            return -1, 0
    return any_need, any_lb


@njit(inline="always")
def _slots(w):
    """Step 3: the slots ``(part, eligible type)`` of the pieces and different-types parts, with
    each slot's suffix minimum of value per unit and each part's cheapest value per unit.
    Returns (slots, active parts), or (-1, 0) if a part alone cannot be filled."""
    AV, SP, ST, SL, LN, LD = 0, 2, 3, 4, 7, 8
    KI, TY, NE, PN, PD, OR = 9, 10, 11, 12, 13, 15
    n_active = 0
    S = 0
    for j in range(MAX_PARTS):
        kind = w[KI, j]
        if (kind != PART_PIECES and kind != PART_DIFFERENT) or w[NE, j] <= 0:
            continue
        first = S
        supply = 0
        mask = 0
        for c in range(NUM_GOODS):
            if w[AV, c] <= 0 or not _eligible(kind, w[TY, j], c):
                continue
            w[SP, S] = j
            w[ST, S] = c
            w[SL, S] = 0
            S += 1
            if kind == PART_DIFFERENT:
                mask |= 1 << PIECE_TYPE[c]
            else:
                supply += w[AV, c] * PIECES[c]
        if kind == PART_DIFFERENT:
            for t in range(NUM_LEGAL):
                if mask & (1 << t):
                    supply += 1
        if supply < w[NE, j]:
            return -1, 0
        w[SL, S - 1] = 1
        # suffix minima of value per unit (the part is complete after its last slot)
        best_num = 0
        best_den = 1
        for q in range(S - 1, first - 1, -1):
            w[LN, q] = best_num
            w[LD, q] = best_den
            c = w[ST, q]
            u = PIECES[c] if kind == PART_PIECES else 1
            if q == S - 1 or CARD_VALUE[c] * best_den < best_num * u:
                best_num = CARD_VALUE[c]
                best_den = u
        w[PN, j] = best_num
        w[PD, j] = best_den
        w[OR, n_active] = j
        n_active += 1
    return S, n_active


@njit(inline="always")
def _later_bounds(w, n_active, any_lb):
    """The lower bound of the parts after each active part (row 14); returns the bound of them
    all together with the any-contraband cards."""
    NE, PN, PD, SU, OR = 11, 12, 13, 14, 15
    acc = any_lb
    for k in range(n_active - 1, -1, -1):
        j = w[OR, k]
        w[SU, j] = acc
        acc += (w[NE, j] * w[PN, j]) // w[PD, j]
    return acc


@njit(inline="always")
def _first_count(w, s):
    """The largest useful count at slot ``s`` when it is entered."""
    AV, SP, ST, KI, NE, CO, DM = 0, 2, 3, 9, 11, 16, 17
    j = w[SP, s]
    c = w[ST, s]
    rem = w[NE, j] - w[CO, j]
    if rem <= 0 or w[AV, c] <= 0:
        return 0
    if w[KI, j] == PART_PIECES:
        return min((rem + PIECES[c] - 1) // PIECES[c], w[AV, c])
    if w[DM, j] & (1 << PIECE_TYPE[c]):
        return 0
    return 1


@njit(inline="always")
def _dfs(w, S, cost, prem, any_need, n_any):
    """Step 4: iterative depth-first search over the ``S`` slots (row 5: the next count to try,
    descending; row 6: the count applied), offering every complete leaf to :func:`_finish`."""
    AV, US, SP, ST, SL, NX, CU, LN, LD = 0, 1, 2, 3, 4, 5, 6, 7, 8
    KI, NE, SU, CO, DM, BK = 9, 11, 14, 16, 17, 21
    s = 0
    w[NX, 0] = _first_count(w, 0)
    w[CU, 0] = -1
    while s >= 0:
        j = w[SP, s]
        c = w[ST, s]
        kind = w[KI, j]
        u = PIECES[c] if kind == PART_PIECES else 1
        isp = 1 if CARD_CLASS[c] == CLASS_PREMIUM else 0
        k = w[CU, s]
        if k > 0:  # undo the count applied at this slot
            w[AV, c] += k
            w[US, c] -= k
            cost -= k * CARD_VALUE[c]
            prem -= k * isp
            w[CO, j] -= k * u
            if kind == PART_DIFFERENT:
                w[DM, j] &= ~(1 << PIECE_TYPE[c])
        w[CU, s] = -1
        k = w[NX, s]
        if k < 0:
            s -= 1
            continue
        w[NX, s] = k - 1
        if k > 0:
            w[AV, c] -= k
            w[US, c] += k
            cost += k * CARD_VALUE[c]
            prem += k * isp
            w[CO, j] += k * u
            if kind == PART_DIFFERENT:
                w[DM, j] |= 1 << PIECE_TYPE[c]
        w[CU, s] = k
        if w[SL, s] != 0 and w[CO, j] < w[NE, j]:
            w[NX, s] = -1  # lower counts cover even less
            continue
        rem = w[NE, j] - w[CO, j]
        if rem < 0:
            rem = 0
        lb = cost + (rem * w[LN, s]) // w[LD, s] + w[SU, j]
        if lb * 16 + prem > w[BK, 0]:
            continue
        if s == S - 1:
            _finish(w, cost, prem, any_need, n_any)
            continue
        s += 1  # enter slot s + 1
        w[NX, s] = _first_count(w, s)
        w[CU, s] = -1


@kernel(standalone=True)
def _search(w, n_any):
    """Branch and bound for the requirement in rows 9..11 of ``w`` (no PART_SAME; ``n`` already
    lowered for a top-up), in the four steps of the module docstring. Updates the best key
    (``16 * value + premium count``) and the best set when it finds a set that is better under
    R-26f than the incumbent."""
    AV, US, CO, DM, HV, BK = 0, 1, 16, 17, 18, 21
    for c in range(NUM_GOODS):
        w[AV, c] = w[HV, c]
        w[US, c] = 0
    for j in range(MAX_PARTS):
        w[CO, j] = 0
        w[DM, j] = 0
    cost = _take_named(w)
    if cost < 0:
        return
    any_need, any_lb = _any_parts(w, n_any)
    if any_need < 0:
        return
    S, n_active = _slots(w)
    if S < 0:
        return
    if (cost + _later_bounds(w, n_active, any_lb)) * 16 > w[BK, 0]:
        return
    if S == 0:  # only named and any-contraband parts
        _finish(w, cost, 0, any_need, n_any)
        return
    _dfs(w, S, cost, 0, any_need, n_any)


@kernel
def _search_same(w, n_any):
    """Run :func:`_search`, expanding a PART_SAME (Truck, 5-10) into PART_PIECES of each legal type."""
    KI, TY = 9, 10
    js = -1
    for j in range(MAX_PARTS):
        if w[KI, j] == PART_SAME:
            js = j
            break
    if js < 0:
        _search(w, n_any)
        return
    w[KI, js] = PART_PIECES
    for t in range(NUM_LEGAL):
        w[TY, js] = t
        _search(w, n_any)
    w[KI, js] = PART_SAME
    w[TY, js] = -1


@kernel
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


@kernel(standalone=True)
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
    # one allocation: the scratch matrix (rows described above _finish)
    KI, TY, NE, HV, BU, AO, BK = 9, 10, 11, 18, 19, 20, 21
    w = np.empty((22, MAX_PARTS * NUM_GOODS), dtype=np.int64)
    for c in range(NUM_GOODS):
        w[HV, c] = have[c] if have[c] > 0 else 0  # int64 copy: the search compiles once
        w[BU, c] = 0
    for j in range(MAX_PARTS):
        w[KI, j] = MAIN_PARTS[m, j, 0]
        w[TY, j] = MAIN_PARTS[m, j, 1]
        w[NE, j] = MAIN_PARTS[m, j, 2]
    no_key = 1 << 62  # sentinel key: no set found yet
    w[BK, 0] = no_key
    n_any = 0
    for j in range(MAX_PARTS):
        if w[KI, j] == PART_ANY:
            n_any = _any_order(w, AO)
            break

    if lower == 0:
        _search_same(w, n_any)
    status = 0
    if w[BK, 0] == no_key:
        if not top_up_allowed:
            return -1
        # R-26c: one missing piece of any one part; R-26f: best over all such choices. A part
        # short on its own (lower == 1) cannot be completed by cards, so the top-up goes there.
        for j in range(MAX_PARTS):
            if w[KI, j] == PART_NONE or w[NE, j] <= 0:
                continue
            if lower == 1 and (d0 if j == 0 else (d1 if j == 1 else d2)) == 0:
                continue
            w[NE, j] -= 1
            _search_same(w, n_any)
            w[NE, j] += 1
        if w[BK, 0] == no_key:
            return -1
        status = 1
    for c in range(NUM_GOODS):
        out_used[c] = w[BU, c]
    return status


@kernel
def can_collect(have, m, free_gold):
    """-1 / 0 / 1 as :func:`best_collection`; the top-up is allowed iff ``free_gold >= 10`` (R-26d)."""
    scratch = np.zeros(NUM_GOODS, dtype=np.int64)
    return best_collection(have, m, free_gold >= BLACK_MARKET_PRICE, scratch)
