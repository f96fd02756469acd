"""Whole games between compiled bots inside one compiled call (DESIGN property 7).

:func:`play_bot_games` plays a batch of dealt states to the end, ``prange`` over games, each
decision taken by the compiled policy of the bot in that seat (``kinds[g, seat]``) from the
seat's observation and legal mask. The bot in seat ``p`` of game ``g`` draws from its own
generator seeded with :func:`bot_seed` ``(seeds[g], p)``, exactly as ``make(name,
bot_seed(seeds[g], p))`` seeds the Python bot, so a game played here and the same game played
through :class:`~borders_sim.Game` with Python bots take the same actions, and results do not
depend on the batch size or the thread count.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..rules.engine import MASK_SIZE, advance, step
from ..rules.observation import OBS_SIZE, observe_kernel
from ..rules.piles import mix_seed, seed_rng
from ..rules.state import MAX_PLAYERS
from .policies import act_kernel


@njit(cache=True)
def bot_seed_kernel(seed, seat):
    return mix_seed(np.uint64(seed), seat)


def bot_seed(seed: int, seat: int) -> int:
    """Seed of the bot in ``seat`` of the game dealt from ``seed`` (any int, modulo 2**64)."""
    return int(bot_seed_kernel(np.uint64(int(seed) & (2**64 - 1)), np.int64(seat)))


@njit(cache=True)
def play_bot_game(s, kinds, seed, mask, obs, rngs, max_steps):
    """Play state ``s`` to the end with the bots ``kinds[seat]``; returns the decisions taken
    (``max_steps`` caps them)."""
    for p in range(MAX_PLAYERS):
        seed_rng(rngs[p], bot_seed_kernel(seed, p))
    words = mask.view(np.uint64)
    count = advance(s, mask)
    steps = 0
    while count > 0 and steps < max_steps:
        p = s.turn
        observe_kernel(s, p, obs)
        a = act_kernel(kinds[p], obs, mask, words, count, rngs[p])
        count = step(s, a, mask)
        steps += 1
    return steps


@njit(cache=True, parallel=True)
def play_bot_games(states, kinds, seeds, max_steps, out_steps):
    """Play every state of ``states`` to the end, game ``g`` with bots ``kinds[g]``
    (int64[G, MAX_PLAYERS]) seeded from ``seeds[g]``; ``out_steps[g]`` gets its decisions."""
    for g in prange(states.shape[0]):
        mask = np.zeros(MASK_SIZE, dtype=np.uint8)
        obs = np.zeros(OBS_SIZE, dtype=np.float32)
        rngs = np.zeros((MAX_PLAYERS, 2), dtype=np.uint64)
        out_steps[g] = play_bot_game(states[g], kinds[g], seeds[g], mask, obs, rngs, max_steps)
