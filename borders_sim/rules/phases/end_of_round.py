"""Phase 5 of a round (4.5, strict order 4.5-7): main-resource collection (P-6, §5), expiry of
action cards (7.2-5), the end-of-game check (§6, R-28, R-29), refill and badge movement; and the
start of the next round (round order 4-3, action-card activation 7.2)."""

from __future__ import annotations

import numpy as np

from ..actions import A_COLLECT, A_SKIP_COLLECT
from ..cards import (BLACK_MARKET_PRICE, CYCLE_LENGTH, FIRST_ACTION, MAIN_MIN_CARDS, MAX_MAIN_HELD,
                    NUM_ACTION, NUM_GOODS, NUM_MAIN)
from ..main_resources import best_collection
from ..._compile.jit import kernel
from ..piles import (PUBLIC, discard_from_hand, draw_up_to_limit, free_gold, free_warehouse,
                    is_deferred_for_inspector, is_inspector, num_inspectors, num_players,
                    take_from_warehouse)
from ..state import (CFG_ACTION_CARDS, CFG_COLLECT_A_PLUS_1, CRATE_NONE, CRATE_PACKING,
                    END_MAIN_RESOURCES, PH_GAME_OVER, PH_MARKET, PH_WINDOW)


@kernel
def start_round(s):
    """Round order starts left of the left-most inspector (4-3, R-04); cards waiting for this
    round become active unless their holder is an inspector and they are #1/#3/#4/#6 (7.2-3)."""
    n = num_players(s)
    start = (s.insp[num_inspectors(s) - 1] + 1) % n
    for i in range(n):
        s.order[i] = (start + i) % n
    for p in range(n):
        insp = is_inspector(s, p)
        for k in range(NUM_ACTION):
            if not (insp and is_deferred_for_inspector(FIRST_ACTION + k)):
                s.hand_later[p, k] = 0
        s.collected[p] = 0
        s.seen_hidden[p] = 0
        s.raid_taken[p] = -1
        for t in range(NUM_GOODS):
            s.seen[p, t] = 0
        s.crate_size[p] = 0
        s.announced[p] = -1
        s.crate_status[p] = CRATE_NONE if insp else CRATE_PACKING
    s.cur = -1
    s.raid_thief = -1
    s.pos = 0
    s.count = 0
    s.window_passes = 0
    s.phase = PH_WINDOW if s.cfg[CFG_ACTION_CARDS] != 0 else PH_MARKET


# --- P-6 collection -----------------------------------------------------------------------------
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
    if s.pos < num_players(s):
        s.turn = _collector(s, s.pos)
        return True
    end_round(s)
    return False


@kernel
def legal_collect(s, out):
    """Legal only if the player can complete it now, with the black market if affordable,
    holds fewer than 2 and has not collected this round (P-6, 5-13, 5-14)."""
    p = s.turn
    if _held(s, p) < MAX_MAIN_HELD and s.collected[p] == 0:
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


# --- 4.5-2 .. 4.5-5 ---------------------------------------------------------------------------
@kernel
def end_round(s):
    n = num_players(s)
    for p in range(n):  # 4.5-2: active action cards not used expire
        for k in range(NUM_ACTION):
            t = FIRST_ACTION + k
            for _ in range(s.hand[p, t] - s.hand_later[p, k]):
                discard_from_hand(s, p, t)
    if s.trigger_round > 0:  # 4.5-3, 6-4: the game ends after round L * ceil(r / L)
        cycle = CYCLE_LENGTH[n]
        s.end_round = cycle * ((s.trigger_round + cycle - 1) // cycle)
        if s.round >= s.end_round:
            s.phase = PH_GAME_OVER
            s.turn = -1
            return
    for i in range(n):  # 4.5-4: refill in round order; the cards belong to the next round
        draw_up_to_limit(s, s.order[i], True, s.round + 1)
    step = 1 if num_inspectors(s) == 1 else 2  # 4.5-5
    s.insp[0] = (s.insp[0] + step) % n
    if num_inspectors(s) == 2:
        s.insp[1] = (s.insp[1] + step) % n
    s.round += 1
    start_round(s)
