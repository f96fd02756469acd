"""Reading a request: its JSON body (bounded in size) and the fields the routes take.

:func:`read_json` reads at most ``limit`` bytes of a body (a longer one is refused with 413
before the rest is read) and parses it as one JSON object; :func:`new_game` checks the fields
of a new game with the argument rules of :mod:`borders_sim.checks`, so the API refuses what the
library refuses, with the same words. Every problem is a :class:`~.refusals.Refused` (a 4xx).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from starlette.requests import ClientDisconnect, Request

from ..checks import as_bool, as_int, as_seed, as_sequence, shown
from ..rules import state as st
from .refusals import Refused

#: The largest body a request may have, in bytes, by default (a new game takes under 300).
MAX_BODY = 16384
#: The most digits an integer of a body may have (a seed, the largest, has 20).
MAX_DIGITS = 30


async def read_json(request: Request, limit: int = MAX_BODY) -> dict:
    """The body of ``request``: one JSON object of at most ``limit`` bytes (an empty body is
    ``{}``).

    Raises:
        Refused: 413 for a longer body, 415 for a body not sent as ``application/json``,
            400 for one that is not a JSON object or a client that hung up mid-body.
    """
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or len(declared) > 12
                                 or int(declared) > limit):
        raise Refused(413, f"the body may have at most {limit} bytes")
    body = bytearray()
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                raise Refused(413, f"the body may have at most {limit} bytes")
    except ClientDisconnect:  # (the client hung up: no one to answer, and not a bug)
        raise Refused(400, "the client closed the connection before its body was sent") \
            from None
    if not body.strip():
        return {}
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        # (a form or text/plain body is what another site's page may send without asking)
        raise Refused(415, f"the body must be JSON sent as Content-Type: application/json, "
                           f"got {kind or 'no Content-Type'}")
    try:
        value = json.loads(body.decode("utf-8"), parse_int=_small_int)
    except RecursionError:
        raise Refused(400, "the body is not valid JSON (nested too deeply)") from None
    except UnicodeDecodeError:
        raise Refused(400, "the body is not UTF-8 text") from None
    except ValueError as err:  # json.JSONDecodeError, or an integer _small_int refused
        why = err.msg if isinstance(err, json.JSONDecodeError) else str(err)
        raise Refused(400, f"the body is not valid JSON ({why})") from None
    if not isinstance(value, dict):
        raise Refused(400, f"the body must be a JSON object, got {type(value).__name__}")
    return value


def same_origin(request: Request) -> None:
    """Refuse a request sent by a page of another origin (a browser's ``Origin`` header names
    it; a client that is not a browser sends none).

    Raises:
        Refused: 403 naming the origin.
    """
    origin = request.headers.get("origin")
    own = f"{request.url.scheme}://{request.headers.get('host', '')}"
    if origin is not None and origin != own:
        raise Refused(403, f"a page of another origin ({origin[:80]}) may not change a game "
                           "here")


def bearer(request: Request) -> str | None:
    """The token of the request's ``Authorization: Bearer TOKEN`` header, or None.

    Raises:
        Refused: 400 for an Authorization header of another form.
    """
    header = request.headers.get("authorization")
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip() or len(token) > 128:
        raise Refused(400, "the Authorization header must be \"Bearer TOKEN\" (your seat's "
                           "token)")
    return token.strip()


def _small_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise ValueError(f"an integer of {len(text.lstrip('-'))} digits")
    return int(text)


def only(body: dict, fields: Sequence[str]) -> None:
    """Refuse (400) a body with a field other than ``fields``."""
    unknown = [k for k in body if k not in fields]
    if unknown:
        raise Refused(400, f"unknown field {shown(unknown[0])}; the fields are "
                           f"{', '.join(fields)}")


@dataclass(frozen=True)
class NewGame:
    """A new game as a request asks for it: ``players``, the person's ``seat`` (``None``:
    watch bots), the bot specs of the other seats in seat order (``None``: the default
    lineup), the deal's ``seed`` and whether the action cards are in play."""

    players: int
    seat: int | None
    bots: tuple[str, ...] | None
    seed: int
    action_cards: bool
    people: tuple[int, ...] | None = None  # several people's seats (then ``seat`` is None)


NEW_GAME_FIELDS = ("players", "seat", "bots", "seed", "action_cards", "people")


def new_game(body: dict, menu: Sequence[str], allow_seeds: bool = False) -> NewGame:
    """The new game ``body`` asks for, its bots among the specs of ``menu``; its seed drawn
    from :mod:`secrets` unless ``allow_seeds`` lets the request choose it (replication).

    Raises:
        Refused: 400 naming the first bad field, 403 a seed the server does not let a
            request choose.
    """
    only(body, NEW_GAME_FIELDS)
    if "seed" in body and not allow_seeds:
        raise Refused(403, "this server draws every game's seed in secret: a request may "
                           "choose one only when it was started with --allow-seeds")
    try:
        players = as_int(body.get("players", 4), "players", st.MIN_PLAYERS, st.MAX_PLAYERS)
        seat = body.get("seat", 0)
        seat = None if seat is None else as_int(seat, "seat", 0, players - 1)
        seed = as_seed(body["seed"]) if "seed" in body else secrets.randbits(64)
        action_cards = as_bool(body.get("action_cards", True), "action_cards")
        people = None
        if "people" in body:
            if "seat" in body:
                raise ValueError("give \"seat\" (one person) or \"people\" (their seats), "
                                 "not both")
            seat = None
            people = tuple(as_int(p, "people item", 0, players - 1)
                           for p in as_sequence(body["people"], "people"))
            if not people or len(set(people)) != len(people):
                raise ValueError("\"people\" must list one or more different seats")
        bots = body.get("bots")
        if bots is not None:
            bots = tuple(as_sequence(bots, "bots"))
    except ValueError as err:
        raise Refused(400, str(err)) from None
    if bots is not None:
        persons = len(people) if people else (seat is not None)
        want = players - persons
        if len(bots) != want:
            raise Refused(400, f"\"bots\" must list {want} bot(s) for {players} players "
                               f"{'besides the people' if persons else '(a watch game)'}, "
                               f"got {len(bots)}")
        unknown = [b for b in bots if not isinstance(b, str) or b not in menu]
        if unknown:
            raise Refused(400, f"unknown bot {shown(unknown[0])}; this server's bots: "
                               f"{', '.join(menu)}")
    return NewGame(players, seat, bots, seed, action_cards, people)


def seat_query(text: str | None, default: int | None) -> int | None:
    """The ``seat`` query parameter: a seat number, ``table`` (``None``), or ``default`` when
    absent.

    Raises:
        Refused: 400 for anything else.
    """
    if text is None:
        return default
    if text == "table":
        return None
    if text.isascii() and text.isdigit() and len(text) <= 2:
        return int(text)
    raise Refused(400, f"seat must be a seat number or \"table\", got {shown(text)}")
