"""Phase 5 of a round, first step (4.5-1): main-resource collection (P-6, §5), each player in
round order collecting at most one main resource it can complete now (the search of
:mod:`..main_resources`), with the black market top-up (5-12); then :func:`.end_of_round.end_round`.
"""

from __future__ import annotations

import numpy as np

from ..._compile.jit import kernel
from ..actions import A_COLLECT, A_SKIP_COLLECT
from ..cards import BLACK_MARKET_PRICE, MAIN_MIN_CARDS, MAX_MAIN_HELD, NUM_GOODS, NUM_MAIN
from ..main_resources import best_collection
from ..piles import (PUBLIC, free_gold, free_warehouse, num_inspectors, num_players,
                     take_from_warehouse)
from ..state import CFG_COLLECT_A_PLUS_1, CFG_SKIP_FORCED, END_MAIN_RESOURCES
from .end_of_round import end_round

@kernel
def _collector(s, i):
    n = num_players(s)
    if num_inspectors(s) == 2 and s.cfg[CFG_COLLECT_A_PLUS_1] != 0:
        return (s.insp[0] + 1 + i) % n
    return s.order[i]


@kernel
def _held(s, p):
    k = 0
    for m in range(NUM_MAIN):
        k += s.main_held[p, m]
    return k


@kernel
def _free_goods(s, p, have):
    """Fill ``have`` (int64[NUM_GOODS]) with ``p``'s free warehouse cards by type; returns
    their number."""
    total = 0
    for t in range(NUM_GOODS):
        have[t] = free_warehouse(s, p, t)
        total += have[t]
    return total


@kernel
def _collection_plan(s, p, m, have, total, used):
    """:func:`best_collection` of ``m`` for ``p``, whose free goods are ``have`` (``total``
    cards, see :func:`_free_goods`): -1, 0, or 1 with the black market; ``used`` gets the cards."""
    if total + 1 < MAIN_MIN_CARDS[m]:  # not even the black market's one piece can help
        return -1
    return best_collection(have, m, free_gold(s, p) >= BLACK_MARKET_PRICE, used)


@kernel
def seek_collect(s):
    """Each player in turn (:func:`_collector`). One who may not collect
    (:func:`_may_collect`) has only ``skip_collect``: with ``skip_forced`` (P-0.3) it is
    applied here, without the search of :func:`legal_collect`."""
    while s.pos < num_players(s):
        s.turn = _collector(s, s.pos)
        if s.cfg[CFG_SKIP_FORCED] == 0 or _may_collect(s, s.turn):
            return True
        apply_collect(s, A_SKIP_COLLECT)
    end_round(s)
    return False


@kernel
def _may_collect(s, p):
    """The tests of :func:`legal_collect` before its search: ``p`` holds fewer than 2, has not
    collected this round, and has enough free cards (with the black market's one piece) for
    some main resource in the middle."""
    if _held(s, p) >= MAX_MAIN_HELD or s.collected[p] != 0:
        return False
    total = 0
    for t in range(NUM_GOODS):
        total += free_warehouse(s, p, t)
    for m in range(NUM_MAIN):
        if s.main_middle[m] != 0 and total + 1 >= MAIN_MIN_CARDS[m]:
            return True
    return False


@kernel
def legal_collect(s, out):
    """Legal only if the player can complete it now, with the black market if affordable,
    holds fewer than 2 and has not collected this round (P-6, 5-13, 5-14)."""
    p = s.turn
    if _may_collect(s, p):
        have = np.empty(NUM_GOODS, dtype=np.int64)
        used = np.empty(NUM_GOODS, dtype=np.int64)
        total = _free_goods(s, p, have)
        for m in range(NUM_MAIN):
            if s.main_middle[m] != 0 and _collection_plan(s, p, m, have, total, used) >= 0:
                out[A_COLLECT + m] = 1
    out[A_SKIP_COLLECT] = 1


@kernel
def apply_collect(s, a):
    """The engine picks the cards spent (R-26f); they go to the open discard pile (5-3)."""
    p = s.turn
    if a != A_SKIP_COLLECT:
        m = a - A_COLLECT
        have = np.empty(NUM_GOODS, dtype=np.int64)
        used = np.zeros(NUM_GOODS, dtype=np.int64)
        if _collection_plan(s, p, m, have, _free_goods(s, p, have), used) == 1:
            s.gold[p] -= BLACK_MARKET_PRICE
            s.bank_in += BLACK_MARKET_PRICE
        for t in range(NUM_GOODS):
            for _ in range(used[t]):
                take_from_warehouse(s, p, t, PUBLIC)  # spent cards go to the open pile
            s.discard[t] += used[t]
        s.main_middle[m] = 0
        s.main_held[p, m] = 1
        s.collected[p] = 1
        empty = True
        for k in range(NUM_MAIN):
            if s.main_middle[k] != 0:
                empty = False
        if empty and s.trigger_round == 0:
            s.trigger_round = s.round
            s.end_reason = END_MAIN_RESOURCES
    s.pos += 1


