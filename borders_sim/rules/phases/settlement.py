"""Settlement of a crate (R-16, Appendix A): cards move, deals are paid (with the Lawyer),
the Syndicate Fund reimburses, fines are paid (R-14, R-15, §8) and bounties are paid (R-07).

Order of steps (R-16):
1. :func:`begin_settlement`: cards move (False Bottom's hidden card first, FB-4); on a pass the
   deliverable crate goods of every deal are fixed in acceptance order (R-08).
2. ``PH_LAWYER``: the owner may play the Lawyer (LW-2, LW-3, R-17), then binding deals are paid.
3. ``PH_FUND``: the owner may play the Syndicate Fund on the gold paid (SF-1..SF-5, R-18).
4. Fines are paid (4.4-B, §8, R-14, R-15).
5. ``PH_BOUNTY_LAWYER``: each bounty payer in round order may play a Lawyer (R-17e), then pays.
"""

from __future__ import annotations

import numpy as np

from ..actions import A_FUND, A_HAND_OVER, A_LAWYER, A_NO_FUND, A_NO_LAWYER
from ..cards import CARD_CLASS, CARD_FINE, CLASS_LEGAL, LAWYER, NUM_GOODS, SYNDICATE_FUND
from ..._compile.jit import kernel
from ..piles import (active_cards, card_order_key, free_gold, hand_over_goods, is_inspector,
                    num_inspectors, num_players, pay_debt, play_card, rand_below, store)
from ..state import (CFG_ACTION_CARDS, CFG_LAWYER_CHOICE, CRATE_DONE, G_COMMITTED, G_OPENED,
                    H_CRATES_OPENED, H_CRATES_PASSED, H_FINES_PAID, H_FINES_RECEIVED,
                    H_LIES_CAUGHT, H_PROMISES_BROKEN, H_PROMISES_KEPT, OUT_FALSE_BOTTOM,
                    OUT_OPENED, OUT_PASSED, OUT_PASSED_SR, PH_BOUNTY_LAWYER, PH_CHOOSE_CRATE,
                    PH_FUND, PH_LAWYER, PH_LAWYER_GOODS, T_CONTRABAND_FOUND,
                    T_CONTRABAND_HANDLED, T_CONTRABAND_SENT, T_CONTRABAND_THROUGH,
                    T_LIES_THROUGH, T_LIES_TOLD, T_OPENED, T_OPENED_WITH_CONTRABAND)

MAX_FUND_SHARE = 5  # SF-3


@kernel
def _passed(s):
    return s.outcome == OUT_PASSED or s.outcome == OUT_PASSED_SR


@kernel
def _settle_promises(s, c):
    """A promise of a future pass (P-5.3a) that an inspector owes the owner of crate ``c`` is
    kept when that inspector does not open it, broken when it does (public history, R-39)."""
    for g in range(num_inspectors(s)):
        x = s.insp[g]
        if s.promised[x, c] > 0:
            s.promised[x, c] -= 1
            s.hist[x, H_PROMISES_BROKEN if s.g_status[g] == G_OPENED else H_PROMISES_KEPT] += 1


@kernel
def _contraband(s, c):
    """The contraband cards (every good that is not legal) in seat ``c``'s crate."""
    k = 0
    for t in range(NUM_GOODS):
        if CARD_CLASS[t] != CLASS_LEGAL:
            k += s.crate[c, t]
    return k


@kernel
def _count_truth(s, c):
    """The private truth of crate ``c`` as it comes to settlement (``truth``, never observed):
    a lie (any card but the announced type, as the open below judges it), its contraband, for
    the owner and for each inspector who handled it."""
    lie = 0
    for t in range(NUM_GOODS):
        if t != s.announced[c] and s.crate[c, t] > 0:
            lie = 1
    contraband = _contraband(s, c)
    s.truth[c, T_LIES_TOLD] += lie
    s.truth[c, T_CONTRABAND_SENT] += contraband
    if _passed(s):
        s.truth[c, T_LIES_THROUGH] += lie
        s.truth[c, T_CONTRABAND_THROUGH] += contraband
    for g in range(num_inspectors(s)):
        s.truth[s.insp[g], T_CONTRABAND_HANDLED] += contraband


@kernel
def _count_found(s, c):
    """Each inspector who opened or joined crate ``c``: the opened crate and the contraband it
    showed (after a False Bottom took its card away)."""
    shown = _contraband(s, c)
    for g in range(num_inspectors(s)):
        if s.g_status[g] == G_OPENED:
            x = s.insp[g]
            s.truth[x, T_OPENED] += 1
            s.truth[x, T_CONTRABAND_FOUND] += shown
            if shown > 0:
                s.truth[x, T_OPENED_WITH_CONTRABAND] += 1


@kernel(standalone=True)
def begin_settlement(s):
    """Step 1: move the crate's cards (4.4-A1, 4.4-B1..B5, FB-2..FB-6, R-08, R-13). What the
    table saw of the crate is kept in ``seen``/``seen_hidden`` for this round (R-39), and what
    it held in the private ``truth`` counters."""
    c = s.cur
    _settle_promises(s, c)
    _count_truth(s, c)
    if _passed(s):
        s.n_passed += 1
        s.hist[c, H_CRATES_PASSED] += 1
        hidden = 0
        for t in range(NUM_GOODS):  # legal goods go face up, the rest face down (4.4-A1)
            if CARD_CLASS[t] == CLASS_LEGAL:
                s.seen[c, t] = s.crate[c, t]
            else:
                hidden += s.crate[c, t]
        s.seen_hidden[c] = hidden
        for t in range(NUM_GOODS):
            left = np.int64(s.crate[c, t])
            for seq in range(1, 3):  # promised crate goods, in order of acceptance
                for g in range(2):
                    if s.deal_seq[g] == seq and s.g_status[g] == G_COMMITTED:
                        k = min(s.deal_crate[g, t], left)
                        s.deal_crate[g, t] = k
                        left -= k
            for _ in range(left):  # the rest goes home; promised cards wait for payment
                store(s, c, t)
            s.crate[c, t] -= left
    else:
        s.n_opened += 1
        s.hist[c, H_CRATES_OPENED] += 1
        for g in range(2):  # crate-goods parts lapse when the crate does not pass
            for t in range(NUM_GOODS):
                s.deal_crate[g, t] = 0
        if s.outcome == OUT_FALSE_BOTTOM:
            r = rand_below(s, s.crate_size[c])  # the blind choice is a random card
            for t in range(NUM_GOODS):
                r -= s.crate[c, t]
                if r < 0:
                    s.crate[c, t] -= 1
                    s.wh_down[c, t] += 1  # face down even if legal, no fine (FB-4, R-13)
                    s.fb_hidden = t
                    s.seen_hidden[c] = 1
                    break
        for t in range(NUM_GOODS):  # the opened cards are shown
            s.seen[c, t] = s.crate[c, t]
        _count_found(s, c)
        a = s.announced[c]
        truthful = True
        for t in range(NUM_GOODS):
            if t != a and s.crate[c, t] > 0:
                truthful = False
        s.truthful = 1 if truthful else 0
        if not truthful:
            s.hist[c, H_LIES_CAUGHT] += 1
        fine = 0
        for t in range(NUM_GOODS):
            k = s.crate[c, t]
            if truthful or t == a:  # 4.4-B1, 4.4-B2: announced goods go to the warehouse
                for _ in range(k):
                    store(s, c, t)
                if truthful:
                    fine += k * CARD_FINE[t]
            else:  # 4.4-B3, 4.4-B4: the rest is confiscated, its fines are owed
                s.discard[t] += k
                fine += k * CARD_FINE[t]
            s.crate[c, t] = 0
        s.fine = fine
    s.phase = PH_LAWYER


@kernel
def _payable(s, g):
    if s.g_status[g] != G_COMMITTED:
        return False
    if s.deal_gold[g] > 0:
        return True
    for t in range(NUM_GOODS):
        if s.deal_wh[g, t] > 0 or s.deal_crate[g, t] > 0:
            return True
    return False


@kernel
def _owed_gold(s, x, g):
    """Gold owed to inspector slot ``g``: by the deal (``x`` < 0) or by ``x``'s bounty, if the
    inspector earned it (``bounty_on``)."""
    if x < 0:
        return np.int64(s.deal_gold[g])
    return np.int64(s.bounty_gold[x, g]) if s.bounty_on[x, g] != 0 else np.int64(0)


@kernel
def _owed_wh(s, x, g, t):
    """Escrowed warehouse cards of type ``t`` owed to slot ``g`` (see :func:`_owed_gold`)."""
    if x < 0:
        return np.int64(s.deal_wh[g, t])
    return np.int64(s.bounty_wh[x, g, t]) if s.bounty_on[x, g] != 0 else np.int64(0)


@kernel
def _owed_crate(s, x, g, t):
    """Crate cards of type ``t`` owed to slot ``g``: only deals promise crate goods (R-08)."""
    return np.int64(s.deal_crate[g, t]) if x < 0 else np.int64(0)


@kernel(standalone=True)
def _pay_parts(s, payer, x, lawyer_slot):
    """Pay promised parts to the inspectors (slot 0 = A, 1 = B): the deals of the crate's
    owner ``payer`` (``x`` = -1) or the bounties of smuggler ``x`` = ``payer``: gold, escrowed
    warehouse cards and cards still in the payer's crate (:func:`_owed_gold`, :func:`_owed_wh`,
    :func:`_owed_crate`). With a Lawyer (``lawyer_slot`` >= 0) only that slot receives, half
    of the summed gold and half of the summed cards (LW-2..LW-4, R-17c): the lowest-value cards
    (R-17d), or, with ``lawyer_goods="player_choice"``, cards the payer then picks
    (``PH_LAWYER_GOODS``). Returns the gold paid."""
    paid = 0
    ni = num_inspectors(s)  # slot B owes nothing without a second inspector
    for g in range(ni):
        s.res_gold[payer] -= _owed_gold(s, x, g)
        for t in range(NUM_GOODS):
            s.res_wh[payer, t] -= _owed_wh(s, x, g, t)
    if lawyer_slot < 0:
        for g in range(ni):
            to = s.insp[g]
            gold = _owed_gold(s, x, g)
            if gold > 0:
                s.gold[payer] -= gold
                s.gold[to] += gold
                paid += gold
            for t in range(NUM_GOODS):
                for _ in range(_owed_wh(s, x, g, t)):
                    hand_over_goods(s, payer, to, t, False)
                for _ in range(_owed_crate(s, x, g, t)):
                    hand_over_goods(s, payer, to, t, True)
    else:
        to = s.insp[lawyer_slot]
        paid = (_owed_gold(s, x, 0) + _owed_gold(s, x, 1)) // 2
        s.gold[payer] -= paid
        s.gold[to] += paid
        n = 0
        for t in range(NUM_GOODS):
            s.pool_wh[t] = _owed_wh(s, x, 0, t) + _owed_wh(s, x, 1, t)
            s.pool_crate[t] = _owed_crate(s, x, 0, t) + _owed_crate(s, x, 1, t)
            n += s.pool_wh[t] + s.pool_crate[t]
        s.pool_left = n // 2
        s.pool_payer = payer
        s.lawyer_to = lawyer_slot
        if s.cfg[CFG_LAWYER_CHOICE] == 0:  # R-17d: the lowest-value cards, automatically
            while s.pool_left > 0:
                best = -1
                for t in range(NUM_GOODS):
                    if s.pool_wh[t] + s.pool_crate[t] > 0 and (
                            best < 0 or card_order_key(t) < card_order_key(best)):
                        best = t
                hand_over(s, best)
    return paid


@kernel
def hand_over(s, t):
    """One card of type ``t`` of the Lawyer's pool goes to the halved inspector: a card still
    in the crate first, else an escrowed warehouse card."""
    from_crate = s.pool_crate[t] > 0
    if from_crate:
        s.pool_crate[t] -= 1
    else:
        s.pool_wh[t] -= 1
    hand_over_goods(s, s.pool_payer, s.insp[s.lawyer_to], t, from_crate)
    s.pool_left -= 1


@kernel(standalone=True)
def _pay_deals(s, lawyer_slot):
    # only committed inspectors have deals (R-05; with accept_commits=False a held deal has
    # been kept, and so committed, or voided by now, P-5.3(b')); clear any other row
    for g in range(2):
        if s.g_status[g] != G_COMMITTED:
            s.deal_gold[g] = 0
            for t in range(NUM_GOODS):
                s.deal_wh[g, t] = 0
                s.deal_crate[g, t] = 0
    s.fund_paid = _pay_parts(s, s.cur, -1, lawyer_slot)
    s.lawyer_to = lawyer_slot
    s.phase = PH_LAWYER_GOODS if s.pool_left > 0 else PH_FUND
    if s.phase == PH_FUND:
        _unpicked_crate_goods_home(s)


@kernel
def _unpicked_crate_goods_home(s):
    """Crate cards not handed over in deals go to the owner's warehouse."""
    c = s.cur
    for t in range(NUM_GOODS):
        for _ in range(s.crate[c, t]):
            store(s, c, t)
        s.crate[c, t] = 0


@kernel
def seek_lawyer(s):
    """Step 2: the owner's Lawyer (P-5.5); without one, deals are paid in full."""
    if s.cfg[CFG_ACTION_CARDS] != 0 and active_cards(s, s.cur, LAWYER) > 0:
        for g in range(num_inspectors(s)):
            if _payable(s, g):
                s.turn = s.cur
                return True
    _pay_deals(s, -1)
    return False


@kernel
def legal_lawyer(s, out):
    """The half goes to an inspector owed a binding deal (R-17b); only with an active Lawyer."""
    if active_cards(s, s.turn, LAWYER) > 0:
        for g in range(num_inspectors(s)):
            if (_payable(s, g) if s.phase == PH_LAWYER else s.bounty_on[s.turn, g] != 0):
                out[A_LAWYER + g] = 1
    out[A_NO_LAWYER] = 1


@kernel
def apply_lawyer(s, a):
    slot = -1
    if a != A_NO_LAWYER:
        slot = a - A_LAWYER
        play_card(s, s.turn, LAWYER)
    if s.phase == PH_LAWYER:
        _pay_deals(s, slot)
    else:
        _pay_bounties(s, s.turn, slot)
        if s.pool_left > 0:
            s.phase = PH_LAWYER_GOODS
        else:
            s.pos += 1


# --- R-17d variant: the Lawyer's player picks the goods ---------------------------------------
@kernel
def seek_lawyer_goods(s):
    if s.pool_left > 0:
        s.turn = s.pool_payer
        return True
    if s.pool_payer == s.cur:  # the owner's deals: go on with the Fund
        _unpicked_crate_goods_home(s)
        s.phase = PH_FUND
    else:  # a bounty payer: go on with the next payer
        s.phase = PH_BOUNTY_LAWYER
        s.pos += 1
    return False


@kernel
def legal_lawyer_goods(s, out):
    for t in range(NUM_GOODS):
        if s.pool_wh[t] + s.pool_crate[t] > 0:
            out[A_HAND_OVER + t] = 1


@kernel
def apply_lawyer_goods(s, a):
    hand_over(s, a - A_HAND_OVER)


# --- step 3: the Syndicate Fund ---------------------------------------------------------------
@kernel
def syndicate_fund(s, owner, paid):
    """SF-2..SF-5, R-18: the other smugglers, clockwise from the owner's left, each pay
    min(ceil(paid / k), 5, their free gold, what is still due); no redistribution."""
    n = num_players(s)
    k = 0
    for q in range(n):
        if q != owner and not is_inspector(s, q):
            k += 1
    if k == 0 or paid <= 0:
        return
    share = min(MAX_FUND_SHARE, (paid + k - 1) // k)
    due = paid
    for i in range(1, n):
        q = (owner + i) % n
        if is_inspector(s, q) or due == 0:
            continue
        pay = min(share, due, max(free_gold(s, q), 0))
        s.gold[q] -= pay
        s.gold[owner] += pay
        due -= pay


@kernel
def seek_fund(s):
    """Step 3: the Fund covers gold paid in deals on the owner's own crate (7.4-6, R-18b)."""
    if s.fund_paid > 0 and s.cfg[CFG_ACTION_CARDS] != 0 \
            and active_cards(s, s.cur, SYNDICATE_FUND) > 0:
        s.turn = s.cur
        return True
    _pay_fines(s)
    return False


@kernel
def legal_fund(s, out):
    if active_cards(s, s.cur, SYNDICATE_FUND) > 0:
        out[A_FUND] = 1
    out[A_NO_FUND] = 1


@kernel
def apply_fund(s, a):
    if a == A_FUND:
        play_card(s, s.cur, SYNDICATE_FUND)
        syndicate_fund(s, s.cur, s.fund_paid)
    _pay_fines(s)


# --- step 4: fines ------------------------------------------------------------------------------
@kernel(standalone=True)
def _pay_fines(s):
    """4.4-B1/B4 with §8's split: one opener takes or pays it all; two openers halve it, the
    odd gold going to (or, never with these cards, R-36, coming from) the bank."""
    if s.outcome == OUT_OPENED or s.outcome == OUT_FALSE_BOTTOM:
        c = s.cur
        openers = 0
        for g in range(num_inspectors(s)):
            if s.g_status[g] == G_OPENED:
                openers += 1
        share = s.fine // openers
        for g in range(num_inspectors(s)):
            if s.g_status[g] != G_OPENED:
                continue
            x = s.insp[g]
            payer, creditor = (x, c) if s.truthful else (c, x)
            paid = pay_debt(s, payer, creditor, share)
            s.hist[payer, H_FINES_PAID] += paid
            s.hist[creditor, H_FINES_RECEIVED] += paid
        odd = s.fine - share * openers
        if odd > 0:
            if s.truthful:
                s.gold[c] += odd
                s.bank_out += odd
                s.hist[c, H_FINES_RECEIVED] += odd
            else:
                s.hist[c, H_FINES_PAID] += pay_debt(s, c, -1, odd)
    s.phase = PH_BOUNTY_LAWYER
    s.pos = 0


# --- step 5: bounties ---------------------------------------------------------------------------
@kernel(standalone=True)
def _pay_bounties(s, x, lawyer_slot):
    _pay_parts(s, x, x, lawyer_slot)
    for g in range(2):
        s.bounty_on[x, g] = 0


@kernel
def seek_bounty_lawyer(s):
    """Bounties of inspectors who declared Open are paid, even after Secret Route (R-07)."""
    n = num_players(s)
    while s.pos < n:
        x = s.order[s.pos]
        if s.bounty_on[x, 0] != 0 or s.bounty_on[x, 1] != 0:
            if s.cfg[CFG_ACTION_CARDS] != 0 and active_cards(s, x, LAWYER) > 0:
                s.turn = x
                return True
            _pay_bounties(s, x, -1)
        s.pos += 1
    _finish_crate(s)
    return False


@kernel
def _finish_crate(s):
    c = s.cur
    s.crate_status[c] = CRATE_DONE
    s.crate_size[c] = 0
    for g in range(2):
        s.g_status[g] = 0
    s.phase = PH_CHOOSE_CRATE
