"""Tournament statistics from per-game results: wins with shared victories, a confidence
interval for the win rate, score moments, finishing ranks and behaviour metrics per bot.

Everything here is a pure function of arrays, so it can be checked on constructed results.
The arrays describe ``G`` games of ``n`` seats:

* ``entry[g, p]``: index (into ``names``) of the bot in seat ``p`` of game ``g``;
* ``scores[g, p]``: final score (§9) of seat ``p``; ``winners[g, p]``: 1 if seat ``p`` won
  after the tie-breaks (9-9; several seats on a shared victory);
* ``hist_totals[b, k]``: history counter ``k`` (:data:`~borders_sim.rules.state.HISTORY_COUNTERS`)
  summed over every seat-game of bot ``b``; ``truth_totals[b, k]`` the same of the private
  truth counters (:data:`~borders_sim.rules.state.TRUTH_COUNTERS`).

Definitions (a bot that sits in ``s`` seats of every game is *pooled*: its seats count as
``s`` seat-games per game):

* ``games``: seat-games, ``G * s``; ``wins``: the win shares of those seat-games, where a
  victory shared by ``k`` winners counts ``1/k`` for each; ``win_rate = wins / games``, so the
  rates of a lineup sum to 1 per seat and a bot no better than the others scores ``1/n``.
* ``win_rate_ci95``: the Wilson score interval at 95% on the per-game mean share
  ``X_g = (win shares of the bot's seats in game g) / s``, with ``G`` games as the independent
  units (seats of one game are not independent; games are). ``X_g`` lies in [0, 1] and
  ``mean(X) = win_rate``; a variable in [0, 1] with mean ``p`` has variance at most
  ``p (1 - p)``, the Bernoulli variance Wilson assumes, so for fractional wins and pooled seats
  the interval is conservative (slightly wide), and for one seat without shared wins it is
  exactly Wilson's.
* ``mean_score``, ``sd_score``: over the seat-games (``sd`` with ``ddof=1``; 0 for one sample).
* behaviour, from the public history counters (R-39): see :data:`BEHAVIOUR`. Lies told are
  private (an unopened lie is never revealed), so the observable lying rate is the share of
  the bot's *opened* crates that held a lie; inspectors choose what they open, so it is an
  estimate of how often it lies only against inspectors that open at random.
* deception, the ground truth: see :data:`DECEPTION`. The engine counts every crate's content
  as it is settled, whether or not anybody saw it, so these are the true rates: how often a bot
  lies, how often its lies are caught or pass, its let-through offers, and as an inspector its
  precision (opened crates that held contraband) and recall (contraband found of all it
  handled). A player never sees them (they are not in any observation); the tournament reads
  them from the finished games.
"""

from __future__ import annotations

import math

import numpy as np

from ..rules import state as st

Z95 = 1.959963984540054  # two-sided 95% normal quantile

#: Behaviour metrics: key -> (numerator counter, denominator counter or "games", meaning).
BEHAVIOUR = {
    "lies_when_opened": ("lies_caught", "crates_opened",
                         "share of its opened crates that did not match the announcement"),
    "caught_rate": ("lies_caught", "crates", "share of its crates caught in a lie"),
    "bribe_rate": ("deals_made", "crates", "share of its crates with a let-through deal"),
    "open_rate": ("opens", "crates_inspected",
                  "share of crates it handled as inspector that it opened or joined"),
    "bribed_rate": ("deals_taken", "crates_inspected",
                    "share of crates it handled as inspector on which it took a deal"),
    "fines_paid_per_game": ("fines_paid", "games", "value paid in fines per game"),
    "promises_kept_rate": ("promises_kept", "promises_due",
                           "share of its due promises of a pass that it kept"),
    "cards_played_per_game": ("cards_played", "games", "action cards played per game"),
}

#: Deception metrics from the private truth counters (and the public ones they complete):
#: key -> (numerator, denominator or "games", meaning).
DECEPTION = {
    "lie_rate": ("lies_told", "crates", "share of its crates that held a lie"),
    "lies_caught_rate": ("lies_caught", "lies_told", "share of its lies that were caught"),
    "lies_through_rate": ("lies_through", "lies_told", "share of its lies that passed"),
    "offers_per_game": ("offers_made", "games", "let-through offers made per game"),
    "offers_accepted_per_game": ("deals_made", "games",
                                 "let-through deals accepted on its crates per game"),
    "offers_refused_per_game": ("offers_refused", "games",
                                "its offers answered by opening or passing without the deal, "
                                "per game"),
    "inspection_precision": ("opened_with_contraband", "opened",
                             "share of the crates it opened that held contraband"),
    "inspection_recall": ("contraband_found", "contraband_handled",
                          "share of the contraband in crates it inspected that its opens found"),
}

_COUNTER = {key: k for k, (key, _) in enumerate(st.HISTORY_COUNTERS)}
_TRUTH = {key: k for k, (key, _) in enumerate(st.TRUTH_COUNTERS)}


def wilson_interval(p_hat: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a rate ``p_hat`` (in [0, 1]) measured on ``n`` independent
    units; ``(nan, nan)`` for ``n == 0``. It always holds ``p_hat`` (at a rate of 0 or 1 the
    formula's end is that rate up to rounding, so the end is the rate itself)."""
    if n <= 0:
        return (math.nan, math.nan)
    if not 0.0 <= p_hat <= 1.0:
        raise ValueError(f"a rate is from 0 to 1, got {p_hat}")
    z2 = z * z
    denom = 1.0 + z2 / n
    centre = (p_hat + z2 / (2 * n)) / denom
    half = z / denom * math.sqrt(p_hat * (1.0 - p_hat) / n + z2 / (4 * n * n))
    return (min(p_hat, max(0.0, centre - half)), max(p_hat, min(1.0, centre + half)))


def win_shares(winners: np.ndarray) -> np.ndarray:
    """float64[G, n]: 1/k for each of the k winners of a game, 0 for the others.

    Raises:
        ValueError: a game without a winner.
    """
    w = np.asarray(winners, dtype=np.float64)
    k = w.sum(axis=1, keepdims=True)
    if np.any(k == 0):
        raise ValueError(f"game(s) {np.flatnonzero(k[:, 0] == 0).tolist()} have no winner")
    return w / k


def finishing_ranks(scores: np.ndarray, winners: np.ndarray) -> np.ndarray:
    """int64[G, n]: finishing place of each seat, 1 = best, equal places for ties
    (competition ranking). The winners (after the tie-breaks, 9-9) share place 1; the others
    follow by score, equal scores sharing a place."""
    scores = np.asarray(scores, dtype=np.int64)
    winners = np.asarray(winners) != 0
    # key: winners first, then higher scores; a seat's place is 1 + the seats strictly better
    better_win = winners[:, None, :] & ~winners[:, :, None]          # [g, p, q]: q wins, p not
    same_win = winners[:, None, :] == winners[:, :, None]
    better_score = same_win & (scores[:, None, :] > scores[:, :, None])
    return 1 + (better_win | better_score).sum(axis=2)


def behaviour(totals: np.ndarray, games: int) -> dict[str, float | None]:
    """The :data:`BEHAVIOUR` rates of one bot from its summed history counters
    (int[NUM_HIST]) over ``games`` seat-games; ``None`` where the denominator is 0."""
    counts = {key: int(totals[k]) for key, k in _COUNTER.items()}
    counts["games"] = games
    counts["promises_due"] = counts["promises_kept"] + counts["promises_broken"]
    counts["cards_played"] = int(totals[st.H_PLAYED:].sum())
    return _rates(BEHAVIOUR, counts)


def _rates(metrics: dict, counts: dict[str, int]) -> dict[str, float | None]:
    """Each metric of ``metrics`` (key -> numerator, denominator, meaning) from ``counts``;
    ``None`` where the denominator is 0."""
    return {key: counts[num] / counts[den] if counts[den] else None
            for key, (num, den, _) in metrics.items()}


def deception(hist: np.ndarray, truth: np.ndarray, games: int) -> dict[str, float | None]:
    """The :data:`DECEPTION` rates of one bot from its summed history counters
    (int[NUM_HIST]) and truth counters (int[NUM_TRUTH]) over ``games`` seat-games; ``None``
    where the denominator is 0."""
    counts = {key: int(hist[k]) for key, k in _COUNTER.items()}
    counts.update({key: int(truth[k]) for key, k in _TRUTH.items()})
    counts["games"] = games
    return _rates(DECEPTION, counts)


def summarize(names: list[str], entry: np.ndarray, scores: np.ndarray, winners: np.ndarray,
              hist_totals: np.ndarray, truth_totals: np.ndarray) -> list[dict]:
    """One dict per bot of ``names`` (see the module docstring): ``name``, ``seats``,
    ``games``, ``wins``, ``win_rate``, ``win_rate_ci95``, ``mean_score``, ``sd_score``,
    ``behaviour`` (:func:`behaviour`), ``deception`` (:func:`deception`), ``history`` and
    ``truth`` (the summed counters by name). With no game played, the rates and moments are
    ``None``."""
    entry = np.asarray(entry, dtype=np.int64)
    scores = np.asarray(scores, dtype=np.int64)
    num_games = entry.shape[0]
    shares = win_shares(winners) if num_games else np.zeros(entry.shape)
    out = []
    for b, name in enumerate(names):
        where = entry == b
        per_game_seats = where.sum(axis=1)
        seats = int(per_game_seats[0]) if num_games else 0
        if np.any(per_game_seats != seats):
            raise ValueError(f"bot {name!r} does not sit in the same number of seats in every "
                             "game; a tournament lineup keeps its bots, only their seats rotate")
        games = int(per_game_seats.sum())
        wins = float(shares[where].sum())
        row: dict = {"name": name, "seats": seats, "games": games, "wins": wins}
        if games:
            rate = wins / games  # = the mean over games of X_g (same seats in every game)
            sc = scores[where].astype(np.float64)
            row.update(win_rate=rate,
                       win_rate_ci95=list(wilson_interval(min(1.0, rate), num_games)),
                       mean_score=float(sc.mean()),
                       sd_score=float(sc.std(ddof=1)) if games > 1 else 0.0)
        else:
            row.update(win_rate=None, win_rate_ci95=[None, None], mean_score=None,
                       sd_score=None)
        row["behaviour"] = behaviour(hist_totals[b], games)
        row["deception"] = deception(hist_totals[b], truth_totals[b], games)
        row["history"] = {key: int(hist_totals[b, k]) for key, k in _COUNTER.items()}
        row["truth"] = {key: int(truth_totals[b, k]) for key, k in _TRUTH.items()}
        out.append(row)
    return out
