"""Tests of borders_sim.rules.main_resources: main-resource collection (RULINGS 5-4..5-12, R-26).

The property tests compare the numba kernel with a slow reference written here in plain Python
that enumerates every sub-multiset of a small warehouse and every assignment of its cards to the
parts of the requirement.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from borders_sim.rules.cards import (
    BEER, CARD_CLASS, CARD_VALUE, CHOCOLATE, CLASS_CONTRABAND, CLASS_PREMIUM, COFFEE, COLOMBIAN,
    CUBAN, FISH, GUN, HAVANA, MAIN_PARTS, MOLASSES, MR_BOTTLES, MR_COAL, MR_COPPER, MR_CORN,
    MR_ICE, MR_MALT, MR_MOTORBOAT, MR_OAK, MR_SECRET_WAREHOUSE, MR_SUGAR, MR_TRUCK, MR_YEAST,
    NUM_GOODS, NUM_MAIN, OYSTERS, PART_ANY, PART_DIFFERENT, PART_NAMED, PART_NONE, PART_PIECES,
    PART_SAME, PIECE_TYPE, PIECES, RUM, SUGAR, TOBACCO, WHISKY,
)
from borders_sim.rules.main_resources import _lex_less, best_collection, can_collect


def wh(**counts):
    """Warehouse vector from keyword counts, e.g. wh(sugar=4, beer=1)."""
    names = {"sugar": SUGAR, "coffee": COFFEE, "tobacco": TOBACCO, "fish": FISH, "beer": BEER,
             "rum": RUM, "whisky": WHISKY, "gun": GUN, "chocolate": CHOCOLATE,
             "molasses": MOLASSES, "colombian": COLOMBIAN, "havana": HAVANA, "cuban": CUBAN,
             "oysters": OYSTERS}
    h = np.zeros(NUM_GOODS, dtype=np.int64)
    for k, v in counts.items():
        h[names[k]] = v
    return h


def solve(h, m, top_up=False):
    out = np.full(NUM_GOODS, -7, dtype=np.int64)
    status = best_collection(h, m, top_up, out)
    return status, out


# ---------------------------------------------------------------------------------------------
# brute-force reference (plain Python)
# ---------------------------------------------------------------------------------------------

def _parts(m):
    return [tuple(int(x) for x in p) for p in MAIN_PARTS[m] if p[0] != PART_NONE]


def _variants(m):
    """Requirement variants: PART_SAME (Truck, 5-10) becomes PART_PIECES of each legal type."""
    parts = _parts(m)
    for j, (kind, _t, n) in enumerate(parts):
        if kind == PART_SAME:
            return [parts[:j] + [(PART_PIECES, t, n)] + parts[j + 1:] for t in range(4)]
    return [parts]


def _eligible(c, part):
    kind, t, _n = part
    if kind == PART_PIECES:
        return PIECE_TYPE[c] == t
    if kind == PART_NAMED:
        return c == t
    if kind == PART_ANY:
        return CARD_CLASS[c] in (CLASS_CONTRABAND, CLASS_PREMIUM)
    if kind == PART_DIFFERENT:
        return PIECE_TYPE[c] >= 0
    raise AssertionError(kind)


def _compositions(k, slots):
    """All ways to split k identical cards among `slots` parts."""
    if slots == 1:
        yield (k,)
        return
    for i in range(k + 1):
        for rest in _compositions(k - i, slots - 1):
            yield (i,) + rest


def _min_deficit(sub, parts):
    """Smallest total number of missing units over all assignments of the cards of `sub` (every
    card to exactly one part that accepts it); None if some card fits no part."""
    per_type = []
    for c, k in enumerate(sub):
        if k == 0:
            continue
        elig = [j for j, p in enumerate(parts) if _eligible(c, p)]
        if not elig:
            return None
        per_type.append((c, elig, list(_compositions(k, len(elig)))))
    best = None
    for choice in itertools.product(*(comp for _c, _e, comp in per_type)):
        cover = [0] * len(parts)
        kinds_seen = [set() for _ in parts]
        for (c, elig, _comp), split in zip(per_type, choice):
            for j, cnt in zip(elig, split):
                if cnt == 0:
                    continue
                kind = parts[j][0]
                if kind == PART_PIECES:
                    cover[j] += cnt * PIECES[c]
                elif kind == PART_DIFFERENT:
                    kinds_seen[j].add(int(PIECE_TYPE[c]))
                else:
                    cover[j] += cnt
        deficit = 0
        for j, (kind, _t, n) in enumerate(parts):
            got = len(kinds_seen[j]) if kind == PART_DIFFERENT else cover[j]
            deficit += max(0, n - got)
        if best is None or deficit < best:
            best = deficit
    return best


def reference(have, m, top_up):
    """(status, value, premium count, used vector) by exhaustive enumeration (R-26f order)."""
    variants = _variants(m)
    max_cards = sum(n for _k, _t, n in _parts(m))
    types = [c for c in range(NUM_GOODS)
             if have[c] > 0 and any(_eligible(c, p) for v in variants for p in v)]
    plain, topped = [], []
    for counts in itertools.product(*(range(int(have[c]) + 1) for c in types)):
        if sum(counts) > max_cards:  # more cards than units needed: some card is useless
            continue
        sub = [0] * NUM_GOODS
        for c, k in zip(types, counts):
            sub[c] = k
        defs = [d for d in (_min_deficit(sub, v) for v in variants) if d is not None]
        if not defs:
            continue
        d = min(defs)
        value = sum(sub[c] * int(CARD_VALUE[c]) for c in range(NUM_GOODS))
        prem = sum(sub[c] for c in range(NUM_GOODS) if CARD_CLASS[c] == CLASS_PREMIUM)
        ids = sorted(c for c in range(NUM_GOODS) for _ in range(sub[c]))
        key = (value, prem, ids)
        if d == 0:
            plain.append((key, sub))
        elif d == 1:  # exactly one missing unit in one part: the black-market top-up (R-26c)
            topped.append((key, sub))
    if plain:
        key, sub = min(plain)
        return 0, key[0], key[1], sub
    if top_up and topped:
        key, sub = min(topped)
        return 1, key[0], key[1], sub
    return -1, 0, 0, [0] * NUM_GOODS


def _relevant_types(m):
    return sorted({c for v in _variants(m) for p in v for c in range(NUM_GOODS) if _eligible(c, p)})


@st.composite
def warehouses(draw, max_cards=8):
    m = draw(st.integers(0, NUM_MAIN - 1))
    rel = _relevant_types(m)
    # mostly relevant cards, sometimes any goods
    pool = st.one_of(st.sampled_from(rel), st.integers(0, NUM_GOODS - 1))
    cards = draw(st.lists(pool, max_size=max_cards))
    have = np.zeros(NUM_GOODS, dtype=np.int64)
    for c in cards:
        have[c] += 1
    return m, have, draw(st.booleans())


# ---------------------------------------------------------------------------------------------
# 5-1, 5-9, 5-10, 5-11: every main resource completed exactly with plain cards
# ---------------------------------------------------------------------------------------------

def _exact_plain(m):
    h = np.zeros(NUM_GOODS, dtype=np.int64)
    for kind, t, n in _parts(m):
        if kind in (PART_PIECES, PART_NAMED):
            h[t] += n
        elif kind == PART_ANY:
            h[BEER] += n
        elif kind == PART_DIFFERENT:
            for lt in range(n):
                h[lt] += 1
        elif kind == PART_SAME:
            h[FISH] += n
    return h


@pytest.mark.parametrize("m", range(NUM_MAIN))
def test_5_1_every_main_resource_exact_plain_set(m):
    """5-1/§12.4: the exact plain cards of each requirement complete it and are all spent."""
    h = _exact_plain(m)
    for top_up in (False, True):
        status, out = solve(h, m, top_up)
        assert status == 0
        assert np.array_equal(out, h)


@pytest.mark.parametrize("m", range(NUM_MAIN))
def test_5_12_every_main_resource_one_card_short(m):
    """5-12/R-26c: removing any single card of the exact set needs the top-up (1 with gold, -1
    without); removing two cards of a part with n >= 2 is never enough."""
    h = _exact_plain(m)
    for c in np.nonzero(h)[0]:
        h1 = h.copy()
        h1[c] -= 1
        assert solve(h1, m, False)[0] == -1
        status, out = solve(h1, m, True)
        assert status == 1
        assert np.array_equal(out, h1)
        if h[c] >= 2:
            h2 = h1.copy()
            h2[c] -= 1
            assert solve(h2, m, True)[0] == -1


# ---------------------------------------------------------------------------------------------
# premium goods: 5-4, 5-5, 5-6, R-26a, R-26b
# ---------------------------------------------------------------------------------------------

def test_r26a_molasses_and_chocolate_overshoot_sugar():
    """R-26a: Molasses (3) + Chocolate (2) fill Sugar's 4 Cane sugar; the extra piece is wasted."""
    h = wh(molasses=1, chocolate=1, beer=1)
    status, out = solve(h, MR_SUGAR)
    assert status == 0
    assert np.array_equal(out, h)


def test_r26a_colombian_coffee_for_yeast_single_coffee():
    """R-26a, 5-4: Colombian coffee (2 pieces) fills Yeast's 1 Coffee."""
    h = wh(fish=2, colombian=1, whisky=1)
    status, out = solve(h, MR_YEAST)
    assert status == 0
    assert np.array_equal(out, h)


def test_5_4_premium_pieces_for_named_legal_part():
    """5-4/5-9: Oysters (2 x fish) + 1 fish make Ice shipment's 3 Smoked fish; Cuban (3) for Corn."""
    assert solve(wh(oysters=1, fish=1, beer=1), MR_ICE)[0] == 0
    assert solve(wh(cuban=1, beer=1), MR_CORN)[0] == 0
    assert solve(wh(havana=1, beer=1), MR_CORN)[0] == -1   # 2 pieces < 3
    assert solve(wh(havana=1, beer=1), MR_CORN, True)[0] == 1


def test_5_5_premium_as_any_contraband():
    """5-5/5-7: premium cards fill "any contraband" parts (Secret warehouse from 5 premiums)."""
    h = wh(chocolate=1, molasses=1, colombian=1, havana=1, oysters=1)
    status, out = solve(h, MR_SECRET_WAREHOUSE)
    assert status == 0
    assert np.array_equal(out, h)
    status, out = solve(wh(sugar=4, chocolate=1), MR_SUGAR)
    assert status == 0 and out[CHOCOLATE] == 1 and out[SUGAR] == 4


def test_5_6_premium_not_both_pieces_and_any():
    """5-6/R-26b: a premium card is pieces or one any-contraband, never both roles at once."""
    # Molasses as 3 sugar + Chocolate as 2 sugar leave nothing for "1 any contraband".
    assert solve(wh(molasses=1, chocolate=1), MR_SUGAR)[0] == -1
    # Molasses alone cannot be 3 sugar and the contraband too: 2 units short.
    assert solve(wh(molasses=1), MR_SUGAR, True)[0] == -1
    # Molasses + 1 sugar are the 4 pieces; only the contraband is missing.
    status, out = solve(wh(molasses=1, sugar=1), MR_SUGAR, True)
    assert status == 1 and np.array_equal(out, wh(molasses=1, sugar=1))


def test_r26b_premium_not_split_between_parts():
    """R-26b: a premium card serves one part only: Chocolate (2) + sugar (1) fill Oak barrel's 3
    sugar, but Oysters (2 fish) cannot also stand in as Yeast's coffee."""
    assert solve(wh(rum=2, chocolate=1, sugar=1), MR_OAK)[0] == 0
    # Oysters (2 fish) cannot give 2 fish for Yeast and also stand in as the coffee.
    assert solve(wh(oysters=1, whisky=1), MR_YEAST)[0] == -1
    assert solve(wh(oysters=1, whisky=1), MR_YEAST, True)[0] == 1


def test_5_8_named_contraband_not_filled_by_premium():
    """5-8: a named contraband part needs that exact card; a premium card never fills it."""
    assert solve(wh(coffee=3, colombian=1), MR_MALT)[0] == -1
    assert solve(wh(gun=1, whisky=1, rum=1, cuban=1, chocolate=2), MR_MOTORBOAT)[0] == -1
    assert solve(wh(fish=2, oysters=3), MR_COPPER)[0] == -1
    # with the top-up, the rum is bought, and 3 coffee (no premium) beat Colombian + coffee
    status, out = solve(wh(coffee=3, colombian=1), MR_MALT, True)
    assert status == 1
    assert np.array_equal(out, wh(coffee=3))


# ---------------------------------------------------------------------------------------------
# Bottles (5-11) and Truck (5-10)
# ---------------------------------------------------------------------------------------------

def test_5_11_bottles_premium_stands_for_its_type():
    """5-11: in "3 different legal" a premium card stands for its own legal type."""
    h = wh(sugar=1, coffee=1, havana=1, beer=2)
    status, out = solve(h, MR_BOTTLES)
    assert status == 0
    assert np.array_equal(out, h)
    # one premium as a type, another premium as any-contraband
    h = wh(sugar=1, coffee=1, havana=1, chocolate=1, beer=1)
    status, out = solve(h, MR_BOTTLES)
    assert status == 0
    assert np.array_equal(out, h)


def test_5_11_bottles_same_type_twice_does_not_count():
    """5-11: two cards of one legal type (legal or premium) are one type, not two."""
    assert solve(wh(sugar=1, chocolate=1, coffee=1, beer=2), MR_BOTTLES)[0] == -1
    assert solve(wh(sugar=3, coffee=2, beer=2), MR_BOTTLES)[0] == -1
    status, out = solve(wh(sugar=1, chocolate=1, coffee=1, beer=2), MR_BOTTLES, True)
    assert status == 1
    # the spare Chocolate (4) is cheaper as contraband than a Beer (6)
    assert np.array_equal(out, wh(sugar=1, coffee=1, chocolate=1, beer=1))


@pytest.mark.parametrize("t", [SUGAR, COFFEE, TOBACCO, FISH])
def test_5_10_truck_each_legal_type(t):
    """5-10: Truck takes 5 pieces of any one legal type plus 2 any contraband."""
    h = np.zeros(NUM_GOODS, dtype=np.int64)
    h[t] = 5
    h[RUM] = 2
    status, out = solve(h, MR_TRUCK)
    assert status == 0
    assert np.array_equal(out, h)


def test_5_10_truck_premium_pieces_and_no_mixing():
    """5-10/5-4: premium pieces count for Truck (Cuban 3 + Havana 2 tobacco); types never mix."""
    h = wh(cuban=1, havana=1, beer=2)
    status, out = solve(h, MR_TRUCK)
    assert status == 0 and np.array_equal(out, h)
    h = wh(coffee=3, colombian=1, whisky=1, gun=1)
    status, out = solve(h, MR_TRUCK)
    assert status == 0 and np.array_equal(out, h)
    # 3 sugar + 2 coffee is not 5 of the same type: 2 short
    assert solve(wh(sugar=3, coffee=2, beer=2), MR_TRUCK, True)[0] == -1
    # the cheapest type is chosen: 5 sugar (10) over 5 fish (20)
    status, out = solve(wh(sugar=5, fish=5, beer=2), MR_TRUCK)
    assert status == 0 and np.array_equal(out, wh(sugar=5, beer=2))


# ---------------------------------------------------------------------------------------------
# black-market top-up: 5-12, R-26c, R-26f
# ---------------------------------------------------------------------------------------------

def test_r26c_top_up_missing_legal_piece():
    """R-26c: one missing legal piece (Malt with 2 coffee + rum)."""
    h = wh(coffee=2, rum=1)
    assert solve(h, MR_MALT)[0] == -1
    status, out = solve(h, MR_MALT, True)
    assert status == 1 and np.array_equal(out, h)


def test_r26c_top_up_missing_different_type():
    """R-26c: one missing "different type" (Bottles with 2 legal types)."""
    h = wh(sugar=1, coffee=1, beer=2)
    assert solve(h, MR_BOTTLES)[0] == -1
    status, out = solve(h, MR_BOTTLES, True)
    assert status == 1 and np.array_equal(out, h)


def test_r26c_top_up_missing_any_contraband():
    """R-26c: one missing any-contraband (Sugar with 4 sugar; Secret warehouse with 4)."""
    status, out = solve(wh(sugar=4), MR_SUGAR, True)
    assert status == 1 and np.array_equal(out, wh(sugar=4))
    h = wh(beer=2, rum=1, chocolate=1)
    status, out = solve(h, MR_SECRET_WAREHOUSE, True)
    assert status == 1 and np.array_equal(out, h)


def test_r26c_top_up_missing_named_contraband_thompson():
    """R-26c: the top-up may replace a named contraband card, e.g. the Thompson for Motorboat."""
    h = wh(whisky=1, rum=2)
    assert solve(h, MR_MOTORBOAT)[0] == -1
    status, out = solve(h, MR_MOTORBOAT, True)
    assert status == 1 and np.array_equal(out, h)
    # a premium still cannot fill the named part even next to the top-up (5-8)
    assert solve(wh(whisky=1, rum=1, cuban=2), MR_MOTORBOAT, True)[0] == -1


def test_r26f_no_top_up_when_plain_set_exists():
    """R-26f: the top-up is used only when no plain set exists, even if the plain set is worth more."""
    status, out = solve(wh(sugar=4, cuban=1), MR_SUGAR, True)
    assert status == 0 and np.array_equal(out, wh(sugar=4, cuban=1))
    status, out = solve(wh(gun=1, whisky=1, rum=2, beer=3), MR_MOTORBOAT, True)
    assert status == 0 and np.array_equal(out, wh(gun=1, whisky=1, rum=2))


def test_5_12_two_missing_pieces_impossible():
    """5-12: at most one missing piece per collection; two missing gives -1."""
    assert solve(wh(coffee=1, rum=1), MR_MALT, True)[0] == -1
    assert solve(wh(rum=2), MR_MOTORBOAT, True)[0] == -1
    assert solve(wh(beer=1, tobacco=3), MR_COAL, True)[0] == 1
    assert solve(wh(tobacco=3), MR_COAL, True)[0] == -1
    # one piece missing in each of two parts is two pieces
    assert solve(wh(tobacco=2, beer=1), MR_COAL, True)[0] == -1
    status, out = solve(np.zeros(NUM_GOODS, dtype=np.int64), MR_YEAST, True)
    assert status == -1 and not out.any()


def test_r26d_can_collect_gold_threshold():
    """R-26d/5-12: can_collect allows the top-up iff free gold >= 10."""
    h = wh(coffee=2, rum=1)
    assert can_collect(h, MR_MALT, 9) == -1
    assert can_collect(h, MR_MALT, 10) == 1
    assert can_collect(wh(coffee=3, rum=1), MR_MALT, 0) == 0


# ---------------------------------------------------------------------------------------------
# choice of the set: R-26f
# ---------------------------------------------------------------------------------------------

def test_r26f_cheapest_set_chocolate_before_beer():
    """R-26f: lowest total value: Chocolate (4) is spent as any-contraband rather than Beer (6)."""
    status, out = solve(wh(sugar=4, chocolate=1, beer=1), MR_SUGAR)
    assert status == 0 and np.array_equal(out, wh(sugar=4, chocolate=1))
    # Bottles: Chocolate + Beer as contraband (10) rather than 2 Beer (12)
    h = wh(sugar=1, coffee=1, tobacco=1, chocolate=1, beer=2)
    status, out = solve(h, MR_BOTTLES)
    assert status == 0 and np.array_equal(out, wh(sugar=1, coffee=1, tobacco=1, chocolate=1, beer=1))
    # Truck: 5 sugar + Chocolate + Beer (20) beats 3 sugar + Chocolate as pieces + 2 Beer (22)
    status, out = solve(wh(sugar=5, chocolate=1, beer=2), MR_TRUCK)
    assert status == 0 and np.array_equal(out, wh(sugar=5, chocolate=1, beer=1))
    # Sugar: one Chocolate as 2 sugar pieces, the other as the contraband (12), not Beer (14)
    status, out = solve(wh(sugar=2, chocolate=2, beer=1), MR_SUGAR)
    assert status == 0 and np.array_equal(out, wh(sugar=2, chocolate=2))


def test_r26f_fewer_premium_then_lowest_ids():
    """R-26f: at equal value, fewer premium cards; then the smallest sorted id list."""
    h = wh(beer=4, colombian=1, havana=1, molasses=1)
    status, out = solve(h, MR_SECRET_WAREHOUSE)
    assert status == 0 and np.array_equal(out, wh(beer=4, molasses=1))
    # two of three premiums of value 6 are needed: lowest ids Molasses (9) + Colombian (10)
    h = wh(beer=3, colombian=1, havana=1, molasses=1)
    status, out = solve(h, MR_SECRET_WAREHOUSE)
    assert status == 0 and np.array_equal(out, wh(beer=3, molasses=1, colombian=1))
    h = wh(beer=2, colombian=1, havana=1)
    status, out = solve(h, MR_SECRET_WAREHOUSE, True)
    assert status == 1 and np.array_equal(out, h)


def test_r26f_tie_break_prefix_rule():
    """R-26f reading: sorted id lists compare like Python lists, a proper prefix being smaller."""
    for a, b in [([0, 0, 4], [0, 0, 4, 5]), ([0, 1], [0, 0, 9]), ([3], [2, 13]), ([], [0])]:
        va = np.bincount(a, minlength=NUM_GOODS).astype(np.int64)
        vb = np.bincount(b, minlength=NUM_GOODS).astype(np.int64)
        assert _lex_less(va, vb) == (a < b)
        assert _lex_less(vb, va) == (b < a)


@given(st.lists(st.integers(0, 13), max_size=7), st.lists(st.integers(0, 13), max_size=7))
@settings(max_examples=100, deadline=None)
def test_r26f_lex_less_matches_python_sorted_lists(a, b):
    """R-26f: the kernel's id tie-break equals Python's comparison of the sorted id lists."""
    va = np.bincount(a, minlength=NUM_GOODS).astype(np.int64)
    vb = np.bincount(b, minlength=NUM_GOODS).astype(np.int64)
    assert _lex_less(va, vb) == (sorted(a) < sorted(b))


# ---------------------------------------------------------------------------------------------
# input handling
# ---------------------------------------------------------------------------------------------

def test_5_3_int32_warehouse_and_out_cleared():
    """5-3: the kernel reads an int32 warehouse (the state's dtype) and zeroes out_used on -1."""
    h = wh(fish=3, beer=1).astype(np.int32)
    out = np.full(NUM_GOODS, 5, dtype=np.int64)
    assert best_collection(h, MR_ICE, False, out) == 0
    assert np.array_equal(out, wh(fish=3, beer=1))
    out[:] = 5
    assert best_collection(h, MR_COPPER, True, out) == -1
    assert not out.any()


def test_5_3_full_card_type_vector_accepted():
    """5-3: a 20-entry per-card-type vector is accepted; action cards (14..19) are ignored."""
    h = np.zeros(20, dtype=np.int64)
    h[:NUM_GOODS] = wh(gun=1, whisky=1, rum=2)
    h[14:] = 3
    out = np.zeros(NUM_GOODS, dtype=np.int64)
    assert best_collection(h, MR_MOTORBOAT, False, out) == 0
    assert np.array_equal(out, h[:NUM_GOODS])


def test_5_1_bad_main_id_raises():
    """5-1: main resource ids are 0..11."""
    with pytest.raises(ValueError):
        best_collection(wh(), NUM_MAIN, False, np.zeros(NUM_GOODS, dtype=np.int64))


# ---------------------------------------------------------------------------------------------
# property tests against the brute-force reference
# ---------------------------------------------------------------------------------------------

@given(warehouses())
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_r26_matches_brute_force_reference(case):
    """5-4..5-12, R-26: kernel == exhaustive reference on feasibility, top-up flag, total value,
    premium count and (same R-26f order) the exact set; out_used is a sub-multiset of have."""
    m, have, top_up = case
    status, out = solve(have, m, top_up)
    r_status, r_value, r_prem, r_used = reference(have, m, top_up)
    assert status == r_status
    assert (out >= 0).all() and (out <= have).all()
    if status < 0:
        assert not out.any()
        return
    assert int(out @ CARD_VALUE[:NUM_GOODS]) == r_value
    assert int(out[CARD_CLASS[:NUM_GOODS] == CLASS_PREMIUM].sum()) == r_prem
    assert np.array_equal(out, np.array(r_used))
    assert can_collect(have, m, 10 if top_up else 0) == status


@pytest.mark.parametrize("m", range(NUM_MAIN))
@given(data=st.data())
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_r26_matches_reference_per_resource(m, data):
    """R-26: per main resource, near-complete warehouses (exact set +- a few cards) agree with the
    reference, so the feasible and top-up branches are exercised for all 12 resources."""
    base = _exact_plain(m)
    rel = _relevant_types(m)
    have = base.copy()
    for c in data.draw(st.lists(st.sampled_from(rel), max_size=4), label="add"):
        have[c] += 1
    for c in data.draw(st.lists(st.integers(0, NUM_GOODS - 1), max_size=2), label="remove"):
        have[c] = max(0, have[c] - 1)
    top_up = data.draw(st.booleans(), label="top_up")
    status, out = solve(have, m, top_up)
    r_status, r_value, r_prem, r_used = reference(have, m, top_up)
    assert status == r_status
    assert (out >= 0).all() and (out <= have).all()
    if status >= 0:
        assert int(out @ CARD_VALUE[:NUM_GOODS]) == r_value
        assert int(out[CARD_CLASS[:NUM_GOODS] == CLASS_PREMIUM].sum()) == r_prem
        assert np.array_equal(out, np.array(r_used))
