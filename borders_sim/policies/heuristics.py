"""The shared machinery of the heuristic bots (:mod:`.honest`, :mod:`.bluffer`,
:mod:`.collector`, :mod:`.strict`): reading the observation blocks a decision needs, the
estimates every bot makes from public history, and one compiled decision procedure per phase,
tuned by a bot's *style* (a tuple of the ``S_*`` parameters below). Each bot's module documents
its choices in game words; this module is the arithmetic behind them.

Everything here reads a player's observation (``obs``, seat-relative: row 0 is the viewer; see
:data:`~borders_sim.rules.observation.OBSERVATION_LAYOUT`) and its legal mask only. Every choice
is checked against the mask; when the preferred action is not legal the phase's sensible default
is taken (pass, end the market turn, close, no card, no Lawyer, stay out, keep the deal, ...),
and failing that the phase's first legal id, so a heuristic bot never returns an illegal id.

Estimates (public history counters, R-39):

* an owner's **lie rate**: ``(lies caught + 2 * prior) / (crates opened + 2)``, the share of its
  opened crates that lied, shrunk towards the style's prior;
* an inspector's **open rate**: ``(opens + 1) / (crates inspected + 3)``; the chance that one's
  own crate is opened is ``1 - prod(1 - open rate)`` over the badges;
* the **value of opening** a crate of ``n`` cards for a badge: ``p * 3n - (1 - p) * fine(n)``
  (a lying crate costs its owner about 3 gold a card, a truthful one makes the inspector pay its
  fines, 4.4-B), plus the bounties addressed to that badge (accepted by opening, R-07). A standing
  offer or a deal on the crate is a sign of contraband (a truthful owner gains from an open), so
  it lifts ``p`` halfway to 1.
"""

from __future__ import annotations


from ..rules.actions import (A_ACCEPT, A_ACCEPT_DEMAND, A_ANNOUNCE, A_BOUNTY_DONE, A_CLOSE,
                             A_COLLECT, A_DEMAND, A_DISCARD, A_END_MARKET, A_FUND, A_HAND_OVER,
                             A_INSPECT, A_JOIN, A_KEEP_DEAL, A_LAWYER, A_NO_LAWYER,
                             A_NO_REACTION, A_OFFER_DONE, A_OFFER_GOLD, A_OPEN, A_OPEN_AND_VOID,
                             A_PACK, A_PASS, A_PLAY_BOTTOM, A_PLAY_ROUTE, A_RAID,
                             A_REFUSE_DEMAND, A_ROB, A_STAY_OUT, A_WAIT, A_WINDOW_PASS,
                             NUM_ACTIONS, PHASE_HI, PHASE_LO)
from ..rules.cards import (CARD_CLASS, CARD_FINE, CARD_VALUE, CLASS_ACTION, CLASS_LEGAL,
                           MAIN_PARTS, MAIN_POINTS, MAX_CRATE, MAX_PARTS, NUM_CARD_TYPES,
                           NUM_GOODS, NUM_LEGAL, NUM_MAIN, PART_ANY, PART_DIFFERENT, PART_NAMED,
                           PART_NONE, PART_PIECES, PART_SAME, PIECE_TYPE, PIECES)
from ..rules.engine import first_legal, kth_legal
from .._compile.jit import kernel
from ..rules.observation import (O_ANNOUNCED, O_BOUNTIES, O_CRATE_COUNT,
                                 O_CRATE_UNDER_CHECK, O_DEAL, O_DEMAND, O_EXCHANGE, O_FACE_UP, O_GOLD,
                                 O_GOLD_MENU, O_HISTORY, O_INSPECTOR_A, O_INSPECTOR_B,
                                 O_INSPECTOR_STATUS, O_MAIN_HELD, O_MAIN_IN_MIDDLE,
                                 O_NUM_PLAYERS, O_OFFER, O_OWN_CRATE, O_OWN_FACE_DOWN, O_SEAT,
                                 O_OWN_HAND, O_PHASE, O_RESERVED_GOLD, OBSERVATION_LAYOUT)
from ..rules.state import (G_HOLDING, G_STATUS_NAMES, H_CRATES, H_CRATES_INSPECTED,
                           H_CRATES_OPENED, H_LIES_CAUGHT, H_OPENS, MAX_PLAYERS, MENU_MAX,
                           MIN_PLAYERS, NUM_HIST, PH_ANNOUNCE, PH_ANSWER_DEMAND, PH_BOUNTY,
                           PH_BOUNTY_LAWYER, PH_CHOOSE_CRATE, PH_COLLECT, PH_FUND, PH_GAME_OVER,
                           PH_JOIN, PH_KEEP_OR_OPEN, PH_LAWYER, PH_LAWYER_GOODS, PH_MARKET,
                           PH_OFFER, PH_PACK, PH_RAID_DISCARD, PH_REACT, PH_RESPOND, PH_WINDOW,
                           PHASE_NAMES)

_SIZE = {e.name: e.size for e in OBSERVATION_LAYOUT}
#: Entries of one offer or deal parcel: gold, warehouse cards by type, crate cards by type, promise.
PARCEL = _SIZE["offer"] // 2
#: Entries of one bounty (one seat to one badge): gold, warehouse cards by type, accepted.
BOUNTY = _SIZE["bounties"] // (2 * MAX_PLAYERS)
NUM_PHASES = len(PHASE_NAMES)
NUM_G_STATUS = len(G_STATUS_NAMES)

# --- the style: what makes honest, bluffer and collector different -----------------------------
#: Index of each style parameter in a bot's style tuple.
(S_SMUGGLE,      # 0: never smuggles (unless it holds no legal goods), 1: smuggles contraband of
                 #    positive expected value, 2: smuggles what its main resource needs
 S_BRIBE,        # offered bribe, as a share of the fine at risk, in the first exchange
 S_PAY_CAP,      # most it pays for a deal, as a share of the fine plus the value at risk
 S_PRIOR,        # prior lie rate of a crate owner with no opened crates
 S_OPEN_MARGIN,  # gold the value of opening must exceed the alternative by
 S_COLLECTOR,    # 1: keeps and packs cards for a main resource and King/Queen majorities
 ) = range(6)

SMUGGLE_NEVER, SMUGGLE_EV, SMUGGLE_NEEDED = 0, 1, 2
#: Expected fine of a card in a lying crate (contraband 4, premium 3-5, a legal card of the
#: announced type 0): the inspector's estimate.
LIE_FINE_PER_CARD = 3.0
#: A discard in the market is free (the hand is drawn back to 6): cards scoring below this go.
KEEP_SCORE = 30.0
#: The prior lie rate an owner assumes the inspectors hold of it.
OWNER_VIEW_PRIOR = 0.45
#: How much a collector values a card its target main resource needs (in card-value points).
NEED_BONUS = 6.0


# --- reading the observation -----------------------------------------------------------------
@kernel
def phase_of(obs):
    """The phase (``PH_*``) from the phase one-hot."""
    for ph in range(NUM_PHASES):
        if obs[O_PHASE + ph] > 0:
            return ph
    return PH_GAME_OVER


@kernel
def players_of(obs):
    """The player count from its one-hot."""
    for k in range(MAX_PLAYERS - MIN_PLAYERS + 1):
        if obs[O_NUM_PLAYERS + k] > 0:
            return MIN_PLAYERS + k
    return MIN_PLAYERS


@kernel
def row_of(obs, block):
    """The row marked in a one-hot seat block (e.g. ``O_CRATE_UNDER_CHECK``), -1 if none."""
    for r in range(MAX_PLAYERS):
        if obs[block + r] > 0:
            return r
    return -1


@kernel
def hist(obs, r, h):
    """Public history counter ``h`` (``H_*``) of row ``r``."""
    return obs[O_HISTORY + r * NUM_HIST + h]


@kernel
def free_gold(obs, r):
    """Gold of row ``r`` not reserved by accepted deals and bounties (R-09)."""
    return obs[O_GOLD + r] - obs[O_RESERVED_GOLD + r]


@kernel
def my_badge(obs):
    """The viewer's badge slot (0 = A, 1 = B) when it inspects."""
    return 0 if obs[O_INSPECTOR_A] > 0 else 1


@kernel
def hand(obs, t):
    return obs[O_OWN_HAND + t]


@kernel
def owned(obs, t):
    """Own warehouse cards of goods type ``t`` (face up and face down)."""
    c = obs[O_OWN_FACE_DOWN + t]
    if t < NUM_LEGAL:
        c += obs[O_FACE_UP + t]
    return c


@kernel
def pool(obs, t):
    """Own cards of goods type ``t`` in hand and crate: what a crate is packed from."""
    return obs[O_OWN_HAND + t] + obs[O_OWN_CRATE + t]


# --- choosing among legal ids -----------------------------------------------------------------
@kernel
def legal(mask, a):
    return 0 <= a < NUM_ACTIONS and mask[a] != 0


@kernel
def either(mask, a, b):
    """``a`` if legal, else ``b`` if legal, else -1."""
    if legal(mask, a):
        return a
    if legal(mask, b):
        return b
    return -1


@kernel
def menu_at_most(obs, amount):
    """Index of the largest gold-menu amount at most ``amount`` (-1 if none)."""
    best = -1
    for k in range(MENU_MAX):
        g = obs[O_GOLD_MENU + k]
        if g > 0 and g <= amount:
            best = k
    return best


@kernel
def gold_id(obs, mask, base, amount):
    """The legal id of gold range ``base`` (one id per menu entry) with the largest amount at
    most ``amount``, or -1."""
    best = -1
    for k in range(MENU_MAX):
        g = obs[O_GOLD_MENU + k]
        if g > 0 and g <= amount and mask[base + k]:
            best = base + k
    return best


@kernel
def own_seat(obs):
    """The viewer's absolute seat (the ``seat`` block): action ids that name seats use it."""
    for q in range(MAX_PLAYERS):
        if obs[O_SEAT + q] > 0:
            return q
    return 0


# --- estimates from public history -------------------------------------------------------------
@kernel
def lie_rate(obs, r, prior):
    """Share of row ``r``'s opened crates that lied, shrunk towards ``prior``."""
    return (hist(obs, r, H_LIES_CAUGHT) + 2.0 * prior) / (hist(obs, r, H_CRATES_OPENED) + 2.0)


@kernel
def open_rate(obs, r):
    """Share of the crates row ``r`` handled as an inspector that it opened (or joined)."""
    return (hist(obs, r, H_OPENS) + 1.0) / (hist(obs, r, H_CRATES_INSPECTED) + 3.0)


@kernel
def check_rate(obs):
    """Chance that the viewer's crate is opened this round: per badge, the mean of the badge's
    open rate and the share of the viewer's own crates opened so far (``(opened + 1) / (crates
    + 3)``: a smuggler caught lying is opened more), combined over the badges."""
    mine = (hist(obs, 0, H_CRATES_OPENED) + 1.0) / (hist(obs, 0, H_CRATES) + 3.0)
    keep = 1.0 - 0.5 * (open_rate(obs, row_of(obs, O_INSPECTOR_A)) + mine)
    b = row_of(obs, O_INSPECTOR_B)
    if b >= 0:
        keep *= 1.0 - 0.5 * (open_rate(obs, b) + mine)
    return 1.0 - keep


@kernel
def parcel_value(obs, o):
    """Worth of an offer or deal parcel at ``o``: its gold, its warehouse cards at their value
    and its crate cards at half their value (they are paid only if really in the crate, R-08)."""
    v = obs[o]
    for t in range(NUM_GOODS):
        v += CARD_VALUE[t] * (obs[o + 1 + t] + 0.5 * obs[o + 1 + NUM_GOODS + t])
    return v


@kernel
def bounty_for(obs, g):
    """Worth of the bounties addressed to badge ``g`` on the crate under check (R-07)."""
    v = 0.0
    for r in range(MAX_PLAYERS):
        o = O_BOUNTIES + (r * 2 + g) * BOUNTY
        v += obs[o]
        for t in range(NUM_GOODS):
            v += CARD_VALUE[t] * obs[o + 1 + t]
    return v


@kernel
def announced_type(obs, r):
    for t in range(NUM_LEGAL):
        if obs[O_ANNOUNCED + r * NUM_LEGAL + t] > 0:
            return t
    return 0


@kernel
def open_value(obs, g, r, prior):
    """Expected gold for badge ``g`` of opening row ``r``'s crate (see the module docstring),
    bounties for ``g`` included."""
    n = obs[O_CRATE_COUNT + r]
    p = lie_rate(obs, r, prior)
    if obs[O_OFFER + g * PARCEL] > 0 or obs[O_DEAL] > 0 or obs[O_DEAL + PARCEL] > 0:
        p = 0.5 + 0.5 * p
    truth_fine = CARD_FINE[announced_type(obs, r)] * n
    return p * LIE_FINE_PER_CARD * n - (1.0 - p) * truth_fine + bounty_for(obs, g)


# --- the viewer's own crate -------------------------------------------------------------------
@kernel
def crate_at_risk(obs):
    """(fine, value) of the cards of the viewer's crate that an open would confiscate: every
    card not of the announced type (4.4-B2)."""
    t_ann = announced_type(obs, 0)
    fine = 0.0
    value = 0.0
    for t in range(NUM_GOODS):
        c = obs[O_OWN_CRATE + t]
        if c > 0 and t != t_ann:
            fine += c * CARD_FINE[t]
            value += c * CARD_VALUE[t]
    return fine, value


# --- main resources (collector) ---------------------------------------------------------------
@kernel
def pieces_owned(obs, legal_type):
    total = 0.0
    for t in range(NUM_GOODS):
        if PIECE_TYPE[t] == legal_type:
            total += owned(obs, t) * PIECES[t]
    return total


@kernel
def missing(obs, m):
    """About how many more warehouse cards main resource ``m`` needs (cards shared between
    parts counted for each: an estimate, the engine's exact check decides collection)."""
    miss = 0.0
    for j in range(MAX_PARTS):
        kind = MAIN_PARTS[m, j, 0]
        t = MAIN_PARTS[m, j, 1]
        n = MAIN_PARTS[m, j, 2]
        have = 0.0
        if kind == PART_PIECES:
            have = pieces_owned(obs, t)
        elif kind == PART_NAMED:
            have = owned(obs, t)
        elif kind == PART_ANY:
            for u in range(NUM_GOODS):
                if CARD_CLASS[u] != CLASS_LEGAL:
                    have += owned(obs, u)
        elif kind == PART_DIFFERENT:
            for u in range(NUM_LEGAL):
                if pieces_owned(obs, u) > 0:
                    have += 1.0
        elif kind == PART_SAME:
            for u in range(NUM_LEGAL):
                have = max(have, pieces_owned(obs, u))
        if kind != PART_NONE:
            miss += max(0.0, n - have)
    return miss


@kernel
def target_main(obs):
    """The main resource in the middle worth chasing (most points less 6 per missing card), or
    -1 once the viewer holds two (5-13)."""
    held = 0.0
    for m in range(NUM_MAIN):
        held += obs[O_MAIN_HELD + m]
    if held >= 2:
        return -1
    best, best_score = -1, -1e9
    for m in range(NUM_MAIN):
        if obs[O_MAIN_IN_MIDDLE + m] > 0:
            score = MAIN_POINTS[m] - 6.0 * missing(obs, m)
            if score > best_score:
                best, best_score = m, score
    return best


@kernel
def helps(m, t):
    """Whether a card of goods type ``t`` fills a part of main resource ``m``."""
    if m < 0:
        return False
    for j in range(MAX_PARTS):
        kind = MAIN_PARTS[m, j, 0]
        if kind == PART_PIECES and PIECE_TYPE[t] == MAIN_PARTS[m, j, 1]:
            return True
        if kind == PART_NAMED and t == MAIN_PARTS[m, j, 1]:
            return True
        if kind == PART_ANY and CARD_CLASS[t] != CLASS_LEGAL:
            return True
        if (kind == PART_DIFFERENT or kind == PART_SAME) and PIECE_TYPE[t] >= 0:
            return True
    return False


# --- what a smuggler packs --------------------------------------------------------------------
@kernel
def cover_type(obs, style, m):
    """The legal type a smuggler packs and announces: the one it holds most of in hand and crate
    (ties: the more valuable); a collector adds 2 for a type its main resource needs and 1 for a
    type where its face-up cards match or beat every other seat's (a King/Queen majority, §9)."""
    n = players_of(obs)
    best, best_score = 0, -1.0
    for t in range(NUM_LEGAL):
        score = pool(obs, t) + 0.01 * CARD_VALUE[t]
        if style[S_COLLECTOR] > 0 and pool(obs, t) > 0:
            if helps(m, t):
                score += 2.0
            lead = True
            for r in range(1, n):
                if obs[O_FACE_UP + r * NUM_LEGAL + t] > obs[O_FACE_UP + t]:
                    lead = False
            if lead:
                score += 1.0
        if score > best_score:
            best, best_score = t, score
    return best


@kernel
def smuggles(obs, style, t, q, m):
    """Whether the smuggler puts contraband or premium card ``t`` in its crate, the crate being
    opened with chance ``q``: bluffer when it is worth more than it risks, ``(1-q) value - q fine
    > 0``; collector when its main resource needs it and ``(1-q)(value + 6) - q fine > 0``, or
    when it clears ``(1-q) value - q fine > 3``; honest never."""
    mode = style[S_SMUGGLE]
    ev = (1.0 - q) * CARD_VALUE[t] - q * CARD_FINE[t]
    if mode == SMUGGLE_EV:
        return ev > 0.0
    if mode == SMUGGLE_NEEDED:
        if helps(m, t) and ev + (1.0 - q) * NEED_BONUS > 0.0:
            return True
        return ev > 3.0
    return False


@kernel
def plan_count(obs, style, t, cover, q, m):
    """How many cards of goods type ``t`` the planned crate holds: contraband and premium cards
    it smuggles first (most valuable first), then cover cards, up to 5 (4.2-1). The plan depends
    on hand + crate only, so it stays the same while the crate is packed card by card."""
    room = MAX_CRATE
    for v in range(9, 1, -1):  # contraband and premium by value, high first
        for u in range(NUM_LEGAL, NUM_GOODS):
            if CARD_VALUE[u] == v and smuggles(obs, style, u, q, m):
                c = min(pool(obs, u), room)
                if u == t:
                    return c
                room -= c
    c = min(pool(obs, cover), room)
    if t == cover:
        return c
    return 0


@kernel
def forced_card(obs):
    """With nothing planned (no legal goods, no contraband worth the risk) a crate still takes
    a card (4.2-2): the one with the lowest fine, then the lowest value."""
    best, best_key = -1, 1e9
    for t in range(NUM_GOODS):
        if pool(obs, t) > 0:
            key = CARD_FINE[t] * 100.0 + CARD_VALUE[t]
            if key < best_key:
                best, best_key = t, key
    return best


@kernel
def keep_score(obs, style, t, cover, q, m):
    """How much a smuggler wants to keep a hand card of type ``t`` (market and raid discards):
    action cards 100; cards of its cover type 50 + value; contraband it would smuggle 40 +
    value; a collector's cards for its main resource 45 + value; anything else its value (so
    below :data:`KEEP_SCORE`: discarded, since the hand is drawn back to 6)."""
    if CARD_CLASS[t] == CLASS_ACTION:
        return 100.0
    if t == cover:
        return 50.0 + CARD_VALUE[t]
    if style[S_COLLECTOR] > 0 and helps(m, t):
        return 45.0 + CARD_VALUE[t]
    if CARD_CLASS[t] != CLASS_LEGAL and smuggles(obs, style, t, q, m):
        return 40.0 + CARD_VALUE[t]
    return float(CARD_VALUE[t])


@kernel
def worst_card(obs, style):
    """(type, score) of the hand card the smuggler wants least."""
    m = target_main(obs) if style[S_COLLECTOR] > 0 else -1
    cover = cover_type(obs, style, m)
    q = check_rate(obs)
    worst, worst_score = -1, 1e9
    for t in range(NUM_CARD_TYPES):
        if hand(obs, t) > 0:
            sc = keep_score(obs, style, t, cover, q, m)
            if sc < worst_score:
                worst, worst_score = t, sc
    return worst, worst_score


# --- one decision per phase -------------------------------------------------------------------
@kernel
def richest_target(obs, mask, n):
    """The Robbery id against the opponent with the most free gold."""
    me = own_seat(obs)
    best, best_gold = -1, -1.0
    for r in range(1, n):
        a = A_ROB + (me + r) % n
        if mask[a] and free_gold(obs, r) > best_gold:
            best, best_gold = a, free_gold(obs, r)
    return best


@kernel
def act_window(obs, mask):
    """Night Raid whenever it can (a card from every opponent, then the worst cards go);
    else Robbery on the richest opponent; else pass."""
    if legal(mask, A_RAID):
        return A_RAID
    a = richest_target(obs, mask, players_of(obs))
    if a >= 0:
        return a
    return A_WINDOW_PASS


@kernel
def act_market(obs, mask, style):
    """Robbery first if the variant allows it here; then discard the least wanted card while it
    scores below :data:`KEEP_SCORE`; then end the turn."""
    a = richest_target(obs, mask, players_of(obs))
    if a >= 0:
        return a
    t, score = worst_card(obs, style)
    if t >= 0 and score < KEEP_SCORE and legal(mask, A_DISCARD + t):
        return A_DISCARD + t
    return A_END_MARKET


@kernel
def act_pack(obs, mask, style):
    """Pack the next card of the plan (:func:`plan_count`), then close."""
    m = target_main(obs) if style[S_COLLECTOR] > 0 else -1
    q = check_rate(obs)
    cover = cover_type(obs, style, m)
    planned = 0
    for t in range(NUM_GOODS):
        want = plan_count(obs, style, t, cover, q, m)
        planned += want
        if want > obs[O_OWN_CRATE + t] and legal(mask, A_PACK + t):
            return A_PACK + t
    if planned == 0 and legal(mask, A_PACK + forced_card(obs)):
        return A_PACK + forced_card(obs)
    return A_CLOSE


@kernel
def act_announce(obs, mask):
    """Announce the legal type the crate holds most of (truthful for a one-type crate; for a
    crate of contraband, the type with the most face-up cards, a plausible cover)."""
    best, best_score = -1, -1.0
    for t in range(NUM_LEGAL):
        score = 10.0 * obs[O_OWN_CRATE + t] + obs[O_FACE_UP + t] + 0.01 * CARD_VALUE[t]
        if mask[A_ANNOUNCE + t] and score > best_score:
            best, best_score = A_ANNOUNCE + t, score
    return best


@kernel
def act_choose_crate(obs, mask):
    """Inspect first the crate most likely to pay: lie rate times cards (inspect ids name
    absolute seats: row ``r`` is seat ``own seat + r``)."""
    n = players_of(obs)
    me = own_seat(obs)
    best, best_score = -1, -1.0
    for r in range(1, n):
        a = A_INSPECT + (me + r) % n
        score = lie_rate(obs, r, 0.5) * obs[O_CRATE_COUNT + r]
        if mask[a] and score > best_score:
            best, best_score = a, score
    return best


@kernel
def bribe(obs, style, g):
    """The let-through bribe the owner offers badge ``g`` now; 0 for a truthful crate (an open
    would pay the owner). In the first exchange it offers only if the badge would open a crate
    like this one without an offer (:func:`open_value` with a 45% prior and the owner's record),
    since an offer is a sign of contraband. The amount is the style's share of the fine at risk,
    up by half of it with each later exchange, at least what makes the badge prefer the deal to
    an open; nothing if that is more than the style's cap of fine plus value at risk."""
    fine, value = crate_at_risk(obs)
    if fine <= 0:
        return 0.0
    r = 0  # the viewer's own crate
    n = obs[O_CRATE_COUNT]
    p = lie_rate(obs, r, OWNER_VIEW_PRIOR)
    truth_fine = CARD_FINE[announced_type(obs, r)] * n
    if obs[O_EXCHANGE] <= 1 and p * LIE_FINE_PER_CARD * n - (1.0 - p) * truth_fine <= 0:
        return 0.0
    p = 0.5 + 0.5 * p
    needed = p * LIE_FINE_PER_CARD * n - (1.0 - p) * truth_fine + bounty_for(obs, g) + 1.0
    amount = max(style[S_BRIBE] * fine * (1.0 + 0.5 * (obs[O_EXCHANGE] - 1.0)), needed)
    if amount > style[S_PAY_CAP] * (fine + value):
        return 0.0
    return amount


@kernel
def act_offer(obs, mask, style):
    """Set the gold offered to each undecided badge to :func:`bribe` (rounded down to the
    menu), once per turn; no goods, no promises; then done."""
    for g in range(2):
        k = menu_at_most(obs, bribe(obs, style, g))
        a = A_OFFER_GOLD + g * MENU_MAX + k
        if k >= 0 and legal(mask, a) and obs[O_OFFER + g * PARCEL] < obs[O_GOLD_MENU + k]:
            return a
    return A_OFFER_DONE


@kernel
def act_answer_demand(obs, mask, style):
    """Accept a demand for a lying crate up to the style's cap of fine plus value at risk;
    refuse it for a truthful crate."""
    fine, value = crate_at_risk(obs)
    # the demands are answered badge by badge, each then cleared: the first standing one is asked
    demand = obs[O_DEMAND] if obs[O_DEMAND] > 0 else obs[O_DEMAND + 1]
    if fine > 0 and demand <= style[S_PAY_CAP] * (fine + value):
        return either(mask, A_ACCEPT_DEMAND, A_REFUSE_DEMAND)
    return A_REFUSE_DEMAND


@kernel
def act_respond(obs, mask, style):
    """The inspector's answer in an exchange (P-5.3b): open when opening is worth more than the
    offer by the style's margin; accept an offer worth at least what opening is; else demand
    half the expected fine of a lying crate (at least the offer + 1) while exchanges remain,
    or wait; else pass."""
    g = my_badge(obs)
    r = row_of(obs, O_CRATE_UNDER_CHECK)
    ev = open_value(obs, g, r, style[S_PRIOR])
    offer = parcel_value(obs, O_OFFER + g * PARCEL)
    if ev > max(offer, 0.0) + style[S_OPEN_MARGIN]:
        return A_OPEN
    if offer > 0 and legal(mask, A_ACCEPT):
        return A_ACCEPT
    n = obs[O_CRATE_COUNT + r]
    a = gold_id(obs, mask, A_DEMAND, max(0.5 * LIE_FINE_PER_CARD * n, offer + 1.0))
    if a >= 0 and ev > -2.0 * n:
        return a
    return either(mask, A_WAIT, A_PASS)


@kernel
def held_deal(obs, g):
    """Worth of the deal badge ``g`` holds (P-5.3(b')), 0 if none."""
    if obs[O_INSPECTOR_STATUS + g * NUM_G_STATUS + G_HOLDING] > 0:
        return parcel_value(obs, O_DEAL + g * PARCEL)
    return 0.0


@kernel
def act_join(obs, mask, style):
    """Join the other badge's open when its share of the value of opening (half the fine or
    half the cost, §8) plus the bounties joining accepts beats the deal held (0 if none) by the
    style's margin; else stay out."""
    g = my_badge(obs)
    r = row_of(obs, O_CRATE_UNDER_CHECK)
    bounty = bounty_for(obs, g)
    share = 0.5 * (open_value(obs, g, r, style[S_PRIOR]) - bounty) + bounty
    if share > held_deal(obs, g) + style[S_OPEN_MARGIN]:
        return A_JOIN
    return A_STAY_OUT


@kernel
def act_keep_or_open(obs, mask, style):
    """Open (voiding the held deal) only when opening is worth more than the deal by the
    style's margin; else keep it."""
    g = my_badge(obs)
    r = row_of(obs, O_CRATE_UNDER_CHECK)
    if open_value(obs, g, r, style[S_PRIOR]) > held_deal(obs, g) + style[S_OPEN_MARGIN]:
        return A_OPEN_AND_VOID
    return A_KEEP_DEAL


@kernel
def act_react(obs, mask):
    """On an open of a lying crate, Secret Route (nothing is confiscated), else False Bottom
    (one card stays hidden); on a truthful crate no card (the inspector pays the fines)."""
    fine, _value = crate_at_risk(obs)
    if fine > 0:
        a = either(mask, A_PLAY_ROUTE, A_PLAY_BOTTOM)
        if a >= 0:
            return a
    return A_NO_REACTION


@kernel
def act_lawyer(mask):
    """Always the Lawyer when a deal or bounty is paid (it halves the payment and expires at
    the round's end anyway), the half to the first badge it may go to."""
    a = first_legal(mask, A_LAWYER, A_LAWYER + 2)
    return a if a >= 0 else A_NO_LAWYER


@kernel
def act_lawyer_goods(mask):
    """Hand over the least valuable card of the pool (R-17d)."""
    best, best_value = -1, 1e9
    for t in range(NUM_GOODS):
        if mask[A_HAND_OVER + t] and CARD_VALUE[t] < best_value:
            best, best_value = A_HAND_OVER + t, CARD_VALUE[t]
    return best


@kernel
def act_collect(obs, mask):
    """Collect the main resource worth most points whenever one can be collected."""
    best, best_points = A_COLLECT - 1, -1
    for m in range(NUM_MAIN):
        if mask[A_COLLECT + m] and MAIN_POINTS[m] > best_points:
            best, best_points = A_COLLECT + m, MAIN_POINTS[m]
    return best


@kernel
def heuristic_act(style, obs, mask, words):
    """The heuristic decision of a bot of ``style`` for this observation and mask: always a
    legal id (the phase's first legal id if the preferred one is not legal)."""
    ph = phase_of(obs)
    a = -1
    if ph == PH_WINDOW:
        a = act_window(obs, mask)
    elif ph == PH_RAID_DISCARD:
        t, _score = worst_card(obs, style)
        a = A_DISCARD + t
    elif ph == PH_MARKET:
        a = act_market(obs, mask, style)
    elif ph == PH_PACK:
        a = act_pack(obs, mask, style)
    elif ph == PH_ANNOUNCE:
        a = act_announce(obs, mask)
    elif ph == PH_CHOOSE_CRATE:
        a = act_choose_crate(obs, mask)
    elif ph == PH_BOUNTY:
        a = A_BOUNTY_DONE
    elif ph == PH_OFFER:
        a = act_offer(obs, mask, style)
    elif ph == PH_RESPOND:
        a = act_respond(obs, mask, style)
    elif ph == PH_ANSWER_DEMAND:
        a = act_answer_demand(obs, mask, style)
    elif ph == PH_JOIN:
        a = act_join(obs, mask, style)
    elif ph == PH_REACT:
        a = act_react(obs, mask)
    elif ph == PH_LAWYER or ph == PH_BOUNTY_LAWYER:
        a = act_lawyer(mask)
    elif ph == PH_FUND:
        a = A_FUND
    elif ph == PH_COLLECT:
        a = act_collect(obs, mask)
    elif ph == PH_LAWYER_GOODS:
        a = act_lawyer_goods(mask)
    elif ph == PH_KEEP_OR_OPEN:
        a = act_keep_or_open(obs, mask, style)
    if legal(mask, a):
        return a
    if ph < NUM_PHASES and PHASE_HI[ph] > PHASE_LO[ph]:
        a = first_legal(mask, PHASE_LO[ph], PHASE_HI[ph])
        if a >= 0:
            return a
    return kth_legal(words, 0, 0)
