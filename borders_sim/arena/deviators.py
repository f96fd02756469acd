"""The deviator matrix: how much one player of kind ``X`` takes from ``n - 1`` copies of ``Y``.

In a symmetric ``n``-player game, a symmetric equilibrium leaves a single deviator a fair
share, ``1 / n`` of the wins (25% at 4 players), whatever the deviator plays. So "one ``X``
against three ``Y``" is the natural ``n``-player test of how exploitable ``Y`` is: a ``Y``
that some ``X`` beats far above a fair share is exploitable by that ``X``. No peer publishes it
for a game of this size (OpenSpiel's exploitability covers two-player zero-sum games).

:func:`deviator_matrix` plays every cell ``(X, Y)``, ``X != Y``, as a seat-rotated tournament
of the lineup ``[X, Y, ..., Y]`` (:func:`~borders_sim.arena.tournaments.run_tournament`): the same
``games`` games (deals from ``seed``, :data:`EXPLOIT_SEED` by default, a range no training run
deals) in every cell, so cells differ by the bots alone. A cell's figure is ``X``'s win rate with
its 95% Wilson interval (:mod:`.stats`). Bots without a compiled policy (``ismcts``) make their
cells Python games, slow ones: they play ``search_games`` games instead.

The ``ppo`` bot appears as two players by default: ``ppo`` (sampled, as it ships) and
``ppo:argmax`` (its most likely action); any lineup spec is a row or a column
(:mod:`borders_sim.agents.lineup`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

from ..agents import Bot, Seat, as_seat
from ..policies.registry import roster
from ..checks import as_int, as_seed
from .ray_backend import ray_session
from .tournaments import run_tournament
from .schedule import compiled_seats, parse_seats

#: The first tournament seed of exploitability measures (the deviator matrix and the
#: exploiters' evaluations): game ``g`` is dealt from ``EXPLOIT_SEED + g``, far from the
#: trainer's evaluations (``10**15``), demonstrations (``3 * 10**15``) and the seeds
#: tournaments start at (0); the training env's games come from hashed seeds.
EXPLOIT_SEED = 2 * 10**15
#: The rows and columns of ``borders-sim exploit --deviators``: the compiled bots whose entry
#: joins the deviators (:func:`~borders_sim.policies.registry.roster`), then the ``ppo`` bot.
DEFAULT_BOTS = (*roster("deviator"), "ppo", "ppo:argmax")


@dataclass(frozen=True)
class Cell:
    """One deviator ``deviator`` against ``players - 1`` copies of ``field``: its win rate
    over ``games`` games, the 95% Wilson interval, and its mean score."""

    deviator: str
    field: str
    games: int
    win_rate: float
    win_rate_ci95: tuple[float, float]
    mean_score: float
    seconds: float


@dataclass
class DeviatorMatrix:
    """The cells of :func:`deviator_matrix` and how they were played."""

    bots: tuple[str, ...]
    players: int
    games: int
    search_games: int
    seed: int
    cells: list[Cell] = field(default_factory=list)

    def cell(self, deviator: str, against: str) -> Cell | None:
        """The cell of ``deviator`` against copies of ``against`` (None on the diagonal)."""
        for c in self.cells:
            if c.deviator == deviator and c.field == against:
                return c
        return None

    def worst_case(self, against: str) -> Cell | None:
        """The cell of the deviator that takes the most from copies of ``against``."""
        column = [c for c in self.cells if c.field == against]
        return max(column, key=lambda c: c.win_rate) if column else None

    def to_dict(self) -> dict:
        """JSON-ready: the settings and one record per cell."""
        return {"config": {"bots": list(self.bots), "players": self.players,
                           "games": self.games, "search_games": self.search_games,
                           "seed": self.seed, "seat_rotation": True,
                           "cell": "one deviator (row) against players - 1 copies of the "
                                   "column's bot; the deviator's win rate",
                           "fair_share": 1 / self.players},
                "cells": [{**asdict(c), "win_rate_ci95": list(c.win_rate_ci95)}
                          for c in self.cells]}

    def table(self) -> tuple[list[str], list[list[str]]]:
        """Header and rows of the matrix as text: one row per deviator (``deviator vs 3x``
        at 4 players), one column per bot copied, ``win rate [CI]`` in percent (``-`` on the
        diagonal)."""
        header = [f"deviator vs {self.players - 1}x", *self.bots]
        rows = []
        for x in self.bots:
            row = [x]
            for y in self.bots:
                c = self.cell(x, y)
                row.append("-" if c is None else
                           f"{100 * c.win_rate:.1f} [{100 * c.win_rate_ci95[0]:.1f}, "
                           f"{100 * c.win_rate_ci95[1]:.1f}]")
            rows.append(row)
        return header, rows


def cell_games(seats: Sequence[Seat], games: int, search_games: int
               ) -> dict[tuple[str, str], int]:
    """The games of every off-diagonal cell, by the two seats' names: ``games`` where both bots
    are compiled, else ``search_games`` (0: the cell is left out)."""
    out = {}
    for x in seats:
        for y in seats:
            if x != y:
                n = games if compiled_seats([x, y]) is not None else search_games
                if n:
                    out[(x.name, y.name)] = n
    return out


def deviator_matrix(bots: Sequence[str | Seat | Callable[..., Bot]] | str = DEFAULT_BOTS,
                    players: int = 4,
                    games: int = 1000, seed: int = EXPLOIT_SEED, *, search_games: int = 16,
                    backend: str = "local", threads: int | None = None,
                    ray_address: str | None = None,
                    progress: Callable[[int], None] | None = None,
                    on_cell: Callable[[Cell], None] | None = None) -> DeviatorMatrix:
    """Play the deviator matrix of ``bots`` (module docstring).

    Args:
        bots: the rows and columns, each at most once: a comma-separated text or a sequence
            of seats (the library's names and specs; your own bots, ``MODULE:NAME``, a bot
            class or a factory: :func:`~borders_sim.agents.seats.as_seat`).
        players: 3 to 8; each cell seats one deviator and ``players - 1`` copies.
        games: games of a cell of compiled bots (seat-rotated, dealt from ``seed + g``).
        search_games: games of a cell with a Python-only bot (``ismcts``); 0 leaves them out.
        backend, threads, ray_address: as :func:`~borders_sim.arena.tournaments.run_tournament`
            (``"ray"``: each cell's games as Ray tasks on one cluster, started once).
        progress: called with the games of every finished chunk (a progress bar's update).
        on_cell: called with every finished cell.

    Raises:
        ValueError: a bad argument (an unknown or repeated bot, fewer than two bots, ...).
    """
    seats = parse_seats(bots) if isinstance(bots, str) else tuple(as_seat(b) for b in bots)
    bots = tuple(seat.name for seat in seats)
    seat_of = dict(zip(bots, seats))
    if len(set(bots)) != len(bots) or len(bots) < 2:
        raise ValueError(f"the deviator matrix needs two or more different bots, got "
                         f"{list(bots)}")
    games = as_int(games, "games", lo=1)
    search_games = as_int(search_games, "search_games", lo=0)
    seed = as_seed(seed, span=max(games, search_games))
    result = DeviatorMatrix(bots, as_int(players, "players", 3, 8), games, search_games, seed)
    plan = cell_games(seats, games, search_games)
    with ray_session(backend, ray_address, threads):
        for (x, y), n in plan.items():
            start = time.perf_counter()
            res = run_tournament(players, [seat_of[x]] + [seat_of[y]] * (players - 1), n, seed,
                                 backend=backend, threads=threads, ray_address=ray_address,
                                 progress=progress)
            row = res.bots[0]
            cell = Cell(x, y, res.games_played, row["win_rate"],
                        tuple(row["win_rate_ci95"]), row["mean_score"],
                        time.perf_counter() - start)
            result.cells.append(cell)
            if on_cell is not None:
                on_cell(cell)
    return result
