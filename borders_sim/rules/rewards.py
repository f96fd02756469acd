"""End-of-game rewards shared by every environment (``reward=`` argument).

The reward modes are the entries of :data:`REWARDS`, each beside what it means: the reward of
seat ``p`` when the game ends (0 at every other step), the bounds of that reward, whether the
seats' rewards sum to a constant (zero-sum, constant-sum) or not (general-sum), and the
training env's shaping scale; the table of the modes that ends this docstring is written from
it. Every other module asks the table (:func:`reward_info`), never a mode's name;
:data:`REWARD_MODES` are its names in order (a mode's index is the ``mode`` of the kernels).
The kernels compute a mode in a branch of :func:`final_rewards` (and of :func:`potential`, if
its potential is not the running margin), so **adding a mode** is its entry here and its
branch.

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
changes it by at most ``(1 - gamma)`` times the potential's range per step). The potential is
in points, so each mode's :attr:`~RewardMode.shaping_scale` brings it to the scale of the
mode's reward.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import numpy as np

from .._compile.jit import kernel
from ..checks import as_choice
from .scoring import scores, winners
from .state import CFG_NUM_PLAYERS, MAX_PLAYERS


@dataclass(frozen=True)
class RewardMode:
    """What a reward mode means (module docstring).

    Attributes:
        name: the mode's name, the ``reward=`` argument.
        meaning: the reward of seat ``p`` when the game ends, in words (reStructuredText:
            a row of the table of the module docstring).
        low: the least reward of a seat at the end: a number, or with ``in_points`` that
            number times the score bound (the highest final score the rules allow,
            :func:`borders_sim.openspiel.score_bound`).
        high: the greatest, likewise.
        in_points: whether ``low`` and ``high`` are multiples of the score bound.
        total: what the seats' rewards of every finished game sum to (0: zero-sum; another
            number: constant-sum), or None when the sum varies (general-sum).
        shaping_scale: the training env's default ``potential_scale`` with dense rewards: the
            factor that brings the potential (points) to the scale of this reward.
    """

    name: str
    meaning: str
    low: float
    high: float
    in_points: bool
    total: float | None
    shaping_scale: float

    @property
    def sum_kind(self) -> str:
        """``"zero-sum"``, ``"constant-sum"`` or ``"general-sum"``, by :attr:`total`."""
        if self.total is None:
            return "general-sum"
        return "zero-sum" if self.total == 0 else "constant-sum"

    def bounds(self, score_bound: float) -> tuple[float, float]:
        """``(low, high)`` of a seat's final reward, given the score bound of the rules."""
        unit = float(score_bound) if self.in_points else 1.0
        return self.low * unit, self.high * unit


#: Reward mode name -> its :class:`RewardMode`, in the order of the kernels' mode indices.
REWARDS: dict[str, RewardMode] = {mode.name: mode for mode in (
    RewardMode("win", "zero-sum: the ``k`` winners (§9 after every tie-break, 9-9) share +1, "
               "each getting ``1/k``; the ``n-k`` others share -1, each getting "
               "``-1/(n-k)``; 0 for everybody when all ``n`` seats share the victory.",
               -1.0, 1.0, in_points=False, total=0.0, shaping_scale=0.01),
    RewardMode("score", "the final score (§9).", 0.0, 1.0, in_points=True, total=None,
               shaping_scale=1.0),
    RewardMode("margin", "the final score minus the mean of the other seats' final scores.",
               -1.0, 1.0, in_points=True, total=0.0, shaping_scale=1.0),
)}
#: The reward modes' names, in order.
REWARD_MODES = tuple(REWARDS)


def _modes_table() -> str:
    """The modes of :data:`REWARDS` and their meanings as a reStructuredText table (the end of
    the module docstring, which ``docs/generate.py`` turns into the environment page's)."""
    first = max(len(f"``{name}``") for name in REWARDS) + 2
    rule = "=" * (first - 2) + "  " + "=" * 85
    rows = [rule, "mode".ljust(first) + "reward of seat ``p`` when the game ends (0 at every "
            "other step)", rule]
    for mode in REWARDS.values():
        lines = textwrap.wrap(mode.meaning, 85, break_long_words=False, break_on_hyphens=False)
        rows += [f"``{mode.name}``".ljust(first) + lines[0]]
        rows += [" " * first + line for line in lines[1:]]
    return "\n".join([*rows, rule])


if __doc__:  # (None under python -OO)
    __doc__ += f"\n**The modes**:\n\n{_modes_table()}\n"


def reward_info(name: str) -> RewardMode:
    """The :class:`RewardMode` of a reward mode name; ``ValueError`` naming the bad value
    otherwise."""
    return REWARDS[as_choice(name, "reward", tuple(REWARDS))]


def reward_mode(name: str) -> int:
    """Index of a reward mode name (the ``mode`` of the kernels); ``ValueError`` naming the
    bad value otherwise."""
    return list(REWARDS).index(reward_info(name).name)


#: The modes the kernels branch on, by index.
R_WIN, R_SCORE, R_MARGIN = (REWARD_MODES.index(name) for name in ("win", "score", "margin"))


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
