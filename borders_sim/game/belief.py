"""Worlds a player cannot tell from the real one, for search and belief research.

:func:`sample_consistent_state` deals the cards ``player`` cannot see anew: the draw pile (order
and contents), other players' hands, their crates that nobody has seen yet, and their face-down
warehouse cards, keeping everything ``player`` knows (RULINGS R-39): its own cards, every public
count and every card it knows to be somewhere (``know_hand``, ``know_down``, escrowed warehouse
cards named by public deals). The result is a :class:`~borders_sim.Game` with exactly the
player's observation, every card present exactly once, and a fresh random generator (so the
real game's future chance events do not leak either); it plays to the end like any game.

This is a determinization for information-set search (IS-MCTS, PIMC): a random deal consistent
with the player's information, not an exact posterior (opponents' past choices are not used to
weight the deal).
"""

from __future__ import annotations

import numpy as np

from .game import Game
from ..rules import state as st
from ..rules.cards import (CARD_CLASS, CLASS_LEGAL, COPIES, CYCLE_LENGTH, FALSE_BOTTOM,
                           FIRST_INSPECTOR_BONUS,
                           FIRST_ACTION, HAND_LIMIT, LAWYER, MAX_CRATE, NIGHT_RAID, NUM_ACTION,
                           NUM_CARD_TYPES, NUM_GOODS, NUM_LEGAL, ROBBERY, SECRET_ROUTE,
                           START_GOLD, SYNDICATE_FUND, deck_tier)
from ..rules.config import GameConfig
from ..rules.engine import seek_at
from .invariants import check
from ..rules.observation import (OBS_SIZE, OBS_SIZE_V1, OBSERVATION_LAYOUT, decode, fill_rates,
                                 observe_at)
from ..rules.piles import is_deferred_for_inspector
from ..rules.rng import seed_words
from ..checks import as_seed
from .views import check_seat

_HIDDEN_CRATES = (st.CRATE_PACKING, st.CRATE_CLOSED, st.CRATE_ANNOUNCED)
_LEGAL = np.array([CARD_CLASS[t] == CLASS_LEGAL for t in range(NUM_GOODS)])


def _crate_hidden(s, o: int) -> bool:
    """A crate whose cards nobody but its owner has seen: not yet settled (a crate in
    settlement holds only cards promised in public deals, R-08)."""
    if s["crate_status"][o] not in _HIDDEN_CRATES:
        return False
    return not (o == s["cur"] and s["outcome"] != st.OUT_PENDING)


_GOODS = np.arange(NUM_GOODS)
_LEGAL_GOODS = _GOODS[_LEGAL]
_OTHER_GOODS = _GOODS[~_LEGAL]
_ANY_CARD = np.arange(NUM_CARD_TYPES)


def _named_warehouse(s, o: int) -> np.ndarray:
    """Warehouse cards seat ``o`` surely holds, by type: the escrowed ones (R-09), those named
    in its standing bounties and, for the crate owner, in its standing offers, which it could
    only name while holding them (P-5.2, P-5.3a), and the Lawyer's pool it still has to hand
    over (R-17d). Both ways of dealing hidden cards keep them (face down where not face up)."""
    named = s["res_wh"][o].astype(np.int64)
    if int(s["phase"]) in _NEGOTIATING:
        named = np.maximum(named, s["bounty_wh"][o].sum(axis=0))
        if o == int(s["cur"]):
            named = np.maximum(named, s["offer_wh"].max(axis=0))
    if s["pool_left"] > 0 and o == s["pool_payer"]:
        named = named + s["pool_wh"]
    return named


def _deal(s, viewer: int, rng, keep: int = -1) -> None:
    """Re-deal the cards hidden from ``viewer`` in the state record ``s`` (in place); the hand
    of seat ``keep`` stays as it is."""
    n = int(s["cfg"][st.CFG_NUM_PLAYERS])
    others = [o for o in range(n) if o != viewer]
    pool = np.bincount(s["draw"][: s["draw_len"]], minlength=NUM_CARD_TYPES).astype(np.int64)
    hand_slots, crate_slots, down_slots = {}, {}, {}
    for o in others:
        fixed = s["hand"][o].copy() if o == keep else s["know_hand"][viewer, o].astype(np.int64)
        loose = s["hand"][o] - fixed
        pool += loose
        hand_slots[o] = int(loose.sum())
        s["hand"][o] = fixed
        if _crate_hidden(s, o):
            pool[:NUM_GOODS] += s["crate"][o]
            crate_slots[o] = int(s["crate"][o].sum())
            s["crate"][o] = 0
        named_down = np.maximum(_named_warehouse(s, o) - s["wh_up"][o], 0)
        fixed = np.maximum(s["know_down"][viewer, o].astype(np.int64), named_down)
        loose = s["wh_down"][o] - fixed
        pool[:NUM_GOODS] += loose
        # face-down legal goods come only from False Bottom (FB-4): keep each class's count
        down_slots[o] = (int(loose[_LEGAL].sum()), int(loose[~_LEGAL].sum()))
        s["wh_down"][o] = fixed
    # the most constrained slots first: each class has enough cards, as the real deal shows
    for o, (legal, other) in down_slots.items():
        s["wh_down"][o] += _take_counts(pool, _LEGAL_GOODS, legal, rng, "a face-down deal")[
            :NUM_GOODS]
        s["wh_down"][o] += _take_counts(pool, _OTHER_GOODS, other, rng, "a face-down deal")[
            :NUM_GOODS]
    for o, k in crate_slots.items():
        s["crate"][o] += _take_counts(pool, _GOODS, k, rng, "a crate")[:NUM_GOODS]
    for o, k in hand_slots.items():
        s["hand"][o] += _take_counts(pool, _ANY_CARD, k, rng, "a hand")
    rest = np.repeat(_ANY_CARD, pool)
    rng.shuffle(rest)
    s["draw"][: len(rest)] = rest
    s["draw_len"] = len(rest)
    for o in others:
        _fit_private_records(s, o, n)


def _fit_private_records(s, o: int, n: int) -> None:
    """Hidden records that describe ``o``'s re-dealt cards are made true of the new deal:
    waiting action cards (§7.2), what third players know of ``o`` (kept as lower bounds) and the
    False Bottom card. None of them is visible to the viewer."""
    for k in range(NUM_ACTION):
        t = FIRST_ACTION + k
        if s["insp"][0] == o or s["insp"][1] == o:
            if is_deferred_for_inspector(t):
                s["hand_later"][o, k] = s["hand"][o, t]
                continue
        s["hand_later"][o, k] = min(s["hand_later"][o, k], s["hand"][o, t])
    s["know_hand"][:n, o] = np.minimum(s["know_hand"][:n, o], s["hand"][o][None])
    s["know_down"][:n, o] = np.minimum(s["know_down"][:n, o], s["wh_down"][o][None])
    fb = int(s["fb_hidden"])
    if fb >= 0 and o == s["cur"] and s["wh_down"][o, fb] == 0:
        same = [t for t in range(NUM_GOODS) if _LEGAL[t] == _LEGAL[fb] and s["wh_down"][o, t]]
        s["fb_hidden"] = same[0]


#: Deals tried before keeping the mover's hand (see :func:`_same_decision`).
_MAX_DEALS = 64


def _same_decision(states, real) -> bool:
    """The re-dealt state stops at the real decision: the same seat is asked in the same phase.
    A player who is asked because of hidden cards (an active Night Raid in the action window,
    goods to pack, a Lawyer in settlement, ...) must still hold such cards."""
    probe = states.copy()
    return bool(seek_at(probe, 0)) and probe[0]["phase"] == real[0]["phase"] \
        and probe[0]["turn"] == real[0]["turn"]


def sample_consistent_state(game: Game, player: int, seed: int = 0) -> Game:
    """A :class:`~borders_sim.Game` that ``player`` cannot tell from ``game``.

    Args:
        game: the real game (not changed).
        player: the seat whose information is kept.
        seed: seeds the deal of the hidden cards and the new game's random generator (a seed,
            0 to ``2**64 - 1``, :mod:`borders_sim.checks`).

    Returns:
        A new game with ``observe(new, player) == observe(game, player)``, every card exactly
        once, and ``player``'s legal actions unchanged when it is to move.
    """
    viewer = check_seat(game, player)
    rng = np.random.default_rng(np.random.SeedSequence([as_seed(seed), viewer]))
    for _ in range(_MAX_DEALS):
        states = game.state.copy()
        s = states[0]
        _deal(s, viewer, rng)
        if _same_decision(states, game.state):
            break
    else:  # the mover is asked for a reason only a rare deal reproduces: keep its hand
        states = game.state.copy()
        s = states[0]
        _deal(s, viewer, rng, keep=int(game.state[0]["turn"]))
    s["rng"] = seed_words(int(rng.integers(2**63)))
    new = Game.from_state(states)
    before, after = np.empty(OBS_SIZE, np.float32), np.empty(OBS_SIZE, np.float32)
    observe_at(game.state, 0, viewer, before)
    observe_at(new.state, 0, viewer, after)
    problems = check(s)
    if problems or not np.array_equal(before, after):
        raise RuntimeError(f"sample_consistent_state broke the state: {problems or 'observation'}"
                           " (a bug: please report it with the game's to_dict())")
    return new



# --- a world from an observation alone ---------------------------------------------------------
#: One seat-relative observation row per seat: world seat ``r`` is the viewer's row ``r``.
_VIEWER = 0
_GOODS_TYPES = np.arange(NUM_GOODS)
_ACTION_TYPES = np.arange(FIRST_ACTION, NUM_CARD_TYPES)
_NON_LEGAL_GOODS = np.flatnonzero(~_LEGAL)
_LEGAL_GOODS = np.flatnonzero(_LEGAL)
#: Phases in which the crate under check is being settled (its hidden cards are gone, R-08).
_SETTLING = (st.PH_LAWYER, st.PH_LAWYER_GOODS, st.PH_FUND, st.PH_BOUNTY_LAWYER)
#: Phases between a crate's start and its end (start_crate .. _finish_crate, P-5).
_CHECKING = (st.PH_BOUNTY, st.PH_OFFER, st.PH_RESPOND, st.PH_ANSWER_DEMAND, st.PH_JOIN,
             st.PH_REACT, st.PH_LAWYER, st.PH_FUND, st.PH_BOUNTY_LAWYER, st.PH_LAWYER_GOODS,
             st.PH_KEEP_OR_OPEN)
#: Phases of a border check before an open or the end of the negotiation: the standing bounties
#: and offers are still as made (P-5.2, P-5.3).
_NEGOTIATING = (st.PH_BOUNTY, st.PH_OFFER, st.PH_RESPOND, st.PH_ANSWER_DEMAND,
                st.PH_KEEP_OR_OPEN)
#: Phases whose mover is asked only because of a card in hand: the mover's seek stops only if
#: it holds one (active), so a world must deal it one (§7.2, P-1, P-5.4, P-5.5).
_REASONS = {
    st.PH_REACT: (SECRET_ROUTE, FALSE_BOTTOM),
    st.PH_LAWYER: (LAWYER,),
    st.PH_BOUNTY_LAWYER: (LAWYER,),
    st.PH_FUND: (SYNDICATE_FUND,),
    st.PH_PACK: tuple(range(NUM_GOODS)),
}


def _bad(problem: str):
    raise ValueError(f"not a valid observation vector: {problem}")


def _index(block: np.ndarray, name: str, n: int, required: bool) -> int:
    """The marked row of a one-hot block (``-1`` when none and not ``required``)."""
    hot = np.flatnonzero(block)
    if (block[hot] != 1).any() or len(hot) > 1 or (required and len(hot) == 0):
        _bad(f"block {name!r} must be one-hot{'' if required else ' or empty'}, got "
             f"{block.tolist()}")
    if len(hot) and hot[0] >= n:
        _bad(f"block {name!r} marks entry {int(hot[0])}, beyond the {n} in use")
    return int(hot[0]) if len(hot) else -1


def _read(observation) -> tuple[dict, int, GameConfig]:
    """The blocks of a checked observation (int64), the player count and the config."""
    obs = np.asarray(observation)
    if obs.shape != (OBS_SIZE,):
        _bad(f"expected shape ({OBS_SIZE},), got {obs.shape}")
    if not np.issubdtype(obs.dtype, np.number) or np.issubdtype(obs.dtype, np.complexfloating):
        _bad(f"expected numbers, got dtype {obs.dtype}")
    counts = obs[:OBS_SIZE_V1]
    if not np.isfinite(obs).all() or (counts != np.round(counts)).any() or (obs < 0).any() \
            or (counts > 2**31 - 1).any():
        _bad("every entry before the rates block is a non-negative integer count")
    b = decode(obs.astype(np.int64))
    n = st.MIN_PLAYERS + _index(b["num_players"], "num_players", st.MAX_PLAYERS - 2, True)
    rates = fill_rates(obs.astype(np.float32))[OBS_SIZE_V1:]
    if np.abs(rates - obs[OBS_SIZE_V1:]).max() > 1e-6:
        _bad("the rates block is not the rates of the history block")
    cfg, menu = b["config"], b["gold_menu"]
    if cfg[st.CFG_NUM_PLAYERS] != n:
        _bad(f"config says {int(cfg[st.CFG_NUM_PLAYERS])} players, num_players says {n}")
    try:
        config = GameConfig.unpack(cfg, menu)
    except (KeyError, ValueError) as err:
        _bad(f"the config and gold_menu blocks are not a GameConfig ({err})")
    packed = config.pack()
    if not (np.array_equal(packed[0], cfg) and np.array_equal(packed[1], menu)):
        _bad("the config and gold_menu blocks are not the packing of a GameConfig")
    return b, n, config


def _fill_public(s, b: dict, n: int, ni: int) -> None:
    """Every field the observation shows, world seat ``r`` being the viewer's row ``r``."""
    s["round"] = max(int(b["round"][0]), 1)
    phase = _index(b["phase"], "phase", len(st.PHASE_NAMES), True)
    s["phase"] = phase
    s["turn"] = _index(b["to_move"], "to_move", n, phase != st.PH_GAME_OVER)
    s["insp"][0] = _index(b["inspector_a"], "inspector_a", n, True)
    s["insp"][1] = _index(b["inspector_b"], "inspector_b", n, ni == 2)
    places = b["round_order"]
    if sorted(places[:n].tolist()) != list(range(1, n + 1)) or places[n:].any():
        _bad(f"round_order must give each seat a place 1..{n}, got {places.tolist()}")
    s["order"][places[:n] - 1] = np.arange(n)
    s["window_passes"] = b["window_passes"][0]
    s["count"] = b["market_discards"][0]
    s["runouts"] = b["runouts"][0]
    s["draw_len"] = b["draw_pile_size"][0]
    s["discard"] = b["discard_pile"]
    s["main_middle"] = b["main_in_middle"]
    for name, field in (("gold", "gold"), ("reserved_gold", "res_gold"),
                        ("main_held", "main_held"), ("collected", "collected"),
                        ("reserved_warehouse", "res_wh"), ("seen", "seen"),
                        ("seen_hidden", "seen_hidden"), ("history", "hist"),
                        ("gifts_made", "gift_lock")):
        s[field][:] = b[name]
    s["wh_up"][:, :NUM_LEGAL] = b["face_up"]
    s["promised"][:] = b["promises"]
    s["announced"][:] = -1
    for r in range(n):
        s["crate_status"][r] = _index(b["crate_status"][r], f"crate_status[{r}]", 6, True)
        s["announced"][r] = _index(b["announced"][r], f"announced[{r}]", NUM_LEGAL, False)
        if s["crate_status"][r] == st.CRATE_ANNOUNCED:
            s["crate_size"][r] = b["crate_count"][r]
        s["know_hand"][_VIEWER, r] = b["known_hand"][r]
        s["know_down"][_VIEWER, r] = b["known_face_down"][r]
    s["raid_thief"] = _index(b["raid_thief"], "raid_thief", n, False)
    for r in range(n):
        s["raid_taken"][r] = _index(b["raid_taken"][r], f"raid_taken[{r}]", NUM_CARD_TYPES,
                                    False)
    # the viewer's own cards
    s["hand"][_VIEWER] = b["own_hand"]
    s["hand_later"][_VIEWER] = b["own_hand"][FIRST_ACTION:] - b["own_active"]
    s["crate"][_VIEWER] = b["own_crate"]
    s["wh_down"][_VIEWER] = b["own_face_down"]
    if s["crate_status"][_VIEWER] in (st.CRATE_PACKING, st.CRATE_CLOSED):
        s["crate_size"][_VIEWER] = b["own_crate"].sum()
    # the border check in progress, or the last one
    s["cur"] = _index(b["crate_under_check"], "crate_under_check", n, False)
    s["exchange"] = b["exchange"][0]
    parcel = lambda v: (v[0], v[1:1 + NUM_GOODS], v[1 + NUM_GOODS:1 + 2 * NUM_GOODS], v[-1])
    for g in range(ni):
        s["g_status"][g] = _index(b["inspector_status"][g], f"inspector_status[{g}]",
                                  len(st.G_STATUS_NAMES), True)
        (s["offer_gold"][g], s["offer_wh"][g], s["offer_crate"][g],
         s["offer_promise"][g]) = parcel(b["offer"][g])
        s["offer_lock"][g] = b["offer_lock"][g, 0] * st.LOCK_GOLD \
            + b["offer_lock"][g, 1] * st.LOCK_WITHDRAWN
        s["demand"][g] = b["demand"][g]
        (s["deal_gold"][g], s["deal_wh"][g], s["deal_crate"][g],
         s["deal_promise"][g]) = parcel(b["deal"][g])
        s["deal_seq"][g] = b["deal_order"][g]
        s["bounty_gold"][:, g] = b["bounties"][:, g, 0]
        s["bounty_wh"][:, g] = b["bounties"][:, g, 1:1 + NUM_GOODS]
        s["bounty_on"][:, g] = b["bounties"][:, g, 1 + NUM_GOODS]
    if ni == 1 and phase in _CHECKING:
        s["g_status"][1] = st.G_PASSED  # the unused slot B passes during a border check
    s["outcome"] = _index(b["outcome"], "outcome", 5, True)
    s["truthful"] = b["truthful"][0]
    s["fine"] = b["fine"][0]
    s["lawyer_to"] = _index(b["lawyer_to"], "lawyer_to", ni, False)
    s["fund_paid"] = b["fund_paid"][0]
    pool = b["lawyer_pool"]
    s["pool_left"] = pool[-1]
    if pool[-1] > 0:
        s["pool_wh"] = pool[:NUM_GOODS]
        s["pool_crate"] = pool[NUM_GOODS:2 * NUM_GOODS]
        s["pool_payer"] = _index(b["lawyer_payer"], "lawyer_payer", n, True)
    # derived bookkeeping
    cycle = int(CYCLE_LENGTH[n])
    if b["end_triggered"][0]:
        last = int(b["last_round"][0])
        s["trigger_round"] = min(int(s["round"]), last)
        s["end_reason"] = st.END_FALLBACK if s["main_middle"].any() else st.END_MAIN_RESOURCES
        if phase == st.PH_GAME_OVER:
            s["end_round"] = last
        if cycle * -(-int(s["trigger_round"]) // cycle) != last:
            _bad(f"last_round {last} is not the end of a cycle of {cycle} rounds after "
                 f"round {int(s['round'])}")
    s["n_opened"] = s["hist"][:n, st.H_CRATES_OPENED].sum()
    s["n_passed"] = s["hist"][:n, st.H_CRATES_PASSED].sum()
    # the bank's flows: paid_out - paid_in is the gold above the start; the least paid_out the
    # rules allow (the first inspectors' bonus, 3.4-3, plus §8's odd gold) gives the least paid_in
    ni = int(s["cfg"][st.CFG_NUM_INSPECTORS])
    total = int(s["gold"][:n].sum()) - START_GOLD * n
    least = FIRST_INSPECTOR_BONUS * ni
    s["bank_out"] = max(least, min(total, least + (ni - 1) * int(s["n_opened"])))
    s["bank_in"] = int(s["bank_out"]) - total
    s["pos"] = _position(s, n)


def _position(s, n: int) -> int:
    """``pos`` for the phase and the mover: the mover's place in the round order in the
    sequential phases, its badge slot in the inspectors' phases, the collector's index in
    collection, the next bounty payer's place during the bounties' Lawyers."""
    phase, turn = int(s["phase"]), int(s["turn"])
    order = s["order"][:n].tolist()
    if phase in (st.PH_WINDOW, st.PH_RAID_DISCARD, st.PH_MARKET, st.PH_PACK, st.PH_ANNOUNCE,
                 st.PH_BOUNTY, st.PH_BOUNTY_LAWYER):
        return order.index(turn)
    if phase in (st.PH_RESPOND, st.PH_JOIN, st.PH_KEEP_OR_OPEN):
        return s["insp"].tolist().index(turn)
    if phase == st.PH_ANSWER_DEMAND:
        due = np.flatnonzero((s["demand"] > 0) & (s["g_status"] == st.G_UNDECIDED))
        return int(due[0]) if len(due) else 0
    if phase == st.PH_LAWYER_GOODS and s["pool_payer"] != s["cur"]:
        return order.index(int(s["pool_payer"]))  # a bounty payer, in round order
    if phase == st.PH_COLLECT:
        if s["cfg"][st.CFG_NUM_INSPECTORS] == 2 and s["cfg"][st.CFG_COLLECT_A_PLUS_1]:
            return (turn - int(s["insp"][0]) - 1) % n
        return order.index(turn)
    return 0


def _settling_crate(s) -> np.ndarray:
    """Cards still in the crate under settlement: the crate goods of binding deals on a
    passed crate, waiting for payment (R-08), or those of the Lawyer's pool (R-17d)."""
    phase, outcome = int(s["phase"]), int(s["outcome"])
    if phase == st.PH_LAWYER and outcome in (st.OUT_PASSED, st.OUT_PASSED_SR):
        committed = s["g_status"] == st.G_COMMITTED
        return s["deal_crate"][committed].sum(axis=0)
    if phase == st.PH_LAWYER_GOODS and s["pool_payer"] == s["cur"]:
        return s["pool_crate"].copy()
    return np.zeros(NUM_GOODS, dtype=np.int64)


def _take_counts(pool: np.ndarray, types: np.ndarray, k: int, rng, what: str) -> np.ndarray:
    """``k`` random cards of ``types`` out of the card counts ``pool`` (changed in place), as
    counts by card type."""
    got = np.zeros(NUM_CARD_TYPES, dtype=np.int64)
    if k <= 0:
        return got
    avail = pool[types]
    if avail.sum() < k:
        _bad(f"{what} needs {k} cards but only {int(avail.sum())} are unaccounted for")
    got[types] = rng.multivariate_hypergeometric(avail, k)
    pool -= got
    return got


def _crate_sizes(s, n: int, hidden_total: int, hand_sizes: np.ndarray, rng) -> dict:
    """Sizes of the packed crates whose count is not told yet (P-3): as the hand sizes suggest
    (a hand of 6 after the market, less what was packed), then adjusted so that every card is
    somewhere."""
    phase, turn = int(s["phase"]), int(s["turn"])
    lo, hi, size = {}, {}, {}
    for o in range(1, n):
        status = s["crate_status"][o]
        if status == st.CRATE_CLOSED:
            lo[o], hi[o] = 1, MAX_CRATE
        elif status == st.CRATE_PACKING and phase == st.PH_PACK and o == turn:
            lo[o], hi[o] = 0, MAX_CRATE - 1  # still packing: room for another card
        else:
            continue
        size[o] = min(max(HAND_LIMIT - int(hand_sizes[o]), lo[o]), hi[o])
    if not size:
        if hidden_total != 0:
            _bad(f"{hidden_total:+d} cards unaccounted for: the counts do not add up to the "
                 "deck")
        return size
    if not sum(lo.values()) <= hidden_total <= sum(hi.values()):
        _bad(f"{hidden_total} cards left for crates of {len(size)} packed crates")
    diff = hidden_total - sum(size.values())
    while diff:
        step = 1 if diff > 0 else -1
        can = [o for o in size if lo[o] <= size[o] + step <= hi[o]]
        o = can[int(rng.integers(len(can)))]
        size[o] += step
        diff -= step
    return size


def _deal_hidden(s, b: dict, n: int, rng) -> None:
    """Deal every card the viewer cannot see from the cards unaccounted for (the deck less
    every card it sees or knows the place of) into the hidden places, the most constrained
    first."""
    pool = COPIES[deck_tier(n)].astype(np.int64).copy()
    if not s["cfg"][st.CFG_ACTION_CARDS]:
        pool[FIRST_ACTION:] = 0
    pool -= s["discard"]
    pool[:NUM_GOODS] -= s["wh_up"][:n].sum(axis=0) + s["crate"][_VIEWER] + s["wh_down"][_VIEWER]
    pool -= s["hand"][_VIEWER]
    hand_sizes = np.zeros(st.MAX_PLAYERS, dtype=np.int64)
    hand_sizes[:n] = b["hand_size"][:n]
    phase, turn, cur = int(s["phase"]), int(s["turn"]), int(s["cur"])
    hand_free, down_free, crate_known = {}, {}, {}
    for o in range(1, n):
        s["hand"][o] = s["know_hand"][_VIEWER, o]
        hand_free[o] = int(hand_sizes[o] - s["hand"][o].sum())
        down = np.maximum(s["know_down"][_VIEWER, o].astype(np.int64),
                          _named_warehouse(s, o) - s["wh_up"][o])
        s["wh_down"][o] = down
        down_free[o] = int(b["face_down_count"][o] - down.sum())
        if hand_free[o] < 0 or down_free[o] < 0:
            _bad(f"row {o} knows of more cards than it holds")
        pool -= s["hand"][o]
        pool[:NUM_GOODS] -= down
        status = s["crate_status"][o]
        if o == cur and phase in _SETTLING:
            s["crate"][o] = _settling_crate(s)
            pool[:NUM_GOODS] -= s["crate"][o]
        elif status == st.CRATE_ANNOUNCED:
            crate_known[o] = int(s["crate_size"][o])
    if (pool < 0).any():
        _bad(f"more cards seen than the deck holds: {pool.tolist()}")
    fixed = int(s["draw_len"]) + sum(hand_free.values()) + sum(down_free.values()) \
        + sum(crate_known.values())
    crates = dict(crate_known)
    crates.update(_crate_sizes(s, n, int(pool.sum()) - fixed, hand_sizes, rng))
    # the mover is asked because it holds a card for it (§7.2: a smuggler's action cards are
    # active, an inspector's Night Raid and Robbery too)
    reasons = _REASONS.get(phase, ())
    if phase == st.PH_WINDOW:
        reasons = (NIGHT_RAID,) if s["cfg"][st.CFG_ROBBERY_OWN_TURN] and \
            turn not in s["insp"] else (NIGHT_RAID, ROBBERY)
    if reasons and turn != _VIEWER and not s["hand"][turn, list(reasons)].any():
        if hand_free[turn] < 1:
            _bad(f"the mover (row {turn}) must hold a card to be asked in the "
                 f"{st.PHASE_NAMES[phase]!r} phase but its hand is known")
        s["hand"][turn] += _take_counts(pool, np.array(reasons), 1, rng, "the mover's hand")
        hand_free[turn] -= 1
    for o, k in down_free.items():  # face-down legal goods come only from False Bottom (FB-4)
        k_non_legal = min(k, int(pool[_NON_LEGAL_GOODS].sum()))
        got = _take_counts(pool, _NON_LEGAL_GOODS, k_non_legal, rng, "face-down cards")
        got += _take_counts(pool, _LEGAL_GOODS, k - k_non_legal, rng, "face-down cards")
        s["wh_down"][o] += got[:NUM_GOODS]
    for o, k in crates.items():
        s["crate"][o] = _take_counts(pool, _GOODS_TYPES, k, rng, "a crate")[:NUM_GOODS]
        s["crate_size"][o] = k
    for o, k in hand_free.items():  # a seat sitting out held no goods
        if s["crate_status"][o] == st.CRATE_SITTING_OUT:
            s["hand"][o] += _take_counts(pool, _ACTION_TYPES, k, rng, "a hand without goods")
            hand_free[o] = 0
    for o, k in hand_free.items():
        s["hand"][o] += _take_counts(pool, np.arange(NUM_CARD_TYPES), k, rng, "a hand")
    draw = np.repeat(np.arange(NUM_CARD_TYPES), pool)
    if len(draw) != s["draw_len"]:
        _bad(f"{len(draw)} cards left for a draw pile of {int(s['draw_len'])}")
    s["draw"][: len(draw)] = rng.permutation(draw)
    for o in range(1, n):  # §7.2: an inspector's #1/#3/#4/#6 wait for a smuggler round
        if o in s["insp"]:
            for k in range(NUM_ACTION):
                if is_deferred_for_inspector(FIRST_ACTION + k):
                    s["hand_later"][o, k] = s["hand"][o, FIRST_ACTION + k]
    if s["outcome"] == st.OUT_FALSE_BOTTOM and cur >= 0:
        down = np.flatnonzero(s["wh_down"][cur])
        s["fb_hidden"] = int(down[0]) if len(down) else -1
    else:
        s["fb_hidden"] = -1


def world_from_observation(observation: np.ndarray, seed: int = 0) -> Game:
    """A complete game that the observation's viewer cannot tell from the one it observes,
    built from the observation alone (a bot sees nothing else).

    The observation is seat-relative (row 0 is the viewer) and says the viewer's seat (the
    ``seat`` block): the world seats the viewer there and the player ``r`` places to its left
    at seat ``seat + r`` (modulo the player count), so action ids that name a seat (rob,
    inspect, gift) mean what they mean in the real game. Every field the observation shows is
    copied; the cards the viewer cannot see are dealt at random from the cards unaccounted for
    (the deck less every card it sees or knows the place of, R-39) into the hidden places of
    the sizes the observation gives: the other hands (keeping the cards the viewer knows are there), the crates not yet
    opened, the face-down warehouse cards (keeping the known and the escrowed ones) and the
    draw pile. A packed crate's count is not told before its announcement (P-3): its size
    follows the owner's hand size (a hand of 6 after the market less the cards packed),
    adjusted so that every card is somewhere. Warehouse cards named in standing bounties and in
    the crate owner's standing offers are kept face down with their maker, who could name only
    cards it held (P-5.2, P-5.3a). A player who is asked only because it holds a
    card (an action card for the window, a reaction, a Lawyer or the Fund; goods to pack) is
    dealt one. Other seats' waiting action cards follow §7.2 (an inspector's Secret Route,
    False Bottom, Fund and Lawyer wait); the bank flows, the crate statistics, ``pos`` and the
    trigger round are derived; the random generator is fresh, from ``seed``.

    A determinization for search, like :func:`sample_consistent_state`: a random deal
    consistent with the viewer's information, not a posterior.

    Args:
        observation: a player's observation vector (:func:`borders_sim.envs.observe`).
        seed: seeds the deal and the new game's random generator (a seed, 0 to
            ``2**64 - 1``, :mod:`borders_sim.checks`).

    Returns:
        A :class:`~borders_sim.Game` whose observation for the viewer's seat equals
        ``observation``, that passes :func:`borders_sim.game.invariants.check` and plays to the
        end; its player to move is the observation's, with the legal actions of the observed
        decision when that is the viewer.

    Raises:
        ValueError: ``observation`` is not a valid observation vector (wrong shape, entries
            that are not counts, blocks that are not one-hot, a config that is not one) or no
            game has it (cards that do not add up, an observation that cannot be reproduced),
            or ``seed`` is not a seed.
    """
    return Game.from_state(world_state(observation, as_seed(seed)))


def world_state(observation: np.ndarray, seed: int) -> np.ndarray:
    """:func:`world_from_observation` as a one-element state array (checked the same way)."""
    return world_states(observation, [seed])


def world_states(observation: np.ndarray, seeds) -> np.ndarray:
    """One world of :func:`world_from_observation` per seed, as a state array (the
    observation is read once; every world is checked)."""
    b, n, config = _read(observation)
    seat = _index(b["seat"], "seat", n, True)
    base = np.zeros(1, dtype=st.STATE_DTYPE)
    base[0]["cfg"], base[0]["menu"] = config.pack()
    _fill_public(base[0], b, n, config.num_inspectors)
    states = np.repeat(base, len(seeds))
    given = np.asarray(observation)
    again = np.empty(OBS_SIZE, np.float32)
    for i, seed in enumerate(seeds):
        rng = np.random.default_rng(np.random.SeedSequence([as_seed(seed, f"seeds[{i}]"), n]))
        s = states[i]
        _deal_hidden(s, b, n, rng)
        s["rng"] = seed_words(int(rng.integers(2**63)))
        problems = check(s)
        if problems:
            _bad(f"no consistent game has it: {'; '.join(problems)}")
        if not _same_decision(states[i:i + 1], states[i:i + 1]):
            _bad(f"the mover (row {int(s['turn'])}) would not be asked in the "
                 f"{st.PHASE_NAMES[int(s['phase'])]!r} phase")
        rotate_seats(s, seat)
        observe_at(states, i, seat, again)
        if not np.array_equal(again, given):
            differ = [e.name for e in OBSERVATION_LAYOUT
                      if not np.array_equal(again[e.offset:e.offset + e.size],
                                            given[e.offset:e.offset + e.size])]
            _bad(f"no consistent game reproduces the blocks {differ}")
    return states


#: Fields with a row per seat, and fields with a seat on both of their first two axes.
_SEAT_ROWS = ("hand", "hand_later", "crate", "crate_size", "announced", "crate_status", "wh_up",
              "wh_down", "gold", "main_held", "collected", "res_gold", "res_wh", "bounty_gold",
              "bounty_wh", "bounty_on", "gift_lock", "hist", "seen", "seen_hidden",
              "raid_taken", "truth")
_SEAT_PAIRS = ("promised", "know_hand", "know_down")
#: Fields whose values are seats (-1: none).
_SEAT_VALUES = ("turn", "insp", "cur", "raid_thief", "pool_payer")


def rotate_seats(s, k: int) -> None:
    """Move every seat of the state record ``s`` ``k`` places to the left (in place): seat
    ``p`` becomes seat ``p + k`` modulo the player count, a symmetry of the rules, so the
    observation of seat ``p + k`` afterwards equals that of seat ``p`` before."""
    n = int(s["cfg"][st.CFG_NUM_PLAYERS])
    k %= n
    if k == 0:
        return
    for f in _SEAT_ROWS:
        s[f][:n] = np.roll(s[f][:n], k, axis=0)
    for f in _SEAT_PAIRS:
        s[f][:n, :n] = np.roll(s[f][:n, :n], (k, k), axis=(0, 1))
    order = s["order"]
    order[:n] = (order[:n] + k) % n
    for f in _SEAT_VALUES:
        v = np.asarray(s[f]).copy()
        s[f] = np.where(v >= 0, (v + k) % n, v)
