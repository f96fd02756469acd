"""α-Rank (Omidshafiei et al., 2019) of a population from a symmetric meta-game, in numpy.

α-Rank ranks strategies by how much time an evolving population spends playing each of them.
A population of ``m`` individuals all plays one strategy ``s``; now and then a mutant strategy
``r`` appears and either takes over (fixates) or dies out, with the fixation probability of the
Moran process under selection strength ``alpha``. The chain over monomorphic populations has a
stationary distribution: a strategy's *mass*, the ranking. Unlike a rating, it does not assume
that strength is one number: in a cycle (A beats B beats C beats A) the mass spreads over the
cycle.

Here the meta-game is the population's pairwise one, ``M[a, b]``: the payoff of ``a`` against
``b`` (in :mod:`.population`, the chance that ``a`` finishes ahead of ``b`` at a table they
share, so ``M[a, b] + M[b, a] = 1`` and ``M[a, a] = 1/2``). This is the single-population
α-Rank of a symmetric two-player game (the paper's section 3.1; OpenSpiel's
``open_spiel.python.egt.alpharank`` computes the same with one payoff table). The fitness of
strategy ``x`` in a population of ``k`` individuals of ``x`` and ``m - k`` of ``y`` is its mean
payoff against the others, ``f_x(k) = ((k - 1) M[x, x] + (m - k) M[x, y]) / (m - 1)``.
"""

from __future__ import annotations

import numpy as np

#: Default selection strength and population size (OpenSpiel's examples use payoffs in [0, 1]
#: with ``alpha`` of 10 to 100 and ``m`` = 50): large enough that a strategy that beats another
#: takes over from it almost surely.
ALPHA, POPULATION_SIZE = 100.0, 50


def fixation_probability(payoff: np.ndarray, resident: int, mutant: int, alpha: float,
                         m: int) -> float:
    """The chance that one ``mutant`` in a population of ``m - 1`` ``resident`` takes over
    (the Moran process with selection ``alpha``), computed in log space so that a strong
    selection does not overflow."""
    k = np.arange(1, m, dtype=np.float64)  # mutants in the population
    f_mutant = ((k - 1) * payoff[mutant, mutant] + (m - k) * payoff[mutant, resident]) / (m - 1)
    f_resident = (k * payoff[resident, mutant] + (m - k - 1) * payoff[resident, resident]) / (m - 1)
    exponents = np.concatenate(([0.0], np.cumsum(-alpha * (f_mutant - f_resident))))
    top = exponents.max()
    return float(np.exp(-(top + np.log(np.exp(exponents - top).sum()))))


def alpharank(payoff: np.ndarray, alpha: float = ALPHA, m: int = POPULATION_SIZE) -> np.ndarray:
    """The stationary mass of each strategy of the symmetric meta-game ``payoff`` (float[S, S],
    ``payoff[a, b]`` what ``a`` gets against ``b``): float[S], summing to 1.

    Raises:
        ValueError: ``payoff`` is not a finite square matrix of at least one strategy, or
            ``alpha`` is not positive and finite, or ``m`` is below 2.
    """
    payoff = np.asarray(payoff, dtype=np.float64)
    if payoff.ndim != 2 or payoff.shape[0] != payoff.shape[1] or payoff.shape[0] < 1 or \
            not np.all(np.isfinite(payoff)):
        raise ValueError(f"the meta-game must be a finite square payoff matrix, got shape "
                         f"{payoff.shape}")
    if not (np.isfinite(alpha) and alpha > 0):
        raise ValueError(f"alpha must be positive and finite, got {alpha}")
    if int(m) != m or m < 2:
        raise ValueError(f"the population size m must be an integer of at least 2, got {m}")
    s = payoff.shape[0]
    if s == 1:
        return np.ones(1)
    chain = np.zeros((s, s))
    for resident in range(s):
        for mutant in range(s):
            if mutant != resident:
                chain[resident, mutant] = fixation_probability(payoff, resident, mutant, alpha,
                                                               int(m)) / (s - 1)
        chain[resident, resident] = 1.0 - chain[resident].sum()
    # the stationary distribution: pi (chain - I) = 0 with sum(pi) = 1, by least squares
    system = np.vstack([(chain - np.eye(s)).T, np.ones((1, s))])
    target = np.zeros(s + 1)
    target[-1] = 1.0
    mass = np.linalg.lstsq(system, target, rcond=None)[0]
    mass = np.clip(mass, 0.0, None)
    return mass / mass.sum()
