"""A player's view of a :class:`~borders_sim.Game`: the vector, JSON and text forms.

:func:`observe` is the vector every environment hands to a player (layout:
:data:`~borders_sim.rules.observation.OBSERVATION_LAYOUT`); :func:`observe_json` and
:func:`observe_text` say the same knowledge in words, for logs, humans and language-model agents.
All three read only what the player may know (RULINGS R-39).
"""

from __future__ import annotations

import numpy as np

from .game import Game
from ..rules import actions as act
from ..rules import state as st
from ..rules.args import ArgumentTypeError, as_seat
from ..rules.cards import CARD_KEYS, MAIN_NAMES, NUM_GOODS
from ..rules.config import GameConfig
from ..rules.observation import OBS_SIZE, decode, observe_at, offset_of
from .dict_format import (ACTION_KEYS, BADGES, CRATE_STATUS_NAMES, GOODS_KEYS, HISTORY_KEYS,
                               INSPECTOR_STATUS_NAMES, LEGAL_KEYS, OUTCOME_NAMES)
from ..rules.state import MIN_PLAYERS, PHASE_NAMES


def check_seat(game: Game, player) -> int:
    """``player`` as an int seat of ``game`` (:func:`~borders_sim.rules.args.as_seat`);
    ``ValueError`` naming it otherwise (and the EngineError of a state ``refresh()`` refused)."""
    if not isinstance(game, Game):
        raise ArgumentTypeError(f"game must be a borders_sim.Game, got {type(game).__name__}")
    game._require_playable()
    return as_seat(player, game.num_players, "player")


def observe(game: Game, player: int) -> np.ndarray:
    """float32[OBS_SIZE]: everything ``player`` knows of ``game`` now (R-39), seat-relative
    (row 0 of every per-seat block is ``player``). See
    :data:`~borders_sim.rules.observation.OBSERVATION_LAYOUT` for the meaning of each index."""
    out = np.empty(OBS_SIZE, dtype=np.float32)
    observe_at(game.state, 0, check_seat(game, player), out)
    return out


# --- the same knowledge in words -----------------------------------------------------------------
# observe_json and observe_text are built FROM the observation vector (decode(observe(...))):
# every fact they state is read from a block of that vector (the rules and gold menu too, from
# its config and gold_menu blocks), so by construction they cannot say more than the vector does
# . The only other inputs are the viewer's own seat number (which turns the seat-relative
# rows into absolute seats) and, when the viewer is to move, its legal actions: exactly the
# action mask every environment hands to that player beside the vector.


def observe_json(game: Game, player: int) -> dict:
    """What ``player`` knows of ``game`` now (the knowledge of :func:`observe`), in game words.

    A JSON-ready dict (plain ``dict``/``list``/``str``/``int``/``bool``/``None``): seats are
    ``"p0"`` .. ``"p7"`` (absolute, the viewer marked with ``"viewer": true``), cards are
    :data:`~borders_sim.rules.cards.CARD_KEYS`, badges ``"A"``/``"B"``, history counters
    :data:`~borders_sim.rules.state.HISTORY_COUNTERS`. When ``player`` is to move,
    ``legal_actions`` lists ``{"id", "action"}`` of its legal actions
    (:meth:`~borders_sim.Game.action_to_string`); otherwise it is empty.

    Raises:
        ValueError: ``player`` is not a seat of ``game``.
    """
    seat = check_seat(game, player)
    obs = observe(game, seat)
    to_move = obs[offset_of("to_move")] == 1  # row 0 is the viewer
    return describe(obs, seat, game.legal_actions() if to_move else [])


def observe_text(game: Game, player: int) -> str:
    """:func:`observe_json` as a readable text: the table, the viewer's cards and private
    knowledge, the border check in progress, the public history and the legal actions with
    their ids (for humans, logs and language-model agents; ``render()`` of the environments).

    Raises:
        ValueError: ``player`` is not a seat of ``game``.
    """
    return json_to_text(observe_json(game, player))


def describe(obs: np.ndarray, seat: int, legal_actions: list[int]) -> dict:
    """The dict of :func:`observe_json`, from an observation vector alone.

    Args:
        obs: float32[OBS_SIZE], the observation of the player sitting at ``seat``.
        seat: the viewer's absolute seat (the vector is seat-relative).
        legal_actions: the viewer's legal action ids (empty unless it is to move).
    """
    d = {k: np.rint(v).astype(np.int64) for k, v in decode(obs).items()}
    n = MIN_PLAYERS + int(np.argmax(d["num_players"]))
    config = GameConfig.unpack(d["config"], d["gold_menu"])

    def name(r: int) -> str:  # seat-relative row -> absolute seat name
        return f"p{(seat + r) % n}"

    def one(block) -> str | None:  # the seat marked in a one-hot per-seat block
        rows = np.flatnonzero(block[:n])
        return name(int(rows[0])) if rows.size else None

    def counts(row, keys) -> dict:
        return {k: int(c) for k, c in zip(keys, row) if c}

    def parcel(v) -> dict:
        return {"gold": int(v[0]), "warehouse": counts(v[1:1 + NUM_GOODS], GOODS_KEYS),
                "crate": counts(v[1 + NUM_GOODS:1 + 2 * NUM_GOODS], GOODS_KEYS),
                "promise": bool(v[1 + 2 * NUM_GOODS])}

    def named(onehot, names):
        k = np.flatnonzero(onehot)
        return names[int(k[0])] if k.size else None

    rows = [(p - seat) % n for p in range(n)]  # absolute seat p -> its row
    order = sorted(range(n), key=lambda p: d["round_order"][rows[p]])
    seats = []
    for p in range(n):
        r = rows[p]
        seats.append({
            "seat": f"p{p}",
            "viewer": p == seat,
            "gold": int(d["gold"][r]),
            "reserved_gold": int(d["reserved_gold"][r]),
            "hand_size": int(d["hand_size"][r]),
            "warehouse_face_up": counts(d["face_up"][r], LEGAL_KEYS),
            "warehouse_face_down": int(d["face_down_count"][r]),
            "reserved_warehouse": counts(d["reserved_warehouse"][r], GOODS_KEYS),
            "main_resources": [MAIN_NAMES[m] for m in np.flatnonzero(d["main_held"][r])],
            "collected_this_round": bool(d["collected"][r]),
            "crate_status": named(d["crate_status"][r], CRATE_STATUS_NAMES),
            "crate_count": int(d["crate_count"][r]),
            "announced": named(d["announced"][r], LEGAL_KEYS),
            "seen_this_round": counts(d["seen"][r], GOODS_KEYS),
            "hidden_this_round": int(d["seen_hidden"][r]),
            "history": dict(zip(HISTORY_KEYS, (int(x) for x in d["history"][r]))),
            "owes_passes_to": {f"p{q}": int(d["promises"][r][rows[q]])
                               for q in range(n) if d["promises"][r][rows[q]]},
            "known_hand": counts(d["known_hand"][r], CARD_KEYS),
            "known_face_down": counts(d["known_face_down"][r], GOODS_KEYS),
            "night_raid_took": named(d["raid_taken"][r], CARD_KEYS),
        })
    badges = []
    for g in range(config.num_inspectors):
        badges.append({
            "badge": BADGES[g],
            "seat": one(d["inspector_a" if g == 0 else "inspector_b"]),
            "status": named(d["inspector_status"][g], INSPECTOR_STATUS_NAMES),
            "offer": parcel(d["offer"][g]),
            "offer_lock": {"gold_set": bool(d["offer_lock"][g][0]),
                           "withdrawn": bool(d["offer_lock"][g][1])},
            "demand": int(d["demand"][g]),
            "deal": parcel(d["deal"][g]),
            "deal_order": int(d["deal_order"][g]),
        })
    bounties = []
    for p in range(n):
        for g in range(config.num_inspectors):
            b = d["bounties"][rows[p]][g]
            if b.any():
                bounties.append({"from": f"p{p}", "to": BADGES[g], "gold": int(b[0]),
                                 "warehouse": counts(b[1:1 + NUM_GOODS], GOODS_KEYS),
                                 "accepted": bool(b[1 + NUM_GOODS])})
    pool = d["lawyer_pool"]
    return {
        "viewer": f"p{seat}",
        "config": config.to_dict(),
        "round": int(d["round"][0]),
        "round_in_cycle": int(d["round_in_cycle"][0]) + 1,
        "cycle_length": int(d["cycle_length"][0]),
        "end_triggered": bool(d["end_triggered"][0]),
        "last_round": int(d["last_round"][0]) or None,
        "phase": named(d["phase"], PHASE_NAMES),
        "to_move": one(d["to_move"]),
        "inspectors": {b["badge"]: b["seat"] for b in badges},
        "round_order": [f"p{p}" for p in order],
        "window_passes": int(d["window_passes"][0]),
        "market_discards": int(d["market_discards"][0]),
        "draw_pile": int(d["draw_pile_size"][0]),
        "runouts": int(d["runouts"][0]),
        "discard_pile": counts(d["discard_pile"], CARD_KEYS),
        "main_resources_in_middle": [MAIN_NAMES[m] for m in np.flatnonzero(d["main_in_middle"])],
        "seats": seats,
        "own": {"hand": counts(d["own_hand"], CARD_KEYS),
                "active_action_cards": counts(d["own_active"], ACTION_KEYS),
                "crate": counts(d["own_crate"], GOODS_KEYS),
                "warehouse_face_down": counts(d["own_face_down"], GOODS_KEYS)},
        "night_raid_by": one(d["raid_thief"]),
        "border_check": {
            "crate_of": one(d["crate_under_check"]),
            "exchange": int(d["exchange"][0]),
            "inspectors": badges,
            "bounties": bounties,
            "gold_gifts_made_by": [f"p{p}" for p in range(n) if d["gifts_made"][rows[p]]],
            "outcome": named(d["outcome"], OUTCOME_NAMES),
            "truthful": bool(d["truthful"][0]),
            "fine": int(d["fine"][0]),
            "lawyer_to": named(d["lawyer_to"], BADGES),
            "fund_paid": int(d["fund_paid"][0]),
            "lawyer_pool": None if not pool[2 * NUM_GOODS] else {
                "payer": one(d["lawyer_payer"]),
                "cards_left": int(pool[2 * NUM_GOODS]),
                "warehouse": counts(pool[:NUM_GOODS], GOODS_KEYS),
                "crate": counts(pool[NUM_GOODS:2 * NUM_GOODS], GOODS_KEYS)},
        },
        "legal_actions": [{"id": int(a), "action": act.action_to_string(a, config.gold_menu)}
                          for a in legal_actions],
    }


#: Phases in which a crate's border check is under way (P-5); in the others the negotiation
#: blocks hold what the round's last border check left behind.
_BORDER_CHECK_PHASES = tuple(PHASE_NAMES[p] for p in (
    st.PH_BOUNTY, st.PH_OFFER, st.PH_RESPOND, st.PH_ANSWER_DEMAND, st.PH_JOIN, st.PH_REACT,
    st.PH_LAWYER, st.PH_FUND, st.PH_BOUNTY_LAWYER, st.PH_LAWYER_GOODS))


def _cards(c: dict) -> str:
    return ", ".join(f"{k} {v}" for k, v in c.items()) or "-"


def _parcel_text(pc: dict) -> str:
    parts = [f"{pc['gold']} gold"] if pc["gold"] else []
    if pc["warehouse"]:
        parts.append(f"warehouse {_cards(pc['warehouse'])}")
    if pc["crate"]:
        parts.append(f"crate {_cards(pc['crate'])}")
    if pc["promise"]:
        parts.append("a promise of a future pass")
    return ", ".join(parts) or "nothing"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [header] + rows]


def json_to_text(j: dict) -> str:
    """The text of :func:`observe_text` from the dict of :func:`observe_json`."""
    viewer = j["viewer"]
    you = lambda seat: f"{seat} (you)" if seat == viewer else seat  # noqa: E731
    n = j["config"]["num_players"]
    lines = [f"BORDERS, {n} players; you are {viewer}. Round {j['round']} (round "
             f"{j['round_in_cycle']} of a {j['cycle_length']}-round cycle), phase "
             f"{j['phase']!r}, " + (f"{you(j['to_move'])} to move." if j["to_move"]
                                    else "the game is over.")]
    insp = ", ".join(f"{b} {you(s)}" for b, s in j["inspectors"].items())
    lines.append(f"Inspectors: {insp}. Round order: {', '.join(j['round_order'])}.")
    end = (f"the end of the game is triggered: round {j['last_round']} is the last"
           if j["end_triggered"] else "the end of the game is not triggered")
    lines.append(f"Draw pile: {j['draw_pile']} cards, ran out {j['runouts']} times; {end}.")
    lines.append(f"Discard pile: {_cards(j['discard_pile'])}.")
    lines.append("Main resources in the middle: "
                 f"{', '.join(j['main_resources_in_middle']) or '-'}.")
    if j["phase"] == "action window":
        lines.append(f"Passes in a row in the action window: {j['window_passes']}.")
    if j["phase"] == "market":
        lines.append(f"Cards discarded in this market turn: {j['market_discards']}.")

    badge_of = {s: b for b, s in j["inspectors"].items()}
    rows = []
    for p in j["seats"]:
        seat = p["seat"] + (f" {badge_of[p['seat']]}" if p["seat"] in badge_of else "")
        seat += " (you)" if p["viewer"] else ""
        reserved = ", ".join(x for x in (f"{p['reserved_gold']} gold" if p["reserved_gold"]
                                         else "", _cards(p["reserved_warehouse"])
                                         if p["reserved_warehouse"] else "") if x) or "-"
        crate = p["crate_status"]
        if p["announced"]:
            crate += f": {p['announced']}"
        if p["crate_status"] == "announced":
            crate += f", {p['crate_count']} cards"
        rows.append([seat, str(p["gold"]), reserved, str(p["hand_size"]),
                     _cards(p["warehouse_face_up"]), str(p["warehouse_face_down"]),
                     ", ".join(p["main_resources"]) + (" (this round)"
                                                       if p["collected_this_round"] else "")
                     or "-", crate])
    lines += [""] + _table(["seat", "gold", "reserved", "hand", "face up", "face down",
                            "main resources", "crate"], rows)

    own = j["own"]
    active = f" (usable this round: {_cards(own['active_action_cards'])})" \
        if own["active_action_cards"] else ""
    lines += ["", f"Your cards ({viewer}):", f"  hand: {_cards(own['hand'])}{active}",
              f"  crate: {_cards(own['crate'])}",
              f"  face down in your warehouse: {_cards(own['warehouse_face_down'])}"]
    known = [f"  {p['seat']} surely holds in hand: {_cards(p['known_hand'])}"
             for p in j["seats"] if p["known_hand"]]
    known += [f"  {p['seat']} surely has face down: {_cards(p['known_face_down'])}"
              for p in j["seats"] if p["known_face_down"]]
    if known:
        lines += ["What you know of others' hidden cards:"] + known
    if j["night_raid_by"]:
        took = [f"{p['night_raid_took']} from {p['seat']}" for p in j["seats"]
                if p["night_raid_took"]]
        lines.append(f"Night Raid this round by {you(j['night_raid_by'])}"
                     + (f"; you know it took {', '.join(took)}." if took else "."))

    bc = j["border_check"]
    if bc["crate_of"]:
        title = "Border check" if j["phase"] in _BORDER_CHECK_PHASES else "Last border check"
        lines += ["", f"{title}: the crate of {you(bc['crate_of'])}, exchange "
                      f"{bc['exchange']}, outcome {bc['outcome']}"
                      + (f" ({'truthful' if bc['truthful'] else 'a lie'})"
                         if bc["outcome"] == "opened" else "") + f", fine at stake {bc['fine']}."]
        for b in bc["inspectors"]:
            lock = [w for w, on in (("gold set", b["offer_lock"]["gold_set"]),
                                    ("withdrawn", b["offer_lock"]["withdrawn"])) if on]
            deal = _parcel_text(b["deal"]) + (f" (deal no. {b['deal_order']})"
                                              if b["deal_order"] else "")
            lines.append(f"  badge {b['badge']}, {you(b['seat'])}: {b['status']}; offer: "
                         f"{_parcel_text(b['offer'])}"
                         + (f" ({', '.join(lock)} this turn)" if lock else "")
                         + f"; demand: {b['demand'] or '-'}; deal: "
                         + (deal if b["deal_order"] else "none"))
        for x in bc["bounties"]:
            gold = f"{x['gold']} gold" if x["gold"] else ""
            goods = _cards(x["warehouse"]) if x["warehouse"] else ""
            lines.append(f"  bounty from {you(x['from'])} to {x['to']}: "
                         f"{', '.join(y for y in (gold, goods) if y) or 'nothing'}"
                         + (", accepted" if x["accepted"] else ""))
        if bc["gold_gifts_made_by"]:
            lines.append(f"  gold gifts made this turn by {', '.join(bc['gold_gifts_made_by'])}")
        if bc["lawyer_to"]:
            lines.append(f"  the owner's Lawyer halves the deal with {bc['lawyer_to']}")
        if bc["fund_paid"]:
            lines.append(f"  gold paid in deals this settlement: {bc['fund_paid']}")
        if bc["lawyer_pool"]:
            lp = bc["lawyer_pool"]
            lines.append(f"  {you(lp['payer'])} still hands over {lp['cards_left']} cards "
                         f"of: warehouse {_cards(lp['warehouse'])}; crate {_cards(lp['crate'])}")

    seen = [f"  {p['seat']}: {_cards(p['seen_this_round'])}"
            + (f", {p['hidden_this_round']} unseen" if p["hidden_this_round"] else "")
            for p in j["seats"] if p["seen_this_round"] or p["hidden_this_round"]]
    if seen:
        lines += ["", "Crates settled this round showed:"] + seen
    history = [f"  {p['seat']}: " + ", ".join(f"{k} {v}" for k, v in p["history"].items() if v)
               for p in j["seats"] if any(p["history"].values())]
    if history:
        lines += ["", "Public history (whole game):"] + history
    owed = [f"{p['seat']} to {q} ({c})" for p in j["seats"]
            for q, c in p["owes_passes_to"].items()]
    if owed:
        lines.append(f"Promised passes still owed: {', '.join(owed)}.")

    if j["legal_actions"]:
        lines += ["", "Your legal actions (id: action):"]
        lines += [f"  {a['id']}: {a['action']}" for a in j["legal_actions"]]
    return "\n".join(lines)
