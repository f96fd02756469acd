"""``ismcts``: a search bot over worlds rebuilt from its observation (determinized Monte Carlo).

At each decision with more than one legal action the bot

1. rebuilds ``worlds`` complete games from its observation alone
   (:func:`borders_sim.envs.belief.world_state`: every hidden card dealt at random from the
   cards it cannot place, R-39), with itself at its real seat so the action ids mean the same;
2. runs ``simulations`` rollouts, flat Monte Carlo with UCB1 over its legal actions (each
   rollout takes a root action chosen by UCB1, a world in turn and a fresh chance stream, and
   plays the world to the end with the compiled bot ``rollout`` in every seat, inside one
   compiled, parallel call per batch: :func:`rollout_batch`);
3. plays the root action tried most often (ties: the best mean reward).

The reward of a rollout is the viewer's end-of-game reward of :mod:`borders_sim.envs.rewards`
(``"win"`` by default: the winners share +1, the others -1). UCB1's exploration term is scaled
by the spread of the rewards seen so far, so the same constant serves every reward mode.

This is perfect-information Monte Carlo over sampled worlds (a determinized search): the
opponents' hidden cards are dealt uniformly, not inferred from their play, and the search does
not reason about what the opponents know. With ``time_limit=None`` (the default) the budget is
the number of rollouts and the bot is deterministic for its seed and the observations it is
given; a time limit makes the budget depend on the machine's speed.

**Its own seat.** Observations are seat-relative but action ids that name a seat (rob, inspect,
gift) are absolute; the observation's ``seat`` block says the bot's seat, and the worlds seat it
there, so the ids mean the same.
"""

from __future__ import annotations

import math
import time

import numpy as np
from numba import njit, prange

from ..envs.belief import world_states
from ..envs.rewards import final_rewards, reward_mode
from ..rules import state as st
from ..rules.actions import NUM_ACTIONS
from ..rules.engine import MASK_SIZE, advance, step
from ..rules.observation import O_SEAT, OBS_SIZE, observe_kernel
from ..rules.piles import mix_seed, seed_rng
from .play import bot_seed_kernel
from .policies import BOT_RANDOM, COMPILED_BOTS, act_kernel

#: Cap on the decisions of one rollout (far above any game's length, P-0.4).
_MAX_STEPS = 1 << 20


@njit(cache=True)
def _rollout(s, action, viewer, kind, seed, mode, mask, obs, rngs, rewards):
    """Apply the viewer's ``action`` to world ``s`` (at the viewer's decision) and play it to
    the end with bot ``kind`` in every seat and fresh chance from ``seed``; the viewer's
    reward (NaN if ``action`` is not legal in this world)."""
    seed_rng(s.rng, mix_seed(seed, 1 << 20))
    for p in range(st.MAX_PLAYERS):
        seed_rng(rngs[p], bot_seed_kernel(seed, p))
    words = mask.view(np.uint64)
    count = advance(s, mask)
    if count == 0 or s.turn != viewer or mask[action] == 0:
        return np.nan
    count = step(s, action, mask)
    steps = 0
    while count > 0 and steps < _MAX_STEPS:
        p = s.turn
        if kind != BOT_RANDOM:  # the random policy reads no observation
            observe_kernel(s, p, obs)
        count = step(s, act_kernel(kind, obs, mask, words, count, rngs[p]), mask)
        steps += 1
    final_rewards(s, mode, rewards)
    return rewards[viewer]


@njit(cache=True, parallel=True)
def rollout_batch(worlds, actions, viewer, kind, seeds, mode, out):
    """Rollout ``i`` plays world ``worlds[i]`` (changed in place) from root action
    ``actions[i]`` with seed ``seeds[i]``; ``out[i]`` gets the viewer's reward."""
    for i in prange(actions.shape[0]):
        mask = np.zeros(MASK_SIZE, dtype=np.uint8)
        obs = np.zeros(OBS_SIZE, dtype=np.float32)
        rngs = np.zeros((st.MAX_PLAYERS, 2), dtype=np.uint64)
        rewards = np.zeros(st.MAX_PLAYERS, dtype=np.float64)
        out[i] = _rollout(worlds[i], actions[i], viewer, kind, seeds[i], mode, mask, obs, rngs,
                          rewards)


def _mix(*words: int) -> int:
    """A 63-bit seed from ints (deterministic, unlike ``hash``)."""
    return int(np.random.SeedSequence([w & (2**63 - 1) for w in words]).generate_state(1,
                                                                                    np.uint64)[0]
               & (2**63 - 1))


class ISMCTSBot:
    """Determinized Monte Carlo search over worlds rebuilt from the observation (see the
    module docstring).

    Args:
        seed: seeds the worlds and the rollouts (any int).
        simulations: rollouts per decision (at least 1).
        time_limit: optional seconds per decision; the search stops at the first batch
            boundary past it (then the bot is no longer deterministic).
        worlds: worlds rebuilt per decision; rollouts take them in turn.
        rollout: the compiled bot (:data:`~.policies.COMPILED_BOTS`) playing every seat in the
            rollouts.
        reward: ``"win"``, ``"score"`` or ``"margin"`` (:mod:`borders_sim.envs.rewards`).
        exploration: UCB1's constant, in units of the rewards' standard deviation.
        batch: rollouts per compiled call.
    """

    name = "ismcts"

    def __init__(self, seed: int = 0, simulations: int = 160, time_limit: float | None = None,
                 worlds: int = 8, rollout: str | None = None, reward: str = "win",
                 exploration: float = 1.0, batch: int = 32) -> None:
        if rollout is None:
            rollout = default_rollout()
        if rollout not in COMPILED_BOTS:
            raise ValueError(f"rollout must be a compiled bot, one of {COMPILED_BOTS}, got "
                             f"{rollout!r}")
        for name, value in (("simulations", simulations), ("worlds", worlds),
                            ("batch", batch)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        if time_limit is not None and not time_limit > 0:
            raise ValueError(f"time_limit must be a positive number of seconds or None, got "
                             f"{time_limit!r}")
        if not exploration >= 0:
            raise ValueError(f"exploration must be >= 0, got {exploration!r}")
        self.seed = int(seed)
        self.simulations = int(simulations)
        self.time_limit = time_limit
        self.num_worlds = int(worlds)
        self.rollout = rollout
        self.kind = COMPILED_BOTS.index(rollout)
        self.reward = reward
        self.mode = reward_mode(reward)
        self.exploration = float(exploration)
        self.batch = int(batch)
        self.decisions = 0

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The root action of the search for this observation and legal mask."""
        obs = np.asarray(observation, dtype=np.float32)
        mask = np.asarray(action_mask)
        if obs.shape != (OBS_SIZE,) or mask.shape != (NUM_ACTIONS,):
            raise ValueError(f"ismcts bot: expected an observation of shape ({OBS_SIZE},) and a "
                             f"mask of shape ({NUM_ACTIONS},), got {obs.shape} and {mask.shape}")
        legal = np.flatnonzero(mask)
        if len(legal) == 0:
            raise ValueError("ismcts bot: the action mask allows no action")
        self.decisions += 1
        if len(legal) == 1:
            return int(legal[0])
        start = time.perf_counter()
        key = _mix(self.seed, self.decisions)
        seat = int(np.argmax(obs[O_SEAT:O_SEAT + st.MAX_PLAYERS]))  # the observation's seat block
        worlds = world_states(obs, [_mix(key, w) for w in range(self.num_worlds)])
        visits = np.zeros(len(legal), dtype=np.int64)
        total = np.zeros(len(legal), dtype=np.float64)
        squares = 0.0
        done = 0
        out = np.zeros(self.batch, dtype=np.float64)
        while done < self.simulations:
            k = min(self.batch, self.simulations - done)
            picks = self._select(visits, total, squares, done, k)
            ids = (done + np.arange(k)) % self.num_worlds
            seeds = np.array([_mix(key, done + i, 7) for i in range(k)], dtype=np.uint64)
            rollout_batch(worlds[ids], legal[picks].astype(np.int64), seat, self.kind, seeds,
                          self.mode, out[:k])
            if np.isnan(out[:k]).any():
                raise RuntimeError("ismcts bot: a root action was not legal in a rebuilt world "
                                   "(a bug: please report it with the observation)")
            np.add.at(visits, picks, 1)
            np.add.at(total, picks, out[:k])
            squares += float((out[:k] ** 2).sum())
            done += k
            if self.time_limit is not None and time.perf_counter() - start > self.time_limit:
                break
        mean = total / np.maximum(visits, 1)
        best = np.lexsort((-mean, -visits))[0]
        return int(legal[best])

    def _select(self, visits, total, squares, done, k) -> np.ndarray:
        """``k`` root picks by UCB1, each counted (with its current mean) before the next."""
        visits = visits.astype(np.float64)
        total = total.copy()
        spread = 1.0
        if done > 1:
            mean_all = total.sum() / done
            spread = max(math.sqrt(max(squares / done - mean_all ** 2, 0.0)), 1e-9)
        picks = np.empty(k, dtype=np.int64)
        for i in range(k):
            untried = np.flatnonzero(visits == 0)
            if len(untried):
                a = int(untried[0])
            else:
                n = visits.sum()
                ucb = total / visits + self.exploration * spread * np.sqrt(np.log(n) / visits)
                a = int(np.argmax(ucb))
            picks[i] = a
            mean = total[a] / visits[a] if visits[a] else 0.0
            visits[a] += 1
            total[a] += mean
        return picks

    def __repr__(self) -> str:
        return (f"ISMCTSBot(seed={self.seed}, simulations={self.simulations}, "
                f"time_limit={self.time_limit}, worlds={self.num_worlds}, "
                f"rollout={self.rollout!r}, reward={self.reward!r})")


#: Rollout bots in order of preference: the strongest heuristic that exists, else random.
_ROLLOUT_PREFERENCE = ("collector", "bluffer", "honest", "random")


def default_rollout() -> str:
    """The rollout bot used when none is given: the first of ``collector``, ``bluffer``,
    ``honest``, ``random`` that is a compiled bot."""
    return next(name for name in _ROLLOUT_PREFERENCE if name in COMPILED_BOTS)
