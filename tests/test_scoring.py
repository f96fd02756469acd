"""Tests of borders_sim.rules.scoring: §9 and RULINGS 9-1..9-9, R-31, R-32.

Every test names the rule it checks (in its name or docstring). States are built by hand from
``empty_states(1)``; ``st[0]`` is a view into the array, so writes through it stick.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st_

from borders_sim.rules.cards import (
    BEER, CARD_VALUE, CHOCOLATE, COFFEE, CUBAN, FISH, GUN, HAVANA, KING_BONUS, LAWYER,
    MAIN_POINTS, MOLASSES, NUM_GOODS, NUM_LEGAL, NUM_MAIN, OYSTERS, PIECE_TYPE, PIECES,
    QUEEN_BONUS, RUM, SUGAR, TOBACCO, WHISKY, COLOMBIAN,
)
from borders_sim.rules.scoring import king_queen_bonus, scores, warehouse_pieces, winners
from borders_sim.rules.state import (
    CFG_NUM_PLAYERS, CFG_TIEBREAK_PIECES, MAX_PLAYERS, empty_states,
)

PLAYER_COUNTS = list(range(3, 9))
PREMIUMS = [CHOCOLATE, MOLASSES, COLOMBIAN, HAVANA, CUBAN, OYSTERS]


# --- helpers ----------------------------------------------------------------------------------
def make(n, tiebreak_pieces=0):
    """A zeroed one-state batch with ``n`` players; returns the array (use ``st[0]``)."""
    st = empty_states(1)
    st[0]["cfg"][CFG_NUM_PLAYERS] = n
    st[0]["cfg"][CFG_TIEBREAK_PIECES] = tiebreak_pieces
    return st


def sc(st):
    return scores(st[0], np.zeros(MAX_PLAYERS, np.int64))


def win(st):
    return winners(st[0], np.zeros(MAX_PLAYERS, np.int64))


def kq(rows, n):
    """King/Queen bonuses for ``rows`` (list of per-seat [sugar, coffee, tobacco, fish])."""
    pieces = np.zeros((MAX_PLAYERS, NUM_LEGAL), np.int64)
    pieces[: len(rows)] = rows
    return king_queen_bonus(pieces, n, np.zeros(MAX_PLAYERS, np.int64))


def col(t, counts):
    """Per-seat piece rows with ``counts`` in column ``t`` only."""
    rows = np.zeros((len(counts), NUM_LEGAL), np.int64)
    rows[:, t] = counts
    return rows


def equalize_gold(st, seats, target=200):
    """Set gold of ``seats`` so that each scores exactly ``target`` (gold is additive, 9-3b)."""
    s = st[0]
    base = sc(st)
    for p in seats:
        s["gold"][p] = target - (base[p] - s["gold"][p])
        assert s["gold"][p] >= 0
    got = sc(st)
    assert all(got[p] == target for p in seats)


# --- 9-3 formula components -------------------------------------------------------------------
def test_9_3a_contraband_value_face_up_and_down():
    """9-3(a): warehouse contraband counts at card value, face down included; no bonus."""
    st = make(4)
    s = st[0]
    s["wh_down"][0, BEER] = 2
    s["wh_down"][0, GUN] = 1
    s["wh_down"][1, RUM] = 1
    s["wh_down"][1, WHISKY] = 1
    assert list(sc(st)[:4]) == [2 * 6 + 9, 7 + 8, 0, 0]


@pytest.mark.parametrize("card", PREMIUMS)
def test_9_3a_face_down_premium_value(card):
    """9-3(a), 9-2: a face-down premium card scores its value (plus its lone-holder King, R-31)."""
    st = make(4)
    st[0]["wh_down"][2, card] = 1
    expected = CARD_VALUE[card] + KING_BONUS[PIECE_TYPE[card]]
    assert sc(st)[2] == expected
    assert sc(st).sum() == expected


def test_9_3a_face_up_legal_value():
    """9-3(a): face-up legal cards score their value (one holder per type: Kings only, R-31)."""
    st = make(5)
    s = st[0]
    s["wh_up"][1, SUGAR] = 4      # 8 + King 20
    s["wh_up"][1, FISH] = 1       # 4 + King 10
    assert sc(st)[1] == 8 + 20 + 4 + 10


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_9_3b_gold_one_point_each(n):
    """9-3(b): 1 gold = 1 point, for every seat."""
    st = make(n)
    st[0]["gold"][:n] = np.arange(n) * 7 + 1
    assert list(sc(st)[:n]) == list(np.arange(n) * 7 + 1)


@pytest.mark.parametrize("m", range(NUM_MAIN))
def test_9_3c_main_resource_points(m):
    """9-3(c): each held main resource scores its printed points."""
    st = make(4)
    st[0]["main_held"][3, m] = 1
    assert sc(st)[3] == MAIN_POINTS[m]


def test_9_3c_two_main_resources_add():
    """9-3(c): two held main resources add up."""
    st = make(3)
    st[0]["main_held"][0, 0] = 1
    st[0]["main_held"][0, 11] = 1
    assert sc(st)[0] == 22 + 45


def test_9_1_hand_scores_zero():
    """9-1: cards left in hand are worth nothing, not even for King/Queen."""
    st = make(4)
    st[0]["hand"][0, :] = 3
    st[0]["hand"][1, SUGAR] = 6
    assert not sc(st).any()


def test_9_3_full_formula():
    """9-3: (a) + (b) + (c) + (d) worked by hand, 4 players."""
    st = make(4)
    s = st[0]
    s["wh_up"][0, SUGAR] = 3          # 6,  sugar pieces 3
    s["wh_down"][0, MOLASSES] = 1     # 6,  sugar pieces +3 -> 6
    s["wh_down"][0, BEER] = 1         # 6
    s["gold"][0] = 13
    s["main_held"][0, 1] = 1          # malt 24
    s["hand"][0, GUN] = 2             # 0 (9-1)
    s["wh_up"][1, SUGAR] = 2          # 4,  sugar pieces 2 -> Queen
    s["wh_up"][1, COFFEE] = 2         # 6,  lone coffee holder -> King
    s["gold"][1] = 5
    # seat 0: 6 + 6 + 6 + 13 + 24 + sugar King 20
    # seat 1: 4 + 6 + 5 + sugar Queen 10 + coffee King 15
    assert list(sc(st)[:4]) == [75, 40, 0, 0]


# --- 9-4 / 9-5 King and Queen -----------------------------------------------------------------
@pytest.mark.parametrize("t", range(NUM_LEGAL))
def test_9_5_king_queen_table(t):
    """9-5: most pieces gets KING_BONUS, second most QUEEN_BONUS, third nothing (4 players)."""
    got = kq(col(t, [1, 3, 2, 0]), 4)
    assert list(got[:4]) == [0, KING_BONUS[t], QUEEN_BONUS[t], 0]


def test_9_5_bonus_table_values():
    """9-5: the printed table: sugar 20/10, coffee 15/10, tobacco 15/10, fish 10/5."""
    assert list(KING_BONUS) == [20, 15, 15, 10]
    assert list(QUEEN_BONUS) == [10, 10, 10, 5]


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_9_5_tobacco_bonus_only_from_4_players(n):
    """9-5: tobacco King/Queen only with 4+ players; other types regardless."""
    got = kq(col(TOBACCO, [2, 1, 0]), n)
    if n < 4:
        assert not got.any()
    else:
        assert list(got[:3]) == [15, 10, 0]
    assert list(kq(col(COFFEE, [2, 1, 0]), n)[:3]) == [15, 10, 0]


def test_9_5_tobacco_absent_in_3p_scores():
    """9-5: through scores(): a 3-player Cuban cigar earns its value but no tobacco King."""
    st = make(3)
    st[0]["wh_down"][0, CUBAN] = 1
    assert sc(st)[0] == 9
    st[0]["cfg"][CFG_NUM_PLAYERS] = 4
    assert sc(st)[0] == 9 + 15


@pytest.mark.parametrize("card", PREMIUMS)
def test_9_4_warehouse_pieces_premium(card):
    """9-4: a premium card is PIECES (2 or 3) pieces of its legal type, face up or down."""
    st = make(4)
    st[0]["wh_down"][0, card] = 1
    st[0]["wh_up"][1, PIECE_TYPE[card]] = 2
    st[0]["wh_down"][1, PIECE_TYPE[card]] = 1     # face-down legal (False Bottom) counts
    st[0]["wh_down"][2, BEER] = 4                 # contraband: no pieces
    pieces = warehouse_pieces(st[0], np.full((MAX_PLAYERS, NUM_LEGAL), 99, np.int64))
    exp = np.zeros((MAX_PLAYERS, NUM_LEGAL), np.int64)
    exp[0, PIECE_TYPE[card]] = PIECES[card]
    exp[1, PIECE_TYPE[card]] = 3
    assert (pieces == exp).all()


@pytest.mark.parametrize("card", PREMIUMS)
def test_9_4_premium_counts_as_pieces_for_king(card):
    """9-4: one premium card beats PIECES-1 legal cards and ties PIECES legal cards (9-6)."""
    t = PIECE_TYPE[card]
    k, q = KING_BONUS[t], QUEEN_BONUS[t]
    st = make(4)
    s = st[0]
    s["wh_down"][0, card] = 1
    s["wh_up"][1, t] = PIECES[card] - 1
    bonus = sc(st) - np.array([CARD_VALUE[card], CARD_VALUE[t] * (PIECES[card] - 1), 0, 0,
                               0, 0, 0, 0])
    assert list(bonus[:2]) == [k, q]
    s["wh_up"][1, t] = PIECES[card]
    bonus = sc(st) - np.array([CARD_VALUE[card], CARD_VALUE[t] * PIECES[card], 0, 0, 0, 0, 0, 0])
    assert list(bonus[:2]) == [(k + q) // 2] * 2


def test_9_4_pieces_compare_not_cards():
    """9-4: one Molasses (3 sugar pieces) is King over two sugar cards despite fewer cards."""
    st = make(3)
    st[0]["wh_down"][0, MOLASSES] = 1
    st[0]["wh_up"][1, SUGAR] = 2
    assert list(sc(st)[:2]) == [6 + 20, 4 + 10]


# --- 9-6 King tie -----------------------------------------------------------------------------
@pytest.mark.parametrize("n", PLAYER_COUNTS)
@pytest.mark.parametrize("k", [2, 3])
def test_9_6_sugar_king_tie_shares_king_plus_queen(n, k):
    """9-6: sugar 20+10 shared: 2 tied -> 15 each, 3 tied -> 10 each; nobody gets a Queen."""
    counts = [4] * k + [2] * (n - k)          # the rest hold fewer but still get no Queen
    got = kq(col(SUGAR, counts), n)
    assert list(got[:n]) == [30 // k] * k + [0] * (n - k)


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_9_6_coffee_king_tie_rounded_down(n):
    """9-6: coffee 15+10 = 25 shared by 2 -> 12 each (rounded down), no Queen."""
    got = kq(col(COFFEE, [0, 3, 3, 1][:n] + [0] * (n - 4)), n)
    assert list(got[:4]) == [0, 12, 12, 0]


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_9_6_all_seats_tied_for_king(n):
    """9-6: every seat tied: fish 15 // n each."""
    got = kq(col(FISH, [2] * n), n)
    assert list(got[:n]) == [15 // n] * n


# --- 9-7 Queen tie ----------------------------------------------------------------------------
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_9_7_fish_queen_tie_rounded_down(n):
    """9-7: unique fish King 10; Queen 5 shared by 2 -> 2 each (rounded down)."""
    counts = [1, 5, 1] + [0] * (n - 3)
    got = kq(col(FISH, counts), n)
    assert list(got[:3]) == [2, 10, 2]
    assert not got[3:].any()


@pytest.mark.parametrize("n", [4, 5, 6, 7, 8])
def test_9_7_queen_tie_among_three(n):
    """9-7: sugar Queen 10 among 3 -> 3 each; coffee Queen 10 among 3 -> 3 each."""
    for t in (SUGAR, COFFEE):
        got = kq(col(t, [6, 2, 2, 2] + [1] * (n - 4)), n)
        assert list(got[:4]) == [KING_BONUS[t], 3, 3, 3]
        assert not got[4:].any()


# --- R-31 / 9-8 qualification -----------------------------------------------------------------
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_R31_single_holder_king_only(n):
    """R-31, 9-8: one holder is King; seats with 0 pieces never become Queen."""
    for t in (SUGAR, COFFEE, FISH):
        counts = [0] * n
        counts[n - 1] = 1
        got = kq(col(t, counts), n)
        assert got[n - 1] == KING_BONUS[t]
        assert got.sum() == KING_BONUS[t]


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_R31_nobody_holds_no_bonus(n):
    """R-31: with no pieces of any type nobody gets a bonus (no free 0-0 tie)."""
    assert not kq(np.zeros((n, NUM_LEGAL), np.int64), n).any()


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_R31_zero_pieces_not_queen(n):
    """R-31: two holders: King and Queen; the zero seats do not share the Queen."""
    counts = [0] * n
    counts[0], counts[2] = 1, 5
    got = kq(col(SUGAR, counts), n)
    assert got[2] == 20 and got[0] == 10 and got.sum() == 30


def test_absent_seats_ignored():
    """9-3, 9-9: rows at and beyond num_players never score, take bonuses or win."""
    st = make(3)
    s = st[0]
    s["wh_up"][0, SUGAR] = 1
    s["wh_up"][3, SUGAR] = 9          # seat 3 does not exist in a 3-player game
    s["gold"][4] = 500
    s["main_held"][5, 0] = 1
    assert list(sc(st)) == [2 + 20, 0, 0, 0, 0, 0, 0, 0]
    assert list(win(st)) == [1, 0, 0, 0, 0, 0, 0, 0]
    pieces = warehouse_pieces(s, np.zeros((MAX_PLAYERS, NUM_LEGAL), np.int64))
    assert pieces[3:].sum() == 0
    # king_queen_bonus also reads only the first num_players rows
    assert list(kq(col(SUGAR, [1, 0, 0, 9]), 3)[:4]) == [20, 0, 0, 0]


def test_king_queen_bonus_adds_into_out():
    """9-3(d): king_queen_bonus adds to ``out`` (used on top of the other components)."""
    pieces = np.zeros((MAX_PLAYERS, NUM_LEGAL), np.int64)
    pieces[0, SUGAR] = 1
    out = np.full(MAX_PLAYERS, 5, np.int64)
    king_queen_bonus(pieces, 4, out)
    assert list(out[:2]) == [25, 5]


# --- 9-9 winners ------------------------------------------------------------------------------
@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_9_9_highest_score_wins(n):
    """9-9: the unique highest score wins, whatever the tie-break keys of the others."""
    st = make(n)
    s = st[0]
    s["gold"][:n] = 50
    s["gold"][n - 1] = 51
    s["main_held"][0, 0] = 1          # 22 + 50 > 51: seat 0 now leads
    assert list(win(st)[:n]) == [1] + [0] * (n - 1)
    s["gold"][n - 1] = 73             # 73 > 72: the richer seat beats more main resources
    assert list(win(st)[:n]) == [0] * (n - 1) + [1]


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_9_9_tiebreak1_more_main_resources(n):
    """9-9 tie-break 1: on equal score, more main resource cards held wins."""
    st = make(n)
    s = st[0]
    s["main_held"][1, 0] = 1
    s["main_held"][1, 2] = 1
    s["main_held"][0, 11] = 1
    s["wh_up"][0, SUGAR] = 10         # seat 0 has more legal goods: irrelevant at level 1
    equalize_gold(st, [0, 1])
    assert list(win(st)[:n]) == [0, 1] + [0] * (n - 2)


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_9_9_R32_tiebreak2_legal_cards(n):
    """9-9 tie-break 2, R-32 (cards, default): more legal cards wins; face-down legal counts."""
    st = make(n)
    s = st[0]
    s["main_held"][0, 3] = 1
    s["main_held"][1, 4] = 1
    s["wh_up"][0, FISH] = 1
    s["wh_down"][0, COFFEE] = 1       # False Bottom legal card, face down
    s["wh_up"][1, FISH] = 1
    equalize_gold(st, [0, 1])
    assert list(win(st)[:n]) == [1] + [0] * (n - 1)


def _cards_vs_pieces(n, flag):
    """Seat 0: 3 sugar cards. Seat 1: 2 coffee cards + Molasses (3 sugar pieces). Equal scores
    and main resources; cards 3 vs 2, pieces 3 vs 5."""
    st = make(n, tiebreak_pieces=flag)
    s = st[0]
    s["wh_up"][0, SUGAR] = 3
    s["wh_up"][1, COFFEE] = 2
    s["wh_down"][1, MOLASSES] = 1
    equalize_gold(st, [0, 1])
    return st


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_R32_cards_excludes_premium(n):
    """R-32 default (tiebreak_legal=cards): premium cards and their pieces are excluded."""
    assert list(win(_cards_vs_pieces(n, 0))[:n]) == [1] + [0] * (n - 1)


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_R32_pieces_flag_counts_premium_pieces(n):
    """R-32 variant (tiebreak_legal=pieces): legal cards + premium pieces decide instead."""
    assert list(win(_cards_vs_pieces(n, 1))[:n]) == [0, 1] + [0] * (n - 2)


def test_R32_contraband_never_legal_goods():
    """R-32: contraband is not legal goods, under either flag."""
    for flag in (0, 1):
        st = make(4, tiebreak_pieces=flag)
        s = st[0]
        s["wh_down"][0, BEER] = 5
        s["wh_up"][1, FISH] = 1
        equalize_gold(st, [0, 1])
        assert list(win(st)[:4]) == [0, 1, 0, 0]


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_9_9_tiebreak3_shared_victory_all(n):
    """9-9 tie-break 3: identical seats share the victory."""
    st = make(n)
    s = st[0]
    s["gold"][:n] = 40
    s["main_held"][:n, 6] = 1
    s["wh_up"][:n, SUGAR] = 2
    assert list(win(st)[:n]) == [1] * n


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_9_9_tiebreak3_shared_victory_subset(n):
    """9-9 tie-break 3: two seats equal on score, main resources and legal goods share;
    a lower-scoring seat with more main resources does not win."""
    st = make(n)
    s = st[0]
    s["wh_up"][0, SUGAR] = 1
    s["wh_up"][n - 1, COFFEE] = 1
    s["main_held"][1, :3] = 1
    equalize_gold(st, [0, n - 1])
    s["gold"][1] = 0                  # 22 + 24 + 24 = 70 < 200
    assert sc(st)[1] < 200
    assert list(win(st)[:n]) == [1] + [0] * (n - 2) + [1]


def test_9_9_zero_scores_all_win():
    """9-9: an all-zero game is a full tie: shared victory (tie-break 3)."""
    assert list(win(make(5))) == [1] * 5 + [0] * 3


# --- properties (hypothesis) ------------------------------------------------------------------
def _kq_reference(pieces, n):
    """Plain-Python King/Queen (9-5..9-7, R-31) for cross-checking."""
    out = [0] * MAX_PLAYERS
    for t in range(NUM_LEGAL):
        if t == TOBACCO and n < 4:
            continue
        held = sorted({int(pieces[p, t]) for p in range(n) if pieces[p, t] > 0}, reverse=True)
        if not held:
            continue
        kings = [p for p in range(n) if pieces[p, t] == held[0]]
        if len(kings) > 1:
            for p in kings:
                out[p] += (KING_BONUS[t] + QUEEN_BONUS[t]) // len(kings)
            continue
        out[kings[0]] += KING_BONUS[t]
        if len(held) > 1:
            queens = [p for p in range(n) if pieces[p, t] == held[1]]
            for p in queens:
                out[p] += QUEEN_BONUS[t] // len(queens)
    return out


pieces_tables = st_.integers(3, 8).flatmap(lambda n: st_.tuples(
    st_.just(n),
    st_.lists(st_.lists(st_.integers(0, 6), min_size=NUM_LEGAL, max_size=NUM_LEGAL),
              min_size=n, max_size=n)))


@settings(max_examples=200, deadline=None)
@given(pieces_tables)
def test_property_9_6_9_7_bonus_per_type_at_most_king_plus_queen(case):
    """9-5..9-7, R-31: per type the bonuses handed out never exceed King+Queen, are never
    negative, only go to holders, and match a plain-Python reference."""
    n, rows = case
    pieces = np.zeros((MAX_PLAYERS, NUM_LEGAL), np.int64)
    pieces[:n] = rows
    total = np.zeros(MAX_PLAYERS, np.int64)
    for t in range(NUM_LEGAL):
        one = np.zeros_like(pieces)
        one[:, t] = pieces[:, t]
        got = king_queen_bonus(one, n, np.zeros(MAX_PLAYERS, np.int64))
        assert (got >= 0).all()
        assert got.sum() <= KING_BONUS[t] + QUEEN_BONUS[t]
        assert not got[pieces[:, t] == 0].any()
        if t == TOBACCO and n < 4:
            assert not got.any()                            # 9-5
        total += got
    full = king_queen_bonus(pieces, n, np.zeros(MAX_PLAYERS, np.int64))
    assert (full == total).all()
    assert list(full) == _kq_reference(pieces, n)


random_games = st_.integers(3, 8).flatmap(lambda n: st_.tuples(
    st_.just(n),
    st_.integers(0, 1),
    st_.lists(st_.integers(0, 3), min_size=n * NUM_GOODS, max_size=n * NUM_GOODS),
    st_.lists(st_.integers(0, 2), min_size=n * NUM_GOODS, max_size=n * NUM_GOODS),
    st_.lists(st_.integers(0, 60), min_size=n, max_size=n),
    st_.lists(st_.integers(0, 1), min_size=n * NUM_MAIN, max_size=n * NUM_MAIN),
    st_.permutations(list(range(n))),
))


@settings(max_examples=100, deadline=None)
@given(random_games)
def test_property_9_3_9_9_invariant_under_seat_permutation(case):
    """9-3, 9-9, R-32: permuting all per-seat rows permutes scores and winners the same way;
    at least one seat wins; winners all share the top score."""
    n, flag, up, down, gold, mains, perm = case
    st = make(n, tiebreak_pieces=flag)
    s = st[0]
    s["wh_up"][:n, :NUM_LEGAL] = np.array(up).reshape(n, NUM_GOODS)[:, :NUM_LEGAL]
    s["wh_down"][:n] = np.array(down).reshape(n, NUM_GOODS)
    s["gold"][:n] = gold
    s["main_held"][:n] = np.array(mains).reshape(n, NUM_MAIN)
    s["hand"][:n, LAWYER] = np.arange(n)            # hands ignored (9-1) but permuted too
    base_sc, base_w = sc(st).copy(), win(st).copy()
    assert base_w[:n].sum() >= 1
    assert (base_sc[:n][base_w[:n] == 1] == base_sc[:n].max()).all()

    perm = np.array(perm)
    pt = make(n, tiebreak_pieces=flag)
    q = pt[0]
    for field in ("wh_up", "wh_down", "gold", "main_held", "hand"):
        q[field][:n] = s[field][:n][perm]
    assert (sc(pt)[:n] == base_sc[:n][perm]).all()
    assert (win(pt)[:n] == base_w[:n][perm]).all()
    assert not sc(pt)[n:].any() and not win(pt)[n:].any()
