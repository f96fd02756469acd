"""Random rollouts: many games played with uniformly random legal actions inside one compiled
call, the library's fastest loop (the rollouts of the speed benchmarks).

:func:`random_games` plays ``len(states)`` games with uniformly random legal actions, in
parallel over games (the chunk kernel :func:`random_chunk` run by
:func:`~.chunks.run_chunks`). Each game owns its state (and so its chance), and the random policy
of game ``i`` draws every seat's action from one generator of the game, seeded from
``seeds[i]`` (:func:`~.seeds.seed_random_policy`; the pinned random games of the tests replay
that stream), so results do not depend on the batch size or the number of threads. (The random
bot of a seat table, :func:`~.loop.play_seats`, draws from one generator per seat instead.)

:func:`make_batch`, :func:`play_batch` and
:func:`final_scores` are the Python helpers the command line and the benchmarks share; the
first of them to run compiles the batch kernels (or loads them from numba's cache), with a note
on stderr while numba compiles (:mod:`borders_sim._compile.notice`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._compile.jit import kernel
from .._compile.notice import compile_notice
from ..checks import as_int, as_seed, as_seed_array
from ..rules.actions import PHASE_LO
from ..rules.config import GameConfig
from ..rules.engine import ENGINE_ERROR, MASK_SIZE, advance, engine_error, kth_legal, step
from ..rules.rng import next_below
from ..rules.scoring import scores, winners
from ..rules.setup import new_state
from ..rules.state import MAX_PLAYERS
from .chunks import run_chunks
from .loop import deal_states
from .seeds import policy_seeds, seed_random_policy


@njit(inline="always")
def play_random(s, policy_rng, mask, max_steps):
    """Play ``s`` to the end with uniform random legal actions; returns the decisions taken, or
    ``ENGINE_ERROR`` if the engine gave up on the state (see :mod:`~borders_sim.rules.engine`)."""
    count = advance(s, mask)
    words = mask.view(np.uint64)
    steps = 0
    while count > 0 and steps < max_steps:
        a = kth_legal(words, next_below(policy_rng, count), PHASE_LO[s.phase])
        count = step(s, a, mask)
        steps += 1
    return ENGINE_ERROR if count == ENGINE_ERROR else steps


@kernel(nogil=True)
def random_chunk(lo, hi, states, seeds, max_steps, out_steps):
    """Play ``states[lo:hi]`` (fresh from :func:`~borders_sim.rules.setup.new_state`) to the end,
    game ``i`` with a random policy seeded by ``seeds[i]``; ``out_steps[i]`` gets its decisions
    (``ENGINE_ERROR`` for a game the engine gave up on). A chunk kernel
    (:mod:`borders_sim.batch.chunks`): runs without the GIL."""
    mask = np.zeros(MASK_SIZE, dtype=np.uint8)
    rng = np.empty(2, dtype=np.uint64)
    for i in range(lo, hi):
        seed_random_policy(rng, seeds[i])
        out_steps[i] = play_random(states[i], rng, mask, max_steps)


def random_games(states: np.ndarray, seeds: np.ndarray, max_steps: int,
                 out_steps: np.ndarray) -> None:
    """Play every state of ``states`` (fresh from :func:`~borders_sim.rules.setup.new_state`) to the
    end, game ``i`` with a random policy seeded by ``seeds[i]`` (uint64); ``out_steps[i]`` (int64)
    gets its decisions (``ENGINE_ERROR`` for a game the engine gave up on). On
    ``numba.get_num_threads()`` threads (:func:`~borders_sim.batch.chunks.run_chunks`); the
    results do not depend on the batch size or the number of threads."""
    run_chunks(random_chunk, states.shape[0], states, seeds, max_steps, out_steps)


_prepared = False  # the batch kernels below have run once in this process


def _prepare() -> None:
    """First use: run the kernels of :func:`make_batch` (the deal), :func:`play_batch` and
    :func:`final_scores` once on a throwaway one-game batch, with the arguments' types of
    those helpers, so that numba compiles them (or loads its cache) under one notice."""
    global _prepared
    with compile_notice("the whole-game kernels", "rollouts"):
        deal_states(GameConfig(num_players=3), np.zeros(1, dtype=np.uint64))
        states = new_state(GameConfig(num_players=3), 0)
        random_games(states, np.zeros(1, dtype=np.uint64), 1, np.zeros(1, dtype=np.int64))
        _score_batch(states, np.zeros((1, MAX_PLAYERS), dtype=np.int64),
                     np.zeros((1, MAX_PLAYERS), dtype=np.int64))
    _prepared = True


def make_batch(config: GameConfig, first_seed: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` fresh states dealt from seeds ``first_seed .. first_seed + count - 1`` (a run
    of seeds, :func:`~borders_sim.checks.as_seed`) and their policy seeds (uint64)."""
    count = as_int(count, "count", lo=0)
    first_seed = as_seed(first_seed, "first_seed", span=max(count, 1))
    if not _prepared:
        _prepare()
    seeds = np.arange(first_seed, first_seed + count, dtype=np.uint64)
    return deal_states(config, seeds), policy_seeds(seeds)


def play_batch(states: np.ndarray, seeds: np.ndarray, max_steps: int) -> np.ndarray:
    """Play ``states`` in place with :func:`~borders_sim.batch.rollouts.random_games`, game ``i``
    with the policy seed ``seeds[i]`` (a seed array, :func:`~borders_sim.checks.as_seed_array`);
    returns the decisions per game (int64). Argument types are fixed so one compiled version serves
    all.

    Raises:
        EngineError: the engine gave up on some of the states (only states built or edited by
            hand can cause it)."""
    if not _prepared:
        _prepare()
    out = np.zeros(states.shape[0], dtype=np.int64)
    random_games(states, as_seed_array(seeds), int(max_steps), out)
    bad = np.flatnonzero(out == ENGINE_ERROR)
    if len(bad):
        raise engine_error(states[bad[0]: bad[0] + 1],
                           f"play_batch: game {bad[0]} ({len(bad)} of {len(out)} games)")
    return out


@kernel
def _score_batch(states, sc, win):
    for i in range(states.shape[0]):
        scores(states[i], sc[i])
        winners(states[i], win[i])


def final_scores(states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Scores and winner flags, int64[len(states), MAX_PLAYERS] each (absent seats are 0)."""
    if not _prepared:
        _prepare()
    sc = np.zeros((states.shape[0], MAX_PLAYERS), dtype=np.int64)
    win = np.zeros((states.shape[0], MAX_PLAYERS), dtype=np.int64)
    _score_batch(states, sc, win)
    return sc, win
