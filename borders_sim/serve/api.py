"""The JSON API of ``borders-sim serve``: routes under ``/api``.

=========================================  ==================================================
``GET /api/bots``                          the bots a lineup may name, the player counts,
                                           and per player count the default lineups
                                           (``{"play": [...], "watch": [...]}``)
``GET /api/records``                       the recorded games the server may open
``POST /api/games``                        a new game: ``{"players", "seat", "bots", "seed",
                                           "action_cards"}`` (``"seat": null`` watches bots;
                                           ``"people": [seats]`` instead of ``"seat"``: a
                                           person in each, the answer's ``"people"`` their
                                           tokens and join links;
                                           ``"seed"`` only on a server started with
                                           ``--allow-seeds``: each seed is secret otherwise)
                                           or ``{"record": NAME}``; answers ``{"id", "game"}``
``GET /api/games/ID``                      the game's status (``"game"``)
``GET /api/games/ID/view?seat=P|table``    a seat's view: ``"view"`` (its ``observe_json``),
                                           ``"svg"``, ``"log"`` (the moves as it saw them)
``GET /api/games/ID/legal``                your legal actions: ``[{"id", "action"}]``
``POST /api/games/ID/act``                 ``{"action": id or string}``: your decision
``POST /api/games/ID/step``                the next decision of the bot to move
``DELETE /api/games/ID``                   drop the game
=========================================  ==================================================

**Several people.** In a game of ``"people"``, a request carries its seat's token as
``Authorization: Bearer TOKEN``: it sees and acts for that seat only (403 for another's view,
409 out of its turn), and a request without one sees no seat while the game runs. A game of
one person (``"seat": P``) needs no token: its id is its secret.

A ``"game"`` status holds the kind (``play``, ``watch``, ``record``), the seats' players,
round, phase, who is to move (``"your_turn"``), the number of moves, and the scores and winners
once it is over. Every refusal is a 4xx with ``{"error": "one line"}``: 400 a malformed
request, 403 a view that is hidden now, 404 an unknown game or record, 409 a move out of turn
or after the end, 413 a body over the limit, 415 a body not sent as ``application/json``, 429
a new game while every open game has a person in it,
422 an illegal action or a trace that does not replay. A request that changes a game (``POST``,
``DELETE``) from a page of another origin (its ``Origin`` header) is refused with 403: another
site's page cannot create, play or drop games here. Game work runs in Starlette's thread pool, one request at a time per game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ..agents import Seat
from ..arena import default_lineup
from ..arena.records import TraceError, read_trace, replay
from ..rules import state as st
from ..rules.config import GameConfig
from . import record_files
from .bodies import MAX_BODY, bearer, new_game, only, read_json, same_origin, seat_query
from .refusals import Refused
from .sessions import Sessions
from .study import CONSENT, Study
from .table import Table, play_table, record_table


class Api:
    """The routes of the API over the open games ``sessions``.

    Args:
        sessions: the open games.
        menu: the seats a new game may name, by name (:func:`~.app.bot_menu`).
        records: the directory of the recorded games (``None``: none may be opened).
        max_body: the largest request body, in bytes.
        allow_seeds: whether a request may choose a game's seed (else each is secret).
        stand_in: the bot that plays an overdue person's turn and the seconds a turn may
            wait (:class:`~.table.Table`), or ``None``: a turn waits for ever.
        study: where finished games with people are recorded (:mod:`.study`), or ``None``.
    """

    def __init__(self, sessions: Sessions, menu: Mapping[str, Seat], records: Path | None,
                 max_body: int = MAX_BODY, allow_seeds: bool = False,
                 stand_in: tuple[Seat, float] | None = None, study: Study | None = None
                 ) -> None:
        self.sessions = sessions
        self.stand_in = stand_in
        self.study = study
        self.allow_seeds = allow_seeds
        self.menu = dict(menu)
        self.records = records
        self.max_body = max_body

    def routes(self) -> list[Route]:
        return [
            Route("/api/bots", self.bots, methods=["GET"]),
            Route("/api/records", self.record_names, methods=["GET"]),
            Route("/api/games", self.create, methods=["POST"]),
            Route("/api/games/{game_id}", self.status, methods=["GET"]),
            Route("/api/games/{game_id}", self.delete, methods=["DELETE"]),
            Route("/api/games/{game_id}/view", self.view, methods=["GET"]),
            Route("/api/games/{game_id}/legal", self.legal, methods=["GET"]),
            Route("/api/games/{game_id}/act", self.act, methods=["POST"]),
            Route("/api/games/{game_id}/step", self.step, methods=["POST"]),
        ]

    async def bots(self, request: Request) -> JSONResponse:
        return JSONResponse({
            "bots": list(self.menu),
            "players": list(range(st.MIN_PLAYERS, st.MAX_PLAYERS + 1)),
            "seeds": self.allow_seeds,  # (whether a new game may name its seed)
            "study": None if self.study is None else CONSENT,  # (the join page shows it)
            # per player count the game accepts: the bots of the other seats when a person
            # plays, and of every seat when the table is watched
            "default_lineups": {n: {"play": list(default_lineup(n - 1)),
                                    "watch": list(default_lineup(n))}
                                for n in range(st.MIN_PLAYERS, st.MAX_PLAYERS + 1)}})

    async def record_names(self, request: Request) -> JSONResponse:
        names = await run_in_threadpool(record_files.listing, self.records)
        return JSONResponse({"records": names})

    async def create(self, request: Request) -> JSONResponse:
        same_origin(request)
        body = await read_json(request, self.max_body)
        if "record" in body:
            only(body, ("record",))
            table = await run_in_threadpool(self._open_record, body["record"])
        else:
            table = await run_in_threadpool(self._new_table, body)
        game_id = self.sessions.add(table)
        answer = {"id": game_id, "game": table.status(table.human)}
        if table.tokens:  # (each person's token, and the page's link that carries it)
            answer["people"] = [{"seat": seat, "token": token,
                                 "join": f"/#game={game_id}&token={token}"}
                                for token, seat in sorted(table.tokens.items(),
                                                          key=lambda item: item[1])]
        return JSONResponse(answer, status_code=201)

    async def status(self, request: Request) -> JSONResponse:
        return await self._with_table(request, lambda table, person: {
            "game": table.status(person)})

    async def delete(self, request: Request) -> JSONResponse:
        same_origin(request)
        game_id = request.path_params["game_id"]
        await run_in_threadpool(self.sessions.remove, game_id)
        return JSONResponse({"deleted": game_id})

    async def view(self, request: Request) -> JSONResponse:
        asked = request.query_params.get("seat")
        return await self._with_table(
            request, lambda table, person: table.view(seat_query(asked, person), person))

    async def legal(self, request: Request) -> JSONResponse:
        return await self._with_table(request, Table.legal)

    async def act(self, request: Request) -> JSONResponse:
        same_origin(request)
        body = await read_json(request, self.max_body)
        only(body, ("action",))
        if "action" not in body:
            raise Refused(400, "the body must be {\"action\": an action id or string}")
        return await self._with_table(request, lambda table, person: table.act(body["action"],
                                                                                person))

    async def step(self, request: Request) -> JSONResponse:
        same_origin(request)
        only(await read_json(request, self.max_body), ())
        return await self._with_table(request, Table.step)

    # --- helpers ---------------------------------------------------------------------------
    async def _with_table(self, request: Request,
                          work: Callable[[Table, int | None], Any]) -> JSONResponse:
        """``work(table, person)`` of the request's game, in the thread pool, the table held;
        ``person``: the seat the request plays (:meth:`Table.person_of` of its bearer token)."""
        game_id = request.path_params["game_id"]
        token = bearer(request)

        def held() -> Any:
            with self.sessions.use(game_id) as table:
                return work(table, table.person_of(token))
        return JSONResponse(await run_in_threadpool(held))

    def _new_table(self, body: dict) -> Table:
        asked = new_game(body, self.menu, self.allow_seeds)
        people = asked.people or (() if asked.seat is None else (asked.seat,))
        bots = asked.bots if asked.bots is not None else \
            default_lineup(asked.players - len(people))
        config = GameConfig(num_players=asked.players, action_cards=asked.action_cards)
        table = play_table(config, asked.seed, asked.seat, [self.menu[name] for name in bots],
                           people=asked.people, stand_in=self.stand_in)
        if self.study is not None:
            table.on_end = self.study.write
        return table

    def _open_record(self, name: Any) -> Table:
        path = record_files.resolve(self.records, name)
        try:
            trace = read_trace(path)
            replay(trace, echo=lambda _line: None)
        except TraceError as err:
            raise Refused(422, f"not a trace that replays: "
                               f"{str(err).replace(str(path), name)}") from None
        return record_table(trace, name)
