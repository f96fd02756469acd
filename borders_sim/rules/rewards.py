"""End-of-game rewards shared by every environment (``reward=`` argument).

==========  =====================================================================================
mode        reward of seat ``p`` when the game ends (0 at every other step)
==========  =====================================================================================
``win``     zero-sum: the ``k`` winners (§9 after every tie-break, 9-9) share +1, each getting
            ``1/k``; the ``n-k`` others share -1, each getting ``-1/(n-k)``; 0 for everybody
            when all ``n`` seats share the victory.
``score``   the final score (§9).
``margin``  the final score minus the mean of the other seats' final scores.
==========  =====================================================================================
"""

from __future__ import annotations

import numpy as np

from .._compile.jit import kernel
from .scoring import scores, winners
from .state import CFG_NUM_PLAYERS, MAX_PLAYERS

REWARD_MODES = ("win", "score", "margin")
R_WIN, R_SCORE, R_MARGIN = range(3)


def reward_mode(name: str) -> int:
    """Index of a reward mode name; ``ValueError`` naming the bad value otherwise."""
    if name not in REWARD_MODES:
        raise ValueError(f"reward must be one of {REWARD_MODES}, got {name!r}")
    return REWARD_MODES.index(name)


@kernel
def final_rewards(s, mode, out):
    """Write the end-of-game reward of every seat of the finished game ``s`` into
    ``out[:MAX_PLAYERS]`` (seats beyond the player count get 0); returns ``out``."""
    n = s.cfg[CFG_NUM_PLAYERS]
    sc = np.zeros(MAX_PLAYERS, dtype=np.int64)
    scores(s, sc)
    out[:] = 0
    if mode == R_SCORE:
        for p in range(n):
            out[p] = sc[p]
    elif mode == R_MARGIN:
        total = 0
        for p in range(n):
            total += sc[p]
        for p in range(n):
            out[p] = sc[p] - (total - sc[p]) / (n - 1)
    else:
        win = np.zeros(MAX_PLAYERS, dtype=np.int64)
        winners(s, win)
        k = 0
        for p in range(n):
            k += win[p]
        if 0 < k < n:
            for p in range(n):
                out[p] = 1.0 / k if win[p] else -1.0 / (n - k)
    return out


@kernel
def final_rewards_at(states, i, mode, out):
    """:func:`final_rewards` of ``states[i]`` (array entry point for Python callers)."""
    return final_rewards(states[i], mode, out)
