"""The picture of a scene (:mod:`.scene`) as SVG text: :func:`paint`.

The canvas is :func:`canvas_size` (1440 pixels wide, 720 to 896 high by the player count, both
multiples of 16, the size video encoders like). It has three parts:

* the header: the round, the phase and who is to move, whose view it is, and the last move in
  a yellow box;
* one row per seat, ``p0`` at the top, in the same place in every picture of a game: the seat's
  name and role (the inspector's row is blue, the row of the seat to move has an orange frame
  and a TO MOVE tag, the last mover's name is on yellow), its record (crates sent and opened,
  lies caught, in red), its gold and main resources (the score once the game is over), its
  hand, its crate with the announcement and what the crate showed or holds (LIE, LIED or
  CAUGHT in red, TRUE in green: :func:`crate_verdict`; a dashed blue frame while it is at the
  border check), its warehouse;
* a side panel: the border check (the crate, each inspector's standing, offer, demand and deal,
  the bounties, the outcome in a coloured banner), the table (round order, piles, discard pile,
  main resources in the middle) and, once the game is over, the final scores.

Cards are chips coloured by class (green legal, red contraband, gold premium, purple action)
that also carry the card's name, a count and a ``<title>`` with its full name, value and fine;
a face-down card whose type the picture knows has a dashed border; a hidden card is a dark chip
saying how many there are. Every shape that means something has a
``<title>``, and the document's ``<desc>`` says the position in sentences.

The same painter in JavaScript, ``paint.js`` beside this file (:func:`painter_script`), paints
a scene into the very same string in a browser: a replay page ships scenes and paints them
there (:mod:`borders_sim.arena.viewer`); ``tests/test_paint_js.py`` holds the two equal.
"""

from __future__ import annotations

import functools
import json
import pickle
from importlib import resources
from typing import NamedTuple

from ...rules.cards import (CARD_CLASS, CARD_FINE, CARD_KEYS, CARD_NAMES, CARD_VALUE,
                            CLASS_NAMES, MAIN_NAMES, MAIN_POINTS)
from ..text_view import BORDER_CHECK_PHASES
from .svg import FONT, circle, document, group, rect, text, text_width

WIDTH = 1440
_HEADER = 92
_MARGIN = 16
_ROWS_W = 1000
_PANEL_X = _MARGIN + _ROWS_W + 16
_PANEL_W = WIDTH - _PANEL_X - _MARGIN

_CARD = {k: t for t, k in enumerate(CARD_KEYS)}
_MAIN = {k: m for m, k in enumerate(MAIN_NAMES)}
#: (fill, stroke, ink) of a card chip by class: legal, contraband, premium, action.
_CLASS_COLOURS = (("#dcedc8", "#558b2f", "#1b5e20"), ("#ffcdd2", "#c62828", "#7f0000"),
                  ("#ffe082", "#c79100", "#5d4000"), ("#e1bee7", "#7b1fa2", "#4a0072"))
_HIDDEN = ("#455a64", "#263238", "#ffffff")
_MAIN_COLOURS = ("#fff3e0", "#ef6c00", "#6d3300")
_INSPECTOR_BG = "#e3f2fd"
_INSPECTOR = "#1565c0"
_TO_MOVE = "#ef6c00"
_LAST = "#fff176"
_RED, _GREEN, _GREY = "#c62828", "#2e7d32", "#616161"
#: The colour of an inspector's standing on the crate under check.
_STATUS_COLOURS = {"undecided": "#9e9e9e", "committed": "#6a1b9a", "passed": _GREEN,
                   "opened": _RED, "holding": "#f9a825"}


def canvas_size(num_players: int) -> tuple[int, int]:
    """``(width, height)`` in pixels of the picture of a ``num_players`` game: 1440 x 720 for
    3 to 6 players, 1440 x 800 for 7, 1440 x 896 for 8."""
    need = _HEADER + 2 * _MARGIN + 96 * num_players
    return WIDTH, max(720, -(-need // 16) * 16)


# --- chips: cards, hidden cards, main resources, tags --------------------------------------------
class _Chip(NamedTuple):
    label: str
    colours: tuple[str, str, str]  # fill, stroke, ink
    tip: str
    count: int = 1
    dashed: bool = False


_CHIP_H, _CHIP_FONT, _GAP = 18, 11, 4


def _chip_w(c: _Chip) -> float:
    return text_width(c.label, _CHIP_FONT) + 10


@functools.lru_cache(maxsize=8192)  # the same chips at the same places, picture after picture
def _draw_chip(c: _Chip, x: float, y: float) -> str:
    fill, stroke, ink = c.colours
    w = _chip_w(c)
    return group([rect(x, y, w, _CHIP_H, fill, stroke, 1, 4, dash=c.dashed),
                  text(x + 5, y + 13, c.label, _CHIP_FONT, ink)], c.tip)


def _card_chips(counts: dict, tip: str = "", dashed: bool = False) -> list[_Chip]:
    """One chip per card type of ``counts`` (``{card key: count}``), in card order."""
    out = []
    for key in sorted(counts, key=_CARD.__getitem__):
        k, t = counts[key], _CARD[key]
        cls = int(CARD_CLASS[t])
        facts = (f"{CLASS_NAMES[cls]}, value {int(CARD_VALUE[t])}, fine {int(CARD_FINE[t])}"
                 if cls < 3 else "action card")
        out.append(_Chip(key + (f" ×{k}" if k > 1 else ""), _CLASS_COLOURS[cls],
                         f"{tip}{k} × {CARD_NAMES[t]} ({facts})", k, dashed))
    return out


def _hidden_chip(k: int, what: str) -> list[_Chip]:
    return [_Chip(f"{k} hidden", _HIDDEN, f"{k} {what}", k)] if k > 0 else []


def _main_chips(names: list[str], points: bool = False) -> list[_Chip]:
    """One chip per main resource of ``names``, with its points when ``points``."""
    out = []
    for m in names:
        value = int(MAIN_POINTS[_MAIN[m]])
        out.append(_Chip(f"{m} {value}" if points else m, _MAIN_COLOURS,
                         f"main resource {m}, {value} points"))
    return out


def _flow(chips: list[_Chip], x: float, y: float, width: float, lines: int) -> list[str]:
    """``chips`` left to right from ``(x, y)``, wrapping within ``width`` for at most ``lines``
    lines; what does not fit becomes a last chip ``+k`` (its title lists them)."""
    placed: list[tuple[_Chip, float, int]] = []
    cx, line = x, 0
    for c in chips:
        w = _chip_w(c)
        if cx > x and cx + w > x + width:
            line, cx = line + 1, x
        if line >= lines:
            break
        placed.append((c, cx, line))
        cx += w + _GAP
    rest = chips[len(placed):]
    more = None
    while rest:
        more = _Chip(f"+{sum(c.count for c in rest)}", ("#ffffff", "#9e9e9e", "#424242"),
                     "and " + ", ".join(c.tip for c in rest))
        if not placed:
            break
        c, cx, line = placed[-1]
        if cx + _chip_w(c) + _GAP + _chip_w(more) <= x + width:
            break
        rest.insert(0, placed.pop()[0])
    out = [_draw_chip(c, cx, y + line * (_CHIP_H + _GAP)) for c, cx, line in placed]
    if more is not None:
        if placed:
            c, cx, line = placed[-1]
            out.append(_draw_chip(more, cx + _chip_w(c) + _GAP, y + line * (_CHIP_H + _GAP)))
        else:
            out.append(_draw_chip(more, x, y))
    return out


def _tag(x: float, y: float, label: str, fill: str, tip: str, ink: str = "#ffffff") -> str:
    """A filled label with its top-left corner at ``(x, y)``."""
    w = text_width(label, 11, bold=True) + 12
    return group([rect(x, y, w, 18, fill, rx=9),
                  text(x + w / 2, y + 13, label, 11, ink, bold=True, anchor="middle")], tip)


def _counts_text(counts: dict) -> str:
    return ", ".join(f"{k} {key}" for key, k in counts.items()) or "nothing"


# --- the verdict on a crate ----------------------------------------------------------------------
def crate_verdict(seat: dict) -> tuple[str, str, str] | None:
    """``(tag, colour, explanation)`` of what can be told of the seat's crate this round, or
    ``None``: from its contents when they are known (LIE or TRUE against the announcement),
    else from what it showed when settled (contraband seen: CAUGHT; another legal type seen:
    LIED; cards unseen: passed with them hidden)."""
    said = seat["announced"]
    if said is None:
        return None
    shown, hidden = seat["seen_this_round"], seat["hidden_this_round"]
    if seat["crate"]:
        wrong = sorted(k for k in seat["crate"] if k != said)
        if wrong:
            return "LIE", _RED, f"announced {said}, the crate holds {', '.join(wrong)} too"
        return "TRUE", _GREEN, f"the crate holds only {said}, as announced"
    if not shown and not hidden:
        return None
    banned = [k for k in shown if CARD_CLASS[_CARD[k]] > 0]
    if banned:
        return "CAUGHT", _RED, f"announced {said}; opened, it showed {', '.join(banned)}"
    wrong = [k for k in shown if k != said]
    if wrong:
        return "LIED", _RED, f"announced {said}, the crate showed {', '.join(wrong)}"
    if hidden:
        return f"{hidden} UNSEEN", _GREY, f"{hidden} cards of the crate stayed hidden"
    return "TRUE", _GREEN, f"the crate showed only {said}, as announced"


# --- the header ----------------------------------------------------------------------------------
def _headline(scene: dict) -> str:
    if scene["phase"] == "game over":
        won = scene["winners"]
        return f"Game over after round {scene['round']}" + (
            f": {' and '.join(won)} {'win' if len(won) > 1 else 'wins'}" if won else "")
    return f"Round {scene['round']} · {scene['phase']} · {scene['to_move']} to move"


def _header(scene: dict) -> list[str]:
    n = scene["num_players"]
    inspectors = ", ".join(f"inspector {b}: {s}" for b, s in scene["inspectors"].items())
    whose = (f"the view of {scene['viewer']}: only what {scene['viewer']} knows"
             if scene["viewer"] else "the whole table: every card face up")
    sub = (f"BORDERS, {n} players · round {scene['round_in_cycle']} of a "
           f"{scene['cycle_length']}-round cycle · {inspectors} · {whose}")
    out = [rect(0, 0, WIDTH, _HEADER, "#263238"),
           text(_MARGIN, 38, _headline(scene), 26, "#ffffff", bold=True),
           text(_MARGIN, 64, sub, 13, "#cfd8dc")]
    last = scene["last_action"]
    if last:
        label = f"Last move: {last['seat']} · {last['action']}"
        w = max(360.0, text_width(label, 16, bold=True) + 24)
        x = WIDTH - _MARGIN - w
        out.append(group([rect(x, 14, w, 36, _LAST, "#f9a825", 2, 6),
                          text(x + 12, 38, label, 16, "#212121", bold=True)],
                         f"the last move: {last['seat']} chose {last['action']!r}"))
    return out + _legend()


@functools.lru_cache(maxsize=1)
def _legend() -> list[str]:
    """The header's legend of the card colours (the same in every picture)."""
    legend = [_Chip(CLASS_NAMES[c], _CLASS_COLOURS[c], f"{CLASS_NAMES[c]} cards")
              for c in range(4)] + [_Chip("hidden", _HIDDEN, "face-down cards")]
    lx = WIDTH - _MARGIN - sum(_chip_w(c) + _GAP for c in legend) - 56
    return [text(lx, 77, "cards:", 11, "#cfd8dc"), *_flow(legend, lx + 40, 64, WIDTH, 1)]


class _Kept:
    """Drawings kept by their inputs, the last ``size`` of them: an input equal to one already
    drawn gives the same string, drawn once. Inputs are compared by their pickle (equal bytes:
    equal values, the types included, so ``1`` and ``True`` differ)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.drawn: dict[bytes, object] = {}

    def get(self, draw, *inputs):
        """``draw(*inputs)``, drawn now or kept from an earlier call with equal inputs."""
        key = pickle.dumps(inputs, 5)
        out = self.drawn.get(key)
        if out is None:
            if len(self.drawn) >= self.size:
                self.drawn.clear()
            out = self.drawn[key] = draw(*inputs)
        return out


_ROWS = _Kept(4096)  # a replay's seat rows: about a thousand distinct a game
_ROW_BODIES = _Kept(4096)
_TABLE_BOXES = _Kept(1024)


# --- a seat's row --------------------------------------------------------------------------------
def _record_lines(seat: dict, inspector: bool) -> list[tuple[str, str, str]]:
    """Up to two ``(text, colour, title)`` lines of the seat's public record."""
    h = seat["history"]
    lines = []
    if h["crates"]:
        lines.append((f"crates {h['crates']} · opened {h['crates_opened']}", _GREY,
                      f"{h['crates']} crates sent, {h['crates_opened']} of them opened"))
    if h["lies_caught"]:
        lines.append((f"caught lying {h['lies_caught']}×", _RED,
                      f"caught lying {h['lies_caught']} times"))
    elif inspector or h["crates_inspected"]:
        lines.append((f"inspected {h['crates_inspected']} · opened {h['opens']}", _GREY,
                      f"as an inspector: {h['crates_inspected']} crates handled, "
                      f"{h['opens']} opened"))
    return lines[:2]


def _seat_row(scene: dict, seat: dict, y: float, h: float) -> str:
    """The row of ``seat``: drawn from the seat's entry and the few facts of ``scene`` about it,
    so a row that did not change between two pictures (most rows of a replay's next step, and a
    seat's row in the views of the seats that see the same of it) is drawn once: the rows are
    kept by those inputs (:class:`_Kept`)."""
    name = seat["seat"]
    bc = scene["border_check"]
    facts = {
        "badge": next((b for b, s in scene["inspectors"].items() if s == name), None),
        "moving": scene["to_move"] == name,
        "last": bool(scene["last_action"] and scene["last_action"]["seat"] == name),
        "you": name == scene["viewer"],
        "score": None if scene["scores"] is None else scene["scores"][int(name[1:])],
        "won": name in (scene["winners"] or []),
        "checked": (bc is not None and bc["crate_of"] == name
                    and scene["phase"] in BORDER_CHECK_PHASES)}
    return _ROWS.get(_draw_seat_row, facts, seat, y, h)


def _draw_seat_row(facts: dict, seat: dict, y: float, h: float) -> str:
    x = _MARGIN
    name = seat["seat"]
    badge, moving, last = facts["badge"], facts["moving"], facts["last"]
    out = [rect(x, y, _ROWS_W, h, _INSPECTOR_BG if badge else "#ffffff",
                _TO_MOVE if moving else "#b0bec5", 3 if moving else 1, 6)]
    if last:
        out.append(rect(x + 3, y + 3, 132, h - 6, _LAST, rx=4,
                        label=f"{name} made the last move"))
    # name, role, record
    out.append(text(x + 10, y + 27, name, 22, "#212121", bold=True))
    if moving:
        out.append(_tag(x + 50, y + 10, "TO MOVE", _TO_MOVE, f"{name} is to move"))
    role = f"INSPECTOR {badge}" if badge else "smuggler"
    if badge:
        out.append(_tag(x + 10, y + 35, role, _INSPECTOR, f"{name} is inspector {badge}"))
    else:
        out.append(text(x + 10, y + 48, role, 12, _GREY))
    if facts["you"]:
        out.append(_tag(x + 106 if badge else x + 80, y + 35, "you", "#37474f",
                        f"the picture shows what {name} knows"))
    out += _ROW_BODIES.get(_draw_row_body, seat, badge, facts["score"], facts["won"],
                           facts["checked"], y, h)
    return group(out, _seat_summary(seat, badge, facts["you"], moving))


def _draw_row_body(seat: dict, badge: str | None, score: int | None, won: bool, checked: bool,
                   y: float, h: float) -> list[str]:
    """The row's record, gold, main resources and cells: what does not change when the seat
    comes to move or makes the last move (kept apart from the row: :data:`_ROW_BODIES`)."""
    x = _MARGIN
    name = seat["seat"]
    out = []
    for i, (line, colour, tip) in enumerate(_record_lines(seat, bool(badge))):
        out.append(group([text(x + 10, y + 66 + 15 * i, line, 10.5, colour,
                               bold=colour == _RED)], tip))
    # gold and main resources (under the final score once the game is over)
    gx = x + 142
    gold = seat["gold"]
    tip = f"{name} has {gold} gold" + (f", {seat['reserved_gold']} of it held for deals and "
                                       "bounties" if seat["reserved_gold"] else "")
    held = f" ({seat['reserved_gold']} held)" if seat["reserved_gold"] else ""
    if score is None:
        out.append(group([circle(gx + 9, y + 20, 9, "#ffca28", "#ff8f00"),
                          text(gx + 24, y + 27, str(gold), 19, "#212121", bold=True),
                          text(gx + 26 + text_width(str(gold), 19, True), y + 27, held, 9.5,
                               _GREY)], tip))
        top = y + 36
    else:
        out.append(group([text(gx, y + 27, f"score {score}", 17, _GREEN if won else "#212121",
                               bold=True)], f"{name} scores {score}"))
        if won:
            out.append(_tag(x + 50, y + 10, "WINNER", _GREEN, f"{name} wins"))
        out.append(group([circle(gx + 6, y + 42, 6, "#ffca28", "#ff8f00"),
                          text(gx + 16, y + 46, f"{gold} gold{held}", 11, "#212121")], tip))
        top = y + 54
    out += _flow(_main_chips(seat["main_resources"]), gx, top, 104,
                 max(1, int((y + h - top) // (_CHIP_H + _GAP))))
    lines = max(1, int((h - 24) // (_CHIP_H + _GAP)))
    out += _hand_cell(seat, x + 252, y, lines)
    if checked:
        out.append(rect(x + 466, y + 3, 252, h - 6, "none", _INSPECTOR, 2, 4,
                        label=f"the crate of {name} is at the border check", dash=True))
    out += _crate_cell(seat, badge, x + 472, y, lines)
    out += _warehouse_cell(seat, x + 728, y, lines)
    return out


def _label(x: float, y: float, s: str) -> str:
    return text(x, y + 15, s, 10.5, _GREY)


def _hand_cell(seat: dict, x: float, y: float, lines: int) -> list[str]:
    k = seat["hand_size"]
    out = [_label(x, y, f"Hand · {k} card{'s' if k != 1 else ''}")]
    if seat["hand"] is not None:
        chips = _card_chips(seat["hand"], "in hand: ")
    else:
        known = seat["known_hand"]
        chips = _card_chips(known, "surely in hand: ", dashed=True) + _hidden_chip(
            k - sum(known.values()), f"cards in {seat['seat']}'s hand, face down")
    return out + _flow(chips, x, y + 21, 208, lines)


def _crate_cell(seat: dict, badge: str | None, x: float, y: float, lines: int) -> list[str]:
    status, said, count = seat["crate_status"], seat["announced"], seat["crate_count"]
    if badge:
        return [_label(x, y, "Crate · none: inspects this round")]
    words = {"none": "none yet", "packing": "packing", "closed": "closed",
             "announced": "announced", "done": "settled", "sitting out": "sitting out"}[status]
    out = [_label(x, y, f"Crate · {words}")]
    top = y + 21
    if said:
        claim = f"{count} × {said}" if count else said
        out.append(group([text(x, y + 36, claim, 15, "#212121", bold=True)],
                         f"{seat['seat']} announced {claim}"))
        verdict = crate_verdict(seat)
        if verdict:
            tag, colour, why = verdict
            out.append(_tag(x + text_width(claim, 15, True) + 8, y + 22, tag, colour, why))
        top = y + 43
        lines -= 1
    if seat["crate"]:
        out += _flow(_card_chips(seat["crate"], "in the crate: "), x, top, 244, lines)
    elif seat["seen_this_round"] or seat["hidden_this_round"]:
        chips = _card_chips(seat["seen_this_round"], "the crate showed: ") + _hidden_chip(
            seat["hidden_this_round"], "cards of the crate that stayed hidden")
        out += _flow(chips, x, top, 244, lines)
    elif count and status in ("closed", "announced"):
        out += _flow(_hidden_chip(count, "cards in the closed crate"), x, top, 244, lines)
    return out


def _warehouse_cell(seat: dict, x: float, y: float, lines: int) -> list[str]:
    up, down = seat["warehouse_face_up"], seat["face_down_count"]
    out = [_label(x, y, f"Warehouse · {sum(up.values())} face up, {down} face down")]
    chips = _card_chips(up, "face up in the warehouse: ")
    if seat["face_down"] is not None:
        chips += _card_chips(seat["face_down"], "face down in the warehouse: ", dashed=True)
    else:
        known = seat["known_face_down"]
        chips += _card_chips(known, "surely face down in the warehouse: ", dashed=True)
        chips += _hidden_chip(down - sum(known.values()), "face-down warehouse cards")
    return out + _flow(chips, x, y + 21, 264, lines)


def _seat_summary(seat: dict, badge: str | None, you: bool, moving: bool) -> str:
    """The seat's row in one sentence (the row's ``<title>``): ``you`` when it is the viewer's,
    ``moving`` when it is to move."""
    name = seat["seat"]
    parts = [f"{name}" + (" (you)" if you else ""),
             f"inspector {badge}" if badge else "smuggler",
             f"{seat['gold']} gold", f"{seat['hand_size']} cards in hand"]
    if seat["announced"]:
        parts.append(f"announced {seat['crate_count'] or ''} {seat['announced']}".replace(
            "  ", " "))
    if seat["main_resources"]:
        parts.append("main resources " + ", ".join(seat["main_resources"]))
    if seat["history"]["lies_caught"]:
        parts.append(f"caught lying {seat['history']['lies_caught']} times")
    if moving:
        parts.append("to move")
    return ", ".join(parts)


# --- the side panel ------------------------------------------------------------------------------
def _box(y: float, h: float, heading: str) -> list[str]:
    return [rect(_PANEL_X, y, _PANEL_W, h, "#fafafa", "#b0bec5", 1, 6),
            text(_PANEL_X + 12, y + 22, heading, 15, "#263238", bold=True)]


def _parcel_text(p: dict) -> str:
    parts = [f"{p['gold']} gold"] if p["gold"] else []
    parts += [f"{k} {key} from the warehouse" for key, k in p["warehouse"].items()]
    parts += [f"{k} {key} from the crate" for key, k in p["crate"].items()]
    if p["promise"]:
        parts.append("a promise")
    return ", ".join(parts)


def _outcome(bc: dict) -> tuple[str, str]:
    """The banner ``(text, colour)`` of the border check's outcome."""
    out = bc["outcome"]
    if out == "opened":
        if bc["truthful"]:
            return f"OPENED · TRUE: the inspector pays {bc['fine']}", _GREEN
        return f"OPENED · A LIE, CAUGHT: fine {bc['fine']}", _RED
    if out == "false bottom":
        return "OPENED WITH A FALSE BOTTOM", "#6a1b9a"
    if out == "passed by secret route":
        return "PASSED BY THE SECRET ROUTE", _GREEN
    if out == "passed":
        return "LET THROUGH", _GREEN
    return "UNDECIDED", "#757575"


def _border_check(scene: dict, y: float, bottom: float) -> tuple[list[str], float]:
    """The border-check box from ``y``; its elements and its bottom."""
    bc = scene["border_check"]
    x, w = _PANEL_X + 12, _PANEL_W - 24
    if bc is None:
        out = _box(y, 50, "Border check")
        out.append(text(x, y + 40, "no crate checked yet this round", 12, _GREY))
        return out, y + 50
    live = scene["phase"] in BORDER_CHECK_PHASES
    owner = bc["crate_of"]
    seat = next(s for s in scene["seats"] if s["seat"] == owner)
    body: list[str] = []
    cy = y + 30
    claim = (f"{seat['crate_count']} × {seat['announced']}" if seat["crate_count"]
             else str(seat["announced"]))
    body.append(text(x, cy + 16, f"Crate of {owner}: announced {claim}", 15, "#212121",
                     bold=True))
    cy += 26
    if bc["exchange"] and live:
        body.append(text(x, cy + 12, f"exchange {bc['exchange']}", 11, _GREY))
        cy += 16
    for b in bc["inspectors"]:
        colour = _STATUS_COLOURS.get(b["status"], "#757575")
        body.append(group([circle(x + 10, cy + 11, 10, _INSPECTOR),
                           text(x + 10, cy + 15, b["badge"], 12, "#ffffff", bold=True,
                                anchor="middle"),
                           text(x + 26, cy + 15, f"{b['seat']}", 13, "#212121", bold=True)],
                          f"inspector {b['badge']} is {b['seat']}"))
        if live:
            body.append(_tag(x + 56, cy + 2, b["status"].upper(), colour,
                             f"inspector {b['badge']}: {b['status']}"))
        cy += 24
        facts = []
        if b["offer"] and _parcel_text(b["offer"]):
            facts.append((f"offered: {_parcel_text(b['offer'])}", "#212121"))
        if b["demand"]:
            facts.append((f"demands {b['demand']} gold", "#212121"))
        if b["deal_order"]:
            facts.append((f"DEAL: {_parcel_text(b['deal']) or 'nothing'}", "#6a1b9a"))
        for line, colour in facts:
            body.append(text(x + 26, cy + 11, _fit(line, w - 26, 12), 12, colour,
                             bold=line.startswith("DEAL")))
            cy += 16
        cy += 4
    for bounty in bc["bounties"]:
        goods = _counts_text(bounty["warehouse"]) if bounty["warehouse"] else ""
        what = ", ".join(x for x in (f"{bounty['gold']} gold" if bounty["gold"] else "", goods)
                         if x) or "nothing"
        line = (f"bounty {bounty['from']} → {bounty['to']}: {what}"
                + (" (accepted)" if bounty["accepted"] else ""))
        if cy + 16 < bottom - 60:
            body.append(text(x, cy + 11, _fit(line, w, 12), 12, "#4e342e"))
            cy += 16
    if bc["outcome"] and bc["outcome"] != "pending":
        banner, colour = _outcome(bc)
        body.append(group([rect(x, cy + 4, w, 26, colour, rx=4),
                           text(x + w / 2, cy + 22, banner, 13, "#ffffff", bold=True,
                                anchor="middle")], banner.lower()))
        cy += 34
        shown, hidden = seat["seen_this_round"], seat["hidden_this_round"]
        if shown or hidden:
            body.append(text(x, cy + 13, "it showed:", 11, _GREY))
            body += _flow(_card_chips(shown, "the crate showed: ")
                          + _hidden_chip(hidden, "cards that stayed hidden"), x + 62, cy, w - 62, 2)
            cy += 24 if text_width(_counts_text(shown), 11) < w - 100 else 46
    extra = []
    if bc["lawyer_to"]:
        extra.append(f"the Lawyer: half the deal to {bc['lawyer_to']}")
    if bc["fund_paid"]:
        extra.append(f"gold paid in deals: {bc['fund_paid']}")
    for line in extra:
        body.append(text(x, cy + 12, line, 11, _GREY))
        cy += 16
    heading = "Border check" if live else "Last border check"
    h = cy - y + 8
    return _box(y, h, heading) + body, y + h


def _fit(s: str, width: float, size: float) -> str:
    """``s``, cut with an ellipsis to about ``width`` pixels at font ``size``."""
    room = int(width / (size * 0.6))
    return s if len(s) <= room else s[:room - 1] + "…"


def _table_box(scene: dict, y: float, bottom: float) -> list[str]:
    """The table box from ``y`` to ``bottom``: round order, piles, the end, Night Raid, the
    main resources in the middle, the discard pile (each as far as there is room). Drawn from
    those facts of ``scene`` alone, and kept by them as :func:`_seat_row` keeps a row."""
    facts = {key: scene[key] for key in ("round_order", "runouts", "draw_pile", "last_round",
                                         "night_raid_by", "main_resources_in_middle",
                                         "discard_pile")}
    facts["over"] = scene["phase"] == "game over"
    return list(_TABLE_BOXES.get(_draw_table_box, facts, y, bottom))


def _draw_table_box(scene: dict, y: float, bottom: float) -> list[str]:
    x, w = _PANEL_X + 12, _PANEL_W - 24
    out = _box(y, bottom - y, "The table")
    lines = [("round order: " + " → ".join(scene["round_order"]), "#212121")]
    runs = f", ran out {scene['runouts']}×" if scene["runouts"] else ""
    lines.append((f"draw pile: {scene['draw_pile']} cards{runs}", "#212121"))
    if scene["last_round"] and not scene["over"]:
        lines.append((f"the end is near: round {scene['last_round']} is the last", _RED))
    if scene["night_raid_by"]:
        lines.append((f"Night Raid this round by {scene['night_raid_by']}", "#4a0072"))
    cy = y + 30
    for line, colour in lines:
        out.append(text(x, cy + 12, line, 12, colour, bold=colour == _RED))
        cy += 18
    middle = _main_chips(scene["main_resources_in_middle"], points=True)
    out.append(text(x, cy + 14, "main resources in the middle:"
                    + ("" if middle else " none left"), 12, "#212121"))
    cy += 20
    if middle:
        rows = 1 if sum(_chip_w(c) + _GAP for c in middle) <= w else 2
        out += _flow(middle, x, cy, w, rows)
        cy += rows * (_CHIP_H + _GAP) + 4
    k = sum(scene["discard_pile"].values())
    out.append(text(x, cy + 12, f"discard pile (open): {k} cards", 12, "#212121"))
    cy += 18
    rows = int((bottom - cy - 6) // (_CHIP_H + _GAP))
    if rows > 0:
        out += _flow(_card_chips(scene["discard_pile"], "on the discard pile: "), x, cy, w, rows)
    return out


def _scores_box(scene: dict, y: float) -> tuple[list[str], float]:
    """The final scores, highest first, from ``y``; its elements and its bottom."""
    x = _PANEL_X + 12
    order = sorted(range(scene["num_players"]), key=lambda p: (-scene["scores"][p], p))
    h = 34 + 20 * len(order)
    out = _box(y, h, "Final scores")
    for i, p in enumerate(order):
        seat = f"p{p}"
        won = seat in (scene["winners"] or [])
        out.append(text(x, y + 48 + 20 * i, f"{seat}: {scene['scores'][p]}"
                        + ("  ★ wins" if won else ""), 14, _GREEN if won else "#212121",
                        bold=won))
    return out, y + h


def _description(scene: dict) -> str:
    """The picture in sentences (the document's ``<desc>``)."""
    parts = [_headline(scene) + "."]
    if scene["last_action"]:
        parts.append(f"Last move: {scene['last_action']['seat']} chose "
                     f"{scene['last_action']['action']}.")
    for seat in scene["seats"]:
        badge = next((b for b, s in scene["inspectors"].items() if s == seat["seat"]), None)
        parts.append(_seat_summary(seat, badge, seat["seat"] == scene["viewer"],
                                   scene["to_move"] == seat["seat"]) + ".")
    bc = scene["border_check"]
    if bc is not None and bc["outcome"] not in (None, "pending"):
        parts.append(f"The crate of {bc['crate_of']}: {_outcome(bc)[0].lower()}.")
    if scene["scores"] is not None:
        parts.append("Scores: " + ", ".join(f"p{p} {s}" for p, s in enumerate(scene["scores"]))
                     + ".")
    return " ".join(parts)


def paint(scene: dict) -> str:
    """The SVG document of ``scene`` (:mod:`.scene`): the same scene, the same bytes."""
    n = scene["num_players"]
    width, height = canvas_size(n)
    body = [rect(0, 0, width, height, "#eceff1")] + _header(scene)
    top = _HEADER + _MARGIN
    row = min(128, (height - top - _MARGIN) // n)
    for i, seat in enumerate(scene["seats"]):
        body.append(_seat_row(scene, seat, top + i * row, row - 6))
    y = top
    if scene["scores"] is not None:
        box, y = _scores_box(scene, y)
        body += box
        y += 10
    box, y = _border_check(scene, y, height - _MARGIN)
    body += box
    if height - _MARGIN - y >= 120:
        body += _table_box(scene, y + 10, height - _MARGIN)
    who = f"the view of {scene['viewer']}" if scene["viewer"] else "the whole table"
    return document(width, height, f"BORDERS: {_headline(scene)} ({who})", _description(scene),
                    body)


def painter_tables() -> dict:
    """What ``paint.js`` reads of the rules and of :mod:`.svg`, as JSON-able data: the cards'
    keys, classes, values, fines and names, the class names, the main resources and their
    points, the phases of a border check, the font."""
    return {"font": FONT, "card_keys": list(CARD_KEYS),
            "card_class": [int(c) for c in CARD_CLASS],
            "card_value": [int(v) for v in CARD_VALUE], "card_fine": [int(f) for f in CARD_FINE],
            "card_names": list(CARD_NAMES), "class_names": list(CLASS_NAMES),
            "main_names": list(MAIN_NAMES), "main_points": [int(p) for p in MAIN_POINTS],
            "border_check_phases": list(BORDER_CHECK_PHASES)}


@functools.lru_cache(maxsize=1)
def painter_script() -> str:
    """JavaScript that defines ``paintScene(scene)``: :func:`paint` in a browser, the same
    string for the same scene (``paint.js`` with :func:`painter_tables`)."""
    source = resources.files(__package__).joinpath("paint.js").read_text(encoding="utf-8")
    return (f"{source}\nconst paintScene = makePainter("
            f"{json.dumps(painter_tables(), separators=(',', ':'))});\n")
