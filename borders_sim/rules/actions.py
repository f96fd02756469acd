"""The flat action space: one id range per kind of decision (RULINGS P-0.1).

The space is the same for every configuration, so batches of games with different player counts
or gold menus share it; ids that a configuration cannot use (seat 6 in a 4-player game, menu
entry 15 of a 14-entry menu, the bounty and gift ranges with those flags off) are never legal.
Seat-indexed ranges have :data:`~borders_sim.rules.state.MAX_PLAYERS` ids; gold ranges have
:data:`~borders_sim.rules.state.MENU_MAX` ids, id ``k`` meaning the k-th menu amount (P-0.5);
inspector-indexed ranges have 2 ids, A then B.

| ids | name | phase | meaning |
|---|---|---|---|
| 0 | raid | action window (P-1) | play Night Raid |
| 1-8 | rob | action window (P-1) | play Robbery on a seat |
| 9 | window_pass | action window (P-1) | pass |
| 10-29 | discard | market (P-2), raid discard (R-21) | discard a card of a type |
| 30 | end_market | market (P-2) | end the market turn and draw to 6 |
| 31-44 | pack | pack (P-3) | put a goods card of a type into the crate |
| 45 | close | pack (P-3) | close the crate |
| 46-49 | announce | announce (P-4) | announce a legal type |
| 50-57 | inspect | choose crate (P-5.1) | inspect the crate of a seat |
| 58-89 | bounty_gold | bounty (P-5.2) | offer gold to inspector A/B to open |
| 90-117 | bounty_card | bounty (P-5.2) | add a warehouse card to the bounty for A/B |
| 118-245 | gift_gold | bounty (R-06c) | give gold to a smuggler |
| 246-357 | gift_card | bounty (R-06c) | give a warehouse card to a smuggler |
| 358 | bounty_done | bounty (P-5.2) | no more bounties |
| 359-390 | offer_gold | offer (P-5.3a) | set the gold offered to A/B |
| 391-418 | offer_warehouse | offer (P-5.3a) | add a warehouse card to the offer |
| 419-446 | offer_crate | offer (P-5.3a) | add a crate card to the offer |
| 447-448 | promise | offer (P-5.3a) | promise a future pass to A/B |
| 449-450 | withdraw | offer (P-5.3a) | withdraw the offer to A/B |
| 451 | offer_done | offer (P-5.3a) | end the offer turn |
| 452 | accept | respond (P-5.3b) | accept the owner's offer |
| 453-468 | demand | respond (P-5.3b) | demand gold |
| 469 | open | respond (P-5.3b) | open the crate |
| 470 | pass | respond (P-5.3b) | let the crate pass, no deal |
| 471 | wait | respond (P-5.3b) | wait for the next exchange |
| 472 | accept_demand | answer demand (P-5.3c) | accept the inspector's demand |
| 473 | refuse_demand | answer demand (P-5.3c) | refuse the inspector's demand |
| 474 | join | join (P-5.4) | join the open |
| 475 | stay_out | join (P-5.4) | stay out |
| 476 | play_route | react (P-5.4) | play Secret Route |
| 477 | play_bottom | react (P-5.4) | play False Bottom |
| 478 | no_reaction | react (P-5.4) | play no card |
| 479-480 | lawyer | lawyer (P-5.5) | play the Lawyer, half to A/B |
| 481 | no_lawyer | lawyer (P-5.5) | pay in full |
| 482 | fund | fund (P-5.5) | play the Syndicate Fund |
| 483 | no_fund | fund (P-5.5) | no Fund |
| 484-495 | collect | collect (P-6) | collect a main resource |
| 496 | skip_collect | collect (P-6) | collect nothing |
| 497-510 | hand_over | lawyer goods (R-17d) | hand over a card of a type |
| 511 | keep_deal | keep or open (P-5.3(b')) | keep the held deal, do not open |
| 512 | open_and_void | keep or open (P-5.3(b')) | open the crate, voiding the held deal |

The table of ranges is :data:`RANGES` (``borders-sim actions`` prints it); ``A_<NAME>`` is the
first id of each range and :data:`NUM_ACTIONS` the size of the space.
"""

from __future__ import annotations

import numpy as np

from typing import Any

from . import state as st
from ..checks import is_int, shown
from .cards import CARD_KEYS, MAIN_NAMES, NUM_CARD_TYPES, NUM_GOODS, NUM_LEGAL, NUM_MAIN
from .state import MAX_PLAYERS, MENU_MAX

#: (name, size, phase where it is used, meaning): the one definition of the action space.
RANGES = (
    ("raid", 1, "action window (P-1)", "play Night Raid"),
    ("rob", MAX_PLAYERS, "action window (P-1)", "play Robbery on a seat"),
    ("window_pass", 1, "action window (P-1)", "pass"),
    ("discard", NUM_CARD_TYPES, "market (P-2), raid discard (R-21)", "discard a card of a type"),
    ("end_market", 1, "market (P-2)", "end the market turn and draw to 6"),
    ("pack", NUM_GOODS, "pack (P-3)", "put a goods card of a type into the crate"),
    ("close", 1, "pack (P-3)", "close the crate"),
    ("announce", NUM_LEGAL, "announce (P-4)", "announce a legal type"),
    ("inspect", MAX_PLAYERS, "choose crate (P-5.1)", "inspect the crate of a seat"),
    ("bounty_gold", 2 * MENU_MAX, "bounty (P-5.2)", "offer gold to inspector A/B to open"),
    ("bounty_card", 2 * NUM_GOODS, "bounty (P-5.2)", "add a warehouse card to the bounty for A/B"),
    ("gift_gold", MAX_PLAYERS * MENU_MAX, "bounty (R-06c)", "give gold to a smuggler"),
    ("gift_card", MAX_PLAYERS * NUM_GOODS, "bounty (R-06c)", "give a warehouse card to a smuggler"),
    ("bounty_done", 1, "bounty (P-5.2)", "no more bounties"),
    ("offer_gold", 2 * MENU_MAX, "offer (P-5.3a)", "set the gold offered to A/B"),
    ("offer_warehouse", 2 * NUM_GOODS, "offer (P-5.3a)", "add a warehouse card to the offer"),
    ("offer_crate", 2 * NUM_GOODS, "offer (P-5.3a)", "add a crate card to the offer"),
    ("promise", 2, "offer (P-5.3a)", "promise a future pass to A/B"),
    ("withdraw", 2, "offer (P-5.3a)", "withdraw the offer to A/B"),
    ("offer_done", 1, "offer (P-5.3a)", "end the offer turn"),
    ("accept", 1, "respond (P-5.3b)", "accept the owner's offer"),
    ("demand", MENU_MAX, "respond (P-5.3b)", "demand gold"),
    ("open", 1, "respond (P-5.3b)", "open the crate"),
    ("pass", 1, "respond (P-5.3b)", "let the crate pass, no deal"),
    ("wait", 1, "respond (P-5.3b)", "wait for the next exchange"),
    ("accept_demand", 1, "answer demand (P-5.3c)", "accept the inspector's demand"),
    ("refuse_demand", 1, "answer demand (P-5.3c)", "refuse the inspector's demand"),
    ("join", 1, "join (P-5.4)", "join the open"),
    ("stay_out", 1, "join (P-5.4)", "stay out"),
    ("play_route", 1, "react (P-5.4)", "play Secret Route"),
    ("play_bottom", 1, "react (P-5.4)", "play False Bottom"),
    ("no_reaction", 1, "react (P-5.4)", "play no card"),
    ("lawyer", 2, "lawyer (P-5.5)", "play the Lawyer, half to A/B"),
    ("no_lawyer", 1, "lawyer (P-5.5)", "pay in full"),
    ("fund", 1, "fund (P-5.5)", "play the Syndicate Fund"),
    ("no_fund", 1, "fund (P-5.5)", "no Fund"),
    ("collect", NUM_MAIN, "collect (P-6)", "collect a main resource"),
    ("skip_collect", 1, "collect (P-6)", "collect nothing"),
    ("hand_over", NUM_GOODS, "lawyer goods (R-17d)", "hand over a card of a type"),
    ("keep_deal", 1, "keep or open (P-5.3(b'))", "keep the held deal, do not open"),
    ("open_and_void", 1, "keep or open (P-5.3(b'))", "open the crate, voiding the held deal"),
)

_starts = {}
_next = 0
for _name, _size, _phase, _meaning in RANGES:
    _starts[_name] = _next
    _next += _size
NUM_ACTIONS = _next

A_RAID = _starts["raid"]
A_ROB = _starts["rob"]
A_WINDOW_PASS = _starts["window_pass"]
A_DISCARD = _starts["discard"]
A_END_MARKET = _starts["end_market"]
A_PACK = _starts["pack"]
A_CLOSE = _starts["close"]
A_ANNOUNCE = _starts["announce"]
A_INSPECT = _starts["inspect"]
A_BOUNTY_GOLD = _starts["bounty_gold"]
A_BOUNTY_CARD = _starts["bounty_card"]
A_GIFT_GOLD = _starts["gift_gold"]
A_GIFT_CARD = _starts["gift_card"]
A_BOUNTY_DONE = _starts["bounty_done"]
A_OFFER_GOLD = _starts["offer_gold"]
A_OFFER_WH = _starts["offer_warehouse"]
A_OFFER_CRATE = _starts["offer_crate"]
A_PROMISE = _starts["promise"]
A_WITHDRAW = _starts["withdraw"]
A_OFFER_DONE = _starts["offer_done"]
A_ACCEPT = _starts["accept"]
A_DEMAND = _starts["demand"]
A_OPEN = _starts["open"]
A_PASS = _starts["pass"]
A_WAIT = _starts["wait"]
A_ACCEPT_DEMAND = _starts["accept_demand"]
A_REFUSE_DEMAND = _starts["refuse_demand"]
A_JOIN = _starts["join"]
A_STAY_OUT = _starts["stay_out"]
A_PLAY_ROUTE = _starts["play_route"]
A_PLAY_BOTTOM = _starts["play_bottom"]
A_NO_REACTION = _starts["no_reaction"]
A_LAWYER = _starts["lawyer"]
A_NO_LAWYER = _starts["no_lawyer"]
A_FUND = _starts["fund"]
A_NO_FUND = _starts["no_fund"]
A_COLLECT = _starts["collect"]
A_SKIP_COLLECT = _starts["skip_collect"]
A_HAND_OVER = _starts["hand_over"]
A_KEEP_DEAL = _starts["keep_deal"]
A_OPEN_AND_VOID = _starts["open_and_void"]

#: The ranges each phase's decisions use (P-1 .. P-6); they are contiguous, so a phase's legal
#: ids lie in ``PHASE_LO[phase] <= id < PHASE_HI[phase]`` and kernels scan only that span.
PHASE_RANGES = {
    st.PH_WINDOW: ("raid", "rob", "window_pass"),
    st.PH_RAID_DISCARD: ("discard",),
    st.PH_MARKET: ("rob", "window_pass", "discard", "end_market"),
    st.PH_PACK: ("pack", "close"),
    st.PH_ANNOUNCE: ("announce",),
    st.PH_CHOOSE_CRATE: ("inspect",),
    st.PH_BOUNTY: ("bounty_gold", "bounty_card", "gift_gold", "gift_card", "bounty_done"),
    st.PH_OFFER: ("offer_gold", "offer_warehouse", "offer_crate", "promise", "withdraw",
                  "offer_done"),
    st.PH_RESPOND: ("accept", "demand", "open", "pass", "wait"),
    st.PH_ANSWER_DEMAND: ("accept_demand", "refuse_demand"),
    st.PH_JOIN: ("join", "stay_out"),
    st.PH_REACT: ("play_route", "play_bottom", "no_reaction"),
    st.PH_LAWYER: ("lawyer", "no_lawyer"),
    st.PH_FUND: ("fund", "no_fund"),
    st.PH_BOUNTY_LAWYER: ("lawyer", "no_lawyer"),
    st.PH_COLLECT: ("collect", "skip_collect"),
    st.PH_GAME_OVER: (),
    st.PH_LAWYER_GOODS: ("hand_over",),
    st.PH_KEEP_OR_OPEN: ("keep_deal", "open_and_void"),
}
PHASE_LO = np.zeros(len(st.PHASE_NAMES), dtype=np.int64)
PHASE_HI = np.zeros(len(st.PHASE_NAMES), dtype=np.int64)
_sizes = {name: size for name, size, _phase, _meaning in RANGES}
for _ph, _names in PHASE_RANGES.items():
    if _names:
        PHASE_LO[_ph] = _starts[_names[0]]
        PHASE_HI[_ph] = _starts[_names[-1]] + _sizes[_names[-1]]
        assert PHASE_HI[_ph] - PHASE_LO[_ph] == sum(_sizes[x] for x in _names), _names

_SLOT = ("A", "B")


class IllegalActionError(ValueError):
    """An action that is not one: not an action id or string, or (from
    :meth:`borders_sim.Game.step`) not legal now, the message then naming the action, the
    player and the phase."""


def action_id(action: Any) -> int:
    """``action`` as an action id: an int (Python or numpy, not bool, by
    :mod:`~borders_sim.checks`) from 0 to ``NUM_ACTIONS - 1``; IllegalActionError naming it
    otherwise."""
    if not is_int(action):
        raise IllegalActionError(f"an action id is an int from 0 to {NUM_ACTIONS - 1}, got "
                                 f"{shown(action)} ({type(action).__name__})")
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        raise IllegalActionError(f"action id {shown(a)} is outside the action space "
                                 f"0..{NUM_ACTIONS - 1}")
    return a


#: For each action id: the name of its range and its index in the range.
_RANGE_OF = tuple((name, k) for name, size, _phase, _meaning in RANGES for k in range(size))


def action_to_string(action: int, gold_menu: tuple) -> str:
    """Readable form of an action id, e.g. ``announce coffee``, ``offer gold 5 to A``, ``open``.

    Gold amounts are spelled with the game's ``gold_menu``; an index past the menu's end reads
    ``gold #k``. Seats are ``p0 .. p7``.

    Raises:
        IllegalActionError: ``action`` is not an action id (:func:`action_id`).
    """

    def gold(k: int) -> str:
        return str(gold_menu[k]) if k < len(gold_menu) else f"#{k}"

    name, k = _RANGE_OF[action_id(action)]
    if name in ("discard", "pack", "hand_over"):
        return f"{name.replace('_', ' ')} {CARD_KEYS[k]}"
    if name == "announce":
        return f"announce {CARD_KEYS[k]}"
    if name in ("rob", "inspect"):
        return f"{name} p{k}"
    if name in ("bounty_gold", "offer_gold"):
        return f"{name.split('_')[0]} gold {gold(k % MENU_MAX)} to {_SLOT[k // MENU_MAX]}"
    if name in ("bounty_card", "offer_warehouse", "offer_crate"):
        word = {"bounty_card": "bounty card", "offer_warehouse": "offer warehouse",
                "offer_crate": "offer crate"}[name]
        return f"{word} {CARD_KEYS[k % NUM_GOODS]} to {_SLOT[k // NUM_GOODS]}"
    if name == "gift_gold":
        return f"give gold {gold(k % MENU_MAX)} to p{k // MENU_MAX}"
    if name == "gift_card":
        return f"give card {CARD_KEYS[k % NUM_GOODS]} to p{k // NUM_GOODS}"
    if name in ("promise", "withdraw", "lawyer"):
        return f"{name} {'to ' if name == 'lawyer' else ''}{_SLOT[k]}"
    if name == "demand":
        return f"demand {gold(k)}"
    if name == "collect":
        return f"collect {MAIN_NAMES[k]}"
    return name.replace("_", " ")


def string_to_action(text: str, gold_menu: tuple) -> int:
    """Inverse of :func:`action_to_string` (case and spacing do not matter).

    Raises:
        IllegalActionError: ``text`` is not a string, or not the string of an action.
    """
    if not isinstance(text, str):
        raise IllegalActionError(f"an action string is a str, got {shown(text)} "
                                 f"({type(text).__name__})")
    key = " ".join(text.lower().split())
    table = _string_table(tuple(gold_menu))
    if key not in table:
        raise IllegalActionError(f"unknown action string {shown(text)}")
    return table[key]


_tables: dict = {}


def _string_table(gold_menu: tuple) -> dict:
    if gold_menu not in _tables:
        _tables[gold_menu] = {action_to_string(a, gold_menu).lower(): a
                             for a in range(NUM_ACTIONS)}
    return _tables[gold_menu]


def ranges_table() -> str:
    """The action ranges as a text table (for the docs)."""
    rows = ["| ids | name | phase | meaning |", "|---|---|---|---|"]
    for name, size, phase, meaning in RANGES:
        start = _starts[name]
        ids = str(start) if size == 1 else f"{start}-{start + size - 1}"
        rows.append(f"| {ids} | {name} | {phase} | {meaning} |")
    return "\n".join(rows)


def illegal_action_message(action: int, legal: np.ndarray, gold_menu, where: str) -> str:
    """The error of a vector env handed an illegal ``action`` in one of its games: the action
    (or that it is outside the space), ``where`` (the game, its seat and phase) and the legal
    actions of ``legal`` (a mask over at least ``NUM_ACTIONS`` ids), named by
    :func:`action_to_string` with ``gold_menu``."""
    names = [f"{b} {action_to_string(int(b), gold_menu)!r}"
             for b in np.flatnonzero(legal[:NUM_ACTIONS])]
    what = (f"{action} {action_to_string(action, gold_menu)!r}" if 0 <= action < NUM_ACTIONS
            else f"{action} (outside the action space 0..{NUM_ACTIONS - 1})")
    return (f"illegal action {what} in {where}; legal actions: [{', '.join(names)}]; no game "
            "was stepped")
