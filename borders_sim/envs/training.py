"""A vector env for training one seat, with the opponents inside the compiled call.

Each of the ``num_envs`` games has one *learning seat* (fixed, or drawn per game) and a lineup
of opponents drawn per game from a *pool* of members. A member is either

* a compiled bot, played inside the kernel with the seat's observation and mask, exactly as in
  a tournament game: a name of :data:`~borders_sim.agents.COMPILED_BOTS`, a network spec
  (``"ppo"``, the shipped policy sampled as the ``ppo`` bot plays it; ``"ppo:argmax@PATH"``
  and the rest of :func:`~borders_sim.policies.network.parse_net_spec`), a
  :class:`~borders_sim.policies.network.NetPlayer` (any policy network, e.g. a frozen snapshot
  of the learner, at a temperature), or a :class:`~borders_sim.agents.Seat` of one of these
  (:func:`pool_member`: a name or spec is read once, here); or
* an *external* member, named ``"external:NAME"``
  (:data:`~borders_sim.batch.seats.EXTERNAL_PREFIX`): its decisions come back to Python like the
  learner's, and the caller plays them in the same batch.

Any other name is refused with the known ones, so a typo (``"honset"``) is an error, not a seat
handed back to a caller that does not expect it.

So one :meth:`TrainingEnv.step` applies one action per game (for the seat whose decision was
pending), plays every compiled seat until the next external decision, and returns that
decision: ``infos["seat"]``, ``infos["is_learner"]`` and ``infos["member"]`` (the pool index
of the member to play, -1 for the learner) say whose it is. With only compiled members every
decision returned is the learner's, and the env is a plain single-agent vector env.

**Tables.** A game's opponents are one member drawn from the pool in every opponent seat, or
(with probability ``mixed``) one member drawn per seat, or (with probability ``deviator``, once
:meth:`TrainingEnv.set_self_member` names the member standing for the learner, such as its
newest self-play snapshot) a *deviator table*: one drawn member in one opponent seat and that
self member in the others, so the learner meets each member as the lone deviator among copies
of itself, the lineup in which ``borders-sim exploit`` measures how exploitable a policy is.

**Rewards** are the learner's: the terminal reward of ``reward`` (a mode of
:data:`~borders_sim.rules.rewards.REWARDS`) on the step in which its game ends, or with
``dense=True`` that reward spread over the learner's decisions by potential-based shaping (the
change of its running margin, or score, times ``potential_scale``, paid at each of its
decisions; the rewards of a game sum to the terminal reward exactly, see
:mod:`borders_sim.rules.rewards`). A reward belongs to the learner's last decision even when it
arrives on a step that an external opponent took.

**Autoreset** follows Gymnasium's modes (``gymnasium.vector.AutoresetMode``, the argument
``autoreset_mode``, also ``"next_step"`` or ``"same_step"``; ``metadata["autoreset_mode"]`` is
the instance's). Both modes play the same games, action for action: the slot of a finished
game is dealt its next game, and that game played to its first external decision, in the call
in which the last one ends; they differ in when that decision is returned. On the step in
which game ``k`` ends, in both modes, ``terminations[k]`` is True, ``rewards[k]`` holds the
finished game's last reward, ``infos["outcome"][k]`` its ``(score, margin, win share)`` and
``infos["ended_members"][k]`` the members it faced by seat (-1: the learner, -2: no seat).
Every ``infos`` key is there on every step, Gymnasium's way: ``infos["_outcome"]`` (and
``_ended_members``, ``_final_obs``) say which rows hold a finished game; the other rows hold
zeros (no seat, for ``ended_members``). The learner's win share, not the mean reward, is its
win rate: ``infos["outcome"][infos["_outcome"], 2]``.

* ``NEXT_STEP`` (the default, Gymnasium's own, which its vector observation wrappers need,
  ``NormalizeObservation`` among them): that step returns the learner's observation of the
  finished game as ``obs[k]``, with ``infos["action_mask"][k]`` all True, ``infos["seat"][k]``
  and ``infos["learner_seat"][k]`` the learner's seat in it, ``infos["is_learner"][k]`` True
  and ``infos["member"][k]`` -1 (``infos["_outcome"]`` and ``infos["_ended_members"]`` say
  which rows ended). The next :meth:`TrainingEnv.step` ignores ``actions[k]`` (any id of the
  action space is accepted: a masked policy may sample from that all-True mask, its masked
  logits are never all minus infinity, and no action is refused as illegal) and returns the first
  decision of the next game, with ``rewards[k]`` 0 and ``terminations[k]`` False; the other
  slots step as usual. That ignored step is not part of either game (``RecordEpisodeStatistics``
  and ``NormalizeReward`` skip it in this mode). ``infos["autoreset"][k]`` marks it: True on
  the step that returns the finished game's observation, so a loop that stores ``(obs,
  action)`` then the next step's reward drops the transitions stored from rows marked so (a
  GAE loop must not learn from them nor bootstrap across them).
* ``SAME_STEP`` (the trainer's, and :class:`~borders_sim.envs.sb3.SB3VecEnv`'s): the step in
  which game ``k`` ends already returns the first decision of the next game as ``obs[k]`` (its
  mask, seat and member in ``infos``), and ``infos["final_obs"][k]`` holds the learner's
  observation of the finished game (``infos["_final_obs"]`` says which rows ended).

``truncations`` are always False: every game ends within ``max_game_length`` (P-0.4).

**Seeded stream.** As in :class:`~borders_sim.envs.VectorEnv`, the ``j``-th game dealt to slot
``k`` is ``Game(config, derive_seed(seed, k, j))``; its lineup (and the learning seat, when
drawn) comes from a stream of the same seed, and the compiled bot in seat ``p`` is seeded with
``bot_seed(derive_seed(seed, k, j), p)``, as a tournament seeds it. So a slot's trajectory
depends only on the seed, the slot, the pool weights in force when each game was dealt and the
external actions, never on ``num_envs`` or the thread count.

**Observations** are the vectors of :data:`~borders_sim.rules.observation.OBSERVATION_LAYOUT`
(seat-relative counts and one-hots, some up to a few hundred raw) divided by the documented
per-feature scales of :func:`~borders_sim.rules.observation.observation_scales` (``raw /
observation_scales()``, as float32; ``final_obs`` too), mostly in [0, 2] in a real game, what
the trainer's network sees; ``scale_obs=False`` returns them raw (the compiled network
members and the trainer's network take raw observations and divide by the scales
themselves).

**Defaults** are the trainer's (``borders-sim train``'s), so a loop written against the env
trains what the trainer trains: the league's compiled bots (:data:`DEFAULT_OPPONENTS`; the
trainer adds self-play snapshots of its learner), a mixed table half the time, the reward
spread over the learner's decisions (``dense``), the seat drawn per game, scaled observations.
Only the autoreset mode differs: ``NEXT_STEP``, Gymnasium's, which its wrappers need (the
trainer uses ``SAME_STEP``). The arrays a call returns are the env's own buffers, overwritten
by the next call: a rollout stores copies (``obs.copy()``, ``infos["action_mask"].copy()``).

Example::

    env = TrainingEnv(256, num_players=4, opponents=("honest", "bluffer", "collector"), seed=0)
    obs, infos = env.reset()
    while True:
        actions = my_policy(obs, infos["action_mask"])
        obs, rewards, terminated, truncated, infos = env.step(actions)

Gymnasium's vector wrappers apply to the default ``NEXT_STEP`` mode (the default scaled
observations are a fixed alternative to ``NormalizeObservation``'s running statistics)::

    from gymnasium.wrappers.vector import (ClipReward, NormalizeObservation, NormalizeReward,
                                           RecordEpisodeStatistics)

    env = RecordEpisodeStatistics(TrainingEnv(64, opponents=("honest", "bluffer", "collector")))
    env = ClipReward(NormalizeReward(NormalizeObservation(env)), -10, 10)
    obs, infos = env.reset(seed=0)        # infos["action_mask"] passes through the wrappers
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from numba import njit

from ..batch.chunks import run_chunks
from .._compile.jit import kernel
from .._compile.notice import compile_notice
from .._compile.rowcopy import put_row
from ..batch.games import IllegalBotAction
from ..batch.loop import BOT_ILLEGAL as BOT_CHOSE_ILLEGAL
from ..batch.loop import EXTERNAL, blank_record, deal, play_seats
from ..agents.seats import Seat
from ..batch.seats import seat_table
from ..batch.seeds import derived_seed, seed_bots, seed_lineup
from ..policies.dispatch import BOT_NET, COMPILED_BOTS
from ..policies.network import NetPlayer, Policy, is_net_spec, net_player
from ..policies.registry import roster
from ..rules.actions import NUM_ACTIONS, illegal_action_message
from ..checks import (ArgumentTypeError, as_action_batch, as_bool, as_float, as_int,
                          as_mapping, as_seed, as_sequence, shown)
from ..rules.config import GameConfig
from ..rules.engine import MASK_SIZE, engine_error, step
from ..rules.observation import OBS_SIZE, observation_scales, observe_kernel
from ..rules.rng import next_below
from ..rules.rewards import final_rewards, potential, reward_info, reward_mode
from ..rules.scoring import scores, winners
from ..rules.state import CFG_NUM_PLAYERS, MAX_PLAYERS, PHASE_NAMES, STATE_DTYPE

#: ``members`` entries: the learner's seat, and a seat past the player count.
LEARNER, NO_SEAT = -1, -2
#: The defaults the trainer trains with (``borders-sim train``'s, without its self-play
#: snapshots, which need the learner's network): the league's compiled bots, a mixed table half
#: the time, the reward spread over the learner's decisions, the learning seat drawn per game.
DEFAULT_OPPONENTS = roster("league")
DEFAULT_MIXED, DEFAULT_DENSE = 0.5, True
#: The training env plays every game to its end: no cap on the compiled seats' decisions
#: (a game ends within ``max_game_length``, P-0.4).
_NO_CAP = 2**62
#: ``status`` codes of a slot after a call.
OK, BOT_ILLEGAL, GAVE_UP = 0, 1, 2
_MASK64 = (1 << 64) - 1
_UNIT = 1 << 30


@njit(inline="always")
def _pick(rng, cum):
    """An index drawn with the probabilities whose cumulative sums are ``cum`` (last = 1)."""
    u = next_below(rng, _UNIT) / _UNIT
    for m in range(cum.shape[0] - 1):
        if u < cum[m]:
            return m
    return cum.shape[0] - 1


@kernel
def _draw_lineup(rng, n, seat_mode, pool_kinds, cum, mixed, deviator, self_member, kinds,
                 members):
    """The learning seat (``seat_mode``, or drawn when it is -1) and a member of the pool for
    every other seat: one member for all of them, or with probability ``mixed`` one per seat;
    with ``self_member >= 0``, first with probability ``deviator`` one member in one opponent
    seat and ``self_member`` in the others (a deviator table). Fills ``kinds`` and ``members``
    (rows of one slot); returns the learning seat. (No draw is spent on a deviator table
    unless one may be dealt, so the stream of a pool without them is unchanged.)"""
    learner = seat_mode if seat_mode >= 0 else next_below(rng, n)
    one = _pick(rng, cum)
    each = next_below(rng, _UNIT) < mixed * _UNIT
    odd = -1  # the deviator's seat at a deviator table
    if self_member >= 0 and deviator > 0.0 and next_below(rng, _UNIT) < deviator * _UNIT:
        each = False
        odd = next_below(rng, n - 1)
        odd += 1 if odd >= learner else 0
    for p in range(MAX_PLAYERS):
        if p >= n:
            kinds[p] = 0
            members[p] = NO_SEAT
        elif p == learner:
            kinds[p] = EXTERNAL
            members[p] = LEARNER
        else:
            m = _pick(rng, cum) if each else one
            if odd >= 0 and p != odd:
                m = self_member
            kinds[p] = pool_kinds[m]
            members[p] = m
    return learner


@kernel(standalone=True)
def _deal(i, states, raw, blank, seed, episodes, mask, rngs, kinds, members, learner, first,
          pot, seat_mode, pool_kinds, cum, mixed, deviator, self_member, lineup_rng):
    """Deal slot ``i``'s next game of the stream, draw its lineup and seed its bots; advance it
    to its first decision and return the number of legal actions there."""
    game_seed = derived_seed(seed, i, episodes[i])
    episodes[i] += 1
    count = deal(states, raw, blank, i, game_seed, mask)
    n = states[i].cfg[CFG_NUM_PLAYERS]
    seed_lineup(lineup_rng, game_seed)
    learner[i] = _draw_lineup(lineup_rng, n, seat_mode, pool_kinds, cum, mixed, deviator,
                              self_member, kinds[i], members[i])
    seed_bots(rngs[i], game_seed)
    first[i] = True
    pot[i] = 0.0
    return count


@kernel
def _finish(s, learner, mode, dense, pot, out_reward, final_obs, outcome, scratch_rewards,
            scratch_scores):
    """The learner's last reward of the finished game ``s`` into ``out_reward`` (added), its
    final observation and its ``(score, margin, win share)``."""
    final_rewards(s, mode, scratch_rewards)
    r = scratch_rewards[learner]
    out_reward[0] += r - pot if dense else r
    observe_kernel(s, learner, final_obs)
    n = s.cfg[CFG_NUM_PLAYERS]
    scores(s, scratch_scores)
    total = 0
    for q in range(n):
        total += scratch_scores[q]
    outcome[0] = scratch_scores[learner]
    outcome[1] = scratch_scores[learner] - (total - scratch_scores[learner]) / (n - 1)
    winners(s, scratch_scores)
    k = 0
    for q in range(n):
        k += scratch_scores[q]
    outcome[2] = 1.0 / k if scratch_scores[learner] else 0.0


@kernel(nogil=True)
def train_chunk(lo, hi, states, raw, blank, seed, mode, dense, scale, episodes, reset_all,
                actions, masks, kinds, members, learner, first, pot, rngs, pool_kinds, cum,
                mixed, deviator, self_member, seat_mode, obs, mask_out, cur, cur_member, rewards,
                term, final_obs, outcome, ended_members, status, nets, skip):
    """Step slots ``lo .. hi - 1`` (``reset_all``: deal each its next game instead), play the
    compiled seats to the next external decision, deal a new game where one ended, and write
    that decision's observation, mask and seat (module docstring). A slot with ``skip[i]`` (the
    step after its game ended, in ``NEXT_STEP`` mode) is not stepped: its pending decision, the
    first of the game already dealt, stays as it is, with reward 0 and no termination. A chunk
    kernel (:mod:`borders_sim.batch.chunks`); ``status[i]`` is ``OK``, ``BOT_ILLEGAL`` or
    ``GAVE_UP``."""
    scratch = np.zeros(OBS_SIZE, dtype=np.float32)
    scratch_rewards = np.zeros(MAX_PLAYERS, dtype=np.float64)
    scratch_scores = np.zeros(MAX_PLAYERS, dtype=np.int64)
    lineup_rng = np.zeros(2, dtype=np.uint64)
    reward = np.zeros(1, dtype=np.float64)
    for i in range(lo, hi):
        s = states[i]
        mask = masks[i]
        words = mask.view(np.uint64)
        reward[0] = 0.0
        term[i] = False
        status[i] = OK
        outcome[i, :] = 0.0  # a game that ends below sets both again
        ended_members[i, :] = NO_SEAT
        if skip[i] and not reset_all:
            rewards[i] = 0.0
            continue
        if reset_all:
            count = _deal(i, states, raw, blank, seed, episodes, mask, rngs, kinds, members,
                          learner, first, pot, seat_mode, pool_kinds, cum, mixed, deviator,
                          self_member, lineup_rng)
        else:
            count = step(s, actions[i], mask)
        while True:
            if count > 0:
                count, _ = play_seats(s, kinds[i], rngs[i], count, mask, words, scratch, nets,
                                      0, _NO_CAP)
            if count != 0:
                break
            _finish(s, learner[i], mode, dense, pot[i], reward, final_obs[i], outcome[i],
                    scratch_rewards, scratch_scores)
            term[i] = True
            for p in range(MAX_PLAYERS):
                ended_members[i, p] = members[i, p]
            count = _deal(i, states, raw, blank, seed, episodes, mask, rngs, kinds, members,
                          learner, first, pot, seat_mode, pool_kinds, cum, mixed, deviator,
                          self_member, lineup_rng)
        if count < 0:
            status[i] = BOT_ILLEGAL if count == BOT_CHOSE_ILLEGAL else GAVE_UP
            rewards[i] = 0.0
            continue
        p = s.turn
        cur[i] = p
        cur_member[i] = members[i, p]
        if dense and p == learner[i]:
            if first[i]:
                first[i] = False  # the first decision pays nothing: 0 is paid out so far
            else:
                now = potential(s, mode, p, scale)
                reward[0] += now - pot[i]
                pot[i] = now
        rewards[i] = reward[0]
        observe_kernel(s, p, obs[i])
        put_row(mask_out[i], 0, mask, NUM_ACTIONS)


@kernel
def first_illegal(actions, masks, skip):
    """The first slot whose action its mask does not allow (any id of the action space, for a
    slot with ``skip[i]``, whose action is ignored), or -1."""
    for i in range(actions.shape[0]):
        a = actions[i]
        if a < 0 or a >= NUM_ACTIONS or (masks[i, a] == 0 and not skip[i]):
            return i
    return -1


def pool_member(member: Any) -> Any:
    """A pool member as the batch seats it (:func:`~borders_sim.batch.seats.seat_table`): a
    network spec or a :class:`~borders_sim.agents.Seat` of a network becomes its
    :class:`~borders_sim.policies.network.NetPlayer` (a policy file is read here, once), a seat
    of a compiled bot its name; anything else is passed on as it is (the table checks it).

    Raises:
        ValueError: a seat of a Python bot (the env's opponents play inside its compiled call),
            a bad network spec or policy file.
    """
    if isinstance(member, Seat):
        if member.net is not None:
            return member.net
        if member.spec in COMPILED_BOTS:
            return member.spec
        if member.spec is not None and is_net_spec(member.spec):
            return net_player(member.spec)
        raise ValueError(f"opponent {member.name!r} is a Python bot, and TrainingEnv's "
                         f"opponents play inside its compiled call: compiled bots "
                         f"({', '.join(COMPILED_BOTS)}) and policy networks only; play it with "
                         f"SingleSeatEnv(opponents=...), or seat it in a tournament")
    if isinstance(member, str) and is_net_spec(member):
        return net_player(member)
    return member


class TrainingEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games of BORDERS, one learning seat each, opponents played in the kernel.

    Args:
        num_envs: number of games N (>= 1).
        num_players: 3..8, the same in every game.
        opponents: the pool's members, a list in order (their indices are
            ``infos["member"]``; one member is a list of one, ``["honest"]``): compiled bot
            names, network specs (``"ppo"``, ``"ppo@PATH"``, ...) and
            :class:`~borders_sim.policies.network.NetPlayer` objects are played in the kernel;
            ``"external:NAME"`` is an external member that the caller plays (module
            docstring); any other name is refused.
        weights: the chance of each member per game (a list of finite non-negative numbers,
            normalised; default uniform); :meth:`set_weights` changes it for the games dealt
            afterwards.
        mixed: the chance, a number from 0 to 1, that a game draws one member per opponent seat
            instead of one member for all of them (default the trainer's, 0.5).
        deviator: the chance, a number from 0 to 1, that a game is a *deviator table*: one
            member drawn from the pool in one opponent seat, and the member
            :meth:`set_self_member` names (a copy of the learner) in every other one, the
            lineup of the deviator matrix's "one against copies" (none until a self member is
            set).
        seat: the learning seat, an int, or ``"random"`` (drawn per game).
        reward: a reward mode of :data:`~borders_sim.rules.rewards.REWARDS`, the learner's
            terminal reward.
        dense: a bool: spread the terminal reward over the learner's decisions (module
            docstring; default True, the trainer's).
        potential_scale: the potential's factor with ``dense``, a finite number (default the
            mode's :attr:`~borders_sim.rules.rewards.RewardMode.shaping_scale`).
        seed: the seed of the stream of games.
        autoreset_mode: ``gymnasium.vector.AutoresetMode.NEXT_STEP`` (default) or ``SAME_STEP``,
            or ``"next_step"`` / ``"same_step"``: what a step returns for a game that ended
            (module docstring; both play the same games).
        scale_obs: a bool: return the observations divided by
            :func:`~borders_sim.rules.observation.observation_scales` (default True; False:
            raw).
        **flags: any other :class:`~borders_sim.GameConfig` flag.

    Every argument is checked by :mod:`borders_sim.checks` (a ``ValueError`` naming it).

    Spaces: ``single_observation_space`` ``Box(0, float32 max, (OBS_SIZE,))``,
    ``single_action_space`` ``Discrete(NUM_ACTIONS)``. ``infos`` of :meth:`reset` and
    :meth:`step`, the same keys on every call: ``action_mask`` bool[N, NUM_ACTIONS] (also
    :meth:`action_masks`), ``seat`` int[N], ``is_learner`` bool[N], ``member`` int[N],
    ``learner_seat`` int[N], ``outcome`` float64[N, 3] and ``ended_members`` int[N, 8] with
    ``_outcome`` and ``_ended_members`` (bool[N]: the rows whose game ended in this call); in
    ``NEXT_STEP`` mode ``autoreset`` bool[N] (the rows showing a finished game, whose next
    action is ignored), in ``SAME_STEP`` mode ``final_obs`` float32[N, OBS_SIZE] with
    ``_final_obs``.

    Autoreset (module docstring): with ``autoreset_mode=NEXT_STEP`` (the default) the step in
    which a game ends returns its final observation, and the next step ignores that slot's
    action (its mask row is all True) and returns the first decision of the next game, reward
    0; with ``SAME_STEP`` the step in which a game ends returns the next game's first decision
    and the final observation in ``infos["final_obs"]``. Both modes play the same games.

    The arrays are the env's own buffers, overwritten by the next call: store copies.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}  # each instance sets its own mode

    def __init__(self, num_envs: int, num_players: int = 4,
                 opponents: Sequence[str | NetPlayer | Seat] = DEFAULT_OPPONENTS,
                 weights: Sequence[float] | None = None,
                 mixed: float = DEFAULT_MIXED, deviator: float = 0.0,
                 seat: int | str = "random", reward: str = "win",
                 dense: bool = DEFAULT_DENSE, potential_scale: float | None = None,
                 seed: int = 0, autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
                 scale_obs: bool = True, **flags: Any) -> None:
        self.num_envs = as_int(num_envs, "num_envs", 1)
        self.autoreset_mode = as_autoreset_mode(autoreset_mode)
        self.metadata = {**self.metadata, "autoreset_mode": self.autoreset_mode}
        self.scale_obs = as_bool(scale_obs, "scale_obs")
        self.config = GameConfig(num_players=num_players, **flags)
        n = self.config.num_players
        members = as_sequence(opponents, "opponents",
                              "a list of pool members (one member is a list of one: ['honest'])")
        if not members:
            raise ValueError("opponents must name at least one pool member")
        self._pool_kinds, players, self._nets = seat_table([pool_member(m) for m in members],
                                                           what="opponent")
        self.opponents = tuple(m.name if isinstance(m, NetPlayer) else m for m in players)
        self._players = {j: m for j, m in enumerate(players) if isinstance(m, NetPlayer)}
        self._seat_mode = -1 if isinstance(seat, str) and seat == "random" else as_int(
            seat, "seat", 0, n - 1, f"a seat, an int from 0 to {n - 1}, or 'random'")
        self.mixed = as_float(mixed, "mixed", 0, 1)
        self.deviator = as_float(deviator, "deviator", 0, 1)
        self.self_member = -1
        mode = reward_info(reward)
        self.reward = mode.name
        self._mode = reward_mode(self.reward)
        self.dense = as_bool(dense, "dense")
        if potential_scale is None:
            potential_scale = mode.shaping_scale
        self.potential_scale = as_float(potential_scale, "potential_scale", finite=True)
        self.seed = as_seed(seed)
        self.set_weights(weights)
        self.single_observation_space = spaces.Box(0.0, np.finfo(np.float32).max, (OBS_SIZE,),
                                                   np.float32)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = spaces.Box(0.0, np.finfo(np.float32).max,
                                            (self.num_envs, OBS_SIZE), np.float32)
        self.action_space = spaces.MultiDiscrete(np.full(self.num_envs, NUM_ACTIONS))
        self._allocate()
        self._ready = False

    def _allocate(self) -> None:
        k = self.num_envs
        self._states = np.zeros(k, dtype=STATE_DTYPE)
        self._raw = self._states.view(np.uint8).reshape(k, STATE_DTYPE.itemsize)
        self._blank = blank_record(self.config)
        self._episodes = np.zeros(k, dtype=np.int64)
        self._masks = np.zeros((k, MASK_SIZE), dtype=np.uint8)
        self._kinds = np.zeros((k, MAX_PLAYERS), dtype=np.int64)
        self._members = np.full((k, MAX_PLAYERS), NO_SEAT, dtype=np.int64)
        self._learner = np.zeros(k, dtype=np.int64)
        self._first = np.zeros(k, dtype=np.bool_)
        self._pot = np.zeros(k, dtype=np.float64)
        self._rngs = np.zeros((k, MAX_PLAYERS, 2), dtype=np.uint64)
        self._actions = np.zeros(k, dtype=np.int64)
        self._obs = np.zeros((k, OBS_SIZE), dtype=np.float32)
        self._mask_out = np.zeros((k, NUM_ACTIONS), dtype=np.uint8)
        self._cur = np.zeros(k, dtype=np.int64)
        self._cur_member = np.zeros(k, dtype=np.int64)
        self._rewards = np.zeros(k, dtype=np.float64)
        self._term = np.zeros(k, dtype=np.bool_)
        self._trunc = np.zeros(k, dtype=np.bool_)
        self._final_obs = np.zeros((k, OBS_SIZE), dtype=np.float32)
        self._outcome = np.zeros((k, 3), dtype=np.float64)
        self._ended = np.full((k, MAX_PLAYERS), NO_SEAT, dtype=np.int64)
        self._status = np.zeros(k, dtype=np.int64)
        # NEXT_STEP: the slots whose last step ended their game (their next action is ignored)
        self._autoreset = np.zeros(k, dtype=np.bool_)
        # what a call returns (_compose): the kernel's buffers themselves in SAME_STEP mode;
        # in NEXT_STEP mode copies, with the finished games' rows in place of the pending ones
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            self._view_obs = np.zeros_like(self._obs)
            self._view_mask = np.zeros_like(self._mask_out)
            self._view_seat = np.zeros_like(self._cur)
            self._view_member = np.zeros_like(self._cur_member)
            self._view_learner = np.zeros_like(self._learner)
        else:
            self._view_obs, self._view_mask = self._obs, self._mask_out
            self._view_seat, self._view_member = self._cur, self._cur_member
            self._view_learner = self._learner
        # scale_obs: the returned observations (and final observations) divided by the scales
        self._scales = observation_scales()
        self._out_obs = np.zeros_like(self._obs) if self.scale_obs else self._view_obs
        self._out_final = np.zeros_like(self._final_obs) if self.scale_obs else self._final_obs

    # --- the pool ------------------------------------------------------------------------------
    def set_weights(self, weights: Sequence[float] | None) -> None:
        """Set the chance of each pool member per game (for the games dealt from now on):
        ``None`` (uniform) or one finite non-negative number per member, not all 0."""
        m = len(self.opponents)
        what = f"a list of {m} finite non-negative numbers, not all 0"
        if weights is None:
            w = np.ones(m)
        else:
            items = as_sequence(weights, "weights", what)
            w = np.array([as_float(x, f"weights[{i}]", lo=0, finite=True)
                          for i, x in enumerate(items)])
            if w.shape != (m,) or w.sum() <= 0:
                raise ValueError(f"weights must be {what}, got {shown(weights)}")
        self.weights = w / w.sum()
        self._cum = np.cumsum(self.weights)
        self._cum[-1] = 1.0

    def set_self_member(self, member: int) -> None:
        """Name the pool member that stands for the learner at deviator tables (``deviator``;
        e.g. its newest self-play snapshot), for the games dealt from now on; -1: none (no
        deviator tables)."""
        self.self_member = as_int(member, "member", -1, len(self.opponents) - 1)

    def replace_policy(self, member: int, policy: Policy) -> None:
        """Play ``policy`` (with the hidden sizes of the one it replaces) as network member
        ``member`` from now on: games in flight switch to it at once."""
        member = as_int(member, "member")
        if member not in self._players:
            raise ValueError(f"member {member} is not a network member; network members: "
                             f"{sorted(self._players)}")
        if not isinstance(policy, Policy):
            raise ArgumentTypeError(f"policy must be a Policy, got {type(policy).__name__}")
        j = int(self._pool_kinds[member]) - BOT_NET
        if policy.hidden != (self._nets.b0.shape[1], self._nets.b1.shape[1]):
            raise ValueError(f"a network of hidden sizes {policy.hidden} cannot replace one of "
                             f"{(self._nets.b0.shape[1], self._nets.b1.shape[1])}")
        for name in ("inv_scale", "w0", "b0", "w1", "b1", "wp", "bp"):
            getattr(self._nets, name)[j] = getattr(policy, name)
        self._players[member] = NetPlayer(self._players[member].name, policy,
                                          self._players[member].temperature)

    def network_members(self) -> dict[int, NetPlayer]:
        """The network members of the pool by member index, as they play now (after any
        :meth:`replace_policy`)."""
        return dict(self._players)

    @property
    def external(self) -> tuple[int, ...]:
        """Indices of the external members of the pool (played by the caller)."""
        return tuple(int(m) for m in np.flatnonzero(self._pool_kinds == EXTERNAL))

    # --- gymnasium's VectorEnv ---------------------------------------------------------------
    def reset(self, *, seed: int | None = None,
              options: dict | None = None) -> tuple[np.ndarray, dict]:
        """Deal a new game in every slot and return their first external decisions.
        ``seed=None`` continues the stream; an int restarts it from that seed."""
        if seed is not None:
            self.seed = as_seed(seed)
            self._episodes[:] = 0
        self._autoreset[:] = False
        self._run(True)
        self._ready = True
        self._compose()
        return self._out_obs, self._infos()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict]:
        """Apply ``actions[k]`` for the pending decision of each game (see the module docstring);
        in ``NEXT_STEP`` mode, a game that ended on the last step ignores its action (any id of
        the action space) and returns the first decision of its next game.

        Raises:
            RuntimeError: :meth:`reset` was not called.
            ValueError: ``actions`` is not an int array of shape ``(num_envs,)``, or an action is
                illegal (no game is stepped; the message names the game and its legal actions).
        """
        self.check_actions(actions)
        self._run(False)
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            self._autoreset[:] = self._term
        self._compose()
        return self._out_obs, self._rewards, self._term, self._trunc, self._infos()

    def check_actions(self, actions: Any) -> None:
        """Raise what :meth:`step` raises for ``actions`` (see there), stepping nothing: an int
        array of shape ``(num_envs,)`` (of any width, or a list of ints), checked as given by
        :func:`~borders_sim.checks.as_action_batch` (never cast: a float, a string or a
        bool is refused), each id legal for its game's pending decision (in ``NEXT_STEP``
        mode, any id of the action space for a game that ended on the last step: its action is
        ignored)."""
        if not self._ready:
            raise RuntimeError("call reset() before step()")
        self._actions[:] = as_action_batch(actions, self.num_envs, self._illegal_message)
        bad = first_illegal(self._actions, self._masks, self._autoreset)
        if bad >= 0:
            raise ValueError(self._illegal_message(bad, int(self._actions[bad])))

    #: The arrays that hold the games in flight (:meth:`state_arrays`).
    _STATE = ("_states", "_episodes", "_masks", "_kinds", "_members", "_learner", "_first",
              "_pot", "_rngs", "_obs", "_mask_out", "_cur", "_cur_member")
    #: ``NEXT_STEP`` mode's too: the games whose next action is ignored, and their lineups.
    _AUTORESET_STATE = ("_autoreset", "_ended")

    def state_arrays(self) -> dict[str, np.ndarray]:
        """Copies of the arrays that hold every game in flight and the stream's position:
        :meth:`load_state_arrays` on an env of the same arguments continues exactly here (the
        network members' weights are the caller's to restore, :meth:`replace_policy`). In
        ``NEXT_STEP`` mode also ``_autoreset`` and ``_ended`` (the games that ended on the last
        step, whose next action is ignored, and the lineups they had)."""
        names = self._STATE + (self._AUTORESET_STATE
                               if self.autoreset_mode == AutoresetMode.NEXT_STEP else ())
        out = {name: getattr(self, name).copy() for name in names}
        out["seed"] = np.array(self.seed, dtype=np.uint64)
        return out

    def load_state_arrays(self, arrays: Mapping[str, np.ndarray]) -> None:
        """Continue from :meth:`state_arrays` of an env of the same arguments.

        ``_autoreset`` and ``_ended`` (``NEXT_STEP`` mode) may be missing: then no game's next
        action is ignored; a ``SAME_STEP`` env ignores them.

        Raises:
            ValueError: an array is missing, of another shape or dtype than this env's, or the
                games are not this env's (another config, lineups of another pool); the message
                names every such array, and nothing is loaded.
        """
        arrays = as_mapping(arrays, "arrays", "a dict of arrays, as state_arrays() returns")
        targets = {name: getattr(self, name) for name in self._STATE}
        targets["seed"] = np.array(self.seed, dtype=np.uint64)
        missing = [name for name in targets if name not in arrays]
        problems = [f"missing {', '.join(missing)}"] if missing else []
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            targets.update({name: getattr(self, name) for name in self._AUTORESET_STATE
                            if name in arrays})
        problems += [f"{name} is {_described(arrays[name])}, this env's {_described(target)}"
                     for name, target in targets.items() if name in arrays and not (
                         isinstance(arrays[name], np.ndarray)
                         and arrays[name].shape == target.shape
                         and arrays[name].dtype == target.dtype)]
        if not problems:
            problems = self._foreign_games(arrays)
        if problems:
            raise ValueError(f"these state arrays do not fit {self!r}: {'; '.join(problems)}")
        for name in self._STATE:
            getattr(self, name)[...] = arrays[name]
        self._autoreset[:] = False
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            for name in self._AUTORESET_STATE:
                if name in arrays:
                    getattr(self, name)[...] = arrays[name]
        self.seed = int(arrays["seed"])
        self._ready = True
        self._compose()

    def _foreign_games(self, arrays: Mapping[str, np.ndarray]) -> list[str]:
        """What makes the games of ``arrays`` (of this env's shapes) not this env's: another
        config, or lineups that this pool does not draw (the kernel indexes with them)."""
        problems = []
        blank = self._blank.view(STATE_DTYPE)[0]
        states = arrays["_states"]
        if not (np.all(states["cfg"] == blank["cfg"]) and np.all(states["menu"] == blank["menu"])):
            problems.append("_states are games of another config")
        members, kinds, learner = arrays["_members"], arrays["_kinds"], arrays["_learner"]
        n, pool = self.config.num_players, len(self.opponents)
        seats = np.arange(MAX_PLAYERS)
        is_learner = seats == learner[:, None]
        in_pool = (members >= 0) & (members < pool)
        seated = np.where(seats >= n, members == NO_SEAT,
                          np.where(is_learner, members == LEARNER, in_pool))
        kind = np.where(is_learner, EXTERNAL,
                        np.where(in_pool, self._pool_kinds[np.clip(members, 0, pool - 1)], 0))
        if not (np.all((learner >= 0) & (learner < n)) and seated.all()
                and np.array_equal(kinds, kind)):
            problems.append(f"_members, _kinds and _learner are not lineups of the pool "
                            f"{self.opponents} in {n}-player games")
        return problems

    def pending_infos(self) -> dict:
        """The ``infos`` of the decisions pending now (what the last call returned, without
        the finished games' ``final_obs``, ``outcome`` and ``ended_members``)."""
        return {"action_mask": self.action_masks(), "seat": self._view_seat,
                "is_learner": self._view_seat == self._view_learner,
                "member": self._view_member, "learner_seat": self._view_learner}

    def action_masks(self) -> np.ndarray:
        """bool[N, NUM_ACTIONS]: the legal actions of each game's pending decision (in
        ``NEXT_STEP`` mode, all True for a game that ended on the last step: its next action is
        ignored)."""
        return self._view_mask.view(np.bool_)

    def _infos(self) -> dict:
        """The infos of a call: the same keys every step (the class docstring)."""
        infos = self.pending_infos()
        infos.update(outcome=self._outcome, _outcome=self._term, ended_members=self._ended,
                     _ended_members=self._term)
        if self.autoreset_mode == AutoresetMode.SAME_STEP:
            if self.scale_obs and self._term.any():
                np.divide(self._final_obs, self._scales, out=self._out_final)
            infos.update(final_obs=self._out_final, _final_obs=self._term)
        else:
            infos["autoreset"] = self._autoreset
        return infos

    def _compose(self) -> None:
        """Fill what a call returns from the kernel's buffers: in ``NEXT_STEP`` mode the rows
        of a game that ended on the last step show that game (its final observation, a mask
        letting every action through, the learner's seat); with ``scale_obs`` the observations
        are divided by :func:`~borders_sim.rules.observation.observation_scales`."""
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            self._view_obs[...] = self._obs
            self._view_mask[...] = self._mask_out
            self._view_seat[...] = self._cur
            self._view_member[...] = self._cur_member
            self._view_learner[...] = self._learner
            rows = np.flatnonzero(self._autoreset)
            if rows.size:
                seats = np.argmax(self._ended[rows] == LEARNER, axis=1)
                self._view_obs[rows] = self._final_obs[rows]
                self._view_mask[rows] = 1
                self._view_seat[rows] = seats
                self._view_member[rows] = LEARNER
                self._view_learner[rows] = seats
        if self.scale_obs:
            np.divide(self._view_obs, self._scales, out=self._out_obs)

    def _run(self, reset_all: bool) -> None:
        args = (self._states, self._raw, self._blank, np.uint64(self.seed & _MASK64), self._mode,
                self.dense, self.potential_scale, self._episodes, reset_all, self._actions,
                self._masks, self._kinds, self._members, self._learner, self._first, self._pot,
                self._rngs, self._pool_kinds, self._cum, self.mixed, self.deviator,
                self.self_member, self._seat_mode, self._obs,
                self._mask_out, self._cur, self._cur_member, self._rewards, self._term,
                self._final_obs, self._outcome, self._ended, self._status, self._nets,
                self._autoreset)
        if not _prepared:
            _prepare(args)
        run_chunks(train_chunk, self.num_envs, *args)
        bad = np.flatnonzero(self._status != OK)
        if bad.size:
            self._ready = False
            k = int(bad[0])
            if self._status[k] == BOT_ILLEGAL:
                seat = int(self._states[k]["turn"])
                name = self.opponents[int(self._members[k, seat])]
                raise IllegalBotAction(f"bot {name!r} in seat {seat} of env {k} chose an action "
                                       "its legal mask does not allow; call reset()")
            raise engine_error(self._states[k:k + 1], f"TrainingEnv env {k}")

    def _illegal_message(self, k: int, action: int) -> str:
        phase = PHASE_NAMES[int(self._states[k]["phase"])]
        return illegal_action_message(action, self._masks[k], self.config.gold_menu,
                                      f"env {k} (seat p{int(self._cur[k])}, phase {phase!r})")

    def __repr__(self) -> str:
        return (f"TrainingEnv(num_envs={self.num_envs}, num_players={self.config.num_players}, "
                f"opponents={self.opponents!r}, seed={self.seed}, reward={self.reward!r}, "
                f"dense={self.dense}, autoreset_mode={self.autoreset_mode.name.lower()!r}, "
                f"scale_obs={self.scale_obs})")


#: The autoreset modes :class:`TrainingEnv` offers, by the names it also accepts.
AUTORESET_MODES = {"next_step": AutoresetMode.NEXT_STEP, "same_step": AutoresetMode.SAME_STEP}


def as_autoreset_mode(value: Any, name: str = "autoreset_mode") -> AutoresetMode:
    """``value`` as an autoreset mode of :class:`TrainingEnv`: ``AutoresetMode.NEXT_STEP`` or
    ``AutoresetMode.SAME_STEP``, or their names ``"next_step"`` and ``"same_step"``."""
    what = "AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP, 'next_step' or 'same_step'"
    if isinstance(value, AutoresetMode):
        if value in AUTORESET_MODES.values():
            return value
    elif isinstance(value, str):
        if value in AUTORESET_MODES:
            return AUTORESET_MODES[value]
    else:
        raise ArgumentTypeError(f"{name} must be {what}, got {shown(value)} "
                                f"({type(value).__name__})")
    raise ValueError(f"{name} must be {what}, got {shown(value)}")


def _described(value: Any) -> str:
    """An array (or what stands in its place) as :meth:`TrainingEnv.load_state_arrays`'s
    errors show it."""
    if isinstance(value, np.ndarray):
        return f"{value.dtype} of shape {value.shape}"
    return f"{shown(value)}, not an array ({type(value).__name__})"


_prepared = False  # the training kernel has run once in this process


def _prepare(args: tuple) -> None:
    """First use: compile the training kernel (or load it from numba's cache) on one slot of
    the real arguments, under a compile notice."""
    global _prepared
    with compile_notice("the training env kernels", "bots"):
        train_chunk(0, 0, *args)
        first_illegal(np.zeros(1, dtype=np.int64), np.ones((1, MASK_SIZE), dtype=np.uint8),
                      np.zeros(1, dtype=np.bool_))
    _prepared = True
