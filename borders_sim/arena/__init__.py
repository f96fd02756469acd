"""The arena: tournaments between bots, their statistics, ratings, records and figures.

* :func:`run_tournament` (:mod:`.run`; :func:`play_tournament` for a :class:`Tournament`
  already built): seat-rotated games of a lineup, on all cores
  (:mod:`.local`) or a Ray cluster (:mod:`.ray_backend`), returning :class:`Results`
  (:mod:`.results`); what is played is a :class:`Tournament` (:mod:`.schedule`), played a chunk
  at a time by :mod:`.paths`.
* :mod:`.stats` (win shares, Wilson intervals, behaviour metrics), :mod:`.ratings` (openskill
  Plackett-Luce over finishing orders), :mod:`.records` (game traces and their replay),
  :mod:`.plot` (the figure).

The arena imports bots and the :class:`~borders_sim.Game` API, never PettingZoo or Gymnasium.
"""

from .results import Results
from .schedule import Tournament, default_lineup, parse_lineup, parse_seats, tournament
from .tournaments import play_tournament, run_tournament

__all__ = ["Results", "Tournament", "default_lineup", "parse_lineup", "parse_seats",
           "play_tournament", "run_tournament", "tournament"]
