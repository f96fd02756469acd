"""The random generator: xorshift128+ words and the splitmix64 seeding that fills them.

All randomness of a game comes from the generator in its state's ``rng`` field (RULINGS P-0.2),
and every bot, search and batch draws from its own generator of the same kind
(:mod:`borders_sim.batch.seeds` derives their seeds): two uint64 words, advanced in place by
:func:`next_below`, filled from a seed by :func:`seed_rng`.
"""

from __future__ import annotations

import numpy as np

from .._compile.jit import kernel

_U11 = np.uint64(11)
_U23 = np.uint64(23)
_U17 = np.uint64(17)
_U26 = np.uint64(26)
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_U30, _U27, _U31 = np.uint64(30), np.uint64(27), np.uint64(31)
_MASK64 = (1 << 64) - 1


@kernel
def splitmix64(z):
    """The splitmix64 output function, a bijection of uint64 (seeds and seed derivations)."""
    z = (z ^ (z >> _U30)) * _MIX1
    z = (z ^ (z >> _U27)) * _MIX2
    return z ^ (z >> _U31)


@kernel
def seed_rng(rng, seed):
    """Fill ``rng`` (uint64[2]) with two non-zero xorshift128+ words from ``seed`` (uint64):
    two consecutive splitmix64 outputs."""
    x = seed
    for i in range(2):
        x = x + _GOLDEN
        z = splitmix64(x)
        rng[i] = z if z != 0 else np.uint64(1)


@kernel
def mix_seed(seed, k):
    """A uint64 seed derived from ``seed`` and the index ``k`` (a seat, a game, an episode):
    distinct ``k`` give unrelated streams."""
    return splitmix64((splitmix64(seed + _GOLDEN) ^ np.uint64(k)) + _GOLDEN)


def seed_words(seed: int) -> np.ndarray:
    """Two non-zero xorshift128+ words from any int seed (taken modulo 2**64), as
    :func:`seed_rng` makes them inside compiled code."""
    out = np.zeros(2, dtype=np.uint64)
    seed_rng(out, np.uint64(int(seed) & _MASK64))
    return out


@kernel
def next_below(rng, k):
    """Uniform int in ``[0, k)`` (k >= 1) from xorshift128+ words ``rng`` (uint64[2])."""
    a = rng[0]
    b = rng[1]
    rng[0] = b
    a ^= a << _U23
    a ^= a >> _U17
    a ^= b ^ (b >> _U26)
    rng[1] = a
    return np.int64(((a + b) >> _U11) % np.uint64(k))
