"""Setup (§3): deck by player count, main resources, gold, hands and the first inspectors.

The kernels every game runs at its start and its end, :func:`setup_kernel` and the scoring and
rewards of :mod:`.scoring` and :mod:`.rewards`, are registered here as the compile unit
``"scoring and setup"`` (:mod:`borders_sim._compile.units`): setup imports the other two,
neither imports setup, and the registry, below the rules, imports none of them.
"""

from __future__ import annotations

import numpy as np
from numba.core import types

from . import rewards, scoring
from .cards import (COPIES, FIRST_ACTION, FIRST_INSPECTOR_BONUS, MAIN_IN_MIDDLE,
                    MAIN_MIN_PLAYERS, NUM_CARD_TYPES, NUM_MAIN, START_GOLD, deck_tier)
from .config import GameConfig
from .phases.end_of_round import start_round
from .._compile import units
from .._compile.jit import kernel
from .piles import draw_up_to_limit, num_inspectors, num_players, rand_below
from .rng import seed_words
from .state import CFG_ACTION_CARDS, CFG_FIRST_INSPECTOR, STATE_DTYPE, state_type


@kernel(standalone=True)
def setup_kernel(s):
    """Fill a state whose ``cfg``, ``menu`` and ``rng`` are set (3.1-3.4)."""
    n = num_players(s)
    tier = deck_tier(n)
    size = 0
    for t in range(NUM_CARD_TYPES):  # §3.1: the deck; action cards only with the flag
        if t >= FIRST_ACTION and s.cfg[CFG_ACTION_CARDS] == 0:
            continue
        for _ in range(COPIES[tier, t]):
            s.draw[size] = t
            size += 1
    for i in range(size - 1, 0, -1):
        j = rand_below(s, i + 1)
        tmp = s.draw[i]
        s.draw[i] = s.draw[j]
        s.draw[j] = tmp
    s.draw_len = size
    pool = np.empty(NUM_MAIN, dtype=np.int64)  # §3.2: Corn and Coal need 4+ players
    k = 0
    for m in range(NUM_MAIN):
        if MAIN_MIN_PLAYERS[m] <= n:
            pool[k] = m
            k += 1
    for i in range(k - 1, 0, -1):
        j = rand_below(s, i + 1)
        tmp = pool[i]
        pool[i] = pool[j]
        pool[j] = tmp
    for i in range(MAIN_IN_MIDDLE[n]):
        s.main_middle[pool[i]] = 1
    first = rand_below(s, n) if s.cfg[CFG_FIRST_INSPECTOR] != 0 else 0  # 3.4-2
    s.insp[0] = first
    s.insp[1] = (first + 1) % n if num_inspectors(s) == 2 else -1
    for p in range(n):  # 3.3-1, 3.4-3
        s.gold[p] = START_GOLD
    for g in range(num_inspectors(s)):
        s.gold[s.insp[g]] += FIRST_INSPECTOR_BONUS
        s.bank_out += FIRST_INSPECTOR_BONUS
    s.round = 1
    for p in range(n):  # the starting hand belongs to round 1 (7.2-2, R-22)
        draw_up_to_limit(s, p, True, 1)
    s.announced[:] = -1
    s.cur = -1
    start_round(s)


def new_state(config: GameConfig, seed: int) -> np.ndarray:
    """A one-element state array for a new game, before the first decision is sought."""
    states = np.zeros(1, dtype=STATE_DTYPE)
    cfg, menu = config.pack()
    states[0]["cfg"] = cfg
    states[0]["menu"] = menu
    states[0]["rng"] = seed_words(seed)
    setup_kernel(states[0])
    return states


@units.register("scoring and setup")
def _scoring_and_setup_unit():
    s = state_type()
    return [(setup_kernel, (s,)),
            (scoring.scores, (s, types.int64[::1])),
            (scoring.winners, (s, types.int64[::1])),
            (rewards.final_rewards, (s, types.int64, types.float32[::1])),
            (rewards.final_rewards, (s, types.int64, types.float64[::1]))]
