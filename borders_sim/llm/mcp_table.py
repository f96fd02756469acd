"""One seat of a BORDERS table for any MCP-capable agent: ``borders-sim mcp``, a Model Context
Protocol server (the ``mcp`` SDK, over stdio) whose tools play one seat against bots.

The tools (each a method of :class:`SeatTable`, which holds the game and needs no MCP):

* ``new_game(players, bots, seat, seed)``: deal a new game, the agent at ``seat``, the bots
  (names or specs, comma-separated) in the other seats in order; the bots play until the
  agent's first decision;
* ``view()``: what the agent's seat knows now, as ``observe_text`` writes it (its legal actions
  with their ids at the end when it is to move);
* ``legal_actions()``: the legal actions as a JSON array of ``{"id", "action"}`` objects;
* ``act(action, talk)``: play an action, by id or by its exact text (the parse of
  :func:`~.protocol.parse_reply`, which never guesses: anything else is refused with its
  reason and nothing is played); the bots then play until the agent's next decision; the reply
  says what the other seats did meanwhile, as the agent's seat saw it (a packed card stays
  hidden), then the new view, or the final scores;
* ``talk(message)``: a short public message to the table (bots ignore it; it is kept with the
  game's decisions).

The agent sees only what its seat may know: every text comes from the seat's observation.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence

from ..batch.seeds import bot_seed
from ..checks import as_int, as_seed
from ..game.drawing.scene import seen_action
from ..game.game import Game
from ..game.turns import play_turns
from ..game.views import observe_text
from ..rules.config import GameConfig
from ..rules.state import MAX_PLAYERS, MIN_PLAYERS
from .protocol import MAX_TALK_CHARS, parse_reply

#: The bots by default, cycled over the other seats.
DEFAULT_BOTS = ("honest", "bluffer", "strict")


class SeatTable:
    """One game at a time, one seat the agent's, the others bots (module docstring)."""

    def __init__(self, players: int = 4, bots: str | Sequence[str] = DEFAULT_BOTS,
                 seat: int = 0, seed: int | None = None) -> None:
        self.game: Game | None = None
        self.new_game(players, bots, seat, seed)

    def new_game(self, players: int = 4, bots: str | Sequence[str] = DEFAULT_BOTS,
                 seat: int = 0, seed: int | None = None) -> str:
        """Deal a new game (module docstring); returns its line and the agent's view.

        Raises:
            ValueError: a bad player count, seat, seed or bot (named).
        """
        from ..agents.seats import as_seat  # (the seats are the agents' layer, above this one)

        players = as_int(players, "players", lo=MIN_PLAYERS, hi=MAX_PLAYERS)
        seat = as_int(seat, "seat", lo=0, hi=players - 1)
        seed = secrets.randbits(63) if seed is None else as_seed(seed)
        names = [b.strip() for b in bots.split(",")] if isinstance(bots, str) else list(bots)
        if not names or not all(names):
            raise ValueError("bots must name at least one bot, e.g. honest,bluffer,strict")
        others = [names[k % len(names)] for k in range(players - 1)]
        seats = [as_seat(name) for name in others]
        lineup = others[:seat] + ["you"] + others[seat:]
        game = Game(GameConfig(num_players=players), seed=seed)
        bots_made = [s.make(bot_seed(seed, p)) for p, s in
                     zip([p for p in range(players) if p != seat], seats)]
        deciders: list = list(bots_made)
        deciders.insert(seat, None)
        self.game, self.seat, self.seed, self.lineup = game, seat, seed, lineup
        self.deciders, self.talked = deciders, []
        seen = self._bots_play()
        return "\n".join([f"new game: {players} players, seed {seed}; you are p{seat}; "
                          f"seats: {', '.join(f'p{p} {n}' for p, n in enumerate(lineup))}",
                          *seen, "", self.view()])

    def view(self) -> str:
        """What the agent's seat knows now (module docstring)."""
        return observe_text(self.game, self.seat)

    def legal_actions(self) -> str:
        """The agent's legal actions now, a JSON array of ``{"id", "action"}`` objects (empty
        unless it is to move)."""
        return json.dumps(self._legal_list())

    def act(self, action: int | str, talk: str | None = None) -> str:
        """Play ``action`` (an id or its exact text) for the agent, with ``talk`` if given;
        the bots play until the agent's next decision (module docstring).

        Raises:
            ValueError: the game is over, it is not the agent's turn, or ``action`` names no
                legal action (the reason, as the parse gives it); nothing is played.
        """
        game = self.game
        if game.is_terminal:
            raise ValueError("the game is over: new_game deals another")
        if game.current_player != self.seat:
            raise ValueError(f"it is p{game.current_player}'s turn, not yours (p{self.seat})")
        reply = parse_reply(json.dumps({"action": action, **({"talk": talk} if talk else {})}),
                            [(x["id"], x["action"]) for x in self._legal_list()])
        if not reply.ok:
            raise ValueError(f"not played: {reply.failure}")
        if reply.talk:
            self.talk(reply.talk)
        game.step(int(reply.action))
        seen = [f"you: {game.action_to_string(int(reply.action))}", *self._bots_play()]
        return "\n".join([*seen, "", self.view()])

    def talk(self, message: str) -> str:
        """Say ``message`` to the table (public; bots ignore it).

        Raises:
            ValueError: not a string of 1 to :data:`~.protocol.MAX_TALK_CHARS` characters.
        """
        if not isinstance(message, str) or not 0 < len(message.strip()) <= MAX_TALK_CHARS:
            raise ValueError(f"talk must be a message of 1 to {MAX_TALK_CHARS} characters")
        steps = int(self.game.state[0]["steps"])
        self.talked.append({"after_decisions": steps, "seat": self.seat, "talk": message})
        return f"p{self.seat} says: {json.dumps(message, ensure_ascii=False)}"

    def _legal_list(self) -> list[dict]:
        game = self.game
        if game.is_terminal or game.current_player != self.seat:
            return []
        return [{"id": int(a), "action": game.action_to_string(int(a))}
                for a in game.legal_actions()]

    def _bots_play(self) -> list[str]:
        """The bots' decisions until the agent's turn or the end, as the agent saw them, then
        the final scores if the game ended."""
        game, menu, seen = self.game, self.game.config.gold_menu, []

        def note(p: int, a: int) -> None:
            seen.append(f"p{p}: {seen_action(p, a, self.seat, menu)['action']}")

        play_turns(game, self.deciders, on_step=note)
        if game.is_terminal:
            scores, winners = game.scores(), game.winners()
            you = f"you: {scores[self.seat]}" + (", a winner" if self.seat in winners else "")
            seen.append(f"the game is over: scores {scores}, winners "
                        f"{', '.join(f'p{p}' for p in winners)} ({you})")
        return seen


def mcp_server(table: SeatTable):
    """The MCP server of ``table``'s tools (needs the ``mcp`` SDK, version 2); a refusal (a
    ValueError of the table) reaches the agent as the tool's error, its reason in words."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    def told(call):
        """``call`` with a refusal turned into the tool's error the agent reads."""
        def tool(*args, **kwargs):
            try:
                return call(*args, **kwargs)
            except ValueError as err:
                raise ToolError(str(err)) from None
        return tool

    server = MCPServer("borders-sim", instructions=(
        "You play one seat of BORDERS, a card game of smuggling and bluffing, against bots. "
        "Call view to see your seat, legal_actions for the actions you may take, act to play "
        "one (by id or exact text). new_game deals another game."))

    @server.tool(description=SeatTable.new_game.__doc__.split("\n\n")[0])
    def new_game(players: int = 4, bots: str = ",".join(DEFAULT_BOTS), seat: int = 0,
                 seed: int | None = None) -> str:
        return told(table.new_game)(players, bots, seat, seed)

    @server.tool(description=SeatTable.view.__doc__)
    def view() -> str:
        return table.view()

    @server.tool(description=SeatTable.legal_actions.__doc__)
    def legal_actions() -> str:
        return table.legal_actions()

    @server.tool(description=SeatTable.act.__doc__.split("\n\n")[0])
    def act(action: int | str, talk: str | None = None) -> str:
        return told(table.act)(action, talk)

    @server.tool(description=SeatTable.talk.__doc__.split("\n\n")[0])
    def talk(message: str) -> str:
        return told(table.talk)(message)

    return server

