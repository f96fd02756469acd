"""The one compiled game loop: deal a game, and play its compiled seats until an external seat
must decide or the game ends.

A game of a batch has a *seat table*, ``kinds[p]`` for each seat ``p`` (int64[MAX_PLAYERS]):
a compiled bot kind (:data:`~borders_sim.policies.dispatch.COMPILED_BOTS`, or
``BOT_NET + j`` for network ``j`` of the batch's :class:`~borders_sim.policies.network.NetStack`),
or :data:`EXTERNAL`, a seat whose decisions go back to the caller (a learner, a Python bot, a
player of a vector env). Seat ``p``'s bot draws from ``rngs[p]``, seeded by
:func:`~.seeds.seed_bots` from the seed the game was dealt from.

* :func:`deal` deals a game into a slot of a state array (the vector envs deal in the kernel),
  :func:`deal_states` a batch of games from their seeds in one compiled call;
* :func:`decide`: the compiled bot of a seat observes and chooses (checked against the mask);
* :func:`play_seats`: the compiled seats decide until an external one must, the game ends, or a
  cap on the decisions is reached.

Every whole-game kernel is a thin loop over these: the tournaments' bot games
(:mod:`.games`), the demonstrations (:mod:`borders_sim.agents.demos`), the search's rollouts
(:mod:`borders_sim.agents.ismcts`), :class:`~borders_sim.envs.VectorEnv` and
:class:`~borders_sim.envs.training.TrainingEnv`, so they deal, seed and play a game the same way
by construction.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._compile.jit import kernel
from ..policies.dispatch import BOT_RANDOM, act_kernel
from ..rules.engine import advance, step
from ..rules.observation import observe_kernel
from ..rules.rng import seed_rng
from ..rules.config import GameConfig
from ..rules.setup import setup_kernel
from ..rules.state import STATE_DTYPE

#: A seat-table entry: the seat is played outside the kernel (its decisions go to the caller).
EXTERNAL = -1
#: What :func:`play_seats` returns instead of a count when a bot chose an id its legal mask does
#: not allow (the id is not applied; the game stays at that decision).
BOT_ILLEGAL = -1000


def blank_record(config: GameConfig) -> np.ndarray:
    """The bytes of a zeroed state record with ``config``'s rules set: what :func:`set_up`
    copies into a slot before it seeds and sets up a game."""
    blank = np.zeros(1, dtype=STATE_DTYPE)
    blank[0]["cfg"], blank[0]["menu"] = config.pack()
    return blank.view(np.uint8)


@njit(inline="always")
def set_up(states, raw, blank, i, seed):
    """Set slot ``i`` of ``states`` (``raw``: the same array as bytes) up for the game of
    ``seed`` (uint64) from ``blank`` (:func:`blank_record`), as
    :func:`~borders_sim.rules.setup.new_state` sets one up: before its first decision is
    sought."""
    # a loop, since numba compiles a slice assignment with its shape-mismatch message (seconds
    # of compiling)
    row = raw[i]
    for k in range(np.uint64(blank.shape[0])):
        row[k] = blank[k]
    s = states[i]
    seed_rng(s.rng, seed)
    setup_kernel(s)


@njit(inline="always")
def deal(states, raw, blank, i, seed, mask):
    """Deal the game of ``seed`` (uint64) into slot ``i`` (:func:`set_up`) and advance it to its
    first decision; returns the number of legal actions there (``mask`` holds them). The bots of
    the game are seeded apart (:func:`~.seeds.seed_bots`): a vector env has none."""
    set_up(states, raw, blank, i, seed)
    return advance(states[i], mask)


@kernel
def _set_up_all(raw, blank, seeds, states):
    """Every slot ``i`` of ``states`` :func:`set_up` for the game of ``seeds[i]``."""
    for i in range(states.shape[0]):
        set_up(states, raw, blank, i, seeds[i])


def deal_states(config: GameConfig, seeds: np.ndarray) -> np.ndarray:
    """The games dealt from ``seeds`` (uint64, checked by the caller) under ``config``, as a
    state array, in one compiled call: state ``i`` is ``Game(config, seeds[i])``'s before its
    first decision is sought (:func:`~borders_sim.rules.setup.new_state`'s)."""
    n = len(seeds)
    states = np.zeros(n, dtype=STATE_DTYPE)
    _set_up_all(states.view(np.uint8).reshape(n, STATE_DTYPE.itemsize), blank_record(config),
                np.ascontiguousarray(seeds, dtype=np.uint64), states)
    return states


@njit(inline="always")
def decide(s, kind, obs, mask, words, count, rng, nets):
    """The compiled bot ``kind`` to move in ``s`` observes (into ``obs``) and chooses
    (``nets``: the networks of the ``BOT_NET`` kinds); its action, or -1 if the action is not
    allowed by ``mask`` (nothing is applied either way). The random bot reads no observation,
    so ``obs`` is left as it was for it."""
    if kind != BOT_RANDOM:
        observe_kernel(s, s.turn, obs)
    a = act_kernel(kind, obs, mask, words, count, rng, nets)
    if a < 0 or a >= mask.shape[0] or mask[a] == 0:
        return -1
    return a


@njit(inline="always")
def play_seats(s, kinds, rngs, count, mask, words, obs, nets, steps, max_steps):
    """From a decision of ``s`` with ``count`` legal actions (``mask``, ``words`` its uint64
    view): while the seat to move is compiled and fewer than ``max_steps`` decisions were taken
    (``steps`` so far), its bot decides and the action is applied. Returns ``(count, steps)``:
    ``count`` is the number of legal actions at the decision reached (0: the game is over;
    ``ENGINE_ERROR``; :data:`BOT_ILLEGAL`: the bot to move chose an illegal id, not applied)."""
    while count > 0 and steps < max_steps and kinds[s.turn] != EXTERNAL:
        p = s.turn
        a = decide(s, kinds[p], obs, mask, words, count, rngs[p], nets)
        if a < 0:
            return BOT_ILLEGAL, steps
        count = step(s, a, mask)
        steps += 1
    return count, steps
