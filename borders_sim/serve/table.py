"""One game the server holds: a :class:`Table`, and who may see what of it.

A table is a :class:`~borders_sim.Game` with a player for every seat: a bot (made from its spec
and seeded as a tournament seeds it, ``bot_seed(seed, seat)``), the decisions of a recorded
game, or, in one seat at most, the person at the browser (or the program driving the API).
There are three kinds:

* ``play``: a person in one seat, bots in the others;
* ``watch``: bots in every seat;
* ``record``: a recorded game (:mod:`borders_sim.arena.records`), checked by replaying it
  whole when it is opened, then stepped through decision by decision.

**What may be seen.** While a ``play`` game runs, only the person's own seat may be seen: its
view is :func:`~borders_sim.game.views.observe_json` of that seat (built from the seat's
observation alone) and its picture :func:`~borders_sim.game.drawing.seat_svg` of that view; the
moves of the log are the moves as that seat saw them (a card another seat packed stays hidden,
:func:`~borders_sim.game.drawing.seen_action`), and no score is given before the end. Any seat,
or the whole table, may be seen in a ``watch`` or ``record`` game, and in a ``play`` game once
it is over.

Bot decisions go through :func:`~borders_sim.game.turns.play_turns`, the one game loop of the
package, one decision per :meth:`Table.step`.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..agents import Seat
from ..arena.records import Trace
from ..batch.seeds import bot_seed
from ..game.drawing import seen_action
from ..game.game import Game
from ..game.turns import Decider, play_turns
from ..game.views import observe_json
from ..checks import shown
from ..rules.actions import NUM_ACTIONS, IllegalActionError
from ..rules.config import GameConfig
from .refusals import Refused

KINDS = ("play", "watch", "record")
#: Random bytes of a person's token (its text is 32 characters of ``[A-Za-z0-9_-]``).
TOKEN_BYTES = 24


@dataclass(eq=False)
class Table:
    """A game with its players, and the moves taken so far.

    Attributes:
        game: the game.
        kind: ``"play"``, ``"watch"`` or ``"record"``.
        names: what plays each seat: a bot spec, or ``"you"`` in the person's seat.
        human: the person's seat of a ``play`` game, else ``None``.
        deciders: the player of each seat (``None`` in the person's seat).
        source: the trace's file name of a ``record`` game.
        moves: ``(seat, action id)`` of every decision taken, in order.
        lock: held while a request reads or changes the table.
        used: when a request last used the table (``time.monotonic``).
        timeout: the seconds a turn may wait before it is overdue (``None``: for ever).
        stand_ins: the players of the people's seats for their overdue turns, by seat.
        stand_in_name: what plays those turns (a bot's name).
        turn_began: when the seat to move got its turn (``time.monotonic``).
        stood_in: the indices in ``moves`` of the decisions a stand-in took.
        seed: the seed the game was dealt from (``None``: a recorded game's).
        seconds: how long each decision of ``moves`` took, from its seat's turn.
        notes: a bot's note on a decision (a language model's tries and talk), by move index.
        on_end: called with the table once its game is over (a study writes its record).
    """

    game: Game
    kind: str
    names: list[str]
    human: int | None
    deciders: list[Decider | None]
    source: str | None = None
    moves: list[tuple[int, int]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    used: float = field(default_factory=time.monotonic)
    #: the people's seats by their tokens, in a game of several people (``"people"``): a
    #: request acts and sees for the seat of the token it carries, and for none without one
    tokens: dict[str, int] = field(default_factory=dict)
    timeout: float | None = None
    stand_ins: dict[int, Decider] = field(default_factory=dict)
    stand_in_name: str | None = None
    turn_began: float = field(default_factory=time.monotonic)
    stood_in: list[int] = field(default_factory=list)
    seed: int | None = None
    seconds: list[float] = field(default_factory=list)
    notes: dict[int, dict] = field(default_factory=dict)
    on_end: Callable[[Table], None] | None = None

    @property
    def overdue(self) -> bool:
        """The seat to move has waited past :attr:`timeout`: a person's turn is played by its
        stand-in, and any request may step the game."""
        return (self.timeout is not None and not self.game.is_terminal
                and time.monotonic() - self.turn_began >= self.timeout)

    def person_of(self, token: str | None) -> int | None:
        """The seat a request with ``token`` (its ``Authorization: Bearer``) plays: the
        token's seat in a game of several people (None without a token), else the one
        person's seat (None in a game without a person).

        Raises:
            Refused: 403 for a token that is not one of this game's.
        """
        if not self.tokens:
            return self.human
        if token is None:
            return None
        for known, seat in self.tokens.items():
            if secrets.compare_digest(known, token):
                return seat
        raise Refused(403, "this token is not one of this game's")

    @property
    def has_person(self) -> bool:
        """A person plays this game and it is not over (it is never dropped to make room)."""
        return self.kind == "play" and not self.game.is_terminal

    # --- what may be seen ------------------------------------------------------------------
    def check_visible(self, seat: int | None, person: int | None) -> None:
        """Refuse (403) to show ``seat`` (``None``: the whole table) to the request of
        ``person`` (:meth:`person_of`) when it is not allowed: in a running ``play`` game only
        the person's own seat may be seen; and 400 for a seat the game does not have."""
        if seat is not None and not 0 <= seat < self.game.num_players:
            raise Refused(400, f"seat must be from 0 to {self.game.num_players - 1} in this "
                               f"game, or \"table\"; got {seat}")
        if self.kind == "play" and not self.game.is_terminal and seat != person:
            what = "the whole table" if seat is None else f"p{seat}'s view"
            yours = ("send your seat's token (Authorization: Bearer TOKEN)" if person is None
                     else f"you may see your own seat, p{person}")
            raise Refused(403, f"{what} is hidden while the game runs; {yours}")

    def status(self, person: int | None = None) -> dict:
        """What anyone at the table knows: the kind, the seats' players (``"people"``: the
        people's seats), the round and phase, who is to move, how many moves were taken, and
        the scores once the game is over; ``"human"`` and ``"your_turn"`` are those of the
        request's ``person``."""
        game, over = self.game, self.game.is_terminal
        return {"kind": self.kind, "players": game.num_players, "human": person,
                "people": sorted(self.tokens.values()) if self.tokens else
                ([] if self.human is None else [self.human]),
                "seats": [{"seat": p, "name": name} for p, name in enumerate(self.names)],
                "source": self.source, "round": game.round, "phase": game.phase,
                "to_move": None if over else game.current_player,
                "your_turn": not over and person is not None and game.current_player == person,
                "moves": len(self.moves), "over": over,
                "turn_seconds": round(time.monotonic() - self.turn_began, 1),
                "seat_timeout": self.timeout, "overdue": self.overdue,
                "stood_in": [{"move": i, "seat": self.moves[i][0], "bot": self.stand_in_name}
                             for i in self.stood_in],
                "scores": game.scores() if over else None,
                "winners": game.winners() if over else None}

    def view(self, seat: int | None, person: int | None = None) -> dict:
        """The status, the view of ``seat`` (:func:`observe_json`; the saved-game dict for the
        whole table, ``seat=None``), its picture and the log of the moves as ``seat`` saw them.

        Raises:
            Refused: 403 for a view that may not be seen now, 400 for a seat out of range.
        """
        self.check_visible(seat, person)
        game = self.game
        last = self.moves[-1] if self.moves else None
        out = {"game": self.status(person), "seat": seat,
               "svg": str(game.svg(seat=seat, last_action=last)),
               "log": [seen_action(p, a, seat, game.config.gold_menu) for p, a in self.moves]}
        if seat is None:
            out["table"] = game.to_dict()
        else:
            out["view"] = observe_json(game, seat)
        return out

    def legal(self, person: int | None) -> dict:
        """The legal actions of the request's ``person`` now (``{"id", "action"}``; empty when
        another seat is to move or the game is over).

        Raises:
            Refused: 409 in a game without a person, 403 without a token in a game of
                several people.
        """
        seat = self._person(person)
        actions = observe_json(self.game, seat)["legal_actions"]
        return {"seat": seat, "your_turn": bool(actions), "actions": actions}

    # --- play ------------------------------------------------------------------------------
    def act(self, action: Any, person: int | None) -> dict:
        """Take the decision ``action`` (an action id or its string) of the request's
        ``person``; returns the move and the status.

        Raises:
            Refused: 409 without a person, when the game is over or another seat is to move;
                403 without a token in a game of several people; 422 for an action that is
                not legal now.
        """
        seat = self._person(person)
        self._check_running()
        if self.game.current_player != seat:
            raise Refused(409, f"not your turn: p{self.game.current_player} "
                               f"({self.names[self.game.current_player]}) is to move; POST "
                               "step for its move")
        if isinstance(action, bool) or not isinstance(action, (int, str)):
            raise Refused(400, "\"action\" must be an action id (an int) or an action string")
        if isinstance(action, int) and not 0 <= action < NUM_ACTIONS:
            raise Refused(422, f"no action has id {shown(action)}; ids are 0 to "
                               f"{NUM_ACTIONS - 1} (GET legal lists yours)")
        try:
            a = self.game.string_to_action(action) if isinstance(action, str) else action
            self.game.step(a, player=seat)
        except IllegalActionError as err:
            raise Refused(422, str(err)) from None
        return self._moved(seat, a, person)

    def step(self, person: int | None = None) -> dict:
        """Take the next decision of the bot (or the recording) to move, or of the stand-in
        of a person whose turn is :attr:`overdue`; returns the move, as the person sees it in
        a ``play`` game, and the status (``"stand_in"``: the bot that stood in).

        Raises:
            Refused: 409 when the game is over or a person is to move within the timeout.
        """
        self._check_running()
        p = self.game.current_player
        deciders = self.deciders
        if deciders[p] is None:
            if not (self.overdue and p in self.stand_ins):
                whose = "your turn" if p == person else f"p{p}'s turn (a person)"
                wait = "" if self.timeout is None else (
                    f" (or, after {self.timeout:g} s of its turn, its stand-in's)")
                raise Refused(409, f"it is {whose}: that seat's POST act takes the "
                                   f"decision{wait}")
            deciders = list(deciders)
            deciders[p] = self.stand_ins[p]
            self.stood_in.append(len(self.moves))
        moved = []
        play_turns(self.game, _OneDecision(deciders),
                   on_step=lambda seat, a: moved.append((seat, a)))
        note = getattr(getattr(deciders[p], "__self__", None), "last_note", None)
        if isinstance(note, dict) and note:  # (a language model's tries, talk, fallback)
            self.notes[len(self.moves)] = dict(note)
        out = self._moved(*moved[0], person)
        if deciders is not self.deciders:
            out["stand_in"] = self.stand_in_name
        return out

    def _moved(self, seat: int, action: int, person: int | None) -> dict:
        """Note the decision ``action`` just taken by ``seat``; returns the move as the
        request's ``person`` sees it (in full once the game is over, and in games without a
        person) and the status."""
        self.moves.append((seat, action))
        now = time.monotonic()
        self.seconds.append(round(now - self.turn_began, 3))
        self.turn_began = now
        over = self.game.is_terminal
        if over and self.on_end is not None:
            self.on_end(self)
        # (a request without a seat of its own sees what no seat may hide: -1 is no seat)
        viewer = None if over or self.kind != "play" else (-1 if person is None else person)
        return {"move": seen_action(seat, action, viewer, self.game.config.gold_menu),
                "game": self.status(person)}

    def _person(self, person: int | None) -> int:
        if self.kind != "play":
            raise Refused(409, f"a {self.kind} game has no seat of yours; its moves are taken "
                               "by POST step")
        if person is None:
            raise Refused(403, "send your seat's token (Authorization: Bearer TOKEN): this "
                               "game has several people")
        return person

    def _check_running(self) -> None:
        if self.game.is_terminal:
            raise Refused(409, "the game is over")


class _OneDecision(Sequence):
    """The seats' players for :func:`play_turns` such that it takes one decision: the first
    seat asked for gets its player, every later one ``None`` (a decision for the caller)."""

    def __init__(self, deciders: Sequence[Decider | None]) -> None:
        self._deciders = deciders
        self._asked = False

    def __len__(self) -> int:
        return len(self._deciders)

    def __getitem__(self, p):  # type: ignore[override]
        if self._asked:
            return None
        self._asked = True
        return self._deciders[p]


def play_table(config: GameConfig, seed: int, human: int | None,
               bots: Sequence[Seat], people: Sequence[int] | None = None,
               stand_in: tuple[Seat, float] | None = None) -> Table:
    """A new game dealt from ``seed``: the person in seat ``human`` (``None``: a ``watch``
    game), or with ``people`` a person in each of those seats (each with a token of
    :data:`TOKEN_BYTES` random bytes), and the bots of the seats ``bots`` in the other seats,
    in seat order, each seeded ``bot_seed(seed, seat)`` (as
    :func:`borders_sim.cli.terminal.play_human` and a tournament seed them). With
    ``stand_in`` (a bot and seconds), a person's turn that waits longer is played by that bot
    (seeded as a bot in that seat would be)."""
    persons = sorted(people) if people else ([] if human is None else [human])
    bots_left = iter(bots)
    seats: list[Seat | None] = [None if p in persons else next(bots_left)
                                for p in range(config.num_players)]
    names = [("you" if not people else "person") if seat is None else seat.name
             for seat in seats]
    deciders = [None if seat is None else seat.make(bot_seed(seed, p)).act
                for p, seat in enumerate(seats)]
    tokens = {secrets.token_urlsafe(TOKEN_BYTES): p for p in persons} if people else {}
    table = Table(Game(config, seed=seed), "play" if persons else "watch", names,
                  None if people else human, deciders, tokens=tokens, seed=seed)
    if stand_in is not None:
        bot, table.timeout = stand_in
        table.stand_in_name = bot.name
        table.stand_ins = {p: bot.make(bot_seed(seed, p)).act for p in persons}
    return table


def record_table(trace: Trace, source: str) -> Table:
    """The recorded game ``trace`` (already checked by replaying it) at its first decision,
    its seats playing the recorded decisions."""
    decisions = [[a for _line, seat, a, _text in trace.actions if seat == p]
                 for p in range(trace.config.num_players)]
    deciders = [_recorded(iter(mine)) for mine in decisions]
    return Table(Game(trace.config, seed=trace.header["seed"]), "record",
                 list(trace.header["lineup"]), None, deciders, source=source)


def _recorded(decisions) -> Decider:
    """A seat's player that plays the seat's recorded decisions in turn."""
    return lambda _observation, _mask: next(decisions)
