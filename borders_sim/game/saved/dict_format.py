"""JSON serialization of a game state, written in game words.

:func:`state_to_dict` turns a state record (:data:`~borders_sim.rules.state.STATE_DTYPE`) into
a dict of plain ``dict``/``list``/``str``/``int``/``bool``/``None`` values, ready for
``json.dumps``; :func:`state_from_dict` turns such a dict back into a one-element state array.
The round trip is exact: ``state_from_dict(state_to_dict(s)) == s`` byte for byte, the random
generator included, so a loaded game continues exactly as the saved one would have.
:meth:`borders_sim.Game.to_dict` and :meth:`borders_sim.Game.from_dict` wrap the two.

:func:`state_from_dict` accepts exactly the states the engine can play. It checks everything
it reads and raises ``ValueError`` with the path of the offending entry
(``players[2].hand.coffee: ...``, ``position.index: ...``): unknown or missing keys, wrong types,
unknown names, negative counts, seats beyond the player count, a draw pile longer than the deck,
a config that :class:`~borders_sim.rules.config.GameConfig` rejects; then
:func:`borders_sim.game.validate.problems` checks that the state is one the kernels can play
(its docstring has the full list): cards conserved and escrow exactly what the accepted deals
and bounties hold (R-09); each phase's preconditions (who moves, which slot or position, crate
statuses for the point of the round, outcome and openers, the settlement step, the cards a play
needs: the decision has a legal action); every violation reported by
:func:`borders_sim.game.invariants.check`; and counters within bounds no game can exceed, so
that nothing can wrap around:

* ``round``: the game provably ends by round ``max_rounds`` (P-0.4) from this position (the
  end of the game set, or at most ``draw_len + (1 - runouts)(D + 1) + 2 L`` rounds left, one
  more while every hand is full after the market);
* ``steps`` at most ``max_game_length`` (the engine gives up on a game asked for more);
* ``stats``: at most one crate per smuggler and round; ``end_of_game.runouts`` at most two per
  draw of the rounds played;
* ``bank``: ``paid_out`` is the first inspectors' 3 gold plus at most 1 gold per opened crate
  (the odd gold of a fine split by two openers, §8), ``paid_in`` at most 10 gold per main resource
  held (the black market, 5-12) plus that odd gold; with gold conserved every player's gold is
  below ``50 players + 6 + crates_opened``;
* gold amounts of offers, deals, demands and bounties from the gold menu, fines at most 5
  cards' fines, counts at most the deck.

These checks are closed under play: a game loaded from an accepted dict plays to the end without
breaking an invariant, and its own ``to_dict()`` loads again at every step
(``tests/test_fuzz_load.py`` checks it on mutated dicts); only a ``steps`` count set near
``max_game_length`` by hand can reach that bound first (the engine then gives up).

``state_from_dict(d, reachable=False)`` also loads *research positions*: states the kernels can
play that no game reaches (gold, hands or crates chosen by hand). It rebases the records of the
past to fit the position (:mod:`~borders_sim.game.rebase`: the bank's books, the stats, the
promises made, the knowledge bounds) and checks everything else as above, the bounds on the
stats, the run-outs and the gold counting against the whole game instead of the rounds played
(:mod:`~borders_sim.game.validate`); such a game plays to the end without breaking an invariant
too (``tests/test_position.py``).

Words used
----------
* **seat**: ``"p0"`` .. ``"p7"``, only seats below ``config.num_players``.
* **badge**: ``"A"`` or ``"B"`` (inspector slots 0 and 1; B is in play with 6-8 players).
* **card**: a name of :data:`~borders_sim.rules.cards.CARD_KEYS` (``"sugar"``, ``"coffee"``,
  ..., ``"rum"``, ..., ``"route"``, ``"raid"``, ``"bottom"``, ``"fund"``, ``"robbery"``,
  ``"lawyer"``).
* **counts**: ``{card: count}`` with positive counts only (zero entries are omitted on
  output and accepted on input). Which cards may appear depends on the place: goods only
  (the first 14 card names) in crates, warehouses and deals; legal goods only (sugar, coffee,
  tobacco, fish) face up in a warehouse; action cards only in ``hand_waiting``.
* **main resource**: a name of :data:`~borders_sim.rules.cards.MAIN_NAMES` (``"sugar"``,
  ``"malt"``, ..., ``"ice shipment"``, ..., ``"secret warehouse"``).
* **phase**: a name of :data:`~borders_sim.rules.state.PHASE_NAMES` (``"action window"``,
  ``"market"``, ..., ``"offer"``, ..., ``"game over"``).

Layout (top-level keys, in output order; state field in brackets)
-----------------------------------------------------------------

=============================  ====================================================================
key                            value
=============================  ====================================================================
``format``                     ``"borders_sim.state/3"``, the layout version.
``config``                     :meth:`GameConfig.to_dict` (``cfg``, ``menu``); every flag required.
``round``                      int >= 1, the round being played (``round``).
``phase``                      phase name (``phase``).
``to_move``                    seat that decides now, ``null`` once the game is over (``turn``).
``steps``                      int, decisions taken so far (``steps``).
``inspectors``                 ``{"A": seat, "B": seat or null}`` (``insp``); B is ``null`` with
                               one inspector.
``round_order``                list of all seats in this round's order (``order``, 4-3).
``position``                   ``{"index", "window_passes", "market_discards"}``: ``index`` is the
                               position in ``round_order`` of the sequential phase in progress (in
                               the respond, answer-demand, join and keep-or-open phases the badge
                               slot, 0 = A)
                               (``pos``); ``window_passes`` passes in a row in the action window
                               (``window_passes``, P-1); ``market_discards`` cards discarded in
                               the current market turn (``count``, P-2).
``end_of_game``                ``{"runouts", "trigger_round", "end_round", "reason"}``: draw-pile
                               run-outs (``runouts``, R-29); the round whose cycle ends the game or
                               ``null`` (``trigger_round``); the last round or ``null`` while
                               unknown (``end_round``); ``null``, ``"main resources"`` or
                               ``"fallback"`` (``end_reason``).
``draw_pile``                  list of cards, bottom to top: the last entry is the next card drawn
                               (``draw[:draw_len]``, ``draw_len``).
``drawn_from_pile``            list of cards: the slots of the pile above its top
                               (``draw[draw_len:]``), the most recently drawn card first, then
                               leftovers of earlier shuffles; trailing ``"sugar"`` entries (id 0,
                               like never-used slots) are omitted. No effect on play; kept so the
                               round trip is exact.
``discard_pile``               counts of the open discard pile (``discard``).
``main_resources_in_middle``   list of main resources still in the middle (``main_middle``).
``players``                    one record per seat, ``p0`` first (below).
``negotiation``                the border check (below); ``null`` before the game's first crate.
``rng``                        the two xorshift128+ words as decimal strings (``rng``); ints are
                               also accepted on input.
``bank``                       ``{"paid_in", "paid_out"}``: gold paid to / by the bank
                               (``bank_in``, ``bank_out``).
``stats``                      ``{"crates_opened", "crates_passed"}`` (``n_opened``, ``n_passed``).
``history``                    the public history (below).
``knowledge``                  what players privately know of others' hidden cards (below).
``truth``                      the private truth counters: one object per seat, ``p0`` first, every
                               key of :data:`~borders_sim.rules.state.TRUTH_COUNTERS` with an
                               int >= 0 (``truth``; what crates held, never observed).
=============================  ====================================================================

History record (public, R-39):

=========================  ========================================================================
key                        value
=========================  ========================================================================
``counters``               one object per seat, ``p0`` first: every key of
                           :data:`~borders_sim.rules.state.HISTORY_COUNTERS` with an int >= 0
                           (``hist``).
``promises``               list of ``{"from": seat, "to": seat, "count": int}``: promises of a
                           future pass that ``from`` still owes ``to`` (``promised``).
``seen_this_round``        list of ``{"seat", "cards": counts, "hidden": int}`` for crates settled
                           this round: the cards everybody saw and how many stayed hidden
                           (``seen``, ``seen_hidden``).
=========================  ========================================================================

Knowledge record (private, R-39; certain lower bounds, never above the truth):

=========================  ========================================================================
key                        value
=========================  ========================================================================
``hand``                   list of ``{"viewer": seat, "holder": seat, "cards": counts}``: cards
                           ``viewer`` knows ``holder`` has in hand (``know_hand``).
``face_down``              list of ``{"viewer": seat, "owner": seat, "cards": counts}``: goods
                           ``viewer`` knows lie face down in ``owner``'s warehouse (``know_down``).
``night_raid``             ``null``, or ``{"thief": seat, "taken": {seat: card or null}}``: this
                           round's Night Raid and what it took from each opponent (``raid_thief``,
                           ``raid_taken``).
=========================  ========================================================================

Format ``borders_sim.state/1`` (before history and knowledge were recorded) still loads: its
history is empty and nothing is privately known, which is true of any game. Format
``borders_sim.state/2`` (before the truth counters) loads with every truth counter 0.

Player record (row ``p`` of every per-seat field; rows of seats beyond the player count are
always empty and are not written):

=========================  ========================================================================
key                        value
=========================  ========================================================================
``seat``                   ``"p<i>"`` for the i-th record.
``gold``                   int >= 0 (``gold``).
``reserved_gold``          int >= 0, gold escrowed by accepted deals and bounties (``res_gold``,
                           R-09); at most ``gold``.
``hand``                   counts of all cards in hand, action cards included (``hand``).
``hand_waiting``           counts of action cards in hand that are not active this round
                           (``hand_later``, §7.2); at most the copies in hand.
``crate``                  counts of goods in the crate (``crate``).
``crate_count``            int, the number of cards packed, the count announced with the crate
                           (``crate_size``; while the crate is settled it keeps the packed count
                           as the crate empties).
``crate_status``           ``"none"`` (an inspector, or before the round), ``"packing"``,
                           ``"closed"``, ``"announced"``, ``"done"`` or ``"sitting out"``
                           (``crate_status``).
``announced``              legal card announced for the crate, or ``null`` (``announced``).
``warehouse_face_up``      counts of legal goods face up (``wh_up``).
``warehouse_face_down``    counts of goods face down (``wh_down``).
``reserved_warehouse``     counts of warehouse cards escrowed (``res_wh``, R-09).
``main_resources``         list of main resources held (``main_held``).
``collected_this_round``   bool (``collected``).
=========================  ========================================================================

Negotiation record: the border check of the crate under way (P-5), and outside the border-check
phases the record the last one left behind (the engine resets it only when the next crate comes
up; it has no effect on play until then). ``null`` stands for the untouched record of a new game
(no crate, every entry zero).

=========================  ========================================================================
key                        value
=========================  ========================================================================
``crate_of``               seat whose crate is (or was last) checked, ``null`` after the round
                           that checked it ended (``cur``).
``exchange``               int, the exchange in progress, 1-based (``exchange``, P-5.3).
``inspectors``             two badge records, A then B (with one inspector, B is the unused slot:
                           ``"passed"`` during a border check, otherwise empty):
                           ``badge`` ``"A"``/``"B"``; ``status`` ``"undecided"``, ``"committed"``,
                           ``"passed"``, ``"opened"`` or, with ``accept_commits`` false,
                           ``"holding"`` (a deal accepted, not yet kept, P-5.3(b'))
                           (``g_status``); ``offer`` the owner's
                           standing let-through offer ``{"gold", "warehouse": counts,
                           "crate": counts, "promise": bool}`` (``offer_gold``, ``offer_wh``,
                           ``offer_crate``, ``offer_promise``); ``offer_lock``
                           ``{"gold_set": bool, "withdrawn": bool}`` what the owner may no longer
                           change in this offer turn (``offer_lock`` bits ``LOCK_GOLD``,
                           ``LOCK_WITHDRAWN``); ``demand`` gold demanded this exchange
                           (``demand``); ``deal`` the accepted let-through deal, same shape as
                           ``offer`` (``deal_gold``, ``deal_wh``, ``deal_crate``,
                           ``deal_promise``); ``deal_order`` 0 (no deal), 1 or 2, the order of
                           acceptance (``deal_seq``, R-08).
``bounties``               list of standing bounties (R-07), one per (smuggler, badge) with
                           anything in it: ``{"from": seat, "to": badge, "gold": int,
                           "warehouse": counts, "accepted": bool}`` (``bounty_gold``,
                           ``bounty_wh``, ``bounty_on``).
``gold_gifts_made_by``     list of seats that made their gold gift this bounty turn
                           (``gift_lock``, R-06c).
``outcome``                ``"pending"``, ``"passed"``, ``"passed by secret route"``,
                           ``"opened"`` or ``"false bottom"`` (``outcome``, Appendix A).
``truthful``               bool, the opened crate matched its announcement (``truthful``).
``fine``                   int, the fine at stake (``fine``, 4.4-B).
``false_bottom_card``      goods card hidden by False Bottom, or ``null`` (``fb_hidden``).
``lawyer_to``              badge that received the half by the owner's Lawyer, or ``null``
                           (``lawyer_to``).
``fund_paid``              int, gold the owner paid in deals this settlement (``fund_paid``).
``lawyer_pool``            ``{"payer", "cards_left", "warehouse", "crate"}``: with
                           ``lawyer_goods="player_choice"``, the seat choosing, how many cards it
                           still hands over, and the goods it chooses from (``pool_payer``,
                           ``pool_left``, ``pool_wh``, ``pool_crate``; R-17d).
=========================  ========================================================================
"""

from __future__ import annotations

import functools

import re
from dataclasses import fields

import numpy as np

from ...rules import state as st
from ...checks import ArgumentTypeError, is_int
from ...checks import shown as _shown
from ...rules.cards import (CARD_KEYS, FIRST_ACTION, MAIN_MIN_PLAYERS, MAIN_NAMES, MAX_CRATE,
                    MAX_DECK, MAX_MARKET_DISCARDS, NUM_CARD_TYPES, NUM_GOODS, NUM_LEGAL,
                    NUM_MAIN)
from ...rules.config import GameConfig
from .rebase import rebase
from .validate import problems

FORMAT = "borders_sim.state/3"
OLD_FORMATS = ("borders_sim.state/1", "borders_sim.state/2")

CRATE_STATUS_NAMES = st.CRATE_STATUS_NAMES
INSPECTOR_STATUS_NAMES = st.G_STATUS_NAMES
OUTCOME_NAMES = ("pending", "passed", "passed by secret route", "opened", "false bottom")
END_REASON_NAMES = (None, "main resources", "fallback")
BADGES = st.BADGES

GOODS_KEYS = CARD_KEYS[:NUM_GOODS]
HISTORY_KEYS = tuple(k for k, _meaning in st.HISTORY_COUNTERS)
TRUTH_KEYS = tuple(k for k, _meaning in st.TRUTH_COUNTERS)
#: Bound on a loaded history counter. The counters are int64 and grow by at most the largest
#: gold amount (the menu's, at most 1000) per decision, so a game loaded at the bound and played
#: for max_game_length decisions (far below 2**40 / 1000) stays far from overflow.
HISTORY_MAX = 2 ** 40
LEGAL_KEYS = CARD_KEYS[:NUM_LEGAL]
ACTION_KEYS = CARD_KEYS[FIRST_ACTION:]

_I32 = 2 ** 31 - 1
_I64 = 2 ** 63 - 1
_U64 = 2 ** 64

#: Every field of STATE_DTYPE, each written by this layout (a test keeps the two in step).
FIELDS = ("cfg", "menu", "rng", "round", "phase", "turn", "steps", "insp", "order", "pos",
          "window_passes", "count", "runouts", "trigger_round", "end_round", "end_reason", "draw",
          "draw_len", "discard", "hand", "hand_later", "crate", "crate_size", "announced",
          "crate_status", "wh_up", "wh_down", "gold", "main_middle", "main_held", "collected",
          "res_gold", "res_wh", "cur", "exchange", "g_status", "offer_gold", "offer_wh",
          "offer_crate", "offer_promise", "offer_lock", "demand", "deal_gold", "deal_wh",
          "deal_crate", "deal_promise", "deal_seq", "bounty_gold", "bounty_wh", "bounty_on",
          "gift_lock", "outcome", "truthful", "fine", "fb_hidden", "lawyer_to", "fund_paid",
          "pool_wh", "pool_crate", "pool_left", "pool_payer",
          "bank_in", "bank_out", "n_opened", "n_passed", "hist", "promised", "seen", "seen_hidden",
          "know_hand", "know_down", "raid_thief", "raid_taken", "truth")

#: Per-seat fields and the value their rows beyond the player count keep.
_SEAT_FIELDS = {"order": 0, "hand": 0, "hand_later": 0, "crate": 0, "crate_size": 0,
                "announced": -1, "crate_status": 0, "wh_up": 0, "wh_down": 0, "gold": 0,
                "main_held": 0, "collected": 0, "res_gold": 0, "res_wh": 0, "bounty_gold": 0,
                "bounty_wh": 0, "bounty_on": 0, "gift_lock": 0, "hist": 0, "promised": 0,
                "seen": 0, "seen_hidden": 0, "know_hand": 0, "know_down": 0, "raid_taken": 0,
                "truth": 0}
#: Fields of the negotiation record; ``null`` means all zero with ``cur == -1``.
_NEGOTIATION_FIELDS = ("cur", "exchange", "g_status", "offer_gold", "offer_wh", "offer_crate",
                       "offer_promise", "offer_lock", "demand", "deal_gold", "deal_wh",
                       "deal_crate", "deal_promise", "deal_seq", "bounty_gold", "bounty_wh",
                       "bounty_on", "gift_lock", "outcome", "truthful", "fine", "fb_hidden",
                       "lawyer_to", "fund_paid", "pool_wh", "pool_crate", "pool_left",
                       "pool_payer")

_TOP_KEYS = ("format", "config", "round", "phase", "to_move", "steps", "inspectors",
             "round_order", "position", "end_of_game", "draw_pile", "drawn_from_pile",
             "discard_pile", "main_resources_in_middle", "players", "negotiation", "rng", "bank",
             "stats", "history", "knowledge", "truth")
_PLAYER_KEYS = ("seat", "gold", "reserved_gold", "hand", "hand_waiting", "crate", "crate_count",
                "crate_status", "announced", "warehouse_face_up", "warehouse_face_down",
                "reserved_warehouse", "main_resources", "collected_this_round")
_NEGOTIATION_KEYS = ("crate_of", "exchange", "inspectors", "bounties", "gold_gifts_made_by",
                     "outcome", "truthful", "fine", "false_bottom_card", "lawyer_to",
                     "fund_paid", "lawyer_pool")
_POOL_KEYS = ("payer", "cards_left", "warehouse", "crate")
_BADGE_KEYS = ("badge", "status", "offer", "offer_lock", "demand", "deal", "deal_order")
_PARCEL_KEYS = ("gold", "warehouse", "crate", "promise")
_BOUNTY_KEYS = ("from", "to", "gold", "warehouse", "accepted")


# =================================================================================================
# state -> dict
# =================================================================================================
def _record(s):
    if isinstance(s, np.ndarray):
        if s.dtype != st.STATE_DTYPE or s.size != 1:
            raise TypeError("state_to_dict expects a STATE_DTYPE record or a one-element array of "
                            f"them, got an array of dtype {s.dtype} and shape {s.shape}")
        return s.reshape(-1)[0]
    if isinstance(s, np.void) and s.dtype == st.STATE_DTYPE:
        return s
    raise TypeError(f"state_to_dict expects a STATE_DTYPE record, got {type(s).__name__}")


def _name(names, value, field):
    if not 0 <= value < len(names):
        raise ValueError(f"state field {field} = {value} has no name "
                         f"(valid 0..{len(names) - 1})")
    return names[value]


def _flag(value, field) -> bool:
    if value not in (0, 1):
        raise ValueError(f"state field {field} = {value} is not 0 or 1")
    return bool(value)


def _seat_or_none(value, n, field):
    if value == -1:
        return None
    if not 0 <= value < n:
        raise ValueError(f"state field {field} = {value} is not a seat of a {n}-player game")
    return f"p{value}"


def _counts_out(row, keys) -> dict:
    return {k: c for k, c in zip(keys, row) if c != 0}


def _cards_out(ids, field) -> list:
    for t in ids:
        if not 0 <= t < NUM_CARD_TYPES:
            _name(CARD_KEYS, t, field)
    return [CARD_KEYS[t] for t in ids]


def _parcel_out(v, g, prefix) -> dict:
    return {"gold": v[f"{prefix}_gold"][g],
            "warehouse": _counts_out(v[f"{prefix}_wh"][g], GOODS_KEYS),
            "crate": _counts_out(v[f"{prefix}_crate"][g], GOODS_KEYS),
            "promise": _flag(v[f"{prefix}_promise"][g], f"{prefix}_promise[{g}]")}


def _negotiation_is_blank(r) -> bool:
    return int(r["cur"]) == -1 and all(not np.any(r[f]) for f in _NEGOTIATION_FIELDS if f != "cur")


def _negotiation_out(r, v, n) -> dict | None:
    if _negotiation_is_blank(r):
        return None
    badges = []
    for g in range(2):
        lock = v["offer_lock"][g]
        if lock & ~(st.LOCK_GOLD | st.LOCK_WITHDRAWN):
            raise ValueError(f"state field offer_lock[{g}] = {lock} has unknown bits")
        badges.append({
            "badge": BADGES[g],
            "status": _name(INSPECTOR_STATUS_NAMES, v["g_status"][g], f"g_status[{g}]"),
            "offer": _parcel_out(v, g, "offer"),
            "offer_lock": {"gold_set": bool(lock & st.LOCK_GOLD),
                           "withdrawn": bool(lock & st.LOCK_WITHDRAWN)},
            "demand": v["demand"][g],
            "deal": _parcel_out(v, g, "deal"),
            "deal_order": v["deal_seq"][g],
        })
    bounties = []
    for x in range(n):
        for g in range(2):
            gold, wh, on = v["bounty_gold"][x][g], v["bounty_wh"][x][g], v["bounty_on"][x][g]
            if gold or any(wh) or on:
                bounties.append({"from": f"p{x}", "to": BADGES[g], "gold": gold,
                                 "warehouse": _counts_out(wh, GOODS_KEYS),
                                 "accepted": _flag(on, f"bounty_on[{x}, {g}]")})
    gifts = [f"p{x}" for x in range(n) if _flag(v["gift_lock"][x], f"gift_lock[{x}]")]
    fb = v["fb_hidden"]
    lawyer = v["lawyer_to"]
    return {
        "crate_of": _seat_or_none(v["cur"], n, "cur"),
        "exchange": v["exchange"],
        "inspectors": badges,
        "bounties": bounties,
        "gold_gifts_made_by": gifts,
        "outcome": _name(OUTCOME_NAMES, v["outcome"], "outcome"),
        "truthful": _flag(v["truthful"], "truthful"),
        "fine": v["fine"],
        "false_bottom_card": None if fb == -1 else _name(GOODS_KEYS, fb, "fb_hidden"),
        "lawyer_to": None if lawyer == -1 else _name(BADGES, lawyer, "lawyer_to"),
        "fund_paid": v["fund_paid"],
        "lawyer_pool": {"payer": _seat_or_none(v["pool_payer"], n, "pool_payer"),
                        "cards_left": v["pool_left"],
                        "warehouse": _counts_out(v["pool_wh"], GOODS_KEYS),
                        "crate": _counts_out(v["pool_crate"], GOODS_KEYS)},
    }


def _player_out(v, p) -> dict:
    announced = v["announced"][p]
    return {
        "seat": f"p{p}",
        "gold": v["gold"][p],
        "reserved_gold": v["res_gold"][p],
        "hand": _counts_out(v["hand"][p], CARD_KEYS),
        "hand_waiting": _counts_out(v["hand_later"][p], ACTION_KEYS),
        "crate": _counts_out(v["crate"][p], GOODS_KEYS),
        "crate_count": v["crate_size"][p],
        "crate_status": _name(CRATE_STATUS_NAMES, v["crate_status"][p], f"crate_status[{p}]"),
        "announced": None if announced == -1 else _name(LEGAL_KEYS, announced,
                                                        f"announced[{p}]"),
        "warehouse_face_up": _counts_out(v["wh_up"][p], GOODS_KEYS),
        "warehouse_face_down": _counts_out(v["wh_down"][p], GOODS_KEYS),
        "reserved_warehouse": _counts_out(v["res_wh"][p], GOODS_KEYS),
        "main_resources": [MAIN_NAMES[m] for m in range(NUM_MAIN)
                           if _flag(v["main_held"][p][m], f"main_held[{p}, {m}]")],
        "collected_this_round": _flag(v["collected"][p], f"collected[{p}]"),
    }


@functools.lru_cache(maxsize=64)
def _config_of(cfg: tuple[int, ...], menu: tuple[int, ...]) -> GameConfig:
    """The rules packed in a state's ``cfg`` and ``menu`` fields (a few per process: kept);
    ``ValueError`` if they are not the packing of a :class:`GameConfig`."""
    try:
        config = GameConfig.unpack(np.array(cfg), np.array(menu))
    except ValueError as err:
        raise ValueError(f"state fields cfg/menu are not the packing of a GameConfig: "
                         f"{err}") from None
    packed, packed_menu = config.pack()
    if packed.tolist() != list(cfg) or packed_menu.tolist() != list(menu):
        raise ValueError("state fields cfg/menu are not the packing of a GameConfig")
    return config


@functools.lru_cache(maxsize=8)
def _unused_seats(n: int) -> dict[str, list]:
    """What each per-seat field holds in the rows of seats ``n`` and up (seats an ``n``-player
    game does not have), as lists."""
    return {f: np.full(st.STATE_DTYPE[f].shape, default)[n:].tolist()
            for f, default in _SEAT_FIELDS.items()}


def state_to_dict(s) -> dict:
    """The state ``s`` (a STATE_DTYPE record or one-element array) as a JSON-ready dict.

    The layout is described in the module docstring. Raises ``ValueError`` for a state that
    the layout cannot express (a value outside its field's range, data in the rows of seats
    beyond the player count); states produced by the engine are always expressible.
    """
    r = _record(s)
    v = {f: r[f].tolist() for f in st.STATE_DTYPE.names}  # plain Python ints from here on
    config = _config_of(tuple(v["cfg"]), tuple(v["menu"]))
    n = config.num_players
    for f, unused in _unused_seats(n).items():
        if v[f][n:] != unused:
            raise ValueError(f"state field {f} has data for seats >= {n} (the player count)")
    draw_len = v["draw_len"]
    if not 0 <= draw_len <= MAX_DECK:
        raise ValueError(f"state field draw_len = {draw_len} is outside 0..{MAX_DECK}")
    drawn = np.flatnonzero(r["draw"][draw_len:])  # the cards drawn, up to the last nonzero
    tail = v["draw"][draw_len:draw_len + (int(drawn[-1]) + 1 if drawn.size else 0)]
    return {
        "format": FORMAT,
        "config": config.to_dict(),
        "round": v["round"],
        "phase": _name(st.PHASE_NAMES, v["phase"], "phase"),
        "to_move": _seat_or_none(v["turn"], n, "turn"),
        "steps": v["steps"],
        "inspectors": {"A": _seat_or_none(v["insp"][0], n, "insp[0]"),
                       "B": _seat_or_none(v["insp"][1], n, "insp[1]")},
        "round_order": [_seat_or_none(v["order"][i], n, f"order[{i}]") for i in range(n)],
        "position": {"index": v["pos"], "window_passes": v["window_passes"],
                     "market_discards": v["count"]},
        "end_of_game": {"runouts": v["runouts"],
                        "trigger_round": v["trigger_round"] or None,
                        "end_round": v["end_round"] or None,
                        "reason": _name(END_REASON_NAMES, v["end_reason"], "end_reason")},
        "draw_pile": _cards_out(v["draw"][:draw_len], "draw"),
        "drawn_from_pile": _cards_out(tail, "draw"),
        "discard_pile": _counts_out(v["discard"], CARD_KEYS),
        "main_resources_in_middle": [MAIN_NAMES[m] for m in range(NUM_MAIN)
                                     if _flag(v["main_middle"][m], f"main_middle[{m}]")],
        "players": [_player_out(v, p) for p in range(n)],
        "negotiation": _negotiation_out(r, v, n),
        "rng": [str(w) for w in v["rng"]],
        "bank": {"paid_in": v["bank_in"], "paid_out": v["bank_out"]},
        "stats": {"crates_opened": v["n_opened"], "crates_passed": v["n_passed"]},
        "history": _history_out(v, n),
        "knowledge": _knowledge_out(v, n),
        "truth": [dict(zip(TRUTH_KEYS, v["truth"][p])) for p in range(n)],
    }


def _history_out(v, n) -> dict:
    return {
        "counters": [dict(zip(HISTORY_KEYS, v["hist"][p])) for p in range(n)],
        "promises": [{"from": f"p{p}", "to": f"p{q}", "count": v["promised"][p][q]}
                     for p in range(n) for q in range(n) if v["promised"][p][q]],
        "seen_this_round": [{"seat": f"p{p}", "cards": _counts_out(v["seen"][p], GOODS_KEYS),
                             "hidden": v["seen_hidden"][p]}
                            for p in range(n) if any(v["seen"][p]) or v["seen_hidden"][p]],
    }


def _knowledge_out(v, n) -> dict:
    thief = v["raid_thief"]
    raid = None
    if thief != -1:
        taken = {}
        for p in range(n):
            t = v["raid_taken"][p]
            if p != thief:
                taken[f"p{p}"] = None if t == -1 else _name(CARD_KEYS, t, f"raid_taken[{p}]")
        raid = {"thief": _seat_or_none(thief, n, "raid_thief"), "taken": taken}
    return {
        "hand": [{"viewer": f"p{a}", "holder": f"p{b}",
                  "cards": _counts_out(v["know_hand"][a][b], CARD_KEYS)}
                 for a in range(n) for b in range(n) if any(v["know_hand"][a][b])],
        "face_down": [{"viewer": f"p{a}", "owner": f"p{b}",
                       "cards": _counts_out(v["know_down"][a][b], GOODS_KEYS)}
                      for a in range(n) for b in range(n) if any(v["know_down"][a][b])],
        "night_raid": raid,
    }


# =================================================================================================
# dict -> state
# =================================================================================================
def _fail(path: str, problem: str):
    raise ValueError(f"bad state dict at {path}: {problem}")


def _obj(v, path, keys) -> dict:
    if not isinstance(v, dict):
        _fail(path, f"expected an object (dict), got {type(v).__name__}")
    bad = [k for k in v if not isinstance(k, str)]
    if bad:
        _fail(path, f"keys must be strings, got {bad!r}")
    unknown = [k for k in v if k not in keys]
    if unknown:
        _fail(path, f"unknown key(s) {unknown}; expected keys: {list(keys)}")
    missing = [k for k in keys if k not in v]
    if missing:
        _fail(path, f"missing key(s) {missing}")
    return v


def _int(v, path, lo=0, hi=_I32) -> int:
    if not is_int(v):
        _fail(path, f"expected an int, got {type(v).__name__} {_shown(v)}")
    v = int(v)
    if not lo <= v <= hi:
        if lo == 0 and v < 0:
            _fail(path, f"must not be negative, got {_shown(v)}")
        _fail(path, f"must be from {lo} to {hi}, got {_shown(v)}")
    return v


def _opt_int(v, path, lo, hi) -> int:
    """``null`` -> 0, else an int in ``lo..hi``."""
    return 0 if v is None else _int(v, path, lo, hi)


def _bool(v, path) -> bool:
    if not isinstance(v, (bool, np.bool_)):
        _fail(path, f"expected true or false, got {type(v).__name__} {_shown(v)}")
    return bool(v)


def _list(v, path, max_len=None) -> list:
    if not isinstance(v, list):
        _fail(path, f"expected a list, got {type(v).__name__}")
    if max_len is not None and len(v) > max_len:
        _fail(path, f"at most {max_len} entries, got {len(v)}")
    return v


def _choice(v, path, names, what) -> int:
    if not isinstance(v, str) and v is not None:
        _fail(path, f"expected a {what} name (string), got {type(v).__name__} {_shown(v)}")
    if v not in names:
        shown = [x for x in names if x is not None]
        _fail(path, f"unknown {what} {_shown(v)}; expected one of {shown}")
    return names.index(v)


def _card(v, path, keys=CARD_KEYS, what="card") -> int:
    return _choice(v, path, keys, what)


_CARD_INDEX = {k: t for t, k in enumerate(CARD_KEYS)}


def _card_list(names, path) -> list:
    try:
        return [_CARD_INDEX[c] for c in names]
    except (KeyError, TypeError):
        for i, c in enumerate(names):
            _card(c, f"{path}[{i}]")
        raise


_SEAT_RE = re.compile(r"p([0-9])\Z")


def _seat(v, path, n, nullable=False) -> int:
    if v is None and nullable:
        return -1
    m = _SEAT_RE.match(v) if isinstance(v, str) else None
    if m is None:
        _fail(path, f"expected a seat 'p0'..'p{n - 1}'{' or null' if nullable else ''}, "
                    f"got {_shown(v)}")
    p = int(m.group(1))
    if p >= n:
        _fail(path, f"seat {v!r} does not exist in a {n}-player game (seats p0..p{n - 1})")
    return p


def _counts(v, path, keys, what, out, limit=MAX_DECK) -> None:
    """Read a counts object over ``keys`` into the int array row ``out``."""
    if not isinstance(v, dict):
        _fail(path, f"expected an object of {what} counts, got {type(v).__name__}")
    for k, c in v.items():
        if k not in keys:
            if k in CARD_KEYS:
                _fail(f"{path}.{k}", f"{k!r} cannot be here; allowed {what}: {list(keys)}")
            _fail(f"{path}.{k}", f"unknown card {k!r}; allowed {what}: {list(keys)}")
        out[keys.index(k)] = _int(c, f"{path}.{k}", 0, limit)


def _mains(v, path, n, out) -> None:
    for i, name in enumerate(_list(v, path, NUM_MAIN)):
        m = _choice(name, f"{path}[{i}]", MAIN_NAMES, "main resource")
        if out[m]:
            _fail(f"{path}[{i}]", f"main resource {name!r} listed twice")
        if MAIN_MIN_PLAYERS[m] > n:
            _fail(f"{path}[{i}]", f"main resource {name!r} is not used with {n} players")
        out[m] = 1


_CONFIG_KEYS = tuple(f.name for f in fields(GameConfig))


def _config(v, path) -> GameConfig:
    d = _obj(v, path, _CONFIG_KEYS)
    try:
        config = GameConfig(**d)
    except (ValueError, TypeError) as err:
        _fail(path, f"GameConfig rejects it: {err}")
    if max(config.gold_menu) > _I32:
        _fail(f"{path}.gold_menu", f"amounts must fit the state's int32 fields (at most {_I32})")
    return config


def _parcel(v, path, s, g, prefix) -> None:
    d = _obj(v, path, _PARCEL_KEYS)
    s[f"{prefix}_gold"][g] = _int(d["gold"], f"{path}.gold")
    _counts(d["warehouse"], f"{path}.warehouse", GOODS_KEYS, "goods", s[f"{prefix}_wh"][g])
    _counts(d["crate"], f"{path}.crate", GOODS_KEYS, "goods", s[f"{prefix}_crate"][g])
    s[f"{prefix}_promise"][g] = _bool(d["promise"], f"{path}.promise")


def _negotiation(v, path, s, n, ni) -> None:
    if v is None:
        s["cur"] = -1
        return
    d = _obj(v, path, _NEGOTIATION_KEYS)
    s["cur"] = _seat(d["crate_of"], f"{path}.crate_of", n, nullable=True)
    s["exchange"] = _int(d["exchange"], f"{path}.exchange", 0, int(s["cfg"][st.CFG_HAGGLE_ROUNDS]))
    badges = _list(d["inspectors"], f"{path}.inspectors")
    if len(badges) != 2:
        _fail(f"{path}.inspectors", f"expected 2 badge records (A, B), got {len(badges)}")
    for g, b in enumerate(badges):
        bp = f"{path}.inspectors[{g}]"
        b = _obj(b, bp, _BADGE_KEYS)
        if b["badge"] != BADGES[g]:
            _fail(f"{bp}.badge", f"expected {BADGES[g]!r}, got {b['badge']!r}")
        s["g_status"][g] = _choice(b["status"], f"{bp}.status", INSPECTOR_STATUS_NAMES,
                                   "inspector status")
        _parcel(b["offer"], f"{bp}.offer", s, g, "offer")
        lock = _obj(b["offer_lock"], f"{bp}.offer_lock", ("gold_set", "withdrawn"))
        s["offer_lock"][g] = (st.LOCK_GOLD * _bool(lock["gold_set"], f"{bp}.offer_lock.gold_set")
                              + st.LOCK_WITHDRAWN * _bool(lock["withdrawn"],
                                                          f"{bp}.offer_lock.withdrawn"))
        s["demand"][g] = _int(b["demand"], f"{bp}.demand")
        _parcel(b["deal"], f"{bp}.deal", s, g, "deal")
        s["deal_seq"][g] = _int(b["deal_order"], f"{bp}.deal_order", 0, 2)
        if g >= ni:
            busy = (s["offer_gold"][g] or s["offer_wh"][g].any() or s["offer_crate"][g].any()
                    or s["offer_promise"][g] or s["offer_lock"][g] or s["demand"][g]
                    or s["deal_gold"][g] or s["deal_wh"][g].any() or s["deal_crate"][g].any()
                    or s["deal_promise"][g] or s["deal_seq"][g]
                    or s["g_status"][g] not in (st.G_UNDECIDED, st.G_PASSED))
            if busy:
                _fail(bp, f"badge B is not in play with {n} players; its record must be empty "
                          "(status 'undecided' or 'passed')")
    seen = set()
    for i, b in enumerate(_list(d["bounties"], f"{path}.bounties", n * 2)):
        bp = f"{path}.bounties[{i}]"
        b = _obj(b, bp, _BOUNTY_KEYS)
        x = _seat(b["from"], f"{bp}.from", n)
        g = _choice(b["to"], f"{bp}.to", BADGES, "badge")
        if g >= ni:
            _fail(f"{bp}.to", f"badge B is not in play with {n} players")
        if (x, g) in seen:
            _fail(bp, f"a second bounty from {b['from']} to {b['to']}")
        seen.add((x, g))
        s["bounty_gold"][x, g] = _int(b["gold"], f"{bp}.gold")
        _counts(b["warehouse"], f"{bp}.warehouse", GOODS_KEYS, "goods", s["bounty_wh"][x, g])
        s["bounty_on"][x, g] = _bool(b["accepted"], f"{bp}.accepted")
    for i, x in enumerate(_list(d["gold_gifts_made_by"], f"{path}.gold_gifts_made_by", n)):
        p = _seat(x, f"{path}.gold_gifts_made_by[{i}]", n)
        if s["gift_lock"][p]:
            _fail(f"{path}.gold_gifts_made_by[{i}]", f"seat {x} listed twice")
        s["gift_lock"][p] = 1
    s["outcome"] = _choice(d["outcome"], f"{path}.outcome", OUTCOME_NAMES, "outcome")
    s["truthful"] = _bool(d["truthful"], f"{path}.truthful")
    s["fine"] = _int(d["fine"], f"{path}.fine")
    fb = d["false_bottom_card"]
    s["fb_hidden"] = -1 if fb is None else _card(fb, f"{path}.false_bottom_card", GOODS_KEYS,
                                                  "goods card")
    lw = d["lawyer_to"]
    s["lawyer_to"] = -1 if lw is None else _choice(lw, f"{path}.lawyer_to", BADGES, "badge")
    if s["lawyer_to"] >= ni:
        _fail(f"{path}.lawyer_to", f"badge B is not in play with {n} players")
    s["fund_paid"] = _int(d["fund_paid"], f"{path}.fund_paid")
    pool = _obj(d["lawyer_pool"], f"{path}.lawyer_pool", _POOL_KEYS)
    s["pool_payer"] = _seat(pool["payer"], f"{path}.lawyer_pool.payer", n)
    s["pool_left"] = _int(pool["cards_left"], f"{path}.lawyer_pool.cards_left")
    _counts(pool["warehouse"], f"{path}.lawyer_pool.warehouse", GOODS_KEYS, "goods", s["pool_wh"])
    _counts(pool["crate"], f"{path}.lawyer_pool.crate", GOODS_KEYS, "goods", s["pool_crate"])


def _player(v, path, s, p, n) -> None:
    d = _obj(v, path, _PLAYER_KEYS)
    if d["seat"] != f"p{p}":
        _fail(f"{path}.seat", f"record {p} must be seat 'p{p}', got {d['seat']!r}")
    s["gold"][p] = _int(d["gold"], f"{path}.gold")
    s["res_gold"][p] = _int(d["reserved_gold"], f"{path}.reserved_gold")
    _counts(d["hand"], f"{path}.hand", CARD_KEYS, "cards", s["hand"][p])
    _counts(d["hand_waiting"], f"{path}.hand_waiting", ACTION_KEYS, "action cards",
            s["hand_later"][p])
    _counts(d["crate"], f"{path}.crate", GOODS_KEYS, "goods", s["crate"][p])
    s["crate_size"][p] = _int(d["crate_count"], f"{path}.crate_count", 0, MAX_CRATE)
    s["crate_status"][p] = _choice(d["crate_status"], f"{path}.crate_status",
                                   CRATE_STATUS_NAMES, "crate status")
    a = d["announced"]
    s["announced"][p] = -1 if a is None else _card(a, f"{path}.announced", LEGAL_KEYS,
                                                   "legal card")
    _counts(d["warehouse_face_up"], f"{path}.warehouse_face_up", LEGAL_KEYS,
            "legal goods (only legal goods lie face up)", s["wh_up"][p])
    _counts(d["warehouse_face_down"], f"{path}.warehouse_face_down", GOODS_KEYS, "goods",
            s["wh_down"][p])
    _counts(d["reserved_warehouse"], f"{path}.reserved_warehouse", GOODS_KEYS, "goods",
            s["res_wh"][p])
    _mains(d["main_resources"], f"{path}.main_resources", n, s["main_held"][p])
    s["collected"][p] = _bool(d["collected_this_round"], f"{path}.collected_this_round")


def _history_in(v, path, s, n) -> None:
    if v is None:  # an old format: nothing recorded
        return
    d = _obj(v, path, ("counters", "promises", "seen_this_round"))
    counters = _list(d["counters"], f"{path}.counters")
    if len(counters) != n:
        _fail(f"{path}.counters", f"expected {n} objects (one per seat), got {len(counters)}")
    for p, c in enumerate(counters):
        c = _obj(c, f"{path}.counters[{p}]", HISTORY_KEYS)
        for h, key in enumerate(HISTORY_KEYS):
            s["hist"][p, h] = _int(c[key], f"{path}.counters[{p}].{key}", 0, HISTORY_MAX)
    for i, e in enumerate(_list(d["promises"], f"{path}.promises", n * n)):
        ep = f"{path}.promises[{i}]"
        e = _obj(e, ep, ("from", "to", "count"))
        a, b = _seat(e["from"], f"{ep}.from", n), _seat(e["to"], f"{ep}.to", n)
        if a == b or s["promised"][a, b]:
            _fail(ep, "a promise to oneself, or a second entry for the same pair")
        s["promised"][a, b] = _int(e["count"], f"{ep}.count", 1, 127)
    for i, e in enumerate(_list(d["seen_this_round"], f"{path}.seen_this_round", n)):
        ep = f"{path}.seen_this_round[{i}]"
        e = _obj(e, ep, ("seat", "cards", "hidden"))
        p = _seat(e["seat"], f"{ep}.seat", n)
        _counts(e["cards"], f"{ep}.cards", GOODS_KEYS, "goods", s["seen"][p], MAX_CRATE)
        s["seen_hidden"][p] = _int(e["hidden"], f"{ep}.hidden", 0, MAX_CRATE)
        if int(s["seen"][p].sum()) + int(s["seen_hidden"][p]) > MAX_CRATE:
            _fail(ep, f"a crate holds at most {MAX_CRATE} cards")


def _truth_in(v, path, s, n) -> None:
    if v is None:  # an old format: nothing counted
        return
    counters = _list(v, path)
    if len(counters) != n:
        _fail(path, f"expected {n} objects (one per seat), got {len(counters)}")
    for p, c in enumerate(counters):
        c = _obj(c, f"{path}[{p}]", TRUTH_KEYS)
        for k, key in enumerate(TRUTH_KEYS):
            s["truth"][p, k] = _int(c[key], f"{path}[{p}].{key}", 0, HISTORY_MAX)


def _knowledge_in(v, path, s, n) -> None:
    s["raid_thief"] = -1
    s["raid_taken"][:n] = -1
    if v is None:  # an old format: nothing known
        return
    d = _obj(v, path, ("hand", "face_down", "night_raid"))
    for key, other, field, keys in (("hand", "holder", "know_hand", CARD_KEYS),
                                    ("face_down", "owner", "know_down", GOODS_KEYS)):
        for i, e in enumerate(_list(d[key], f"{path}.{key}", n * n)):
            ep = f"{path}.{key}[{i}]"
            e = _obj(e, ep, ("viewer", other, "cards"))
            a, b = _seat(e["viewer"], f"{ep}.viewer", n), _seat(e[other], f"{ep}.{other}", n)
            if a == b or s[field][a, b].any():
                _fail(ep, "knowledge of oneself, or a second entry for the same pair")
            _counts(e["cards"], f"{ep}.cards", keys, "cards", s[field][a, b], 127)
    raid = d["night_raid"]
    if raid is not None:
        raid = _obj(raid, f"{path}.night_raid", ("thief", "taken"))
        thief = _seat(raid["thief"], f"{path}.night_raid.thief", n)
        s["raid_thief"] = thief
        taken = _obj(raid["taken"], f"{path}.night_raid.taken",
                     tuple(f"p{p}" for p in range(n) if p != thief))
        for key, t in taken.items():
            s["raid_taken"][int(key[1:])] = -1 if t is None else _card(
                t, f"{path}.night_raid.taken.{key}")


def _rng_word(v, path) -> int:
    if isinstance(v, str):
        if not v.isascii() or not v.isdigit():
            _fail(path, f"expected a decimal string or an int, got {_shown(v)}")
        if len(v) > len(str(_U64)):  # (before int(), which refuses over 4300 digits)
            _fail(path, f"must be from 0 to 2**64 - 1, got a decimal string of {len(v)} digits")
        v = int(v)
    elif not is_int(v):
        _fail(path, f"expected a decimal string or an int, got {type(v).__name__} {_shown(v)}")
    v = int(v)
    if not 0 <= v < _U64:
        _fail(path, f"must be from 0 to 2**64 - 1, got {_shown(v)}")
    return v


def state_from_dict(d: dict, reachable: bool = True) -> np.ndarray:
    """Rebuild the one-element STATE_DTYPE array described by ``d`` (see the module docstring).

    With ``reachable`` false, ``d`` may be a position that no game reaches (a research
    position): the records of the past are rebased to fit it (:mod:`.rebase`) and the bounds
    that only a past explains count against the whole game (:mod:`.validate`); every check the
    kernels rely on is made as with ``reachable`` true.

    Raises:
        ValueError: ``d`` is malformed or describes an inconsistent state; the message names
            the path of the offending entry and the problem.
        TypeError: ``reachable`` is not a bool.
    """
    if not isinstance(reachable, bool):
        raise TypeError(f"reachable must be a bool, got {reachable!r}")
    if isinstance(d, dict) and d.get("format") == OLD_FORMATS[0]:
        d = {**d, "format": FORMAT, "history": None, "knowledge": None}  # nothing recorded yet
    if isinstance(d, dict) and d.get("format") in OLD_FORMATS:
        d = {**d, "format": FORMAT, "truth": None}  # no truth counted yet
    d = _obj(d, "<top>", _TOP_KEYS)
    if d["format"] != FORMAT:
        _fail("format", f"expected {FORMAT!r} (or one of {list(OLD_FORMATS)}), "
                        f"got {_shown(d['format'])}")
    config = _config(d["config"], "config")
    n = config.num_players
    ni = config.num_inspectors
    states = np.zeros(1, dtype=st.STATE_DTYPE)
    s = states[0]
    s["cfg"], s["menu"] = config.pack()
    s["announced"][:] = -1
    s["round"] = _int(d["round"], "round", 1)
    s["phase"] = _choice(d["phase"], "phase", st.PHASE_NAMES, "phase")
    s["turn"] = _seat(d["to_move"], "to_move", n, nullable=True)
    s["steps"] = _int(d["steps"], "steps", 0, _I64)

    insp = _obj(d["inspectors"], "inspectors", BADGES)
    s["insp"][0] = _seat(insp["A"], "inspectors.A", n)
    s["insp"][1] = _seat(insp["B"], "inspectors.B", n, nullable=True)
    if ni == 1 and s["insp"][1] != -1:
        _fail("inspectors.B", f"must be null: a {n}-player game has one inspector")
    if ni == 2 and s["insp"][1] == -1:
        _fail("inspectors.B", f"must be a seat: a {n}-player game has two inspectors")
    if s["insp"][0] == s["insp"][1]:
        _fail("inspectors", "A and B are the same seat")

    order = _list(d["round_order"], "round_order")
    if len(order) != n:
        _fail("round_order", f"expected all {n} seats, got {len(order)} entries")
    for i, x in enumerate(order):
        s["order"][i] = _seat(x, f"round_order[{i}]", n)
    if sorted(s["order"][:n].tolist()) != list(range(n)):
        _fail("round_order", "must list every seat exactly once")

    pos = _obj(d["position"], "position", ("index", "window_passes", "market_discards"))
    s["pos"] = _int(pos["index"], "position.index", 0, n)
    s["window_passes"] = _int(pos["window_passes"], "position.window_passes", 0, n)
    s["count"] = _int(pos["market_discards"], "position.market_discards", 0, MAX_MARKET_DISCARDS)

    end = _obj(d["end_of_game"], "end_of_game", ("runouts", "trigger_round", "end_round",
                                                 "reason"))
    s["runouts"] = _int(end["runouts"], "end_of_game.runouts")
    s["trigger_round"] = _opt_int(end["trigger_round"], "end_of_game.trigger_round", 1, _I32)
    s["end_round"] = _opt_int(end["end_round"], "end_of_game.end_round", 1, _I32)
    s["end_reason"] = _choice(end["reason"], "end_of_game.reason", END_REASON_NAMES,
                              "end-of-game reason")

    pile = _list(d["draw_pile"], "draw_pile")
    drawn = _list(d["drawn_from_pile"], "drawn_from_pile")
    if len(pile) > MAX_DECK:
        _fail("draw_pile", f"{len(pile)} cards, more than any deck ({MAX_DECK})")
    if len(pile) + len(drawn) > MAX_DECK:
        _fail("drawn_from_pile", f"draw_pile and drawn_from_pile together exceed {MAX_DECK} slots")
    s["draw"][: len(pile)] = _card_list(pile, "draw_pile")
    s["draw"][len(pile): len(pile) + len(drawn)] = _card_list(drawn, "drawn_from_pile")
    s["draw_len"] = len(pile)
    _counts(d["discard_pile"], "discard_pile", CARD_KEYS, "cards", s["discard"])
    _mains(d["main_resources_in_middle"], "main_resources_in_middle", n, s["main_middle"])

    players = _list(d["players"], "players")
    if len(players) != n:
        _fail("players", f"expected {n} player records (config.num_players), got {len(players)}")
    for p, rec in enumerate(players):
        _player(rec, f"players[{p}]", s, p, n)

    _negotiation(d["negotiation"], "negotiation", s, n, ni)

    rng = _list(d["rng"], "rng")
    if len(rng) != 2:
        _fail("rng", f"expected 2 words, got {len(rng)}")
    words = [_rng_word(w, f"rng[{i}]") for i, w in enumerate(rng)]
    if words == [0, 0]:
        _fail("rng", "both words are 0 (a dead xorshift128+ generator)")
    s["rng"] = np.array(words, dtype=np.uint64)

    bank = _obj(d["bank"], "bank", ("paid_in", "paid_out"))
    s["bank_in"] = _int(bank["paid_in"], "bank.paid_in", 0, _I64)
    s["bank_out"] = _int(bank["paid_out"], "bank.paid_out", 0, _I64)
    stats = _obj(d["stats"], "stats", ("crates_opened", "crates_passed"))
    s["n_opened"] = _int(stats["crates_opened"], "stats.crates_opened")
    s["n_passed"] = _int(stats["crates_passed"], "stats.crates_passed")
    _history_in(d["history"], "history", s, n)
    _knowledge_in(d["knowledge"], "knowledge", s, n)
    _truth_in(d["truth"], "truth", s, n)

    if not reachable:
        rebase(states)
    bad = problems(states, config, reachable)
    if bad:
        raise ValueError("bad state dict: inconsistent state: " + "; ".join(bad))
    return states


def check_state(states) -> None:
    """Raise ``ValueError`` unless ``states``, a one-element STATE_DTYPE array, is a state the
    engine can play: exactly the checks of :func:`state_from_dict`, run on the state's own
    dict (:func:`state_to_dict`), so the message names the field by its path in that dict
    (``players[0].hand.sugar``) or, for a value the dict cannot express, by the state field
    (``state field turn = 50 ...``). What :meth:`borders_sim.Game.refresh` and
    :meth:`~borders_sim.Game.from_state` run.
    """
    if not isinstance(states, np.ndarray):
        raise ArgumentTypeError(f"a state is a one-element array of STATE_DTYPE, got "
                                f"{type(states).__name__}")
    if states.dtype != st.STATE_DTYPE or states.shape != (1,):
        dtype = "STATE_DTYPE" if states.dtype == st.STATE_DTYPE else (
            str(states.dtype) if len(str(states.dtype)) <= 40 else "another record dtype")
        raise ArgumentTypeError(f"a state is a one-element array of STATE_DTYPE, got an array "
                                f"of {dtype} and shape {states.shape}")
    try:
        again = state_from_dict(state_to_dict(states))
    except ValueError as err:
        raise ValueError(f"not a state the engine can play: {err}") from None
    kept = [f for f in st.STATE_DTYPE.names if not np.array_equal(again[0][f], states[0][f])]
    if kept:
        raise ValueError(f"not a state the engine can play: the state fields {kept} hold "
                         "values the dict layout does not express")
