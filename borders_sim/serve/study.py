"""A study kit: ``borders-sim serve --study DIR`` records every finished game of people.

The join page shows :data:`CONSENT` before a person plays. When a game with a person in it
ends, :meth:`Study.write` writes it into ``DIR`` as a trace that ``borders-sim replay`` reads
(:func:`borders_sim.arena.records.write_trace`: the deal's seed and every decision in order, so
the whole hidden state of every step can be rebuilt), with what a study needs beside it:

* in the header, ``"seats"``: each seat's kind, ``{"kind": "person"}``, ``{"kind": "bot",
  "spec": ...}`` or ``{"kind": "llm", "spec": ..., "model": ...}``, and ``"study"``: the UTC
  time the game ended and the server's seat timeout;
* on each decision's line, ``"seconds"``: how long the seat took from its turn's start; a
  decision an idle person's stand-in took says ``"stand_in"``; a language model's tries and
  table talk are its note's (``"tries"``, ``"talk"``, ``"fallback"``).

Nothing identifies a person: no token, address or name is written; a seat is a person's only
by its kind. ``borders-sim study DIR --out OUT`` exports a study to demonstration shards with a
data card (:mod:`borders_sim.arena.study`).
"""

from __future__ import annotations

import datetime
import os
import re
import threading
from pathlib import Path

from ..arena.records import prepare_dir, write_trace
from ..llm import parse_spec
from .table import Table

#: The line the join page shows on a study's server.
CONSENT = ("This game is recorded for a research study: your decisions and how long each took "
           "are kept, with no name, address or other mark of who you are. Play on only if you "
           "agree.")
_NAME = re.compile(r"game-(\d{6})\.jsonl")


def seat_kind(name: str, person: bool) -> dict:
    """A seat's kind for the record: a person, a language model (``llm:MODEL@URL``) or a bot
    (its spec)."""
    if person:
        return {"kind": "person"}
    if name.startswith("llm:"):
        return {"kind": "llm", "spec": name, "model": parse_spec(name)[0]}
    return {"kind": "bot", "spec": name}


class Study:
    """The study directory ``directory`` (created if missing) and its next game number."""

    def __init__(self, directory: str | os.PathLike) -> None:
        self.directory = prepare_dir(directory)
        taken = [int(m[1]) for path in self.directory.iterdir()
                 if (m := _NAME.fullmatch(path.name))]
        self._next = max(taken, default=-1) + 1
        self._lock = threading.Lock()

    def write(self, table: Table) -> Path | None:
        """Write the finished game of ``table`` (module docstring); returns its path, or None
        for a game without a person or without a deal seed (a recorded game's replay)."""
        people = [p for p, decide in enumerate(table.deciders) if decide is None]
        if table.kind != "play" or not people or table.seed is None:
            return None
        game = table.game
        actions = []
        for i, (seat, action) in enumerate(table.moves):
            note = {"seconds": table.seconds[i], **table.notes.get(i, {})}
            if i in table.stood_in:
                note["stand_in"] = table.stand_in_name
            actions.append((seat, action, note))
        seats = [seat_kind(name, p in people) for p, name in enumerate(table.names)]
        lineup = ["person" if p in people else name for p, name in enumerate(table.names)]
        winners = [int(p in game.winners()) for p in range(game.num_players)]
        ended = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
        with self._lock:
            g, self._next = self._next, self._next + 1
            return write_trace(self.directory, game.config, table.seed, g, lineup, actions,
                               game.scores(), winners, seats=seats,
                               study={"ended": ended, "seat_timeout": table.timeout})
