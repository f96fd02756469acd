"""The game state: one numpy record of fixed-size fields.

A state is a single element of the structured dtype :data:`STATE_DTYPE`. It holds the whole game,
the configuration and the random generator included, so it is copied with ``.copy()``, batched by
making an array of records, pickled as a numpy array, and fully determines its future (property 3).
Every kernel in :mod:`borders_sim.rules` takes such a record (``states[i]``) and works on its
fields by name: ``s.hand[p, t]``, ``s.gold[p]``.

Per-seat arrays have :data:`MAX_PLAYERS` rows; rows at and beyond ``num_players`` stay zero.
Per-inspector arrays have two rows: slot 0 is badge A, slot 1 badge B (unused with one inspector).
Card arrays are indexed by card type (:mod:`borders_sim.rules.cards`).

Fields (``[..]`` gives the shape):

configuration
    ``cfg[CFG_SIZE]`` the integer flags of :class:`~borders_sim.rules.config.GameConfig`
    (indices ``CFG_*``); ``menu[MENU_MAX]`` the gold menu (P-0.5), ``cfg[CFG_MENU_LEN]`` entries.
progress
    ``rng[2]`` xorshift128+ words; ``round`` (1-based); ``phase`` (``PH_*``); ``turn`` seat to
    decide (-1 when terminal); ``steps`` decisions taken (at most the config's
    ``max_game_length``, which no game reaches: the engine gives up on a state asked for more);
    ``insp[2]`` seats of badges A and B (B is -1 with one inspector); ``order[MAX_PLAYERS]`` the round order (4-3); ``pos`` index into
    ``order`` of the sequential phase in progress; ``window_passes`` passes in a row (P-1);
    ``count`` cards discarded in this market turn (P-2).
end of game
    ``runouts`` draw-pile run-outs (R-29); ``trigger_round`` round whose cycle ends the game
    (0 = not yet); ``end_round`` last round (0 = unknown); ``end_reason`` (``END_*``).
cards
    ``draw[MAX_DECK]`` draw pile, top at ``draw[draw_len-1]``; ``discard[20]`` open discard pile
    by type; ``hand[MAX_PLAYERS, 20]`` hand by type; ``hand_later[MAX_PLAYERS, 6]`` of the action
    cards in hand, how many are not active this round (§7.2 lifetime model); ``crate[MAX_PLAYERS,
    14]`` crate contents; ``crate_size``; ``announced`` (legal type or -1); ``crate_status``
    (``CRATE_*``); ``wh_up[MAX_PLAYERS, 14]`` face-up warehouse cards (legal types only);
    ``wh_down[MAX_PLAYERS, 14]`` face-down warehouse cards; ``gold``; ``main_middle[12]`` 1 while
    a main resource lies in the middle; ``main_held[MAX_PLAYERS, 12]``; ``collected`` 1 once a
    player collected this round.
escrow (R-09)
    ``res_gold[MAX_PLAYERS]`` and ``res_wh[MAX_PLAYERS, 14]``: assets of accepted deals and
    bounties, reserved until the crate is settled.
border check of the current crate ``cur`` (P-5)
    ``exchange`` (1-based); ``g_status[2]`` (``G_*``; ``G_HOLDING``: an accepted deal not yet
    kept, P-5.3(b')); ``offer_gold[2]``, ``offer_wh[2, 14]``,
    ``offer_crate[2, 14]``, ``offer_promise[2]`` the owner's standing let-through offers;
    ``offer_lock[2]`` per-turn limits (``LOCK_*``); ``demand[2]`` gold demanded this exchange;
    ``deal_gold[2]``, ``deal_wh[2, 14]``, ``deal_crate[2, 14]``, ``deal_promise[2]``,
    ``deal_seq[2]`` accepted let-through deals and their acceptance order (0 = none);
    ``bounty_gold[MAX_PLAYERS, 2]``, ``bounty_wh[MAX_PLAYERS, 2, 14]`` standing bounties (R-07);
    ``bounty_on[MAX_PLAYERS, 2]`` 1 once accepted (escrowed); ``gift_lock[MAX_PLAYERS]`` gold
    gift made this turn (R-06c); ``outcome`` (``OUT_*``); ``truthful`` 1 if the
    opened cards match the announcement; ``fine`` the fine at stake (4.4-B); ``fb_hidden`` the False Bottom card
    (-1); ``lawyer_to`` inspector slot halved by the owner's Lawyer (-1 none); ``fund_paid`` gold
    the owner paid in deals this settlement; ``pool_wh[14]``, ``pool_crate[14]``,
    ``pool_left``, ``pool_payer``: with ``lawyer_goods="player_choice"`` the goods of the
    halved deals that ``pool_payer`` still chooses ``pool_left`` cards from (R-17d).
bookkeeping
    ``bank_in`` gold paid to the bank, ``bank_out`` gold paid by it (invariants check
    ``sum(gold) == start + bank_out - bank_in``); ``n_opened``, ``n_passed`` crates by outcome.
public history (R-39: crates, offers, deals and played cards are public)
    ``hist[MAX_PLAYERS, NUM_HIST]`` per-seat counters for the whole game, indexed by ``H_*``
    (:data:`HISTORY_COUNTERS` says what each counts); ``promised[MAX_PLAYERS, MAX_PLAYERS]``
    promises of a future pass (P-5.3a) in accepted deals that row still owes column: settled
    when the column's crate next comes before the row as inspector (kept unless it opens);
    ``seen[MAX_PLAYERS, 14]`` of each crate settled this round the cards everybody saw (an
    opened crate but a False Bottom card; the legal cards of a passed crate, which go face up),
    ``seen_hidden[MAX_PLAYERS]`` the rest of it, whose types stay private.
private truth, never observed (R-39): what a crate held and what an inspector declined
    ``truth[MAX_PLAYERS, NUM_TRUTH]`` per-seat counters for the whole game, indexed by ``T_*``
    (:data:`TRUTH_COUNTERS`): the lies told whether or not anybody saw them, the contraband
    carried and found. No observation reads them; tournaments report them as ground truth.
private knowledge (R-39), certain lower bounds kept as cards move
    ``know_hand[v, o, t]``: viewer ``v`` knows that ``o`` holds at least that many cards of
    type ``t`` in hand (cards ``o`` took from ``v`` with Night Raid); ``know_down[v, o, t]``:
    ``v`` knows that at least that many of ``o``'s face-down warehouse cards are of type ``t``
    (cards ``v`` handed over, or moved where everybody saw the type). A card leaving unseen
    lowers every bound of its owner by one, a card leaving seen lowers its type's bound, so a
    bound is never above the truth (checked by :mod:`.invariants`). ``raid_thief`` the seat
    that played the round's last Night Raid (-1 none), ``raid_taken[MAX_PLAYERS]`` the type it
    took from each seat (-1 none): known to the thief and, for its own entry, the victim.
"""

from __future__ import annotations

import numba
import numpy as np

from .cards import MAX_DECK, NUM_ACTION, NUM_CARD_TYPES, NUM_GOODS, NUM_MAIN

MAX_PLAYERS = 8
MIN_PLAYERS = 3
MENU_MAX = 16

# --- configuration indices (cfg[...]) -----------------------------------------------------
(CFG_NUM_PLAYERS, CFG_NUM_INSPECTORS, CFG_HAGGLING, CFG_HAGGLE_ROUNDS, CFG_MENU_LEN,
 CFG_BOUNTIES, CFG_BOUNTY_GOODS, CFG_TRANSFERS, CFG_ACTION_CARDS, CFG_SKIP_FORCED,
 CFG_ROBBERY_OWN_TURN, CFG_TIEBREAK_PIECES, CFG_FIRST_INSPECTOR, CFG_COLLECT_A_PLUS_1,
 CFG_CRATE_ORDER_AUTO, CFG_TOBACCO_3P, CFG_ROLLOVER_2_5, CFG_LAWYER_CHOICE,
 CFG_ACCEPT_HOLDS,  # 1 with accept_commits=False: accepting holds a deal (P-5.3(b'))
 ) = range(19)
CFG_SIZE = 20  # room for future flags

HAGGLE_FULL, HAGGLE_GOLD_ONLY, HAGGLE_NONE = 0, 1, 2

# --- phases: who decides what (P-1 .. P-6) --------------------------------------------------
(PH_WINDOW,         # P-1 action window: play Night Raid / Robbery, or pass
 PH_RAID_DISCARD,   # P-1 / R-21 the raider discards down to 6
 PH_MARKET,         # P-2 discard up to 5, then draw to 6
 PH_PACK,           # P-3 pack the crate
 PH_ANNOUNCE,       # P-4 announce a legal type
 PH_CHOOSE_CRATE,   # P-5.1 inspector A picks the next crate
 PH_BOUNTY,         # P-5.2 other smugglers offer bounties (and gifts, R-06c)
 PH_OFFER,          # P-5.3a owner's offer turn
 PH_RESPOND,        # P-5.3b an inspector answers: accept / demand / open / pass / wait
 PH_ANSWER_DEMAND,  # P-5.3c owner accepts or refuses a demand
 PH_JOIN,           # P-5.4 the other inspector joins the open or stays out
 PH_REACT,          # P-5.4 owner plays Secret Route / False Bottom / nothing
 PH_LAWYER,         # P-5.5 owner's Lawyer on the binding deals
 PH_FUND,           # P-5.5 owner's Syndicate Fund
 PH_BOUNTY_LAWYER,  # P-5.5 / R-17e a bounty payer's Lawyer
 PH_COLLECT,        # P-6 main-resource collection
 PH_GAME_OVER,
 PH_LAWYER_GOODS,   # R-17d variant: the Lawyer's player picks the goods handed over
 PH_KEEP_OR_OPEN,   # P-5.3(b') variant: an inspector holding a deal keeps it or opens
 ) = range(19)
PHASE_NAMES = ("action window", "raid discard", "market", "pack", "announce", "choose crate",
               "bounty", "offer", "respond", "answer demand", "join", "react", "lawyer", "fund",
               "bounty lawyer", "collect", "game over", "lawyer goods", "keep or open")

# crate_status
CRATE_NONE, CRATE_PACKING, CRATE_CLOSED, CRATE_ANNOUNCED, CRATE_DONE, CRATE_SITTING_OUT = range(6)
CRATE_STATUS_NAMES = ("none", "packing", "closed", "announced", "done", "sitting out")
#: Names of the inspector slots (badges A and B).
BADGES = ("A", "B")
# g_status: an inspector's standing on the current crate; G_HOLDING only with
# accept_commits=False: a deal accepted but not yet kept (P-5.3(b'))
G_UNDECIDED, G_COMMITTED, G_PASSED, G_OPENED, G_HOLDING = range(5)
G_STATUS_NAMES = ("undecided", "committed", "passed", "opened", "holding")
# offer_lock bits: what the owner may no longer change for an inspector in this offer turn
LOCK_GOLD, LOCK_WITHDRAWN = 1, 2
# outcome of the current crate (Appendix A)
OUT_PENDING, OUT_PASSED, OUT_PASSED_SR, OUT_OPENED, OUT_FALSE_BOTTOM = range(5)
# end_reason
END_NONE, END_MAIN_RESOURCES, END_FALLBACK = range(3)

#: Public per-seat counters of ``hist`` (key, meaning), indexed by the ``H_*`` constants below.
HISTORY_COUNTERS = (
    ("crates", "crates sent to the border check"),
    ("crates_opened", "own crates opened (False Bottom included)"),
    ("lies_caught", "own crates opened that did not match the announcement"),
    ("crates_passed", "own crates passed (Secret Route included)"),
    ("fines_paid", "value paid in fines, gold and goods (4.4-B, R-14, R-15)"),
    ("fines_received", "value received in fines"),
    ("offers_made", "offer turns ending with a let-through offer standing (P-5.3a)"),
    ("deals_made", "let-through deals accepted on own crates"),
    ("bribe_gold", "gold promised in let-through deals on own crates"),
    ("bounties_offered", "bounties offered on other players' crates (P-5.2)"),
    ("crates_inspected", "crates handled as an inspector"),
    ("opens", "crates opened or joined as an inspector"),
    ("deals_taken", "let-through deals accepted as an inspector"),
    ("promises_made", "promises of a future pass in binding deals"),
    ("promises_kept", "promised passes given as an inspector"),
    ("promises_broken", "promised crates opened as an inspector"),
    ("played_route", "Secret Routes played"),
    ("played_raid", "Night Raids played"),
    ("played_bottom", "False Bottoms played"),
    ("played_fund", "Syndicate Funds played"),
    ("played_robbery", "Robberies played"),
    ("played_lawyer", "Lawyers played"),
)
(H_CRATES, H_CRATES_OPENED, H_LIES_CAUGHT, H_CRATES_PASSED, H_FINES_PAID, H_FINES_RECEIVED,
 H_OFFERS_MADE, H_DEALS_MADE, H_BRIBE_GOLD, H_BOUNTIES_OFFERED, H_CRATES_INSPECTED, H_OPENS,
 H_DEALS_TAKEN, H_PROMISES_MADE, H_PROMISES_KEPT, H_PROMISES_BROKEN, H_PLAYED) = range(17)
NUM_HIST = len(HISTORY_COUNTERS)  # H_PLAYED + k counts action card k (type FIRST_ACTION + k)

#: Private per-seat counters of ``truth`` (key, meaning), indexed by the ``T_*`` constants below:
#: the ground truth behind the public history, counted as each crate is settled (R-16) or
#: answered (P-5.3b). "Contraband" is every good that is not legal (contraband and premium).
TRUTH_COUNTERS = (
    ("lies_told", "own crates that did not match the announcement, opened or not"),
    ("lies_through", "own crates passed that did not match the announcement"),
    ("contraband_sent", "contraband cards in own crates"),
    ("contraband_through", "contraband cards in own crates that passed"),
    ("offers_refused", "own standing let-through offers an inspector answered by opening or "
                       "passing without the deal"),
    ("contraband_handled", "contraband cards in crates handled as an inspector"),
    ("contraband_found", "contraband cards shown by crates opened or joined as an inspector"),
    ("opened", "crates opened or joined as an inspector, at settlement"),
    ("opened_with_contraband", "crates opened or joined as an inspector that showed contraband"),
    ("offers_declined", "standing let-through offers answered by opening or passing without "
                        "the deal, as an inspector"),
)
(T_LIES_TOLD, T_LIES_THROUGH, T_CONTRABAND_SENT, T_CONTRABAND_THROUGH, T_OFFERS_REFUSED,
 T_CONTRABAND_HANDLED, T_CONTRABAND_FOUND, T_OPENED, T_OPENED_WITH_CONTRABAND,
 T_OFFERS_DECLINED) = range(10)
NUM_TRUTH = len(TRUTH_COUNTERS)

STATE_DTYPE = np.dtype([
    ("cfg", np.int32, (CFG_SIZE,)),
    ("menu", np.int32, (MENU_MAX,)),
    ("rng", np.uint64, (2,)),
    ("round", np.int32),
    ("phase", np.int32),
    ("turn", np.int32),
    ("steps", np.int64),
    ("insp", np.int32, (2,)),
    ("order", np.int32, (MAX_PLAYERS,)),
    ("pos", np.int32),
    ("window_passes", np.int32),
    ("count", np.int32),
    ("runouts", np.int32),
    ("trigger_round", np.int32),
    ("end_round", np.int32),
    ("end_reason", np.int32),
    ("draw", np.int8, (MAX_DECK,)),
    ("draw_len", np.int32),
    ("discard", np.int32, (NUM_CARD_TYPES,)),
    ("hand", np.int32, (MAX_PLAYERS, NUM_CARD_TYPES)),
    ("hand_later", np.int32, (MAX_PLAYERS, NUM_ACTION)),
    ("crate", np.int32, (MAX_PLAYERS, NUM_GOODS)),
    ("crate_size", np.int32, (MAX_PLAYERS,)),
    ("announced", np.int32, (MAX_PLAYERS,)),
    ("crate_status", np.int32, (MAX_PLAYERS,)),
    ("wh_up", np.int32, (MAX_PLAYERS, NUM_GOODS)),
    ("wh_down", np.int32, (MAX_PLAYERS, NUM_GOODS)),
    ("gold", np.int32, (MAX_PLAYERS,)),
    ("main_middle", np.int32, (NUM_MAIN,)),
    ("main_held", np.int32, (MAX_PLAYERS, NUM_MAIN)),
    ("collected", np.int32, (MAX_PLAYERS,)),
    ("res_gold", np.int32, (MAX_PLAYERS,)),
    ("res_wh", np.int32, (MAX_PLAYERS, NUM_GOODS)),
    ("cur", np.int32),
    ("exchange", np.int32),
    ("g_status", np.int32, (2,)),
    ("offer_gold", np.int32, (2,)),
    ("offer_wh", np.int32, (2, NUM_GOODS)),
    ("offer_crate", np.int32, (2, NUM_GOODS)),
    ("offer_promise", np.int32, (2,)),
    ("offer_lock", np.int32, (2,)),
    ("demand", np.int32, (2,)),
    ("deal_gold", np.int32, (2,)),
    ("deal_wh", np.int32, (2, NUM_GOODS)),
    ("deal_crate", np.int32, (2, NUM_GOODS)),
    ("deal_promise", np.int32, (2,)),
    ("deal_seq", np.int32, (2,)),
    ("bounty_gold", np.int32, (MAX_PLAYERS, 2)),
    ("bounty_wh", np.int32, (MAX_PLAYERS, 2, NUM_GOODS)),
    ("bounty_on", np.int32, (MAX_PLAYERS, 2)),
    ("gift_lock", np.int32, (MAX_PLAYERS,)),
    ("outcome", np.int32),
    ("truthful", np.int32),
    ("fine", np.int32),
    ("fb_hidden", np.int32),
    ("lawyer_to", np.int32),
    ("fund_paid", np.int32),
    ("pool_wh", np.int32, (NUM_GOODS,)),
    ("pool_crate", np.int32, (NUM_GOODS,)),
    ("pool_left", np.int32),
    ("pool_payer", np.int32),
    ("bank_in", np.int64),
    ("bank_out", np.int64),
    ("n_opened", np.int32),
    ("n_passed", np.int32),
    ("hist", np.int64, (MAX_PLAYERS, NUM_HIST)),
    ("promised", np.int8, (MAX_PLAYERS, MAX_PLAYERS)),
    ("seen", np.int8, (MAX_PLAYERS, NUM_GOODS)),
    ("seen_hidden", np.int8, (MAX_PLAYERS,)),
    ("know_hand", np.int8, (MAX_PLAYERS, MAX_PLAYERS, NUM_CARD_TYPES)),
    ("know_down", np.int8, (MAX_PLAYERS, MAX_PLAYERS, NUM_GOODS)),
    ("raid_thief", np.int32),
    ("raid_taken", np.int8, (MAX_PLAYERS,)),
    ("truth", np.int64, (MAX_PLAYERS, NUM_TRUTH)),
])


def empty_states(n: int = 1) -> np.ndarray:
    """Allocate ``n`` zeroed state records (use :func:`borders_sim.rules.setup.new_state`)."""
    return np.zeros(n, dtype=STATE_DTYPE)


def state_type() -> numba.types.Record:
    """The numba type of one state record, the type kernels over a state are compiled for (the
    compile units' argument types, :mod:`borders_sim._compile.units`)."""
    return numba.typeof(np.zeros(1, dtype=STATE_DTYPE)[0])
