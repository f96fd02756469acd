"""Final scoring: scores, King/Queen bonuses and the winners (rulebook §9, RULINGS 9-1..9-9).

Score of seat ``p`` (9-3)::

    score[p] = sum over goods c of (wh_up[p, c] + wh_down[p, c]) * CARD_VALUE[c]     (a)
             + gold[p]                                                             (b)
             + sum over main resources m of main_held[p, m] * MAIN_POINTS[m]       (c)
             + King/Queen bonuses of p                                             (d)

* (a) counts every warehouse card, legal, contraband and premium, face up and face down: the
  warehouses are turned face up at the end (9-2). Cards left in hand score 0 (9-1).
* (d) is awarded per legal type ``t`` on *pieces*: a legal card is 1 piece of its type, a premium
  card ``PIECES[c]`` (2 or 3) pieces of ``PIECE_TYPE[c]`` (9-4). The bonuses are
  ``KING_BONUS[t] / QUEEN_BONUS[t]``: sugar 20/10, coffee 15/10, tobacco 15/10 only with 4 or more
  players, fish 10/5 (9-5).

King/Queen ties and qualification, per type:

* Only seats with at least 1 piece qualify; a single holder is King and nobody is Queen; with no
  holder there is no bonus (9-8, R-31).
* Several seats tied for the most: each gets ``(King + Queen) // k`` for ``k`` tied seats and
  there is no Queen for that type (9-6).
* A unique King and several seats tied for the second most: each gets ``Queen // k`` (9-7).

Winners (9-9): the highest score wins; among the seats tied on score, more main resource cards
held wins (tie-break 1); then more legal goods (tie-break 2, R-32): the number of legal *cards*
(types 0..3) in the warehouse, face up and face down, premium cards excluded; with the variant
``cfg[CFG_TIEBREAK_PIECES] == 1`` (``tiebreak_legal=pieces``) the legal *pieces* instead (legal
cards plus premium cards' pieces). Seats still tied share the victory (tie-break 3).

Only seats ``p < cfg[CFG_NUM_PLAYERS]`` take part; the rows of the other seats in every output are
0. All kernels are ``@kernel`` (numba's ``njit``, see :mod:`.jit`), take a state record
``s = states[i]`` (or plain arrays), write into a caller-provided ``out`` buffer and also return
it.
"""

from __future__ import annotations

import numpy as np

from .cards import (CARD_VALUE, KING_BONUS, MAIN_POINTS, NUM_GOODS, NUM_LEGAL, NUM_MAIN, PIECES,
                    PIECE_TYPE, QUEEN_BONUS, TOBACCO)
from .._compile.jit import kernel
from .state import CFG_NUM_PLAYERS, CFG_TIEBREAK_PIECES, MAX_PLAYERS

#: Fewest players for which Tobacco carries a King/Queen bonus (9-5).
TOBACCO_BONUS_MIN_PLAYERS = 4


@kernel
def _num_seats(s):
    """Seats taking part: ``cfg[CFG_NUM_PLAYERS]`` clamped to ``0..MAX_PLAYERS``."""
    n = np.int64(s.cfg[CFG_NUM_PLAYERS])
    if n < 0:
        return np.int64(0)
    if n > MAX_PLAYERS:
        return np.int64(MAX_PLAYERS)
    return n


@kernel
def king_queen_bonus(pieces, num_players, out):
    """Add the King/Queen bonuses (9-4..9-8, R-31) of every legal type into ``out``.

    ``pieces`` int64[MAX_PLAYERS, 4]: pieces per seat and legal type; only the first
    ``num_players`` rows are read. ``out`` int64[MAX_PLAYERS] is added to, not cleared.
    Tobacco scores only with 4+ players (9-5). Returns ``out``.
    """
    n = num_players
    if n > MAX_PLAYERS:
        n = MAX_PLAYERS
    for t in range(NUM_LEGAL):
        if t == TOBACCO and num_players < TOBACCO_BONUS_MIN_PLAYERS:
            continue
        king = KING_BONUS[t]
        queen = QUEEN_BONUS[t]
        # most pieces; a seat qualifies only with >= 1 piece
        top = 0
        for p in range(n):
            if pieces[p, t] > top:
                top = pieces[p, t]
        if top <= 0:
            continue                                   # nobody holds the type: no bonus
        n_top = 0
        for p in range(n):
            if pieces[p, t] == top:
                n_top += 1
        if n_top > 1:                                  # 9-6: share King+Queen, no Queen
            share = (king + queen) // n_top
            for p in range(n):
                if pieces[p, t] == top:
                    out[p] += share
            continue
        second = 0                                     # second most among holders
        for p in range(n):
            c = pieces[p, t]
            if c > second and c < top:
                second = c
        for p in range(n):
            if pieces[p, t] == top:
                out[p] += king
        if second <= 0:
            continue                                   # single holder: King only
        n_second = 0
        for p in range(n):
            if pieces[p, t] == second:
                n_second += 1
        share = queen // n_second                      # 9-7: share the Queen, rounded down
        for p in range(n):
            if pieces[p, t] == second:
                out[p] += share
    return out


@kernel
def warehouse_pieces(s, out):
    """Fill ``out`` int64[MAX_PLAYERS, 4] with each seat's warehouse pieces per legal type (9-4).

    Face-up and face-down cards count; a legal card is 1 piece, a premium card ``PIECES[c]``
    pieces of ``PIECE_TYPE[c]``. Rows of absent seats are 0. Returns ``out``.
    """
    out[:, :] = 0
    n = _num_seats(s)
    for p in range(n):
        for c in range(NUM_GOODS):
            t = PIECE_TYPE[c]
            if t >= 0:
                k = np.int64(s.wh_up[p, c]) + np.int64(s.wh_down[p, c])
                out[p, t] += k * PIECES[c]
    return out


@kernel(standalone=True)
def scores(s, out):
    """Fill ``out`` int64[MAX_PLAYERS] with the final scores (9-1..9-8). Returns ``out``.

    Warehouse card values (face up and face down) + gold + held main resources' points +
    King/Queen bonuses; hands score 0. Rows of absent seats are 0.
    """
    out[:] = 0
    n = _num_seats(s)
    for p in range(n):
        total = np.int64(s.gold[p])
        for c in range(NUM_GOODS):
            total += (np.int64(s.wh_up[p, c]) + np.int64(s.wh_down[p, c])) * CARD_VALUE[c]
        for m in range(NUM_MAIN):
            total += np.int64(s.main_held[p, m]) * MAIN_POINTS[m]
        out[p] = total
    pieces = np.zeros((MAX_PLAYERS, NUM_LEGAL), dtype=np.int64)
    warehouse_pieces(s, pieces)
    king_queen_bonus(pieces, n, out)
    return out


@kernel
def _legal_goods(s, p, by_pieces):
    """Tie-break 2 key of seat ``p`` (R-32): legal cards in the warehouse, or legal pieces."""
    total = np.int64(0)
    for c in range(NUM_GOODS):
        k = np.int64(s.wh_up[p, c]) + np.int64(s.wh_down[p, c])
        if c < NUM_LEGAL:
            total += k
        elif by_pieces and PIECE_TYPE[c] >= 0:
            total += k * PIECES[c]
    return total


@kernel(standalone=True)
def winners(s, out):
    """Fill ``out`` int64[MAX_PLAYERS] with 1 for each winner, else 0 (9-9, R-32). Returns ``out``.

    Highest score; then more main resource cards held; then more legal goods (legal cards, or
    legal pieces with ``cfg[CFG_TIEBREAK_PIECES] == 1``); seats still tied all win.
    """
    out[:] = 0
    n = _num_seats(s)
    if n == 0:
        return out
    by_pieces = s.cfg[CFG_TIEBREAK_PIECES] == 1
    sc = np.zeros(MAX_PLAYERS, dtype=np.int64)
    scores(s, sc)
    keys = np.zeros((3, MAX_PLAYERS), dtype=np.int64)
    for p in range(n):
        keys[0, p] = sc[p]
        mains = np.int64(0)
        for m in range(NUM_MAIN):
            mains += np.int64(s.main_held[p, m])
        keys[1, p] = mains
        keys[2, p] = _legal_goods(s, p, by_pieces)
    for p in range(n):
        out[p] = 1
    for k in range(3):                     # score, tie-break 1, tie-break 2
        best = np.int64(0)
        first = True
        for p in range(n):
            if out[p] == 1 and (first or keys[k, p] > best):
                best = keys[k, p]
                first = False
        for p in range(n):
            if out[p] == 1 and keys[k, p] < best:
                out[p] = 0
    return out                             # tie-break 3: the remaining seats share the victory


@kernel
def scores_at(states, i, out):
    """:func:`scores` of ``states[i]`` (fast to call from Python, see engine.py)."""
    return scores(states[i], out)


@kernel
def winners_at(states, i, out):
    """:func:`winners` of ``states[i]``."""
    return winners(states[i], out)
