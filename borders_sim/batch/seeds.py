"""The seeding rules: every seed a batch of games derives, in one place.

All derivations are splitmix64 mixes (:func:`~borders_sim.rules.rng.mix_seed`) of a seed and
an index, so distinct indices give unrelated streams:

* **a stream of games** (the vector envs): the ``j``-th game dealt to slot ``k`` of a stream
  seeded ``S`` is dealt from :func:`derive_seed` ``(S, k, j) = mix(mix(S, k), j)``;
* **a tournament**: game ``g`` of a tournament seeded ``S`` is dealt from ``S + g``
  (:mod:`borders_sim.arena.schedule`);
* **the bots of a game** dealt from seed ``G``: the bot in seat ``p`` draws from a generator
  seeded :func:`bot_seed` ``(G, p) = mix(G, p)``, exactly as ``make(name, bot_seed(G, p))`` seeds
  the Python bot, so a game played compiled and the same game played through
  :class:`~borders_sim.Game` take the same actions (:func:`seed_bots` seeds all eight);
* **the lineup** the training env draws for a game dealt from ``G``: ``mix(G,``
  :data:`LINEUP_STREAM` ``)`` (:func:`seed_lineup`);
* **random rollouts** (:mod:`.rollouts`) draw every seat's action from one generator per game,
  seeded :func:`seed_random_policy` from :func:`policy_seeds` of the deal seed;
* **a search** (:mod:`borders_sim.agents.ismcts`) derives the keys of its decisions, worlds
  and rollouts with :func:`search_seed`; a rollout of seed ``R`` redraws its world's hidden
  chance from ``mix(R, ``:data:`WORLD_STREAM` ``)`` (:func:`seed_world_chance`) and seeds its
  bots with :func:`seed_bots` ``(R)``;
* **the learner's sampling** (:mod:`borders_sim.train.acting`): slot ``k`` of a run seeded
  ``S`` draws from a generator seeded ``mix(S, k)`` (:func:`slot_generators`).

The kernels take and return uint64; the Python functions check their arguments
(:mod:`borders_sim.checks`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._compile.jit import kernel
from ..checks import as_int, as_seed, as_seed_array
from ..rules.rng import mix_seed, seed_rng
from ..rules.state import MAX_PLAYERS

#: Stream index of a training game's lineup draw, apart from the deal's and the bots' streams.
LINEUP_STREAM = 0x4C494E45
#: Stream index of the chance a search rollout redraws in a world (apart from its bots' seats).
WORLD_STREAM = 1 << 20
INT64_MAX = 2**63 - 1  # slots and episodes are int64 in the kernels


@kernel
def derived_seed(seed, k, episode):
    """uint64 deal seed of the ``episode``-th game of slot ``k`` of a stream seeded ``seed``."""
    return mix_seed(mix_seed(seed, k), episode)


def derive_seed(seed: int, k: int, episode: int) -> int:
    """The seed of the ``episode``-th game (0-based, counted since the last seeded reset) dealt
    to slot ``k`` of a vector env seeded ``seed``: that game is
    ``Game(config, derive_seed(seed, k, episode))``. ``seed`` is a seed (0 to ``2**64 - 1``,
    :mod:`borders_sim.checks`), ``k`` and ``episode`` ints from 0 to ``2**63 - 1``; the
    result is a seed."""
    seed = as_seed(seed)
    k = as_int(k, "k", 0, INT64_MAX)
    episode = as_int(episode, "episode", 0, INT64_MAX)
    return int(derived_seed(np.uint64(seed), np.int64(k), np.int64(episode)))


@kernel
def bot_seed_kernel(seed, seat):
    """uint64 seed of the bot in ``seat`` of the game dealt from ``seed``."""
    return mix_seed(np.uint64(seed), seat)


def bot_seed(seed: int, seat: int) -> int:
    """Seed (0 to ``2**64 - 1``) of the bot in ``seat`` (0 to ``MAX_PLAYERS - 1``) of the game
    dealt from ``seed`` (a seed, :mod:`borders_sim.checks`)."""
    return int(bot_seed_kernel(np.uint64(as_seed(seed)),
                               np.int64(as_int(seat, "seat", 0, MAX_PLAYERS - 1))))


@njit(inline="always")
def seed_bots(rngs, seed):
    """Seed the generators ``rngs`` (uint64[MAX_PLAYERS, 2]) of the bots of the game dealt from
    ``seed``, one per seat (:func:`bot_seed`)."""
    for p in range(MAX_PLAYERS):
        seed_rng(rngs[p], bot_seed_kernel(seed, p))


@njit(inline="always")
def seed_lineup(rng, seed):
    """Seed the generator of the lineup draw of the training game dealt from ``seed``."""
    seed_rng(rng, mix_seed(seed, LINEUP_STREAM))


@njit(inline="always")
def seed_world_chance(rng, seed):
    """Seed a world's own generator (a state's ``rng``) for the search rollout of ``seed``."""
    seed_rng(rng, mix_seed(seed, WORLD_STREAM))


@njit(inline="always")
def seed_random_policy(rng, seed):
    """Seed the one generator (uint64[2]) of a random rollout from its policy seed."""
    rng[0] = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1)
    rng[1] = np.uint64(seed) ^ np.uint64(0xD1B54A32D192ED03)


def slot_generators(seed: int, count: int) -> np.ndarray:
    """uint64[count, 2]: the generators of slots ``0 .. count - 1`` of a run seeded ``seed``
    (slot ``k``'s seeded ``mix(seed, k)``)."""
    seed = np.uint64(as_seed(seed))
    rngs = np.zeros((as_int(count, "count", lo=0), 2), dtype=np.uint64)
    for k in range(rngs.shape[0]):
        seed_rng(rngs[k], np.uint64(mix_seed(seed, np.int64(k))))
    return rngs


def search_seed(*words: int) -> int:
    """A 63-bit seed from non-negative ints (deterministic, unlike ``hash``): a search's key
    of a decision from its seed and count, of a world or a rollout from that key."""
    return int(np.random.SeedSequence(list(words)).generate_state(1, np.uint64)[0]
               & (2**63 - 1))


def policy_seeds(seeds: np.ndarray) -> np.ndarray:
    """uint64 policy seeds of random rollouts of the games dealt from ``seeds`` (a seed array,
    :func:`~borders_sim.checks.as_seed_array`): a splitmix64 hash of each seed with a different
    offset than the deal's, so the random policy of a game is not its deal stream."""
    x = as_seed_array(seeds) ^ np.uint64(0x5851F42D4C957F2D)
    with np.errstate(over="ignore"):
        x = x + np.uint64(0x9E3779B97F4A7C15)
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        x = x ^ (x >> np.uint64(31))
    return x
