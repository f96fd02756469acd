"""What one player knows, as one flat float32 vector (RULINGS R-39).

:func:`observe` writes into ``out[OBS_SIZE]`` everything player ``viewer`` may know and nothing
else: its own hand, crate and face-down warehouse cards; the public state of the table; the
border check in progress; the public history of every player; and what the viewer privately
knows of others' hidden cards (cards it handed over face down, cards taken with Night Raid),
for as long as that knowledge is certain (``know_hand`` / ``know_down`` of the state).

**Seat-relative.** Every per-seat block has :data:`~.state.MAX_PLAYERS` rows, row ``r`` being
the seat ``r`` places to the viewer's left (row 0 is the viewer), so one policy serves every
seat and player count. The ``seat`` block says which seat the viewer is, for the action ids
that name seats (Robbery targets, crates to inspect), which are absolute. Rows at and beyond
the player count are 0. Inspector blocks have two rows, badge A then badge B (B is 0 with one
inspector). One-hot blocks are all 0 when there is nothing to mark (no crate under check, no badge
B, ...). Counts are raw (not normalised).

**Rates.** The ``rates`` block repeats, per seat, what the public history says of its
behaviour as rates (how often it opens as an inspector, takes deals, gets caught lying, offers
deals; :data:`RATES`), smoothed so that a seat without evidence reads 0.5. It is derived from the
public counters only, so it leaks nothing the history does not show. It is the last block: an
observation of the earlier layout is this one's first :data:`OBS_SIZE_V1` entries.

**Scales.** Every block has a documented *scale*, the size its entries typically reach (1 for
one-hots and flags, 100 for gold, 10 for card counts, 20 for the history counters, ...):
:func:`observation_scales` repeats them per entry, and dividing an observation by them puts
every feature of a real game mostly within ``[0, 2]`` (the input normalisation of the learned
policies, :mod:`borders_sim.policies.network`). Scales are fixed, so a normalised observation means
the same in every game and every checkpoint.

:data:`OBSERVATION_LAYOUT` is the one definition of the layout: (name, offset, size, shape,
meaning) per block. The kernel's offsets, :func:`decode`, the doc page of
:mod:`borders_sim.envs.borders` (``docs/borders_v0.md``) and the size check all come from it.

:func:`observe_kernel` is registered here as the compile unit ``"observation"``
(:mod:`borders_sim._compile.units`): the owner of a kernel registers it, since the registry
sits below the rules and imports none of them.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit
from numba.core import types

from .cards import CYCLE_LENGTH, FIRST_ACTION, NUM_ACTION, NUM_CARD_TYPES, NUM_GOODS, NUM_LEGAL, \
    NUM_MAIN
from .actions import NUM_ACTIONS
from .engine import step
from .._compile import units
from .._compile.jit import kernel
from .._compile.rowcopy import put_row
from .state import (CFG_NUM_INSPECTORS, CFG_NUM_PLAYERS, CFG_SIZE, CRATE_ANNOUNCED,
                    G_STATUS_NAMES, H_CRATES, H_CRATES_INSPECTED, H_CRATES_OPENED,
                    H_DEALS_MADE, H_DEALS_TAKEN, H_LIES_CAUGHT, H_OFFERS_MADE, H_OPENS,
                    MAX_PLAYERS, MENU_MAX, MIN_PLAYERS, NUM_HIST, PHASE_NAMES, PH_GAME_OVER,
                    state_type)

P = MAX_PLAYERS
_PARCEL = 2 + 2 * NUM_GOODS  # gold, warehouse cards by type, crate cards by type, promise
_OUTCOMES = 5
_CRATE_STATES = 6


class LayoutEntry(NamedTuple):
    name: str
    offset: int
    size: int
    shape: tuple
    meaning: str
    scale: float


#: The behaviour rates of the ``rates`` block, one column each: (name, numerator counter,
#: denominator counter, meaning), counters of :data:`~.state.HISTORY_COUNTERS`. Each rate is
#: ``(k + 1) / (n + 2)`` of its counts ``k`` of ``n`` (Laplace's rule: 0.5 before any evidence,
#: never exactly 0 or 1), so "how often does this inspector open" is one input of the network
#: instead of a ratio it must learn from two raw counts.
RATES = (
    ("open_rate", H_OPENS, H_CRATES_INSPECTED, "crates opened (or joined) of those inspected"),
    ("bribe_rate", H_DEALS_TAKEN, H_CRATES_INSPECTED, "let-through deals taken of the crates "
                                                      "inspected"),
    ("opened_rate", H_CRATES_OPENED, H_CRATES, "own crates opened of those sent"),
    ("lie_rate", H_LIES_CAUGHT, H_CRATES_OPENED, "caught lies of the own crates opened"),
    ("offer_rate", H_OFFERS_MADE, H_CRATES, "own crates with a let-through offer standing"),
    ("deal_rate", H_DEALS_MADE, H_CRATES, "own crates let through by a deal"),
)
NUM_RATES = len(RATES)
_RATE_NUM = np.array([num for _, num, _, _ in RATES], dtype=np.int64)
_RATE_DEN = np.array([den for _, _, den, _ in RATES], dtype=np.int64)

#: (name, shape, meaning) of every block, in order. Per-seat rows are seat-relative. Blocks
#: added after the first release go last, so that earlier blocks keep their offsets.
_BLOCKS = (
    # --- the game ----------------------------------------------------------------------------
    ("num_players", (MAX_PLAYERS - MIN_PLAYERS + 1,), "one-hot of the player count, 3..8"),
    ("seat", (P,), "one-hot of the viewer's own seat: row r of a per-seat block is seat "
                   "(seat + r) mod n, and action ids that name a seat (rob, inspect) are absolute"),
    ("config", (CFG_SIZE,), "the rule flags, as the state's cfg (state.CFG_* indices)"),
    ("gold_menu", (MENU_MAX,), "gold amounts of the gold action ids, 0 past the menu (P-0.5)"),
    ("round", (1,), "round number, 1-based"),
    ("round_in_cycle", (1,), "rounds played in the current inspector cycle before this one (§6)"),
    ("cycle_length", (1,), "rounds in a cycle for this player count (§6)"),
    ("end_triggered", (1,), "1 once the end of the game is triggered (main resources or "
                            "fallback, §6)"),
    ("last_round", (1,), "the last round once the end is triggered, else 0"),
    ("draw_pile_size", (1,), "cards in the draw pile"),
    ("runouts", (1,), "times the draw pile ran out (R-29; the second triggers the fallback)"),
    ("discard_pile", (NUM_CARD_TYPES,), "the open discard pile, cards by type"),
    ("main_in_middle", (NUM_MAIN,), "1 for each main resource still in the middle"),
    ("phase", (len(PHASE_NAMES),), "one-hot of the phase (state.PHASE_NAMES)"),
    ("to_move", (P,), "one-hot of the seat to decide (all 0 once the game is over)"),
    ("inspector_a", (P,), "one-hot of badge A's seat"),
    ("inspector_b", (P,), "one-hot of badge B's seat (6-8 players)"),
    ("round_order", (P,), "each seat's place in this round's order (4-3), 1-based"),
    ("window_passes", (1,), "passes in a row in the action window (P-1)"),
    ("market_discards", (1,), "cards discarded in the current market turn (P-2)"),
    # --- every seat: public ------------------------------------------------------------------
    ("gold", (P,), "gold of each seat"),
    ("reserved_gold", (P,), "gold escrowed by accepted deals and bounties (R-09)"),
    ("hand_size", (P,), "cards in hand"),
    ("face_up", (P, NUM_LEGAL), "face-up warehouse cards by legal type"),
    ("face_down_count", (P,), "number of face-down warehouse cards"),
    ("reserved_warehouse", (P, NUM_GOODS), "warehouse cards escrowed, by type (R-09)"),
    ("main_held", (P, NUM_MAIN), "main resources held"),
    ("collected", (P,), "1 if the seat collected a main resource this round"),
    ("crate_status", (P, _CRATE_STATES), "one-hot: none, packing, closed, announced, done, "
                                         "sitting out"),
    ("crate_count", (P,), "cards in the announced crate (0 until announced, P-3)"),
    ("announced", (P, NUM_LEGAL), "one-hot of the announced legal type"),
    ("seen", (P, NUM_GOODS), "of each crate settled this round, the cards everybody saw "
                             "(an opened crate; a passed crate's legal goods)"),
    ("seen_hidden", (P,), "of each crate settled this round, the cards whose type stayed hidden"),
    ("history", (P, NUM_HIST), "public counters for the whole game (state.HISTORY_COUNTERS)"),
    ("promises", (P, P), "promises of a future pass that row still owes column"),
    ("raid_thief", (P,), "one-hot of the seat that played this round's Night Raid"),
    # --- the viewer's own cards ---------------------------------------------------------------
    ("own_hand", (NUM_CARD_TYPES,), "own hand by card type"),
    ("own_active", (NUM_ACTION,), "own action cards usable this round (§7.2)"),
    ("own_crate", (NUM_GOODS,), "own crate by goods type"),
    ("own_face_down", (NUM_GOODS,), "own face-down warehouse cards by type"),
    # --- what the viewer privately knows of others -------------------------------------------
    ("known_hand", (P, NUM_CARD_TYPES), "cards each seat surely holds in hand (taken from the "
                                        "viewer with Night Raid)"),
    ("known_face_down", (P, NUM_GOODS), "cards surely among each seat's face-down warehouse "
                                        "cards (handed over by the viewer)"),
    ("raid_taken", (P, NUM_CARD_TYPES), "one-hot of the card this round's Night Raid took "
                                        "from each seat, where the viewer took or lost it"),
    # --- the border check in progress (or the last one, P-5) ----------------------------------
    ("crate_under_check", (P,), "one-hot of the owner of the crate under check"),
    ("exchange", (1,), "the exchange in progress, 1-based (P-5.3)"),
    ("inspector_status", (2, len(G_STATUS_NAMES)), "one-hot per badge (state.G_STATUS_NAMES)"),
    ("offer", (2, _PARCEL), "the owner's standing offer to each badge: gold, warehouse cards "
                            "by type, crate cards by type, promise"),
    ("offer_lock", (2, 2), "gold already set / offer withdrawn in this offer turn"),
    ("demand", (2,), "gold demanded by each badge this exchange"),
    ("deal", (2, _PARCEL), "the accepted deal with each badge, same shape as offer"),
    ("deal_order", (2,), "order of acceptance of the deals (R-08), 0 none"),
    ("bounties", (P, 2, 2 + NUM_GOODS), "bounty of each seat to each badge: gold, warehouse "
                                        "cards by type, accepted (R-07)"),
    ("gifts_made", (P,), "1 if the seat made its gold gift this bounty turn (R-06c)"),
    ("outcome", (_OUTCOMES,), "one-hot: pending, passed, passed by Secret Route, opened, "
                              "False Bottom"),
    ("truthful", (1,), "1 if the opened crate matched its announcement"),
    ("fine", (1,), "the fine at stake (4.4-B)"),
    ("lawyer_to", (2,), "one-hot of the badge halved by the owner's Lawyer"),
    ("fund_paid", (1,), "gold the owner paid in deals this settlement (Syndicate Fund)"),
    ("lawyer_pool", (2 * NUM_GOODS + 1,), "goods of the halved deals still to hand over, "
                                          "warehouse then crate by type, and the cards left "
                                          "(R-17d)"),
    ("lawyer_payer", (P,), "one-hot of the seat handing over the Lawyer's goods"),
    # --- every seat: behaviour rates, derived from the public history ---------------------------
    ("rates", (P, len(RATES)), "each seat's behaviour rates over the game so far, (k + 1) / "
                               "(n + 2) (0.5 before any evidence; the counts are in history): "
                               + ", ".join(name for name, _, _, _ in RATES)),
)


#: The scale of every block (module docstring): the size its entries typically reach.
_SCALES = {
    "num_players": 1, "seat": 1, "config": 10, "gold_menu": 30, "round": 20,
    "round_in_cycle": 8, "cycle_length": 8, "end_triggered": 1, "last_round": 20,
    "draw_pile_size": 100, "runouts": 2, "discard_pile": 10, "main_in_middle": 1, "phase": 1,
    "to_move": 1, "inspector_a": 1, "inspector_b": 1, "round_order": 8, "window_passes": 8,
    "market_discards": 5, "gold": 100, "reserved_gold": 100, "hand_size": 10, "face_up": 10,
    "face_down_count": 10, "reserved_warehouse": 5, "main_held": 1, "collected": 1,
    "crate_status": 1, "crate_count": 5, "announced": 1, "seen": 5, "seen_hidden": 5,
    "history": 20, "promises": 1, "raid_thief": 1, "own_hand": 6, "own_active": 2,
    "own_crate": 5, "own_face_down": 5, "known_hand": 2, "known_face_down": 2, "raid_taken": 1,
    "crate_under_check": 1, "exchange": 3, "inspector_status": 1, "offer": 10, "offer_lock": 1,
    "demand": 10, "deal": 10, "deal_order": 2, "bounties": 10, "gifts_made": 1, "outcome": 1,
    "truthful": 1, "fine": 10, "lawyer_to": 1, "fund_paid": 10, "lawyer_pool": 5,
    "lawyer_payer": 1, "rates": 1,
}


def _build_layout() -> tuple[tuple[LayoutEntry, ...], int]:
    entries, offset = [], 0
    for name, shape, meaning in _BLOCKS:
        size = int(np.prod(shape))
        entries.append(LayoutEntry(name, offset, size, shape, meaning, float(_SCALES[name])))
        offset += size
    assert set(_SCALES) == {e.name for e in entries}, "every block has a scale"
    return tuple(entries), offset


#: The layout of the observation vector: one :class:`LayoutEntry` per block, in order.
OBSERVATION_LAYOUT, OBS_SIZE = _build_layout()
#: The observation's size before the ``rates`` block was added (its first entries keep that
#: layout): policy files of that layout still load (:mod:`borders_sim.policies.network`).
OBS_SIZE_V1 = OBS_SIZE - MAX_PLAYERS * NUM_RATES
_AT = {e.name: e.offset for e in OBSERVATION_LAYOUT}


def offset_of(name: str) -> int:
    """Offset of block ``name`` in the observation vector."""
    return _AT[name]


def decode(obs: np.ndarray) -> dict[str, np.ndarray]:
    """Split an observation (or a batch, last axis OBS_SIZE) into its named, shaped blocks."""
    obs = np.asarray(obs)
    return {e.name: obs[..., e.offset:e.offset + e.size].reshape(obs.shape[:-1] + e.shape)
            for e in OBSERVATION_LAYOUT}


def fill_rates(obs: np.ndarray) -> np.ndarray:
    """Write the ``rates`` block of observations (last axis OBS_SIZE) from their ``history`` and
    ``num_players`` blocks, in place, exactly as :func:`observe_kernel` does; returns ``obs``.
    The rates are the only entries that are not small integers, so stores of observations as
    integers (demonstration shards) keep the first :data:`OBS_SIZE_V1` entries and fill the
    rates back when read."""
    hist = obs[..., O_HISTORY:O_HISTORY + P * NUM_HIST].astype(np.float64)
    hist = hist.reshape(obs.shape[:-1] + (P, NUM_HIST))
    rates = (hist[..., _RATE_NUM] + 1.0) / (hist[..., _RATE_DEN] + 2.0)
    players = MIN_PLAYERS + obs[..., O_NUM_PLAYERS:O_NUM_PLAYERS + P - MIN_PLAYERS + 1].argmax(-1)
    rates[np.arange(P) >= players[..., None]] = 0.0
    obs[..., O_RATES:O_RATES + P * NUM_RATES] = rates.reshape(obs.shape[:-1] + (-1,))
    return obs


def layout_table() -> str:
    """The layout as a Markdown table (for docs; the env docstring embeds it)."""
    rows = ["| name | indices | shape | scale | meaning |", "|---|---|---|---|---|"]
    for e in OBSERVATION_LAYOUT:
        idx = str(e.offset) if e.size == 1 else f"{e.offset}-{e.offset + e.size - 1}"
        shape = "x".join(str(d) for d in e.shape)
        rows.append(f"| {e.name} | {idx} | {shape} | {e.scale:g} | {e.meaning} |")
    return "\n".join(rows)


def observation_scales() -> np.ndarray:
    """float32[OBS_SIZE]: every entry's block scale (module docstring); ``obs /
    observation_scales()`` is the normalised observation."""
    out = np.empty(OBS_SIZE, dtype=np.float32)
    for e in OBSERVATION_LAYOUT:
        out[e.offset:e.offset + e.size] = e.scale
    return out


# offsets for the kernel (numba freezes module globals as constants)
O_NUM_PLAYERS = offset_of("num_players")
O_SEAT = offset_of("seat")
O_CONFIG = offset_of("config")
O_GOLD_MENU = offset_of("gold_menu")
O_ROUND = offset_of("round")
O_ROUND_IN_CYCLE = offset_of("round_in_cycle")
O_CYCLE_LENGTH = offset_of("cycle_length")
O_END_TRIGGERED = offset_of("end_triggered")
O_LAST_ROUND = offset_of("last_round")
O_DRAW_PILE_SIZE = offset_of("draw_pile_size")
O_RUNOUTS = offset_of("runouts")
O_DISCARD_PILE = offset_of("discard_pile")
O_MAIN_IN_MIDDLE = offset_of("main_in_middle")
O_PHASE = offset_of("phase")
O_TO_MOVE = offset_of("to_move")
O_INSPECTOR_A = offset_of("inspector_a")
O_INSPECTOR_B = offset_of("inspector_b")
O_ROUND_ORDER = offset_of("round_order")
O_WINDOW_PASSES = offset_of("window_passes")
O_MARKET_DISCARDS = offset_of("market_discards")
O_GOLD = offset_of("gold")
O_RESERVED_GOLD = offset_of("reserved_gold")
O_HAND_SIZE = offset_of("hand_size")
O_FACE_UP = offset_of("face_up")
O_FACE_DOWN_COUNT = offset_of("face_down_count")
O_RESERVED_WAREHOUSE = offset_of("reserved_warehouse")
O_MAIN_HELD = offset_of("main_held")
O_COLLECTED = offset_of("collected")
O_CRATE_STATUS = offset_of("crate_status")
O_CRATE_COUNT = offset_of("crate_count")
O_ANNOUNCED = offset_of("announced")
O_SEEN = offset_of("seen")
O_SEEN_HIDDEN = offset_of("seen_hidden")
O_HISTORY = offset_of("history")
O_PROMISES = offset_of("promises")
O_RAID_THIEF = offset_of("raid_thief")
O_OWN_HAND = offset_of("own_hand")
O_OWN_ACTIVE = offset_of("own_active")
O_OWN_CRATE = offset_of("own_crate")
O_OWN_FACE_DOWN = offset_of("own_face_down")
O_KNOWN_HAND = offset_of("known_hand")
O_KNOWN_FACE_DOWN = offset_of("known_face_down")
O_RAID_TAKEN = offset_of("raid_taken")
O_CRATE_UNDER_CHECK = offset_of("crate_under_check")
O_EXCHANGE = offset_of("exchange")
O_INSPECTOR_STATUS = offset_of("inspector_status")
O_OFFER = offset_of("offer")
O_OFFER_LOCK = offset_of("offer_lock")
O_DEMAND = offset_of("demand")
O_DEAL = offset_of("deal")
O_DEAL_ORDER = offset_of("deal_order")
O_BOUNTIES = offset_of("bounties")
O_GIFTS_MADE = offset_of("gifts_made")
O_OUTCOME = offset_of("outcome")
O_TRUTHFUL = offset_of("truthful")
O_FINE = offset_of("fine")
O_LAWYER_TO = offset_of("lawyer_to")
O_FUND_PAID = offset_of("fund_paid")
O_LAWYER_POOL = offset_of("lawyer_pool")
O_LAWYER_PAYER = offset_of("lawyer_payer")
O_RATES = offset_of("rates")
_NUM_G_STATUS = len(G_STATUS_NAMES)


@kernel
def _rel(p, viewer, n):
    """Row of seat ``p`` for ``viewer``: places to the viewer's left (no division: hot)."""
    r = p - viewer
    return r + n if r < 0 else r


@njit(inline="always")
def _copy_row(out, o, src, count):
    """``out[o:o + count] = src[:count]`` for a count known only at run time (else
    :func:`~.rowcopy.put_row`). The unsigned loop index spares numba's negative-index
    check on every element."""
    base = np.uint64(o)
    for t in range(np.uint64(count)):
        out[base + t] = src[t]


@njit(inline="always")
def _sum(src, count):
    """``src[:count].sum()``, unsigned like :func:`_copy_row`."""
    total = 0
    for t in range(np.uint64(count)):
        total += src[t]
    return total


@njit(inline="always")
def _parcel(out, o, gold, wh, crate, promise):
    out[o] = gold
    put_row(out, o + 1, wh, NUM_GOODS)
    put_row(out, o + 1 + NUM_GOODS, crate, NUM_GOODS)
    out[o + 1 + 2 * NUM_GOODS] = promise


@kernel(standalone=True)
def observe_kernel(s, viewer, out):
    """Write ``viewer``'s observation of state record ``s`` into ``out`` (float32[OBS_SIZE]);
    see :data:`OBSERVATION_LAYOUT`. Reads only what ``viewer`` may know (R-39)."""
    out[:] = 0
    n = s.cfg[CFG_NUM_PLAYERS]
    ni = s.cfg[CFG_NUM_INSPECTORS]
    out[O_NUM_PLAYERS + n - MIN_PLAYERS] = 1
    out[O_SEAT + viewer] = 1
    put_row(out, O_CONFIG, s.cfg, CFG_SIZE)
    put_row(out, O_GOLD_MENU, s.menu, MENU_MAX)
    cycle = CYCLE_LENGTH[n]
    out[O_ROUND] = s.round
    out[O_ROUND_IN_CYCLE] = (s.round - 1) % cycle
    out[O_CYCLE_LENGTH] = cycle
    if s.trigger_round > 0:
        out[O_END_TRIGGERED] = 1
        out[O_LAST_ROUND] = cycle * ((s.trigger_round + cycle - 1) // cycle)
    out[O_DRAW_PILE_SIZE] = s.draw_len
    out[O_RUNOUTS] = s.runouts
    put_row(out, O_DISCARD_PILE, s.discard, NUM_CARD_TYPES)
    put_row(out, O_MAIN_IN_MIDDLE, s.main_middle, NUM_MAIN)
    out[O_PHASE + s.phase] = 1
    if s.phase != PH_GAME_OVER and s.turn >= 0:
        out[O_TO_MOVE + _rel(s.turn, viewer, n)] = 1
    out[O_INSPECTOR_A + _rel(s.insp[0], viewer, n)] = 1
    if ni == 2:
        out[O_INSPECTOR_B + _rel(s.insp[1], viewer, n)] = 1
    for i in range(n):
        out[O_ROUND_ORDER + _rel(s.order[i], viewer, n)] = i + 1
    out[O_WINDOW_PASSES] = s.window_passes
    out[O_MARKET_DISCARDS] = s.count

    hand = s.hand
    hist = s.hist
    promised = s.promised
    know_hand = s.know_hand[viewer]
    know_down = s.know_down[viewer]
    wh_up = s.wh_up
    wh_down = s.wh_down
    res_wh = s.res_wh
    seen = s.seen
    main_held = s.main_held
    bounty_wh = s.bounty_wh
    for p in range(n):
        r = _rel(p, viewer, n)
        out[O_GOLD + r] = s.gold[p]
        out[O_RESERVED_GOLD + r] = s.res_gold[p]
        out[O_HAND_SIZE + r] = _sum(hand[p], NUM_CARD_TYPES)
        put_row(out, O_FACE_UP + r * NUM_LEGAL, wh_up[p], NUM_LEGAL)
        out[O_FACE_DOWN_COUNT + r] = _sum(wh_down[p], NUM_GOODS)
        put_row(out, O_RESERVED_WAREHOUSE + r * NUM_GOODS, res_wh[p], NUM_GOODS)
        put_row(out, O_SEEN + r * NUM_GOODS, seen[p], NUM_GOODS)
        put_row(out, O_MAIN_HELD + r * NUM_MAIN, main_held[p], NUM_MAIN)
        out[O_COLLECTED + r] = s.collected[p]
        out[O_CRATE_STATUS + r * _CRATE_STATES + s.crate_status[p]] = 1
        if s.crate_status[p] == CRATE_ANNOUNCED:  # the count is told with the announcement (P-3)
            out[O_CRATE_COUNT + r] = s.crate_size[p]
        if s.announced[p] >= 0:
            out[O_ANNOUNCED + r * NUM_LEGAL + s.announced[p]] = 1
        out[O_SEEN_HIDDEN + r] = s.seen_hidden[p]
        put_row(out, O_HISTORY + r * NUM_HIST, hist[p], NUM_HIST)
        o = O_PROMISES + r * P
        _copy_row(out, o, promised[p, viewer:], n - viewer)
        _copy_row(out, o + n - viewer, promised[p], viewer)
        if p != viewer:
            put_row(out, O_KNOWN_HAND + r * NUM_CARD_TYPES, know_hand[p], NUM_CARD_TYPES)
            put_row(out, O_KNOWN_FACE_DOWN + r * NUM_GOODS, know_down[p], NUM_GOODS)
        if s.raid_thief >= 0 and (viewer == s.raid_thief or p == viewer) and s.raid_taken[p] >= 0:
            out[O_RAID_TAKEN + r * NUM_CARD_TYPES + s.raid_taken[p]] = 1
        for g in range(ni):
            o = O_BOUNTIES + (r * 2 + g) * (2 + NUM_GOODS)
            out[o] = s.bounty_gold[p, g]
            put_row(out, o + 1, bounty_wh[p, g], NUM_GOODS)
            out[o + 1 + NUM_GOODS] = s.bounty_on[p, g]
        out[O_GIFTS_MADE + r] = s.gift_lock[p]
        for k in range(NUM_RATES):
            out[O_RATES + r * NUM_RATES + k] = (hist[p, _RATE_NUM[k]] + 1.0) / (
                hist[p, _RATE_DEN[k]] + 2.0)
    if s.raid_thief >= 0:
        out[O_RAID_THIEF + _rel(s.raid_thief, viewer, n)] = 1

    put_row(out, O_OWN_HAND, hand[viewer], NUM_CARD_TYPES)
    for k in range(NUM_ACTION):
        out[O_OWN_ACTIVE + k] = s.hand[viewer, FIRST_ACTION + k] - s.hand_later[viewer, k]
    put_row(out, O_OWN_CRATE, s.crate[viewer], NUM_GOODS)
    put_row(out, O_OWN_FACE_DOWN, wh_down[viewer], NUM_GOODS)

    if s.cur >= 0:
        out[O_CRATE_UNDER_CHECK + _rel(s.cur, viewer, n)] = 1
    out[O_EXCHANGE] = s.exchange
    for g in range(ni):
        out[O_INSPECTOR_STATUS + g * _NUM_G_STATUS + s.g_status[g]] = 1
        _parcel(out, O_OFFER + g * _PARCEL, s.offer_gold[g], s.offer_wh[g], s.offer_crate[g],
                s.offer_promise[g])
        out[O_OFFER_LOCK + 2 * g] = s.offer_lock[g] & 1
        out[O_OFFER_LOCK + 2 * g + 1] = (s.offer_lock[g] >> 1) & 1
        out[O_DEMAND + g] = s.demand[g]
        _parcel(out, O_DEAL + g * _PARCEL, s.deal_gold[g], s.deal_wh[g], s.deal_crate[g],
                s.deal_promise[g])
        out[O_DEAL_ORDER + g] = s.deal_seq[g]
    out[O_OUTCOME + s.outcome] = 1
    out[O_TRUTHFUL] = s.truthful
    out[O_FINE] = s.fine
    if s.lawyer_to >= 0:
        out[O_LAWYER_TO + s.lawyer_to] = 1
    out[O_FUND_PAID] = s.fund_paid
    if s.pool_left > 0:
        put_row(out, O_LAWYER_POOL, s.pool_wh, NUM_GOODS)
        put_row(out, O_LAWYER_POOL + NUM_GOODS, s.pool_crate, NUM_GOODS)
        out[O_LAWYER_POOL + 2 * NUM_GOODS] = s.pool_left
        out[O_LAWYER_PAYER + _rel(s.pool_payer, viewer, n)] = 1


@units.register("observation")
def _observe_unit():
    return [(observe_kernel, (state_type(), types.int64, types.float32[::1]))]


@kernel
def observe_at(states, i, viewer, out):
    """:func:`observe_kernel` on ``states[i]`` (array entry point: cheap to call from Python)."""
    observe_kernel(states[i], viewer, out)


#: What :func:`step_observe_at` returns instead of a seat: the game is over; the engine gave up
#: on the state (``ENGINE_ERROR``); the action is not legal now (nothing changed).
OBSERVE_OVER, OBSERVE_ENGINE_ERROR, OBSERVE_ILLEGAL = -1, -2, -3


@kernel
def step_observe_at(states, i, a, mask, obs, obs_mask):
    """Apply action ``a`` to ``states[i]`` if ``mask`` (the current legal mask) allows it
    (:func:`~.engine.step`, leaving the next legal mask in ``mask``), then write the observation
    of the player to move next into ``obs`` and its legal mask into ``obs_mask``
    (int8[NUM_ACTIONS]). Returns that player's seat, or (the outputs untouched)
    :data:`OBSERVE_ILLEGAL` for an action ``mask`` does not allow (nothing changes),
    :data:`OBSERVE_OVER` once the game is over and :data:`OBSERVE_ENGINE_ERROR` if the engine
    gave up. One compiled call per environment step."""
    if a < 0 or a >= NUM_ACTIONS or mask[a] == 0:
        return OBSERVE_ILLEGAL
    s = states[i]
    count = step(s, a, mask)
    if count <= 0:
        return OBSERVE_OVER if count == 0 else OBSERVE_ENGINE_ERROR
    observe_kernel(s, s.turn, obs)
    put_row(obs_mask, 0, mask, NUM_ACTIONS)
    return s.turn
