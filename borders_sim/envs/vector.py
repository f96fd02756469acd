"""Many games stepped in one compiled, multi-threaded call (Pgx / EnvPool style).

:class:`VectorEnv` holds ``num_envs`` games in one state array. :meth:`VectorEnv.step` takes one
action per game and runs one numba kernel that checks every action against its game's legal mask,
then applies them in parallel over games (``prange``), writes each game's next observation, mask
and seat to move, and deals a new game wherever one ended (:func:`~borders_sim.batch.loop.deal`).
There is no Python work per game.

Whole games run as chunks on a thread pool (:mod:`borders_sim.batch.chunks`); a step is one
decision per game, a microsecond or so, and there numba's ``prange`` wins: its workers wait hot
between calls, where a pool's hand-off costs tens of microseconds a call (1024 games on two
threads: a chunked step ran at 0.67-0.84x of this kernel's speed, paired runs of
``benchmarks/compare.py``).

**Auto-reset.** On the call in which game ``k`` ends, ``terminated[k]`` is True and
``rewards[k]`` holds the finished game's final rewards (by the ``reward`` mode of
:mod:`borders_sim.rules.rewards`; 0 on every other call). In the same call slot ``k`` is dealt its
next game, so ``current_player[k]``, ``observation[k]`` and ``action_mask[k]`` already describe
the first decision of the new game (Pgx's auto-reset; the finished game has no decision left).

**Seeded stream.** The ``j``-th game dealt to slot ``k`` since the last seeded reset is
``Game(config, derive_seed(seed, k, j))``, dealt inside the kernel. So game ``k``'s trajectory
depends only on ``(seed, k)`` and the actions taken in it, never on ``num_envs`` or on the number
of threads (``numba.set_num_threads``).

**Buffers.** The arrays of the returned :class:`VectorStep` are the env's own buffers: the next
:meth:`~VectorEnv.step` or :meth:`~VectorEnv.reset` overwrites them in place (as EnvPool and
Pgx users expect: no allocation per step). ``.copy()`` what you keep, e.g. for a replay buffer.

**Every seat's view** (``all_views=True``, for a centralized critic or a learner of every seat):
:attr:`VectorEnv.views` holds, after each call, each seat's own observation of every game
(``views[k, p]``: seat ``p``'s, as ``observe(game, p)`` gives it, so no seat's row shows what
that seat may not see), computed in the same compiled call; the mover's row is
``observation[k]``. It costs one observation per seat instead of one per game
(``benchmarks/run_all.py`` times both).

**Credit to each seat's last decision** (``credit=True``): a game's rewards arrive by absolute
seat on the call where it ends, whoever moved last. :attr:`VectorEnv.credit` says, for the games
that ended in the last call, how many calls back each seat took its last decision of that game,
and :meth:`VectorEnv.credit_rewards` adds each seat's reward to that decision's row of a
rollout buffer and marks it done for that seat.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from .._compile.notice import compile_notice
from ..game.drawing import game_svg, svg_to_rgb
from ..game.game import Game
from ..rules.actions import NUM_ACTIONS, illegal_action_message
from ..checks import as_action_batch, as_bool, as_int, as_seed
from ..rules.config import GameConfig
from ..rules.engine import MASK_SIZE, step
from .._compile.jit import kernel
from ..rules.observation import OBS_SIZE, observe_kernel
from .._compile.rowcopy import put_row
from ..rules.state import MAX_PLAYERS, PHASE_NAMES, STATE_DTYPE
from ..batch.loop import blank_record, deal
from ..batch.seeds import derived_seed
from ..rules.rewards import final_rewards, reward_mode

@kernel(standalone=True)
def _deal(states, raw, blank, i, seed, episodes, mask):
    """Deal slot ``i``'s next game of the stream (:func:`~borders_sim.batch.seeds.derive_seed`)
    and advance it to its first decision."""
    deal(states, raw, blank, i, derived_seed(seed, i, episodes[i]), mask)
    episodes[i] += 1


@kernel
def _emit(s, mask, obs, mask_out):
    """Write the observation and mask of the seat to move in ``s``; return that seat."""
    observe_kernel(s, s.turn, obs)
    put_row(mask_out, 0, mask, NUM_ACTIONS)
    return s.turn


@njit(inline="always")
def _clear(row):
    """``row[:] = 0`` as a plain loop (numba's slice assignment costs more than 8 stores)."""
    for k in range(np.uint64(row.shape[0])):
        row[k] = 0


@kernel(parallel=True)
def _vector_kernel(states, raw, blank, seed, mode, episodes, reset_all, actions, masks, obs,
                   mask_out, cur, rewards, term, views):
    """With ``reset_all``: deal the next game in every slot. Otherwise check every action first
    (returns the first illegal game's index, changing nothing), then step all games in
    parallel, dealing a new game where one ended; then every seat's observation into ``views``
    (``[N, seats, OBS_SIZE]``; no work when it has no seat). Returns -1 unless an action was
    illegal. (One kernel for both, so numba compiles the engine into it once.)"""
    n = states.shape[0]
    if not reset_all:
        for i in range(n):
            a = actions[i]
            if a < 0 or a >= NUM_ACTIONS or masks[i, a] == 0:
                return i
    for i in prange(n):
        s = states[i]
        # one int type for _deal's slot: numba types prange's index differently in the two
        # branches below, which compiled _deal twice
        slot = np.int64(i)
        if reset_all:
            _deal(states, raw, blank, slot, seed, episodes, masks[i])
            _clear(rewards[i])
            term[i] = False
        elif step(s, actions[i], masks[i]) == 0:
            final_rewards(s, mode, rewards[i])
            term[i] = True
            _deal(states, raw, blank, slot, seed, episodes, masks[i])
        else:
            _clear(rewards[i])
            term[i] = False
        cur[i] = _emit(s, masks[i], obs[i], mask_out[i])
        for p in range(views.shape[1]):
            observe_kernel(s, p, views[i, p])
    return -1


_prepared = False  # _vector_kernel has run once in this process


class VectorStep(NamedTuple):
    """What :meth:`VectorEnv.reset` and :meth:`VectorEnv.step` return (the env's own buffers,
    overwritten by the next call: ``.copy()`` what you keep)."""

    #: int64[N]: the seat to decide in each game (after an auto-reset: in the new game).
    current_player: np.ndarray
    #: float32[N, OBS_SIZE]: that seat's observation, as ``envs.observe(game, seat)`` gives it.
    observation: np.ndarray
    #: bool[N, NUM_ACTIONS]: True where the action is legal for that seat.
    action_mask: np.ndarray
    #: float32[N, MAX_PLAYERS] (MAX_PLAYERS = 8 whatever the player count): final rewards by
    #: absolute seat of the games that ended in this call, 0 in the columns past the player
    #: count; 0 in every other row.
    rewards: np.ndarray
    #: bool[N]: the game in that slot ended in this call (and was replaced by a new one).
    terminated: np.ndarray


class VectorEnv:
    """``num_envs`` games of BORDERS stepped together in one compiled, multi-threaded call.

    Args:
        num_envs: number of games N (>= 1).
        num_players: 3..8, the same in every game.
        seed: the seed of the stream of games, 0 to ``2**64 - 1`` (see
            :func:`~borders_sim.batch.seeds.derive_seed`).
        reward: a reward mode of :data:`~borders_sim.rules.rewards.REWARDS` (default ``"win"``).
        render_mode: ``None`` or ``"rgb_array"``: :meth:`render` draws one of the games (it
            needs the optional ``render`` extra).
        all_views: also write every seat's observation of every game, :attr:`views` (module
            docstring).
        credit: also track each seat's last decision, :attr:`credit` and
            :meth:`credit_rewards` (module docstring).
        **flags: any other :class:`~borders_sim.GameConfig` flag.

    Raises:
        ValueError: a bad ``num_envs``, ``seed``, ``reward``, ``render_mode``, unknown flag or
            bad flag value, or an ``all_views`` or ``credit`` that is not a bool (named; numbers
            by :mod:`borders_sim.checks`).

    Example::

        env = VectorEnv(1024, num_players=4, seed=0)
        ts = env.reset()
        while True:
            actions = my_policy(ts.current_player, ts.observation, ts.action_mask)
            ts = env.step(actions)  # ts.rewards[ts.terminated]: games that just ended

    The seat to move differs from game to game; ``rewards`` rows are indexed by absolute seat
    (``rewards[k, p]`` for seat ``p``), observations are seat-relative (the viewer first).
    ``rewards`` has :data:`~borders_sim.rules.state.MAX_PLAYERS` (8) columns for every player
    count, the layout of the state array: ``VectorEnv(256, num_players=4)`` returns rewards of
    shape ``(256, 8)`` whose columns 4 to 7 are always 0 (``rewards[:, :num_players]`` is the
    part that carries the games' rewards).
    The threads are numba's (``numba.set_num_threads``); results do not depend on them. Each
    call costs ~10 us of Python and dispatch plus ~1-1.5 us per game and thread (the observation
    is most of it), so use N in the hundreds or more. On a machine whose cores are busy with
    other work, OpenMP's spin-waiting can make a second thread slower than one;
    ``OMP_WAIT_POLICY=passive`` (set before numba starts) or one thread avoids that.
    """

    metadata = {"render_modes": ["rgb_array"], "render_fps": 4}

    def __init__(self, num_envs: int, num_players: int = 4, seed: int = 0, reward: str = "win",
                 render_mode: str | None = None, all_views: bool = False, credit: bool = False,
                 **flags) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of "
                             f"{self.metadata['render_modes']}, got {render_mode!r}")
        self.render_mode = render_mode
        self.num_envs = as_int(num_envs, "num_envs", lo=1)
        self.all_views = as_bool(all_views, "all_views")
        self.tracks_credit = as_bool(credit, "credit")
        self.seed = as_seed(seed)
        self.config = GameConfig(num_players=num_players, **flags)
        self.reward = reward
        self._mode = reward_mode(reward)
        n = self.num_envs
        self._states = np.zeros(n, dtype=STATE_DTYPE)
        self._raw = self._states.view(np.uint8).reshape(n, STATE_DTYPE.itemsize)
        self._blank = blank_record(self.config)
        self._episodes = np.zeros(n, dtype=np.int64)
        self._masks = np.zeros((n, MASK_SIZE), dtype=np.uint8)
        self._actions = np.zeros(n, dtype=np.int64)
        self._cur = np.zeros(n, dtype=np.int64)
        self._obs = np.zeros((n, OBS_SIZE), dtype=np.float32)
        self._mask_out = np.zeros((n, NUM_ACTIONS), dtype=np.uint8)
        self._rewards = np.zeros((n, MAX_PLAYERS), dtype=np.float32)
        self._term = np.zeros(n, dtype=np.bool_)
        self._out = VectorStep(self._cur, self._obs, self._mask_out.view(np.bool_),
                               self._rewards, self._term)
        seats = self.config.num_players if self.all_views else 0
        self._views = np.zeros((n, seats, OBS_SIZE), dtype=np.float32)
        # with credit: the call (counted from the last reset) of each seat's last decision in
        # each slot's game (-1: none yet), and what credit says of the last call
        self._calls = 0
        self._last_call = np.full((n, MAX_PLAYERS), -1, dtype=np.int64)
        self._credit = np.full((n, MAX_PLAYERS), -1, dtype=np.int64)
        self._ready = False
        # with a render_mode, the seat that took each game's last decision (-1: none yet in
        # this game) and that decision, for render()
        self._movers = np.full(n, -1, dtype=np.int64)
        self._last_actions = np.zeros(n, dtype=np.int64)

    @property
    def num_players(self) -> int:
        """The number of seats of every game (``config.num_players``)."""
        return self.config.num_players

    @property
    def states(self) -> np.ndarray:
        """The live state array (``STATE_DTYPE[N]``), for reading. Editing it by hand leaves the
        cached masks stale; use :meth:`game` to inspect or play a copy."""
        return self._states

    @property
    def episodes(self) -> np.ndarray:
        """int64[N]: games dealt to each slot since the last seeded reset (a copy); the game in
        slot ``k`` is ``Game(config, derive_seed(seed, k, episodes[k] - 1))`` plus its actions."""
        return self._episodes.copy()

    def reset(self, seed: int | None = None) -> VectorStep:
        """Deal a new game in every slot and return their first decisions.

        ``seed=None`` continues the stream: each slot gets the next game of its sequence (the
        very first reset deals game 0 of the constructor's ``seed``). A seed (0 to ``2**64 - 1``)
        restarts the stream from it (game 0 of every slot), so ``reset(seed=s)`` is
        reproducible.
        """
        if seed is not None:
            self.seed = as_seed(seed)
            self._episodes[:] = 0
        self._run(True)
        self._ready = True
        self._movers[:] = -1
        self._calls = 0
        self._last_call[:] = -1
        self._credit[:] = -1
        return self._out

    def step(self, actions) -> VectorStep:
        """Apply ``actions[k]`` (an action id, int array of shape ``(N,)``) for the seat to move in
        every game ``k``; games that end report their rewards and restart (module docstring).

        Raises:
            RuntimeError: :meth:`reset` was never called.
            ValueError: ``actions`` has the wrong shape or type, or an action is illegal; the
                message names the first illegal game, its action and the legal ones, and no game
                has changed.
        """
        if not self._ready:
            raise RuntimeError("call reset() before step()")
        a = as_action_batch(actions, self.num_envs, self._illegal_message)
        self._actions[:] = a
        # who moved in each game, read only to draw the last decision or to credit it
        movers = self._cur.copy() if self.render_mode is not None or self.tracks_credit \
            else None
        bad = self._run(False)
        if bad >= 0:
            raise ValueError(self._illegal_message(bad, int(a[bad])))
        if self.render_mode is not None:  # a game dealt in this call has no last decision yet
            self._movers[:] = np.where(self._term, -1, movers)
            self._last_actions[:] = a
        if self.tracks_credit:
            self._track_credit(movers)
        return self._out

    def _track_credit(self, movers: np.ndarray) -> None:
        """Note this call's decisions, then fill :attr:`credit` for the games that ended."""
        self._last_call[np.arange(self.num_envs), movers] = self._calls
        self._credit[:] = -1
        ended = np.flatnonzero(self._term)
        if len(ended):
            last = self._last_call[ended]
            self._credit[ended] = np.where(last >= 0, self._calls - last, -1)
            self._last_call[ended] = -1
        self._calls += 1

    @property
    def views(self) -> np.ndarray:
        """float32[N, num_players, OBS_SIZE], with ``all_views=True``: after each call, every
        seat's own observation of the game in each slot (``views[k, p]`` is seat ``p``'s, as
        ``observe(game, p)`` gives it; ``views[k, current_player[k]]`` is ``observation[k]``).
        The env's own buffer, overwritten by the next call.

        Raises:
            RuntimeError: the env was made without ``all_views=True``.
        """
        if not self.all_views:
            raise RuntimeError("every seat's view needs VectorEnv(..., all_views=True)")
        return self._views

    @property
    def credit(self) -> np.ndarray:
        """int64[N, MAX_PLAYERS], with ``credit=True``: for each game that ended in the last
        call, ``credit[k, p]`` is how many calls before it seat ``p`` took its last decision of
        that game (0: in that call itself); -1 for a seat that took none (and every column past
        the player count), and in the rows of games that did not end. The env's own buffer.

        Raises:
            RuntimeError: the env was made without ``credit=True``.
        """
        if not self.tracks_credit:
            raise RuntimeError("each seat's last decision needs VectorEnv(..., credit=True)")
        return self._credit

    def credit_rewards(self, rewards: np.ndarray, t: int, done: np.ndarray | None = None
                       ) -> int:
        """Credit the games that ended in the last call to each seat's last decision in a
        rollout buffer whose row ``t`` holds the last call's decisions (row ``t - 1`` the call
        before, and so on): ``rewards[t - credit[k, p], k] += self.step(...).rewards[k, p]``
        for every seat ``p`` that decided, and ``done`` (when given) set True there.

        Args:
            rewards: float[T, N], the per-decision rewards of the rollout (changed in place).
            t: the row of the last call, 0 to ``T - 1``.
            done: bool[T, N] (changed in place), or None.

        Returns:
            How many seats' last decisions lay before row 0 (their rewards are not added: a
            rollout that begins mid-game starts after them).

        Raises:
            RuntimeError: the env was made without ``credit=True``.
            ValueError: a buffer whose shape is not ``[T, N]``, or ``t`` outside it.
        """
        credit = self.credit
        rewards = np.asarray(rewards)
        if rewards.ndim != 2 or rewards.shape[1] != self.num_envs:
            raise ValueError(f"rewards must be [T, {self.num_envs}] (a row per call, a column "
                             f"per game), got shape {rewards.shape}")
        if done is not None and np.shape(done) != rewards.shape:
            raise ValueError(f"done must have the shape of rewards {rewards.shape}, got "
                             f"{np.shape(done)}")
        t = as_int(t, "t", 0, rewards.shape[0] - 1)
        k, p = np.nonzero(credit >= 0)
        rows = t - credit[k, p]
        inside = rows >= 0
        k, p, rows = k[inside], p[inside], rows[inside]
        np.add.at(rewards, (rows, k), self._rewards[k, p])
        if done is not None:
            done[rows, k] = True
        return int((~inside).sum())

    def _run(self, reset_all: bool) -> int:
        global _prepared
        args = (self._states, self._raw, self._blank, np.uint64(self.seed), self._mode,
                self._episodes, reset_all, self._actions, self._masks, self._obs,
                self._mask_out, self._cur, self._rewards, self._term, self._views)
        if _prepared:
            return _vector_kernel(*args)
        with compile_notice("the vector env kernels", "vector"):
            bad = _vector_kernel(*args)
        _prepared = True
        return bad

    def _illegal_message(self, k: int, action: int) -> str:
        phase = PHASE_NAMES[int(self._states[k]["phase"])]
        return illegal_action_message(action, self._masks[k], self.config.gold_menu,
                                      f"env {k} (player p{int(self._cur[k])}, phase {phase!r})")

    def game(self, k: int) -> Game:
        """A :class:`~borders_sim.Game` copy of the game in slot ``k`` (play it freely: the env
        is not affected)."""
        k = as_int(k, "k", 0, self.num_envs - 1, f"a slot, an int from 0 to {self.num_envs - 1}")
        if not self._ready:
            raise RuntimeError("call reset() before game()")
        return Game.from_state(self._states[k:k + 1].copy())

    def render(self, k: int = 0) -> np.ndarray | None:
        """With ``render_mode="rgb_array"``, game ``k`` (default the first) drawn from the view
        of its seat to move (:func:`~borders_sim.game.drawing.seat_svg`), its last decision
        highlighted: uint8 of shape :func:`~borders_sim.game.drawing.frame_shape`
        ``(num_players)``, 720 x 1440 x 3 for 3 to 6 players. ``None`` without a render mode.

        Raises:
            RuntimeError: :meth:`reset` was never called.
            ModuleNotFoundError: the optional ``render`` extra is missing (the message says
                how to install it).
        """
        if self.render_mode is None:
            return None
        game = self.game(k)
        last = None if self._movers[k] < 0 else (int(self._movers[k]),
                                                 int(self._last_actions[k]))
        return svg_to_rgb(game_svg(game, game.current_player, last))

    def __repr__(self) -> str:
        return (f"VectorEnv(num_envs={self.num_envs}, num_players={self.num_players}, "
                f"seed={self.seed}, reward={self.reward!r})")

