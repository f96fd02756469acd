"""Multiplayer ratings from full finishing orders: openskill's Plackett-Luce model.

Each game is one match of ``n`` one-player teams ranked by
:func:`~borders_sim.arena.stats.finishing_ranks` (the winners first, then by score; equal places are
ties). Games are rated one after the other
in game order, so the ratings are a deterministic function of the per-game results: every
backend and execution path that produces the same games produces the same ratings.

A bot that sits in several seats of one game (a lineup with repeats) has one rating but
several places. Each of its seats enters the match as its own copy of the rating, and the
bot's rating then moves by the sum of its copies' changes in ``mu`` while ``sigma`` shrinks by
the product of their ratios ``sigma'/sigma``, as if the copies' updates had been applied one
after the other. Start: openskill's defaults (``mu = 25``, ``sigma = 25/3``).
"""

from __future__ import annotations

import numpy as np
from openskill.models import PlackettLuce


def rate_games(num_bots: int, entry: np.ndarray, ranks: np.ndarray) -> tuple[list[float],
                                                                              list[float]]:
    """``(mu, sigma)`` lists, one value per bot, after rating every game.

    Args:
        num_bots: bots are numbered ``0 .. num_bots - 1``.
        entry: int[G, n], the bot in each seat of each game.
        ranks: int[G, n], the finishing place of each seat (1 = best, ties equal).
    """
    model = PlackettLuce()
    first = model.rating()
    mu = [float(first.mu)] * num_bots
    sigma = [float(first.sigma)] * num_bots
    entry = np.asarray(entry, dtype=np.int64).tolist()
    ranks = np.asarray(ranks, dtype=np.int64).tolist()
    for seats, places in zip(entry, ranks):
        teams = [[model.rating(mu=mu[b], sigma=sigma[b])] for b in seats]
        rated = model.rate(teams, ranks=places)
        d_mu = dict.fromkeys(seats, 0.0)
        ratio = dict.fromkeys(seats, 1.0)
        for b, team in zip(seats, rated):
            d_mu[b] += team[0].mu - mu[b]
            ratio[b] *= team[0].sigma / sigma[b]
        for b in d_mu:
            mu[b] += d_mu[b]
            sigma[b] *= ratio[b]
    return mu, sigma
