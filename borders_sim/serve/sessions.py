"""The games the server holds, each under a random id that cannot be guessed.

:class:`Sessions` keeps the :class:`~.table.Table` of every open game under an id of
:data:`ID_BYTES` random bytes (``secrets.token_urlsafe``): whoever knows a game's id may play
it, and no one can find another's. Memory is bounded twice: a game left alone for the idle
time is dropped, and when :attr:`Sessions.max_games` games are open a new one makes room by
dropping the game idle the longest that no person plays (a game a person plays is never
dropped to make room: when every open game has one, the new game is refused).
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from .refusals import Refused
from .table import Table

#: Random bytes of a game id (its text is 22 characters of ``[A-Za-z0-9_-]``).
ID_BYTES = 16
_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class Sessions:
    """The open games by id.

    Args:
        idle_seconds: a game no request used for this long is dropped.
        max_games: at most this many games are open at once.
        clock: the time in seconds (``time.monotonic``; a test may pass its own).
    """

    def __init__(self, idle_seconds: float, max_games: int,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.idle_seconds = idle_seconds
        self.max_games = max_games
        self._clock = clock
        self._tables: dict[str, Table] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        with self._lock:
            self._expire()
            return len(self._tables)

    def add(self, table: Table) -> str:
        """Keep ``table`` under a new id, dropping the game without a person idle the longest
        when :attr:`max_games` are open (a game a person plays is never dropped to make
        room: only by its idle time); returns the id.

        Raises:
            Refused: 429 when every open game has a person in it (too many games now).
        """
        table.used = self._clock()
        with self._lock:
            self._expire()
            while len(self._tables) >= self.max_games:
                free = [k for k, t in self._tables.items() if not t.has_person]
                if not free:
                    raise Refused(429, f"{self.max_games} games are open, each with a person "
                                       "in it: try again when one ends or idles out")
                del self._tables[min(free, key=lambda k: self._tables[k].used)]
            game_id = secrets.token_urlsafe(ID_BYTES)
            self._tables[game_id] = table
        return game_id

    @contextmanager
    def use(self, game_id: str) -> Iterator[Table]:
        """The table of ``game_id``, held (its lock) while the ``with`` block runs, and marked
        used.

        Raises:
            Refused: 404 for an id of no open game.
        """
        with self._lock:
            self._expire()
            table = self._tables.get(game_id) if _ID.fullmatch(game_id) else None
            if table is None:
                raise Refused(404, "no open game has this id (a game is dropped after "
                                   f"{self.idle_seconds / 60:g} idle minutes, or to make room "
                                   f"when {self.max_games} are open)")
            table.used = self._clock()
        with table.lock:
            yield table
        table.used = self._clock()

    def remove(self, game_id: str) -> None:
        """Drop the game ``game_id``.

        Raises:
            Refused: 404 for an id of no open game.
        """
        with self.use(game_id):
            pass
        with self._lock:
            self._tables.pop(game_id, None)

    def _expire(self) -> None:
        """Drop the games idle for longer than :attr:`idle_seconds` (the lock held)."""
        now = self._clock()
        for game_id in [k for k, t in self._tables.items() if now - t.used > self.idle_seconds]:
            del self._tables[game_id]
