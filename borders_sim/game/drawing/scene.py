"""What a drawing shows, in one shape for both drawings: the *scene*.

A seat's view and the whole table differ only in which cards are face up, so both become a
scene, and one painter (:mod:`.paint`) draws every scene:

* :func:`from_view` reads the dict of :func:`~borders_sim.game.views.observe_json`, which is
  built from the seat's observation vector alone (R-39). Its hidden cards stay hidden here:
  the viewer's own hand, crate and face-down warehouse cards are face up, every other seat's
  are counts of face-down cards (with what the viewer surely knows of them beside). Nothing
  else is read, so the picture of a seat cannot show more than the seat knows.
* :func:`from_saved` reads the saved-game dict of :meth:`borders_sim.Game.to_dict`
  (:mod:`borders_sim.game.saved.dict_format`): every card face up, for replays and debugging.

The last action is drawn as the viewer saw it (:func:`seen_action`): a seat sees the other
seats' actions in full except the card a smuggler packs, which only the smuggler knows.

Scene keys: ``viewer`` (a seat, ``None`` for the whole table), ``num_players``, ``round``,
``round_in_cycle``, ``cycle_length``, ``last_round`` (``None`` until the end is triggered),
``phase``, ``to_move``, ``inspectors`` (``{badge: seat}`` of the badges in play),
``round_order``, ``draw_pile`` (a count), ``runouts``, ``discard_pile`` (counts),
``main_resources_in_middle``, ``night_raid_by``, ``seats``, ``border_check`` (the crate
under check or last checked this round, ``None`` if none), ``last_action`` (``{"seat", "action"}`` or ``None``), ``scores`` and
``winners`` (at the end of the game, else ``None``). A seat holds ``seat``, ``gold``,
``reserved_gold``, ``hand_size``, ``hand``, ``crate``, ``face_down`` (counts, or ``None`` where
hidden), ``known_hand``, ``known_face_down`` (counts the viewer surely knows of hidden cards),
``crate_status``, ``crate_count`` (``None`` while hidden or empty), ``announced``,
``warehouse_face_up``, ``face_down_count``, ``reserved_warehouse``, ``main_resources``,
``collected_this_round``, ``history``, ``owes_passes_to``, ``seen_this_round``,
``hidden_this_round`` and ``night_raid_took``.
"""

from __future__ import annotations

from ...rules import actions as act
from ...rules.cards import CYCLE_LENGTH

#: Action kinds (:data:`~borders_sim.rules.actions.RANGES`) whose card only the actor sees, and
#: how the other seats see the action: the card packed into a crate is secret (§4.2, R-39).
PRIVATE_ACTIONS = {"pack": "pack a card"}

_KIND_OF = tuple(name for name, size, _phase, _meaning in act.RANGES for _ in range(size))


def seen_action(actor: int, action: int | str, viewer: int | None, gold_menu) -> dict:
    """The action ``action`` (an id or its string) of seat ``actor`` as seat ``viewer`` saw it
    (``None``: the whole table, which sees everything): ``{"seat": "p<actor>", "action": text}``,
    the text of :func:`~borders_sim.rules.actions.action_to_string` unless only the actor may
    know it (:data:`PRIVATE_ACTIONS`).

    Raises:
        IllegalActionError: ``action`` is not an action id or an action's string.
    """
    a = act.string_to_action(action, gold_menu) if isinstance(action, str) \
        else act.action_id(action)
    kind = _KIND_OF[a]
    if viewer is not None and viewer != actor and kind in PRIVATE_ACTIONS:
        return {"seat": f"p{actor}", "action": PRIVATE_ACTIONS[kind]}
    return {"seat": f"p{actor}", "action": act.action_to_string(a, gold_menu)}


def _seat_number(seat: str) -> int:
    return int(seat[1:])


def _last(last_action, viewer: str | None, config: dict) -> dict | None:
    """``last_action`` (``(seat, action)`` or ``None``) as :func:`seen_action` gives it."""
    if last_action is None:
        return None
    actor, action = last_action
    return seen_action(int(actor), action, None if viewer is None else _seat_number(viewer),
                       tuple(config["gold_menu"]))


def _final(scores, winners) -> dict:
    return {"scores": None if scores is None else [int(x) for x in scores],
            "winners": None if winners is None else [f"p{int(p)}" for p in winners]}


def from_view(view: dict, last_action=None, scores=None, winners=None) -> dict:
    """The scene of a seat's view ``view`` (:func:`~borders_sim.game.views.observe_json`).

    Args:
        view: the seat's view.
        last_action: ``(seat, action)`` of the last decision taken (an action id or string),
            shown as the viewer saw it (:func:`seen_action`); ``None``: not shown.
        scores, winners: the final scores (by seat) and the winning seats, once the game is
            over (the warehouses are then turned face up, 9-2); ``None``: not shown.
    """
    own = view["own"]
    seats = []
    for s in view["seats"]:
        mine = s["viewer"]
        count = s["crate_count"] or (sum(own["crate"].values()) if mine else 0)
        seats.append({
            "seat": s["seat"], "gold": s["gold"], "reserved_gold": s["reserved_gold"],
            "hand_size": s["hand_size"],
            "hand": own["hand"] if mine else None,
            "crate": own["crate"] if mine else None,
            "face_down": own["warehouse_face_down"] if mine else None,
            "known_hand": {} if mine else s["known_hand"],
            "known_face_down": {} if mine else s["known_face_down"],
            "crate_status": s["crate_status"],
            "crate_count": count or None,
            "announced": s["announced"],
            "warehouse_face_up": s["warehouse_face_up"],
            "face_down_count": s["warehouse_face_down"],
            "reserved_warehouse": s["reserved_warehouse"],
            "main_resources": s["main_resources"],
            "collected_this_round": s["collected_this_round"],
            "history": s["history"], "owes_passes_to": s["owes_passes_to"],
            "seen_this_round": s["seen_this_round"], "hidden_this_round": s["hidden_this_round"],
            "night_raid_took": s["night_raid_took"],
        })
    bc = view["border_check"]
    return {
        "viewer": view["viewer"],
        "num_players": view["config"]["num_players"],
        "round": view["round"], "round_in_cycle": view["round_in_cycle"],
        "cycle_length": view["cycle_length"], "last_round": view["last_round"],
        "phase": view["phase"], "to_move": view["to_move"],
        "inspectors": view["inspectors"], "round_order": view["round_order"],
        "draw_pile": view["draw_pile"], "runouts": view["runouts"],
        "discard_pile": view["discard_pile"],
        "main_resources_in_middle": view["main_resources_in_middle"],
        "night_raid_by": view["night_raid_by"],
        "seats": seats,
        "border_check": bc if bc["crate_of"] is not None else None,
        "last_action": _last(last_action, view["viewer"], view["config"]),
        **_final(scores, winners),
    }


def from_saved(saved: dict, last_action=None, scores=None, winners=None) -> dict:
    """The scene of the whole table of the saved game ``saved`` (:meth:`borders_sim.Game.
    to_dict`): every card face up. Arguments as :func:`from_view` (the last action in full)."""
    n = saved["config"]["num_players"]
    hist = saved["history"]
    owes = {p["seat"]: {} for p in saved["players"]}
    for x in hist["promises"]:
        owes[x["from"]][x["to"]] = x["count"]
    seen = {x["seat"]: x for x in hist["seen_this_round"]}
    raid = saved["knowledge"]["night_raid"]
    seats = []
    for p, counters in zip(saved["players"], hist["counters"]):
        name = p["seat"]
        seats.append({
            "seat": name, "gold": p["gold"], "reserved_gold": p["reserved_gold"],
            "hand_size": sum(p["hand"].values()), "hand": p["hand"], "crate": p["crate"],
            "face_down": p["warehouse_face_down"], "known_hand": {}, "known_face_down": {},
            "crate_status": p["crate_status"],
            "crate_count": p["crate_count"] or None,
            "announced": p["announced"],
            "warehouse_face_up": p["warehouse_face_up"],
            "face_down_count": sum(p["warehouse_face_down"].values()),
            "reserved_warehouse": p["reserved_warehouse"],
            "main_resources": p["main_resources"],
            "collected_this_round": p["collected_this_round"],
            "history": counters, "owes_passes_to": owes[name],
            "seen_this_round": seen[name]["cards"] if name in seen else {},
            "hidden_this_round": seen[name]["hidden"] if name in seen else 0,
            "night_raid_took": raid["taken"].get(name) if raid else None,
        })
    cycle = int(CYCLE_LENGTH[n])
    end = saved["end_of_game"]
    return {
        "viewer": None,
        "num_players": n,
        "round": saved["round"], "round_in_cycle": (saved["round"] - 1) % cycle + 1,
        "cycle_length": cycle, "last_round": end["end_round"],
        "phase": saved["phase"], "to_move": saved["to_move"],
        "inspectors": {b: s for b, s in saved["inspectors"].items() if s is not None},
        "round_order": saved["round_order"],
        "draw_pile": len(saved["draw_pile"]), "runouts": end["runouts"],
        "discard_pile": saved["discard_pile"],
        "main_resources_in_middle": saved["main_resources_in_middle"],
        "night_raid_by": raid["thief"] if raid else None,
        "seats": seats,
        "border_check": _negotiation(saved),
        "last_action": _last(last_action, None, saved["config"]),
        **_final(scores, winners),
    }


def _negotiation(saved: dict) -> dict | None:
    """The saved game's negotiation record in the shape of ``observe_json``'s
    ``border_check``: the badges in play, each with its seat."""
    neg = saved["negotiation"]
    if neg is None or neg["crate_of"] is None:
        return None
    seats = saved["inspectors"]
    return {**neg, "inspectors": [{**b, "seat": seats[b["badge"]]} for b in neg["inspectors"]
                                  if seats[b["badge"]] is not None]}
