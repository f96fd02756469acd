"""The web app of ``borders-sim serve``: the page and the JSON API on Starlette.

:func:`create_app` assembles :mod:`.page` and :mod:`.api` over one :class:`~.sessions.Sessions`
and answers every error as JSON of one line: a :class:`~.refusals.Refused` with its 4xx, an
unknown route or method with 404/405 (a path with a trailing slash too, never a redirect), a
``Host`` header the server does not answer to with 400 (:mod:`.hosts`); anything else is a bug, logged with its traceback on the server and answered with a
generic 500 that shows none of it (:attr:`~starlette.applications.Starlette.state` ``bugs``
counts them, so a test can check that junk never reaches it).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse

from ..agents import REGISTRY
from ..agents import Seat, as_seat
from .api import Api
from .bodies import MAX_BODY
from .hosts import AllowedHosts
from .page import page_routes
from .refusals import Refused
from .sessions import Sessions
from .study import Study

log = logging.getLogger("borders_sim.serve")


@dataclass(frozen=True)
class Settings:
    """How the app runs.

    Attributes:
        records: the directory of recorded games a request may open (``None``: none).
        idle_minutes: a game no request used for this long is dropped.
        max_games: at most this many open games (a new one drops the one idle the longest).
        bots: bots offered besides the registry's (specs, ``ppo@PATH``, ``ppo:argmax``, or
            your own, ``MODULE:NAME``: :func:`~borders_sim.agents.seats.as_seat`): the only way
            a policy file or a module is named, from the command line, never by a request.
        max_body: the largest request body, in bytes.
        allowed_hosts: the ``Host`` headers answered (``("*",)``: any).
        allow_seeds: whether a request may choose a game's seed (replication); otherwise
            every seed is drawn from :mod:`secrets` and no answer reveals it, so no one can
            deal another's game to see its hands.
        seat_timeout: seconds a turn may wait (``None``: for ever); past them the turn is
            overdue: a person's seat is played for that decision by ``stand_in`` (marked in
            the game's moves), and any page may step the game.
        stand_in: the bot (a name of the menu) that plays an overdue person's decision.
        study: a study's directory (``None``: none): the join page shows its consent line and
            every finished game with a person is recorded there (:mod:`.study`).
    """

    records: Path | None = None
    idle_minutes: float = 30.0
    max_games: int = 64
    bots: tuple[str, ...] = ()
    max_body: int = MAX_BODY
    allowed_hosts: tuple[str, ...] = ("*",)
    allow_seeds: bool = False
    seat_timeout: float | None = None
    stand_in: str = "honest"
    study: Path | None = None


def bot_menu(extra: tuple[str, ...] = ()) -> dict[str, Seat]:
    """The seats a new game may name, by name: the registry's bots and ``extra``, each made
    once here (:func:`~borders_sim.agents.seats.as_seat`); a request names one of them, never
    a module or a file.

    Raises:
        ValueError: an ``extra`` bot that cannot be made (naming why).
    """
    seats = [as_seat(name) for name in REGISTRY] + [as_seat(spec) for spec in extra]
    return {seat.name: seat for seat in seats}


def create_app(settings: Settings = Settings()) -> Starlette:
    """The app: the page at ``/``, the API under ``/api`` (:mod:`.api`).

    Raises:
        ValueError: a bot spec of ``settings.bots`` that cannot be made, or a records
            directory that is not a directory.
    """
    records = None
    if settings.records is not None:
        records = Path(settings.records).resolve()
        if not records.is_dir():
            raise ValueError(f"the records directory {str(settings.records)!r} is not a "
                             "directory")
    sessions = Sessions(settings.idle_minutes * 60.0, settings.max_games)
    menu = bot_menu(settings.bots)
    stand_in = None
    if settings.seat_timeout is not None:
        if settings.stand_in not in menu:
            raise ValueError(f"the stand-in bot {settings.stand_in!r} is not one the server "
                             f"offers ({', '.join(menu)})")
        stand_in = (menu[settings.stand_in], float(settings.seat_timeout))
    study = None if settings.study is None else Study(settings.study)
    api = Api(sessions, menu, records, settings.max_body, settings.allow_seeds, stand_in,
              study)
    app = Starlette(
        routes=[*page_routes(), *api.routes()],
        middleware=[Middleware(AllowedHosts, hosts=list(settings.allowed_hosts))],
        exception_handlers={Refused: _refused, HTTPException: _http_error, Exception: _bug})
    app.router.redirect_slashes = False  # ("/api/games/" is a 404 of JSON, not a redirect)
    app.state.sessions = sessions
    app.state.bugs = 0
    return app


async def _refused(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, Refused)
    return JSONResponse({"error": exc.reason}, status_code=exc.status)


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, HTTPException)
    reason = {404: "no such page or API route", 405: "method not allowed here"}.get(
        exc.status_code, " ".join(str(exc.detail).split()))
    return JSONResponse({"error": reason}, status_code=exc.status_code, headers=exc.headers)


async def _bug(request: Request, exc: Exception) -> JSONResponse:
    request.app.state.bugs += 1
    log.error("a bug answering %s %s", request.method, request.url.path, exc_info=exc)
    return JSONResponse({"error": "internal error (a bug in borders-sim serve; the server "
                                  "log has the details)"}, status_code=500)
