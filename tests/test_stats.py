"""Tournament statistics on constructed results: win shares with shared victories,
the Wilson interval, finishing ranks, pooled seats, behaviour metrics and ratings."""

from __future__ import annotations

import math

import numpy as np
import pytest

from borders_sim.arena.ratings import rate_games
from borders_sim.rules import state as st
from borders_sim.arena.stats import (behaviour, finishing_ranks, summarize, wilson_interval,
                               win_shares)

K = {key: k for k, (key, _) in enumerate(st.HISTORY_COUNTERS)}
T = {key: k for k, (key, _) in enumerate(st.TRUTH_COUNTERS)}


def test_wilson_interval_known_values():
    lo, hi = wilson_interval(0.5, 100)
    assert (round(lo, 4), round(hi, 4)) == (0.4038, 0.5962)
    lo, hi = wilson_interval(0.0, 10)  # never 0-width, never below 0
    assert lo == pytest.approx(0.0) and round(hi, 4) == 0.2775
    lo, hi = wilson_interval(1.0, 10)
    assert round(lo, 4) == 0.7225 and hi == pytest.approx(1.0)
    assert all(math.isnan(x) for x in wilson_interval(0.3, 0))
    for n in (1, 7, 300, 1000):  # the interval holds the rate, exactly at the ends
        assert wilson_interval(0.0, n)[0] == 0.0 and wilson_interval(1.0, n)[1] == 1.0
        assert all(lo <= k / n <= hi for k in range(n + 1)
                   for lo, hi in [wilson_interval(k / n, n)])
    with pytest.raises(ValueError, match="from 0 to 1"):
        wilson_interval(1.5, 10)


def test_shared_wins_count_one_over_k():
    shares = win_shares(np.array([[1, 0, 0], [1, 1, 0], [1, 1, 1]]))
    assert shares.tolist() == [[1, 0, 0], [0.5, 0.5, 0], [1 / 3, 1 / 3, 1 / 3]]
    with pytest.raises(ValueError, match=r"game\(s\) \[1\] have no winner"):
        win_shares(np.array([[1, 0, 0], [0, 0, 0]]))


def test_finishing_ranks_put_winners_first_then_scores_with_ties():
    scores = np.array([[10, 30, 20, 30],    # one winner
                       [50, 50, 40, 40],    # a shared win, then a tie for third
                       [90, 90, 10, 90]])   # a tie-break decided between equal scores
    winners = np.array([[0, 1, 0, 0], [1, 1, 0, 0], [0, 1, 0, 0]])
    assert finishing_ranks(scores, winners).tolist() == [[4, 1, 3, 2], [1, 1, 3, 3],
                                                         [2, 1, 4, 2]]


def constructed():
    """3 games of the lineup (a, b, a): b is pooled nowhere, a sits in 2 seats."""
    entry = np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]])
    scores = np.array([[100, 90, 80], [70, 70, 60], [50, 40, 55]])
    winners = np.array([[1, 0, 0], [1, 1, 0], [1, 0, 0]])  # game 1: a shares with itself
    hist = np.zeros((2, st.NUM_HIST), dtype=np.int64)
    hist[0, [K["crates"], K["crates_opened"], K["lies_caught"], K["crates_inspected"],
             K["opens"], K["promises_kept"], K["fines_paid"]]] = [8, 4, 1, 4, 2, 3, 12]
    hist[0, st.H_PLAYED + 2] = 3
    hist[1, [K["crates"], K["deals_made"], K["crates_inspected"], K["deals_taken"]]] = [3, 3, 2, 1]
    hist[1, K["offers_made"]] = 4
    return entry, scores, winners, hist


def truth_of() -> np.ndarray:
    """Truth counters for :func:`constructed`: a told 2 lies (1 caught, 1 passed) and opened 2
    crates as inspector, 1 with contraband, finding 3 of the 6 contraband cards it handled; b
    made 4 offers, 1 refused, and never lied."""
    truth = np.zeros((2, st.NUM_TRUTH), dtype=np.int64)
    truth[0, [T["lies_told"], T["lies_through"], T["opened"], T["opened_with_contraband"],
              T["contraband_found"], T["contraband_handled"]]] = [2, 1, 2, 1, 3, 6]
    truth[1, T["offers_refused"]] = 1
    return truth


def test_summarize_pools_seats_and_counts_shared_wins():
    entry, scores, winners, hist = constructed()
    a, b = summarize(["a", "b"], entry, scores, winners, hist, truth_of())
    assert (a["seats"], a["games"], b["seats"], b["games"]) == (2, 6, 1, 3)
    assert a["wins"] == 2.0 and b["wins"] == 1.0  # game 1's shared win is a's twice over
    assert a["win_rate"] == pytest.approx(2 / 6) and b["win_rate"] == pytest.approx(1 / 3)
    assert a["wins"] + b["wins"] == 3  # one win per game
    # the interval is Wilson's on the per-game mean share, games as units
    assert a["win_rate_ci95"] == list(wilson_interval(2 / 6, 3))
    a_scores = [100, 80, 70, 70, 40, 55]
    assert a["mean_score"] == pytest.approx(np.mean(a_scores))
    assert a["sd_score"] == pytest.approx(np.std(a_scores, ddof=1))
    assert b["mean_score"] == pytest.approx(np.mean([90, 60, 50]))
    ma, mb = a["behaviour"], b["behaviour"]
    assert ma["lies_when_opened"] == 0.25 and ma["caught_rate"] == 1 / 8
    assert ma["open_rate"] == 0.5 and ma["bribed_rate"] == 0.0 and ma["bribe_rate"] == 0.0
    assert ma["promises_kept_rate"] == 1.0 and ma["fines_paid_per_game"] == 2.0
    assert ma["cards_played_per_game"] == 0.5
    assert mb["lies_when_opened"] is None and mb["promises_kept_rate"] is None  # 0 / 0
    assert mb["bribe_rate"] == 1.0 and mb["bribed_rate"] == 0.5
    assert a["history"]["crates"] == 8 and b["history"]["deals_taken"] == 1
    da, db = a["deception"], b["deception"]
    assert da["lie_rate"] == 2 / 8 and da["lies_caught_rate"] == 0.5
    assert da["lies_through_rate"] == 0.5
    assert da["inspection_precision"] == 0.5 and da["inspection_recall"] == 0.5
    assert db["lie_rate"] == 0.0 and db["lies_caught_rate"] is None  # no lie to catch
    assert db["offers_per_game"] == 4 / 3 and db["offers_accepted_per_game"] == 1.0
    assert db["offers_refused_per_game"] == 1 / 3 and db["inspection_precision"] is None
    assert a["truth"]["lies_told"] == 2 and b["truth"]["offers_refused"] == 1


def test_summarize_with_no_games_and_inconsistent_seats():
    empty = np.zeros((0, 3), dtype=np.int64)
    row, = summarize(["a"], empty, empty, empty, np.zeros((1, st.NUM_HIST), dtype=np.int64),
                     np.zeros((1, st.NUM_TRUTH), dtype=np.int64))
    assert row["games"] == 0 and row["win_rate"] is None and row["win_rate_ci95"] == [None, None]
    entry, scores, winners, hist = constructed()
    entry[2] = [1, 1, 0]
    with pytest.raises(ValueError, match="same number of seats in every game"):
        summarize(["a", "b"], entry, scores, winners, hist, truth_of())


def test_behaviour_of_a_bot_without_crates():
    out = behaviour(np.zeros(st.NUM_HIST, dtype=np.int64), 0)
    assert set(out.values()) == {None}


def test_ratings_order_bots_by_finishing_order():
    games = 60
    entry = np.tile([0, 1, 2], (games, 1))
    ranks = np.tile([1, 2, 3], (games, 1))
    mu, sigma = rate_games(3, entry, ranks)
    assert mu[0] > mu[1] > mu[2]
    assert all(s < 25 / 3 for s in sigma)
    # rotating the seats changes nothing: ratings follow the bots, not the seats
    rotated = np.array([np.roll([0, 1, 2], g) for g in range(games)])
    mu2, sigma2 = rate_games(3, rotated, np.array([np.roll([1, 2, 3], g) for g in range(games)]))
    assert mu2 == pytest.approx(mu) and sigma2 == pytest.approx(sigma)


def test_ratings_of_ties_are_equal_and_pooled_seats_add_up():
    mu, sigma = rate_games(3, np.tile([0, 1, 2], (20, 1)), np.ones((20, 3), dtype=np.int64))
    assert mu[0] == pytest.approx(mu[1]) == pytest.approx(mu[2])
    # bot 0 in two seats, finishing first and last every game: its two copies' changes cancel
    # against each other only partly; the order of its seats does not matter
    one = rate_games(2, np.tile([0, 1, 0], (10, 1)), np.tile([1, 2, 3], (10, 1)))
    other = rate_games(2, np.tile([0, 1, 0], (10, 1)), np.tile([3, 2, 1], (10, 1)))
    assert one[0] == pytest.approx(other[0]) and one[1] == pytest.approx(other[1])
    assert one[1][0] < one[1][1]  # two seats a game: twice the evidence, smaller sigma
