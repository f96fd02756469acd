"""Whole-game kernels: many games inside one compiled call (DESIGN property 7).

:func:`random_games` plays ``len(states)`` games with uniformly random legal actions, in
parallel over games (``prange``). Each game owns its state (and so its chance), and the random
policy of game ``i`` draws from its own generator seeded from ``policy_seeds[i]``, so results do
not depend on the batch size or the number of threads.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .engine import MASK_SIZE, advance, kth_legal, step
from .piles import next_below
from .state import PH_GAME_OVER


@njit(cache=True)
def play_random(s, policy_rng, mask, max_steps):
    """Play ``s`` to the end with uniform random legal actions; returns the decisions taken."""
    count = advance(s, mask)
    steps = 0
    while count > 0 and steps < max_steps:
        count = step(s, kth_legal(mask, next_below(policy_rng, count)), mask)
        steps += 1
    return steps


@njit(cache=True, parallel=True)
def random_games(states, policy_seeds, max_steps, out_steps):
    """Play every state of ``states`` (fresh from :func:`~.setup.new_state`) to the end."""
    for i in prange(states.shape[0]):
        rng = np.empty(2, dtype=np.uint64)
        rng[0] = np.uint64(policy_seeds[i]) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1)
        rng[1] = np.uint64(policy_seeds[i]) ^ np.uint64(0xD1B54A32D192ED03)
        mask = np.zeros(MASK_SIZE, dtype=np.uint8)
        out_steps[i] = play_random(states[i], rng, mask, max_steps)
