"""The text of :func:`~borders_sim.game.views.observe_text`, rendered from the dict of
:func:`~borders_sim.game.views.observe_json`: a header, the table of seats, the viewer's cards
and knowledge, the border check, the public record and the legal actions.
"""

from __future__ import annotations

from ..rules import state as st
from ..rules.state import PHASE_NAMES

#: Phases in which a crate's border check is under way (P-5); in the others the negotiation
#: blocks hold what the round's last border check left behind.
BORDER_CHECK_PHASES = tuple(PHASE_NAMES[p] for p in (
    st.PH_BOUNTY, st.PH_OFFER, st.PH_RESPOND, st.PH_ANSWER_DEMAND, st.PH_JOIN, st.PH_REACT,
    st.PH_LAWYER, st.PH_FUND, st.PH_BOUNTY_LAWYER, st.PH_LAWYER_GOODS))


def json_to_text(j: dict) -> str:
    """The text of :func:`~borders_sim.game.views.observe_text` from the dict of
    :func:`~borders_sim.game.views.observe_json`."""
    return "\n".join(_header_lines(j) + _seat_table_lines(j) + _own_lines(j)
                     + _border_check_lines(j) + _record_lines(j) + _legal_lines(j))


def _cards(c: dict) -> str:
    """``{card: count}`` as ``"card count, ..."`` (``"-"`` when empty)."""
    return ", ".join(f"{k} {v}" for k, v in c.items()) or "-"


def _parcel_text(pc: dict) -> str:
    """An offer or deal in words (``"nothing"`` when empty)."""
    parts = [f"{pc['gold']} gold"] if pc["gold"] else []
    if pc["warehouse"]:
        parts.append(f"warehouse {_cards(pc['warehouse'])}")
    if pc["crate"]:
        parts.append(f"crate {_cards(pc['crate'])}")
    if pc["promise"]:
        parts.append("a promise of a future pass")
    return ", ".join(parts) or "nothing"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    """``header`` and ``rows`` as lines of left-aligned columns."""
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [header] + rows]


def _you(seat: str, viewer: str) -> str:
    """``seat``, marked ``(you)`` when it is the ``viewer``'s."""
    return f"{seat} (you)" if seat == viewer else seat


def _header_lines(j: dict) -> list[str]:
    """Who plays and who is to move, the inspectors and the round order, the piles, the main
    resources in the middle, and the action window's or market turn's counter."""
    viewer = j["viewer"]
    n = j["config"]["num_players"]
    lines = [f"BORDERS, {n} players; you are {viewer}. Round {j['round']} (round "
             f"{j['round_in_cycle']} of a {j['cycle_length']}-round cycle), phase "
             f"{j['phase']!r}, " + (f"{_you(j['to_move'], viewer)} to move." if j["to_move"]
                                    else "the game is over.")]
    insp = ", ".join(f"{b} {_you(s, viewer)}" for b, s in j["inspectors"].items())
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
    return lines


def _seat_table_lines(j: dict) -> list[str]:
    """A blank line, then the table of the seats' public cards, gold and crates."""
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
    return [""] + _table(["seat", "gold", "reserved", "hand", "face up", "face down",
                          "main resources", "crate"], rows)


def _own_lines(j: dict) -> list[str]:
    """A blank line, then the viewer's own cards, what it surely knows of the others' hidden
    cards, and this round's Night Raid."""
    viewer, own = j["viewer"], j["own"]
    active = f" (usable this round: {_cards(own['active_action_cards'])})" \
        if own["active_action_cards"] else ""
    lines = ["", f"Your cards ({viewer}):", f"  hand: {_cards(own['hand'])}{active}",
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
        lines.append(f"Night Raid this round by {_you(j['night_raid_by'], viewer)}"
                     + (f"; you know it took {', '.join(took)}." if took else "."))
    return lines


def _border_check_lines(j: dict) -> list[str]:
    """A blank line and the border check under way or last made, if any: the crate and the
    outcome, a line per inspector and per bounty, the gifts, the Lawyer and the settlement."""
    viewer, bc = j["viewer"], j["border_check"]
    if not bc["crate_of"]:
        return []
    title = "Border check" if j["phase"] in BORDER_CHECK_PHASES else "Last border check"
    lines = ["", f"{title}: the crate of {_you(bc['crate_of'], viewer)}, exchange "
                 f"{bc['exchange']}, outcome {bc['outcome']}"
                 + (f" ({'truthful' if bc['truthful'] else 'a lie'})"
                    if bc["outcome"] == "opened" else "") + f", fine at stake {bc['fine']}."]
    lines += [_inspector_line(b, viewer) for b in bc["inspectors"]]
    lines += [_bounty_line(x, viewer) for x in bc["bounties"]]
    if bc["gold_gifts_made_by"]:
        lines.append(f"  gold gifts made this turn by {', '.join(bc['gold_gifts_made_by'])}")
    if bc["lawyer_to"]:
        lines.append(f"  the owner's Lawyer halves the deal with {bc['lawyer_to']}")
    if bc["fund_paid"]:
        lines.append(f"  gold paid in deals this settlement: {bc['fund_paid']}")
    if bc["lawyer_pool"]:
        lp = bc["lawyer_pool"]
        lines.append(f"  {_you(lp['payer'], viewer)} still hands over {lp['cards_left']} cards "
                     f"of: warehouse {_cards(lp['warehouse'])}; crate {_cards(lp['crate'])}")
    return lines


def _inspector_line(b: dict, viewer: str) -> str:
    """The border check's line of badge ``b``: its seat, status, offer, demand and deal."""
    lock = [w for w, on in (("gold set", b["offer_lock"]["gold_set"]),
                            ("withdrawn", b["offer_lock"]["withdrawn"])) if on]
    deal = _parcel_text(b["deal"]) + (f" (deal no. {b['deal_order']})"
                                      if b["deal_order"] else "")
    return (f"  badge {b['badge']}, {_you(b['seat'], viewer)}: {b['status']}; offer: "
            f"{_parcel_text(b['offer'])}"
            + (f" ({', '.join(lock)} this turn)" if lock else "")
            + f"; demand: {b['demand'] or '-'}; deal: "
            + (deal if b["deal_order"] else "none"))


def _bounty_line(x: dict, viewer: str) -> str:
    """The border check's line of bounty ``x``: who offers what to which badge."""
    gold = f"{x['gold']} gold" if x["gold"] else ""
    goods = _cards(x["warehouse"]) if x["warehouse"] else ""
    return (f"  bounty from {_you(x['from'], viewer)} to {x['to']}: "
            f"{', '.join(y for y in (gold, goods) if y) or 'nothing'}"
            + (", accepted" if x["accepted"] else ""))


def _record_lines(j: dict) -> list[str]:
    """What the crates settled this round showed, each seat's public history and the promised
    passes still owed (each part only when it says something)."""
    lines = []
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
    return lines


def _legal_lines(j: dict) -> list[str]:
    """A blank line and the viewer's legal actions with their ids, when it is to move."""
    if not j["legal_actions"]:
        return []
    return ["", "Your legal actions (id: action):"] + [
        f"  {a['id']}: {a['action']}" for a in j["legal_actions"]]
