"""Phase 4 of a round, the border check (P-5, §4.4, §8): crate choice, bounties, exchanges of
offers and demands, opens and joins, and the owner's reaction with Secret Route or False Bottom.

Inspector *slots* are 0 (badge A) and 1 (badge B). The negotiation over the current crate
``s.cur`` ends when an inspector opens (R-10), when every inspector has committed or passed,
or when the exchanges run out (R-37); settlement follows in :mod:`.settlement`.

With ``accept_commits=False`` (P-5.3(b'), R-05's alternative) accepting does not commit: the
inspector is *holding a deal* (``G_HOLDING``; the deal is recorded and escrowed as usual, R-09)
and takes no further part in the exchanges. When the negotiation would end without an open,
each holding inspector, A then B, keeps the deal (``G_COMMITTED``: paid like any committed deal)
or opens, voiding it (``PH_KEEP_OR_OPEN``). If the other inspector opens first, a holding
inspector gets the join choice of P-5.4: joining voids the deal, staying out keeps it. So no
inspector is still holding when the crate is settled.
"""

from __future__ import annotations

from numba import njit

from ..actions import (A_ACCEPT, A_ACCEPT_DEMAND, A_BOUNTY_CARD, A_BOUNTY_DONE, A_BOUNTY_GOLD,
                      A_DEMAND, A_GIFT_CARD, A_GIFT_GOLD, A_INSPECT, A_JOIN, A_KEEP_DEAL,
                      A_NO_REACTION, A_OFFER_CRATE, A_OFFER_DONE, A_OFFER_GOLD, A_OFFER_WH,
                      A_OPEN, A_OPEN_AND_VOID, A_PASS, A_PLAY_BOTTOM, A_PLAY_ROUTE, A_PROMISE,
                      A_REFUSE_DEMAND, A_STAY_OUT, A_WAIT, A_WITHDRAW)
from ..cards import FALSE_BOTTOM, NUM_GOODS, SECRET_ROUTE
from ..._compile.jit import kernel
from ..piles import (active_cards, free_gold, free_warehouse, hand_over_goods, is_inspector,
                    num_inspectors, num_players, play_card)
from .settlement import begin_settlement
from ..state import (CFG_ACCEPT_HOLDS, CFG_ACTION_CARDS, CFG_BOUNTIES, CFG_BOUNTY_GOODS,
                    CFG_CRATE_ORDER_AUTO, CFG_HAGGLE_ROUNDS, CFG_HAGGLING, CFG_MENU_LEN,
                    CFG_SKIP_FORCED, CFG_TRANSFERS, CRATE_ANNOUNCED, G_COMMITTED, G_HOLDING,
                    G_OPENED, G_PASSED, G_UNDECIDED, H_BOUNTIES_OFFERED, H_BRIBE_GOLD, H_CRATES,
                    H_CRATES_INSPECTED,
                    H_DEALS_MADE, H_DEALS_TAKEN, H_OFFERS_MADE, H_OPENS, H_PROMISES_MADE,
                    HAGGLE_FULL, HAGGLE_NONE, LOCK_GOLD, LOCK_WITHDRAWN, MENU_MAX,
                    OUT_FALSE_BOTTOM, OUT_OPENED, OUT_PASSED, OUT_PASSED_SR, OUT_PENDING,
                    PH_ANSWER_DEMAND, PH_BOUNTY, PH_COLLECT, PH_JOIN, PH_KEEP_OR_OPEN, PH_OFFER,
                    PH_REACT, PH_RESPOND, T_OFFERS_DECLINED, T_OFFERS_REFUSED)


@kernel
def _menu_len(s):
    return s.cfg[CFG_MENU_LEN]


@kernel
def _full(s):
    return s.cfg[CFG_HAGGLING] == HAGGLE_FULL


# --- P-5.1 crate choice -------------------------------------------------------------------------
@kernel(standalone=True)
def start_crate(s, c):
    """The crate of seat ``c`` comes up: a fresh negotiation (P-5.2, P-5.3)."""
    s.cur = c
    s.exchange = 1
    for g in range(2):
        s.g_status[g] = G_UNDECIDED if g < num_inspectors(s) else G_PASSED
        s.offer_gold[g] = 0
        s.offer_promise[g] = 0
        s.offer_lock[g] = 0
        s.demand[g] = 0
        s.deal_gold[g] = 0
        s.deal_promise[g] = 0
        s.deal_seq[g] = 0
        for t in range(NUM_GOODS):
            s.offer_wh[g, t] = 0
            s.offer_crate[g, t] = 0
            s.deal_wh[g, t] = 0
            s.deal_crate[g, t] = 0
    for x in range(num_players(s)):
        s.gift_lock[x] = 0
        for g in range(2):
            s.bounty_gold[x, g] = 0
            s.bounty_on[x, g] = 0
            for t in range(NUM_GOODS):
                s.bounty_wh[x, g, t] = 0
    s.outcome = OUT_PENDING
    s.fb_hidden = -1
    s.lawyer_to = -1
    s.fund_paid = 0
    s.truthful = 0
    s.fine = 0
    s.pos = 0
    s.hist[c, H_CRATES] += 1
    for g in range(num_inspectors(s)):
        s.hist[s.insp[g], H_CRATES_INSPECTED] += 1
    if s.cfg[CFG_HAGGLING] == HAGGLE_NONE:
        s.phase = PH_RESPOND
    elif s.cfg[CFG_BOUNTIES] != 0 or s.cfg[CFG_TRANSFERS] != 0:
        s.phase = PH_BOUNTY
    else:
        s.phase = PH_OFFER


@kernel
def seek_choose_crate(s):
    n = num_players(s)
    first = -1
    announced = 0
    for i in range(n):
        p = s.order[i]
        if s.crate_status[p] == CRATE_ANNOUNCED:
            if first < 0:
                first = p
            announced += 1
    if first < 0:
        s.phase = PH_COLLECT
        s.pos = 0
        return False
    if s.cfg[CFG_CRATE_ORDER_AUTO] != 0:
        start_crate(s, first)
        return False
    s.turn = s.insp[0]  # the single inspector, or A
    if announced == 1 and s.cfg[CFG_SKIP_FORCED] != 0:  # one crate left: forced (P-0.3)
        apply_choose_crate(s, A_INSPECT + first)
        return False
    return True


@kernel
def legal_choose_crate(s, out):
    for p in range(num_players(s)):
        out[A_INSPECT + p] = s.crate_status[p] == CRATE_ANNOUNCED


@kernel
def apply_choose_crate(s, a):
    start_crate(s, a - A_INSPECT)


# --- P-5.2 bounties and gifts (R-06c) --------------------------------------------------
@kernel
def _bounty_budget(s, x):
    """Gold ``x`` may still promise: free gold less standing bounties, so that accepting every
    bounty stays payable (R-09)."""
    return free_gold(s, x) - s.bounty_gold[x, 0] - s.bounty_gold[x, 1]


@kernel
def _bounty_cards_left(s, x, t):
    return free_warehouse(s, x, t) - s.bounty_wh[x, 0, t] - s.bounty_wh[x, 1, t]


@kernel
def _bounty_goods(s):
    """Whether bounties may name warehouse cards (R-07 with ``bounty_goods``)."""
    return s.cfg[CFG_BOUNTY_GOODS] != 0 and _full(s)


@kernel
def seek_bounty(s):
    """Each smuggler other than the owner, in round order, gets one bounty turn (P-5.2). A
    smuggler with nothing to promise or give has only ``bounty_done``: with ``skip_forced``
    (P-0.3) it is applied here, without building the mask of :func:`legal_bounty`."""
    n = num_players(s)
    while s.pos < n:
        x = s.order[s.pos]
        if x != s.cur and not is_inspector(s, x):
            s.turn = x
            if s.cfg[CFG_SKIP_FORCED] == 0 or _bounty_has_choice(s, x):
                return True
            apply_bounty(s, A_BOUNTY_DONE)
        else:
            s.pos += 1
    s.phase = PH_OFFER
    return False


@kernel
def _bounty_has_choice(s, x):
    """Whether :func:`legal_bounty` gives ``x`` an action besides ``bounty_done``: the same
    tests, answered without writing a mask. (A gift always has a receiver: the crate's owner
    is a smuggler other than ``x``.)"""
    budget = _bounty_budget(s, x)
    gold = False
    for k in range(_menu_len(s)):
        if s.menu[k] <= budget:
            gold = True
            break
    if s.cfg[CFG_BOUNTIES] != 0:
        if gold:
            for g in range(num_inspectors(s)):
                if s.bounty_gold[x, g] == 0:
                    return True
        if _bounty_goods(s) and _has_cards_left(s, x):
            return True
    if s.cfg[CFG_TRANSFERS] != 0:
        return (s.gift_lock[x] == 0 and gold) or (_full(s) and _has_cards_left(s, x))
    return False


@kernel
def _has_cards_left(s, x):
    """Whether ``x`` has a free warehouse card no bounty names (:func:`_bounty_cards_left`)."""
    for t in range(NUM_GOODS):
        if _bounty_cards_left(s, x, t) > 0:
            return True
    return False


@kernel
def legal_bounty(s, out):
    x = s.turn
    budget = _bounty_budget(s, x)
    m = _menu_len(s)
    goods = _bounty_goods(s)
    if s.cfg[CFG_BOUNTIES] != 0:
        for g in range(num_inspectors(s)):
            if s.bounty_gold[x, g] == 0:  # a store per id, no branch (see legal_mask)
                for k in range(m):
                    out[A_BOUNTY_GOLD + g * MENU_MAX + k] = s.menu[k] <= budget
            if goods:
                for t in range(NUM_GOODS):
                    out[A_BOUNTY_CARD + g * NUM_GOODS + t] = _bounty_cards_left(s, x, t) > 0
    if s.cfg[CFG_TRANSFERS] != 0:
        for q in range(num_players(s)):
            if q == x or is_inspector(s, q):
                continue
            if s.gift_lock[x] == 0:
                for k in range(m):
                    out[A_GIFT_GOLD + q * MENU_MAX + k] = s.menu[k] <= budget
            if _full(s):
                for t in range(NUM_GOODS):
                    out[A_GIFT_CARD + q * NUM_GOODS + t] = _bounty_cards_left(s, x, t) > 0
    out[A_BOUNTY_DONE] = 1


@kernel
def apply_bounty(s, a):
    x = s.turn
    if a == A_BOUNTY_DONE:
        s.pos += 1
    elif a < A_BOUNTY_CARD:
        k = a - A_BOUNTY_GOLD
        _note_bounty(s, x, k // MENU_MAX)
        s.bounty_gold[x, k // MENU_MAX] = s.menu[k % MENU_MAX]
    elif a < A_GIFT_GOLD:
        k = a - A_BOUNTY_CARD
        _note_bounty(s, x, k // NUM_GOODS)
        s.bounty_wh[x, k // NUM_GOODS, k % NUM_GOODS] += 1
    elif a < A_GIFT_CARD:
        k = a - A_GIFT_GOLD
        amount = s.menu[k % MENU_MAX]
        s.gold[x] -= amount
        s.gold[k // MENU_MAX] += amount
        s.gift_lock[x] = 1
    else:
        k = a - A_GIFT_CARD
        hand_over_goods(s, x, k // NUM_GOODS, k % NUM_GOODS, False)


@kernel
def _note_bounty(s, x, g):
    """Count a new bounty from ``x`` to slot ``g`` in the public history (not an addition to
    one already standing)."""
    if s.bounty_gold[x, g] > 0:
        return
    for t in range(NUM_GOODS):
        if s.bounty_wh[x, g, t] > 0:
            return
    s.hist[x, H_BOUNTIES_OFFERED] += 1


# --- P-5.3a the owner's offer turn -----------------------------------------------------------
@njit(inline="always")  # inlined: a call would cost legal_offer's mask a reference-count pair
def offer_is_empty(s, g):
    if s.offer_gold[g] > 0 or s.offer_promise[g] > 0:
        return False
    cards = 0  # counted, not branched on
    for t in range(NUM_GOODS):
        cards += (s.offer_wh[g, t] > 0) + (s.offer_crate[g, t] > 0)
    return cards == 0


@njit(inline="always")  # inlined, as offer_is_empty
def offer_is_affordable(s, g):
    """Offers are not escrowed until accepted (P-5.3a); an offer can only be accepted while the
    owner's free assets still cover it (R-09)."""
    c = s.cur
    if s.offer_gold[g] > free_gold(s, c):
        return False
    for t in range(NUM_GOODS):
        if s.offer_wh[g, t] > free_warehouse(s, c, t):
            return False
    return True


@kernel
def _offer_open(s, g):
    """Whether the owner may still change its offer to inspector slot ``g``: undecided, and
    not withdrawn from."""
    return s.g_status[g] == G_UNDECIDED and not s.offer_lock[g] & LOCK_WITHDRAWN


@kernel
def seek_offer(s):
    """The owner's offer turn. With no offer open (:func:`_offer_open`) only ``offer_done`` is
    legal: with ``skip_forced`` (P-0.3) it is applied here."""
    s.turn = s.cur
    if s.cfg[CFG_SKIP_FORCED] == 0:
        return True
    for g in range(num_inspectors(s)):
        if _offer_open(s, g):
            return True
    apply_offer(s, A_OFFER_DONE)
    return False


@kernel
def legal_offer(s, out):
    c = s.cur
    gold = free_gold(s, c)
    full = _full(s)
    for g in range(num_inspectors(s)):
        if not _offer_open(s, g):
            continue
        if not s.offer_lock[g] & LOCK_GOLD:  # a store per id, no branch (see legal_mask)
            for k in range(_menu_len(s)):
                out[A_OFFER_GOLD + g * MENU_MAX + k] = (s.menu[k] <= gold) & (
                    s.menu[k] != s.offer_gold[g])
        if full:
            in_crate = 0
            for t in range(NUM_GOODS):
                in_crate += s.offer_crate[g, t]
                out[A_OFFER_WH + g * NUM_GOODS + t] = s.offer_wh[g, t] < free_warehouse(s, c, t)
            room = in_crate < s.crate_size[c]
            for t in range(NUM_GOODS):
                out[A_OFFER_CRATE + g * NUM_GOODS + t] = room
            out[A_PROMISE + g] = s.offer_promise[g] == 0
        out[A_WITHDRAW + g] = not offer_is_empty(s, g)
    out[A_OFFER_DONE] = 1


@kernel
def _clear_offer(s, g):
    s.offer_gold[g] = 0
    s.offer_promise[g] = 0
    for t in range(NUM_GOODS):
        s.offer_wh[g, t] = 0
        s.offer_crate[g, t] = 0


@kernel
def apply_offer(s, a):
    if a == A_OFFER_DONE:
        for g in range(num_inspectors(s)):
            if s.g_status[g] == G_UNDECIDED and not offer_is_empty(s, g):
                s.hist[s.cur, H_OFFERS_MADE] += 1
                break
        s.offer_lock[0] = 0
        s.offer_lock[1] = 0
        s.phase = PH_RESPOND
        s.pos = 0
    elif a < A_OFFER_WH:
        k = a - A_OFFER_GOLD
        g = k // MENU_MAX
        s.offer_gold[g] = s.menu[k % MENU_MAX]
        s.offer_lock[g] |= LOCK_GOLD
    elif a < A_OFFER_CRATE:
        k = a - A_OFFER_WH
        s.offer_wh[k // NUM_GOODS, k % NUM_GOODS] += 1
    elif a < A_PROMISE:
        k = a - A_OFFER_CRATE
        s.offer_crate[k // NUM_GOODS, k % NUM_GOODS] += 1
    elif a < A_WITHDRAW:
        s.offer_promise[a - A_PROMISE] = 1
    else:
        g = a - A_WITHDRAW
        _clear_offer(s, g)
        s.offer_lock[g] |= LOCK_WITHDRAWN


# --- P-5.3b the inspectors' turns --------------------------------------------------------------
@kernel
def _last_exchange(s):
    return s.exchange >= s.cfg[CFG_HAGGLE_ROUNDS]


@kernel(standalone=True)
def _commit(s, g, gold, with_offer):
    """Inspector ``g`` accepts a let-through deal: committed not to open (R-05), assets escrowed
    (R-09), acceptance order recorded for crate goods (R-08). With ``accept_commits=False`` the
    inspector holds the deal instead (P-5.3(b')); this covers an accepted demand too (P-5.3c):
    under §4.4's literal reading every gold or goods deal binds only if the inspector keeps it.
    The acceptance order stays the one recorded here, whenever the deal is kept."""
    c = s.cur
    s.deal_gold[g] = gold
    s.res_gold[c] += gold
    if with_offer:
        s.deal_promise[g] = s.offer_promise[g]
        for t in range(NUM_GOODS):
            s.deal_wh[g, t] = s.offer_wh[g, t]
            s.deal_crate[g, t] = s.offer_crate[g, t]
            s.res_wh[c, t] += s.offer_wh[g, t]
    s.deal_seq[g] = max(s.deal_seq[0], s.deal_seq[1]) + 1
    s.g_status[g] = G_HOLDING if s.cfg[CFG_ACCEPT_HOLDS] != 0 else G_COMMITTED
    x = s.insp[g]
    s.hist[c, H_DEALS_MADE] += 1
    s.hist[c, H_BRIBE_GOLD] += gold
    s.hist[x, H_DEALS_TAKEN] += 1
    if s.deal_promise[g] != 0:  # a promise of a future pass, owed to the inspector
        s.hist[c, H_PROMISES_MADE] += 1
        if s.promised[c, x] < 127:
            s.promised[c, x] += 1
    s.demand[g] = 0
    _clear_offer(s, g)


@kernel(standalone=True)
def _void_deal(s, g):
    """P-5.3(b'): the deal held by ``g`` is void because ``g`` opens; its escrow is released and
    its promise of a future pass, never binding, is no longer owed."""
    c = s.cur
    x = s.insp[g]
    if s.deal_promise[g] != 0 and s.promised[c, x] > 0:
        s.promised[c, x] -= 1
        s.hist[c, H_PROMISES_MADE] -= 1
    s.res_gold[c] -= s.deal_gold[g]
    s.deal_gold[g] = 0
    s.deal_promise[g] = 0
    s.deal_seq[g] = 0
    for t in range(NUM_GOODS):
        s.res_wh[c, t] -= s.deal_wh[g, t]
        s.deal_wh[g, t] = 0
        s.deal_crate[g, t] = 0


@kernel(standalone=True)
def _accept_bounties(s, g):
    """Declaring Open accepts every bounty addressed to ``g`` (R-07); they are escrowed."""
    for x in range(num_players(s)):
        if s.bounty_gold[x, g] == 0:
            empty = True
            for t in range(NUM_GOODS):
                if s.bounty_wh[x, g, t] > 0:
                    empty = False
            if empty:
                continue
        s.bounty_gold[x, g] = min(s.bounty_gold[x, g], free_gold(s, x))
        s.res_gold[x] += s.bounty_gold[x, g]
        for t in range(NUM_GOODS):
            k = min(s.bounty_wh[x, g, t], free_warehouse(s, x, t))
            s.bounty_wh[x, g, t] = k
            s.res_wh[x, t] += k
        s.bounty_on[x, g] = 1


@kernel
def _all_decided(s):
    for g in range(num_inspectors(s)):
        if s.g_status[g] == G_UNDECIDED:
            return False
    return True


@kernel
def _after_open(s):
    """R-10: an Open cannot be withdrawn; pending offers lapse; then join, then reaction."""
    for g in range(2):
        _clear_offer(s, g)
        s.demand[g] = 0
    s.phase = PH_JOIN


@kernel(standalone=True)
def _end_without_open(s):
    """The negotiation ends with no open: the crate passes, after the final keep-or-open choice
    of any inspector holding a deal (P-5.3(b'))."""
    for g in range(num_inspectors(s)):
        if s.g_status[g] == G_HOLDING:
            s.phase = PH_KEEP_OR_OPEN
            s.pos = 0
            return
    s.outcome = OUT_PASSED
    begin_settlement(s)


@kernel(standalone=True)
def _end_exchange(s):
    for g in range(2):
        s.demand[g] = 0
    if _all_decided(s):
        _end_without_open(s)
    elif not _last_exchange(s) and s.cfg[CFG_HAGGLING] != HAGGLE_NONE:
        s.exchange += 1
        s.phase = PH_OFFER
    else:  # the budget ran out: undecided inspectors pass (4.4-2, R-37)
        for g in range(num_inspectors(s)):
            if s.g_status[g] == G_UNDECIDED:
                s.g_status[g] = G_PASSED
        _end_without_open(s)


@kernel
def seek_respond(s):
    ni = num_inspectors(s)
    while s.pos < ni:
        if s.g_status[s.pos] == G_UNDECIDED:
            s.turn = s.insp[s.pos]
            return True
        s.pos += 1
    for g in range(ni):
        if s.demand[g] > 0:
            s.phase = PH_ANSWER_DEMAND
            s.pos = 0
            return False
    _end_exchange(s)
    return False


@kernel
def legal_respond(s, out):
    g = s.pos
    if s.cfg[CFG_HAGGLING] != HAGGLE_NONE:
        if not offer_is_empty(s, g) and offer_is_affordable(s, g):
            out[A_ACCEPT] = 1
        if not _last_exchange(s):
            gold = free_gold(s, s.cur)
            for k in range(_menu_len(s)):  # a store per id, no branch (see legal_mask)
                out[A_DEMAND + k] = s.menu[k] <= gold
            out[A_WAIT] = 1
    out[A_OPEN] = 1
    out[A_PASS] = 1


@kernel
def apply_respond(s, a):
    g = s.pos
    if (a == A_OPEN or a == A_PASS) and not offer_is_empty(s, g):  # an offer declined
        s.truth[s.insp[g], T_OFFERS_DECLINED] += 1
        s.truth[s.cur, T_OFFERS_REFUSED] += 1
    if a == A_ACCEPT:
        _commit(s, g, s.offer_gold[g], True)
    elif a == A_OPEN:
        s.g_status[g] = G_OPENED
        s.hist[s.insp[g], H_OPENS] += 1
        _accept_bounties(s, g)
        _after_open(s)
        return
    elif a == A_PASS:
        s.g_status[g] = G_PASSED
    elif a != A_WAIT:
        s.demand[g] = s.menu[a - A_DEMAND]
    s.pos += 1


# --- P-5.3c the owner answers demands ---------------------------------------------------------
@kernel
def seek_answer_demand(s):
    while s.pos < num_inspectors(s):
        if s.demand[s.pos] > 0 and s.g_status[s.pos] == G_UNDECIDED:
            s.turn = s.cur
            return True
        s.pos += 1
    _end_exchange(s)
    return False


@kernel
def legal_answer_demand(s, out):
    if s.demand[s.pos] <= free_gold(s, s.cur):
        out[A_ACCEPT_DEMAND] = 1
    out[A_REFUSE_DEMAND] = 1


@kernel
def apply_answer_demand(s, a):
    g = s.pos
    if a == A_ACCEPT_DEMAND:
        _commit(s, g, s.demand[g], False)
    s.demand[g] = 0
    s.pos += 1


# --- P-5.3(b') the final choice of an inspector holding a deal -------------------------------
@kernel
def seek_keep_or_open(s):
    """Each inspector holding a deal, A then B, keeps it or opens; if all keep, the crate
    passes."""
    while s.pos < num_inspectors(s):
        if s.g_status[s.pos] == G_HOLDING:
            s.turn = s.insp[s.pos]
            return True
        s.pos += 1
    s.outcome = OUT_PASSED
    begin_settlement(s)
    return False


@kernel
def legal_keep_or_open(s, out):
    out[A_KEEP_DEAL] = 1
    out[A_OPEN_AND_VOID] = 1


@kernel
def apply_keep_or_open(s, a):
    """Keeping makes the deal binding (paid at settlement like a committed one); opening voids
    it, releases its escrow and accepts this inspector's bounties (R-07), then P-5.4 follows."""
    g = s.pos
    if a == A_KEEP_DEAL:
        s.g_status[g] = G_COMMITTED
        s.pos += 1
    else:
        _void_deal(s, g)
        s.g_status[g] = G_OPENED
        s.hist[s.insp[g], H_OPENS] += 1
        _accept_bounties(s, g)
        _after_open(s)


# --- P-5.4 join and reaction ------------------------------------------------------------------
@kernel
def seek_join(s):
    """The other inspector, if undecided or holding a deal (P-5.3(b')), joins or stays out."""
    for g in range(num_inspectors(s)):
        if s.g_status[g] == G_UNDECIDED or s.g_status[g] == G_HOLDING:
            s.pos = g
            s.turn = s.insp[g]
            return True
    s.phase = PH_REACT
    return False


@kernel
def legal_join(s, out):
    out[A_JOIN] = 1
    out[A_STAY_OUT] = 1


@kernel
def apply_join(s, a):
    """Joining voids a held deal; staying out keeps it, binding, paid like the deal of an
    inspector who did not open (P-5.3(b'), SR-3, Appendix A)."""
    g = s.pos
    holding = s.g_status[g] == G_HOLDING
    if a == A_JOIN:
        if holding:
            _void_deal(s, g)
        s.g_status[g] = G_OPENED
        s.hist[s.insp[g], H_OPENS] += 1
        _accept_bounties(s, g)
    else:
        s.g_status[g] = G_COMMITTED if holding else G_PASSED
    s.phase = PH_REACT


@kernel
def _can_react(s):
    if s.cfg[CFG_ACTION_CARDS] == 0:
        return False
    return active_cards(s, s.cur, SECRET_ROUTE) > 0 or active_cards(s, s.cur, FALSE_BOTTOM) > 0


@kernel
def seek_react(s):
    """SR-1, FB-1: the owner may answer an Open with Secret Route or False Bottom (R-13)."""
    if _can_react(s):
        s.turn = s.cur
        return True
    s.outcome = OUT_OPENED
    begin_settlement(s)
    return False


@kernel
def legal_react(s, out):
    if active_cards(s, s.cur, SECRET_ROUTE) > 0:
        out[A_PLAY_ROUTE] = 1
    if active_cards(s, s.cur, FALSE_BOTTOM) > 0:
        out[A_PLAY_BOTTOM] = 1
    out[A_NO_REACTION] = 1


@kernel
def apply_react(s, a):
    if a == A_PLAY_ROUTE:
        play_card(s, s.cur, SECRET_ROUTE)
        s.outcome = OUT_PASSED_SR
    elif a == A_PLAY_BOTTOM:
        play_card(s, s.cur, FALSE_BOTTOM)
        s.outcome = OUT_FALSE_BOTTOM
    else:
        s.outcome = OUT_OPENED
    begin_settlement(s)
