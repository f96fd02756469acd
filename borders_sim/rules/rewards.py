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

**Dense rewards** (the training env's ``dense=True``): the same terminal reward spread over the
game by potential-based shaping (Ng, Harada and Russell, 1999). The potential of seat ``p`` is
:func:`potential`: ``scale`` times its running score (``score`` mode) or running margin (the
other modes), scored on the current state as if the game ended now. At each of ``p``'s
decisions it earns the change of the potential since its previous decision (from 0 before its
first one), and at the end the terminal reward minus the last potential, so the rewards of a
game sum to the terminal reward exactly. A shaping term ``F = phi(s') - phi(s)`` telescopes
along every trajectory, so it adds the same amount to the return of every policy from a given
first decision and changes no policy's ranking: the best policy is the same as with the
terminal reward alone (exactly so without discounting; PPO's discount ``gamma`` close to 1
changes it by at most ``(1 - gamma)`` times the potential's range per step).
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


@kernel(standalone=True)
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
def potential(s, mode, p, scale):
    """``scale`` times seat ``p``'s running score (``mode`` :data:`R_SCORE`) or running margin
    (its score minus the mean of the others', the other modes) in state ``s``, scored as if the
    game ended now (module docstring, dense rewards)."""
    n = s.cfg[CFG_NUM_PLAYERS]
    sc = np.zeros(MAX_PLAYERS, dtype=np.int64)
    scores(s, sc)
    if mode == R_SCORE:
        return scale * sc[p]
    total = 0
    for q in range(n):
        total += sc[q]
    return scale * (sc[p] - (total - sc[p]) / (n - 1))


@kernel
def final_rewards_at(states, i, mode, out):
    """:func:`final_rewards` of ``states[i]`` (array entry point for Python callers)."""
    return final_rewards(states[i], mode, out)
