"""``ismcts``: a search bot over worlds rebuilt from its observation (determinized Monte Carlo
that improves on the ``honest`` bot).

At each decision with more than one legal action the bot

1. takes its *base policy*'s own choice (the compiled ``honest`` bot, the strongest heuristic,
   on the real observation);
2. guesses who its opponents are: from the public history of each other seat (crates that came
   with an offer, lies caught when opened, crates opened as inspector) it weighs, by Bayes'
   rule, how likely that seat plays like ``honest``, ``bluffer`` or ``collector``
   (:func:`opponent_belief`, :data:`HABITS`), never ruling one out completely;
3. rebuilds ``worlds`` complete games from its observation alone
   (:func:`borders_sim.game.belief.world_states`: every hidden card dealt at random from the
   cards it cannot place, R-39), with itself at its real seat so the action ids mean the same;
4. draws *samples*: a world (in turn), a bot for every other seat (from the guess of step 2)
   and a chance stream, and plays **every** candidate action on the **same** samples (common
   random numbers): the action, then the game to the end with the base policy in its own seat
   and the drawn bots elsewhere (compiled, parallel: :func:`rollout_chunk`). With many legal
   actions it halves the candidates round by round (the base policy's choice always stays),
   giving the survivors fresh samples; ``simulations`` rollouts in all;
5. plays the candidate with the best mean advantage over the base policy's choice on the
   shared samples if that advantage exceeds ``margin`` standard errors, else the base choice.
   So the search only departs from ``honest`` where the rollouts say clearly that it pays.

The reward of a rollout is the viewer's end-of-game reward of :mod:`borders_sim.rules.rewards`,
``"margin"`` by default (its score minus the others' mean score: less noisy than wins, so
fewer rollouts separate the actions); the tournament still counts wins.

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

from ..batch.chunks import run_chunks
from ..game.belief import world_states
from ..rules.rewards import final_rewards, reward_mode
from ..rules import state as st
from ..checks import as_bool, as_float, as_int, as_seed
from ..rules.actions import NUM_ACTIONS
from ..rules.engine import MASK_SIZE, advance, step
from .._compile.jit import kernel
from ..rules.observation import O_HISTORY, O_NUM_PLAYERS, O_SEAT, OBS_SIZE
from ..rules.state import (H_CRATES, H_CRATES_INSPECTED, H_CRATES_OPENED, H_LIES_CAUGHT,
                           H_OFFERS_MADE, H_OPENS, NUM_HIST)
from ..rules.rng import seed_rng
from ..batch.loop import BOT_ILLEGAL, play_seats
from ..batch.seeds import search_seed, seed_bots, seed_world_chance
from .base import Bot
from ..policies.dispatch import COMPILED_BOTS, act_kernel
from ..policies.network import NO_NETS

#: Cap on the decisions of one rollout (far above any game's length, P-0.4).
_MAX_STEPS = 1 << 20
#: Rollouts per compiled call of a search (:meth:`ISMCTSBot.act` checks its time limit between
#: calls): enough to keep every thread busy, few enough to stop soon after the limit.
ROLLOUTS_PER_CALL = 256


@kernel
def _rollout(s, action, viewer, kinds, seed, mode, mask, obs, rngs, rewards, nets):
    """Apply the viewer's ``action`` to world ``s`` (at the viewer's decision) and play it to
    the end with bot ``kinds[p]`` in seat ``p`` and fresh chance from ``seed``
    (:mod:`borders_sim.batch.seeds`); the viewer's reward (NaN if ``action`` is not legal in
    this world, or a bot chose an illegal id)."""
    seed_world_chance(s.rng, seed)
    seed_bots(rngs, seed)
    words = mask.view(np.uint64)
    count = advance(s, mask)
    if count == 0 or s.turn != viewer or mask[action] == 0:
        return np.nan
    count, _ = play_seats(s, kinds, rngs, step(s, action, mask), mask, words, obs, nets, 0,
                          _MAX_STEPS)
    if count == BOT_ILLEGAL:
        return np.nan
    final_rewards(s, mode, rewards)
    return rewards[viewer]


@kernel(nogil=True)
def rollout_chunk(lo, hi, worlds, actions, viewer, kinds, seeds, mode, out, nets):
    """Rollout ``i`` (``lo <= i < hi``) plays world ``worlds[i]`` (changed in place) from root
    action ``actions[i]`` with the bots ``kinds[i]`` (one per seat) and seed ``seeds[i]``;
    ``out[i]`` gets the viewer's reward. A chunk kernel (:mod:`borders_sim.batch.chunks`)."""
    mask = np.zeros(MASK_SIZE, dtype=np.uint8)
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    rngs = np.zeros((st.MAX_PLAYERS, 2), dtype=np.uint64)
    rewards = np.zeros(st.MAX_PLAYERS, dtype=np.float64)
    for i in range(lo, hi):
        out[i] = _rollout(worlds[i], actions[i], viewer, kinds[i], seeds[i], mode, mask, obs,
                          rngs, rewards, nets)


class ISMCTSBot(Bot):
    """Determinized Monte Carlo search over worlds rebuilt from the observation, improving on
    a compiled base policy (see the module docstring).

    Args:
        seed: seeds the worlds, the opponents' bots and the chance of the rollouts (a seed,
            0 to ``2**64 - 1``, :mod:`borders_sim.checks`).
        simulations: rollouts per decision (at least 1); each round gives every surviving
            action the same new samples, at least one.
        time_limit: optional seconds per decision; the search stops at the first batch of
            rollouts (:data:`ROLLOUTS_PER_CALL`) that ends past it (then the bot is no longer
            deterministic).
        worlds: worlds rebuilt per decision; samples take them in turn.
        rollout: the compiled bot (:data:`~borders_sim.policies.dispatch.COMPILED_BOTS`) that is
            the base policy and plays the bot's own seat in the rollouts.
        opponents: the compiled bots that may play the other seats of the rollouts (keys of
            :data:`HABITS`): one is drawn per seat and sample from the guess of who plays
            there.
        reward: a reward mode of :data:`~borders_sim.rules.rewards.REWARDS`.
        margin: standard errors by which an action's paired advantage over the base policy's
            choice must be positive to replace it (0: the best mean wins).
        halving: halve the candidates round by round (else one round, all of them).
        floor: the least share, relative to uniform, the opponent guess leaves every bot.

    Raises:
        ValueError: a bad argument, named (numbers and flags by :mod:`borders_sim.checks`).
    """

    name = "ismcts"

    def __init__(self, seed: int = 0, simulations: int = 200, time_limit: float | None = None,
                 worlds: int = 16, rollout: str | None = None,
                 opponents: tuple[str, ...] | None = None, reward: str = "margin",
                 margin: float = 1.0, halving: bool = True, floor: float = 0.1) -> None:
        if rollout is None:
            rollout = default_rollout()
        if opponents is None:
            opponents = DEFAULT_OPPONENTS
        for name in (rollout, *opponents):
            if name not in HABITS:
                raise ValueError(f"rollout and opponents must be compiled bots, one of "
                                 f"{tuple(HABITS)}, got {name!r}")
        if len(opponents) == 0:
            raise ValueError("opponents must name at least one compiled bot")
        self.seed = as_seed(seed)
        self.simulations = as_int(simulations, "simulations", lo=1)
        self.time_limit = None if time_limit is None else as_float(time_limit, "time_limit",
                                                                   above=0)
        self.num_worlds = as_int(worlds, "worlds", lo=1)
        self.rollout = rollout
        self.kind = COMPILED_BOTS.index(rollout)
        self.opponents = tuple(opponents)
        self._opponent_kinds = np.array([COMPILED_BOTS.index(o) for o in opponents], np.int64)
        self.reward = reward
        self.mode = reward_mode(reward)
        self.margin = as_float(margin, "margin", lo=0)
        self.halving = as_bool(halving, "halving")
        self.floor = as_float(floor, "floor", 0, 1)
        self.decisions = 0
        self._mask = np.zeros(MASK_SIZE, dtype=np.uint8)
        self._words = self._mask.view(np.uint64)
        self._rng = np.zeros(2, dtype=np.uint64)

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
        key = search_seed(self.seed, self.decisions)
        base = self._base_action(obs, mask, key)
        seat = int(np.argmax(obs[O_SEAT:O_SEAT + st.MAX_PLAYERS]))  # the observation's seat block
        worlds = world_states(obs, [search_seed(key, w) for w in range(self.num_worlds)])
        belief = opponent_belief(obs, seat, self.opponents, self.floor)
        n = len(legal)
        b = int(np.flatnonzero(legal == base)[0])
        alive = np.arange(n)
        rounds = max(1, math.ceil(math.log2(n))) if self.halving else 1
        per_round = max(1, self.simulations // rounds)
        table = np.full((n, 0), np.nan)  # rewards [action, sample]; NaN once it is dropped
        done = 0
        out_of_time = False
        for r in range(rounds):
            k = max(1, per_round // len(alive))
            block = np.full((n, k), np.nan)
            # the round's samples in calls of about ROLLOUTS_PER_CALL rollouts, the clock read
            # after each: a time limit stops the search within a call, and memory stays small
            # (each rollout plays a copy of its world). Sample j is the same triple whatever
            # the call it falls in, so without a time limit the calls change nothing.
            per_call = max(1, ROLLOUTS_PER_CALL // len(alive))
            for lo in range(0, k, per_call):
                hi = min(k, lo + per_call)
                block[alive, lo:hi] = self._evaluate(worlds, legal[alive],
                                                     done + np.arange(lo, hi), seat, key, belief)
                out_of_time = (self.time_limit is not None
                               and time.perf_counter() - start > self.time_limit)
                if out_of_time:
                    block = block[:, :hi]
                    break
            table = np.concatenate([table, block], axis=1)
            done += block.shape[1]
            if r == rounds - 1 or out_of_time or len(alive) <= 2:
                break
            means = table[alive].mean(axis=1)
            keep = alive[np.argsort(-means, kind="stable")[:math.ceil(len(alive) / 2)]]
            alive = np.union1d(keep, [b])
        diff = table[alive] - table[b]
        gain = diff.mean(axis=1)
        se = diff.std(axis=1, ddof=1) / math.sqrt(done) if done > 1 else np.full(len(alive),
                                                                                   np.inf)
        best = int(np.argmax(gain))
        if gain[best] > 0 and self._clears_margin(gain[best], se[best]):
            return int(legal[alive[best]])
        return int(base)

    def _clears_margin(self, gain: float, se: float) -> bool:
        """``gain > margin * se``, False where that product is ``0 * inf`` (an unknown standard
        error, or an infinite margin, never departs), without numpy's warning about it."""
        if math.isinf(se) or self.margin == math.inf:
            return False
        return gain > self.margin * se

    def _base_action(self, obs, mask, key) -> int:
        """The base policy's own choice for this observation."""
        self._mask[:] = 0
        self._mask[:NUM_ACTIONS] = mask != 0
        seed_rng(self._rng, np.uint64(key))
        return int(act_kernel(self.kind, obs, self._mask, self._words,
                              int(self._mask.sum()), self._rng, NO_NETS))

    def _evaluate(self, worlds, actions, samples, seat, key, belief) -> np.ndarray:
        """Rewards ``[action, sample]``: each action on every sample's (world, opponents,
        chance) triple, the same triple for every action (common random numbers)."""
        a, k = len(actions), len(samples)
        ids = samples % self.num_worlds
        kinds = np.empty((k, st.MAX_PLAYERS), dtype=np.int64)
        seeds = np.empty(k, dtype=np.uint64)
        for i, j in enumerate(samples):
            draw = np.random.default_rng(search_seed(key, int(j), 7))
            for p in range(st.MAX_PLAYERS):
                kinds[i, p] = self._opponent_kinds[draw.choice(len(self._opponent_kinds),
                                                               p=belief[p])]
            kinds[i, seat] = self.kind
            seeds[i] = search_seed(key, int(j), 11)
        out = np.empty(a * k, dtype=np.float64)
        run_chunks(rollout_chunk, a * k, worlds[np.tile(ids, a)],
                   np.repeat(actions, k).astype(np.int64), seat, np.tile(kinds, (a, 1)),
                   np.tile(seeds, a), self.mode, out, NO_NETS)
        if np.isnan(out).any():
            raise RuntimeError("ismcts bot: a root action was not legal in a rebuilt world "
                               "(a bug: please report it with the observation)")
        return out.reshape(a, k)

    def __repr__(self) -> str:
        return (f"ISMCTSBot(seed={self.seed}, simulations={self.simulations}, "
                f"time_limit={self.time_limit}, worlds={self.num_worlds}, "
                f"rollout={self.rollout!r}, opponents={self.opponents!r}, "
                f"reward={self.reward!r}, margin={self.margin})")


def default_rollout() -> str:
    """The base policy used when none is given: ``honest``, the strongest heuristic."""
    return "honest"


#: The bots that may sit in the other seats of the rollouts: every heuristic.
DEFAULT_OPPONENTS = ("honest", "bluffer", "collector")


#: Per compiled bot: the rates of its public habits, measured in games between the compiled
#: bots (4 players): crates with an offer / crates packed, lies caught / crates opened,
#: opens / crates inspected.
HABITS = {"random": (0.6, 0.95, 0.3), "honest": (0.02, 0.02, 0.08),
          "bluffer": (0.7, 0.85, 0.62), "collector": (0.75, 0.65, 0.08)}


def opponent_belief(obs: np.ndarray, seat: int, names: tuple[str, ...],
                    floor: float) -> np.ndarray:
    """``[seat, i]``: the chance that the bot in ``seat`` plays like ``names[i]``, from the
    public history counters of the observation (offers, lies caught, opens) by Bayes' rule
    from a uniform prior, each share then lifted to at least ``floor`` of the uniform one."""
    m = len(names)
    out = np.full((st.MAX_PLAYERS, m), 1.0 / m)
    n = st.MIN_PLAYERS + int(np.argmax(obs[O_NUM_PLAYERS:O_NUM_PLAYERS + st.MAX_PLAYERS
                                            - st.MIN_PLAYERS + 1]))
    rates = np.array([HABITS[name] for name in names])  # [i, habit]
    for r in range(1, n):
        h = obs[O_HISTORY + r * NUM_HIST:O_HISTORY + (r + 1) * NUM_HIST].astype(np.float64)
        trials = (h[H_CRATES], h[H_CRATES_OPENED], h[H_CRATES_INSPECTED])
        hits = (min(h[H_OFFERS_MADE], h[H_CRATES]), h[H_LIES_CAUGHT], h[H_OPENS])
        log = np.zeros(m)
        for k in range(3):
            log += hits[k] * np.log(rates[:, k]) + (trials[k] - hits[k]) * np.log(1 - rates[:, k])
        w = np.exp(log - log.max())
        w /= w.sum()
        w = np.maximum(w, floor / m)
        out[(seat + r) % n] = w / w.sum()
    return out
