"""The engine's scans of a legal mask (:mod:`borders_sim.rules.engine`): counting, the k-th,
first and last legal action and the listing of legal ids agree with numpy on any 0/1 mask."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as hst

from borders_sim.rules.engine import (MASK_SIZE, count_legal, first_legal, kth_legal, last_legal,
                                      list_legal)
from borders_sim.rules.actions import NUM_ACTIONS


@hst.composite
def masks(draw):
    """A mask buffer with legal ids only in ``lo:hi`` (as a phase's mask), and the span."""
    lo = draw(hst.integers(0, NUM_ACTIONS - 1))
    hi = draw(hst.integers(lo + 1, NUM_ACTIONS))
    density = draw(hst.sampled_from([0.02, 0.3, 1.0]))
    rng = np.random.default_rng(draw(hst.integers(0, 2**32)))
    mask = np.zeros(MASK_SIZE, dtype=np.uint8)
    mask[lo:hi] = rng.random(hi - lo) < density
    return mask, lo, hi


@settings(max_examples=300, deadline=None)
@given(masks())
def test_scans_agree_with_numpy(case):
    mask, lo, hi = case
    legal = np.flatnonzero(mask)
    words = mask.view(np.uint64)
    assert count_legal(mask, lo, hi) == len(legal)
    assert first_legal(mask, lo, hi) == (legal[0] if len(legal) else -1)
    assert last_legal(mask, lo, hi) == (legal[-1] if len(legal) else -1)
    for k in range(len(legal)):
        assert kth_legal(words, k, lo) == legal[k]
    assert kth_legal(words, len(legal), lo) == -1
    ids = np.zeros(NUM_ACTIONS, dtype=np.int16)
    assert list_legal(words, ids, lo, hi) == len(legal)
    assert np.array_equal(ids[:len(legal)], legal)
