"""The Python API: :class:`Game`, a thin, checked layer over the rules kernels.

Example::

    >>> import borders_sim
    >>> game = borders_sim.Game(borders_sim.GameConfig(num_players=4), seed=7)
    >>> game.phase, game.current_player
    ('action window', 3)
    >>> game.action_to_string(game.legal_actions()[0])
    'rob p0'
    >>> while not game.is_terminal:
    ...     game.step(game.legal_actions()[0])
    >>> len(game.scores())
    4

The first :class:`Game` of a process compiles the rules kernels (or loads them from numba's
on-disk cache); while numba compiles, a note on stderr says so (see
:mod:`borders_sim._compile.notice`; silenced by ``BORDERS_SIM_QUIET=1`` or
``borders_sim.set_compile_messages(False)``).

A :class:`Game` pickles, copies and deep-copies into an independent game (its state is one
numpy record), so vector environments and worker processes can ship games.
"""

from __future__ import annotations

import operator
import threading
from collections.abc import Callable
from typing import Any, Union

import numpy as np

from .._compile.notice import compile_notice
from ..rules import actions as act
from ..rules.actions import IllegalActionError
from ..rules import engine, scoring
from .saved import dict_format
from ..rules import state as st
from ..checks import as_seat, as_seed, is_int, shown
from ..rules.config import GameConfig
from .._compile.fastcall import direct_entry
from .fastpath import ACTION_INTS, fast_state, game_call_builtin, id_list_builtin
from ..rules.limits import max_game_length
from ..rules.observation import OBS_SIZE, OBSERVE_ILLEGAL, OBSERVE_OVER, step_observe_at
from ..rules.setup import new_state

#: What draws a game (:func:`borders_sim.game.drawing.game_svg`), put here by that package
#: when it is imported (``borders_sim.game`` imports it), so that this module, which the
#: drawing builds on, imports nothing above it.
_DRAWING: list[Callable[..., str]] = []


def set_drawing(draw: Callable[..., str]) -> None:
    """Make ``draw(game, seat, last_action)`` the picture of :meth:`Game.svg`."""
    _DRAWING[:] = [draw]


_GAME_OVER = st.PH_GAME_OVER


_kernels_ready = False  # the Game kernels have run once in this process
_PREPARING = threading.Lock()
# the builtins of rules.entry.game_call and rules.entry.id_list, set by _prepare_kernels
_game_call: Any = None
_id_list: Any = None
_OP_STEP, _OP_ADVANCE, _OP_LIST = engine.OP_STEP, engine.OP_ADVANCE, engine.OP_LIST


def _fresh_rows(block: int = 64) -> Any:
    """Pairs of fresh (observation, mask) arrays for :meth:`Game.step_observe`, cut from blocks
    of ``block`` rows: an array handed out is never written again."""
    return zip(np.empty((block, OBS_SIZE), dtype=np.float32),
               np.empty((block, act.NUM_ACTIONS), dtype=np.int8))


def _prepare_kernels() -> None:
    """First use: run every kernel a :class:`Game` calls once on a throwaway game, with the
    argument types :class:`Game` passes, so that numba compiles them (or loads its cache) under
    one notice instead of stalling silently in the first ``Game(...)``, ``step`` or
    ``scores``."""
    global _kernels_ready, _game_call, _id_list
    with _PREPARING:  # (games made in threads at once: one prepares, the others wait)
        if _kernels_ready:
            return
        with compile_notice("the rules kernels", "game"):
            states = new_state(GameConfig(num_players=st.MIN_PLAYERS), 0)
            buf = np.zeros(engine.LISTED_SIZE, dtype=np.uint8)
            _game_call = game_call_builtin()
            _game_call(states.ctypes.data, buf.ctypes.data, _OP_ADVANCE, 0)
            first = int(np.flatnonzero(buf[:engine.MASK_SIZE])[0])
            count = _game_call(states.ctypes.data, buf.ctypes.data, _OP_STEP, first)
            _id_list = id_list_builtin()
            _id_list(buf.ctypes.data + engine.MASK_SIZE, count, ACTION_INTS)
            out = np.zeros(st.MAX_PLAYERS, dtype=np.int64)
            scoring.scores_at(states, 0, out)
            scoring.winners_at(states, 0, out)
        _kernels_ready = True


class Game:
    """One game of BORDERS.

    Args:
        config: the rules (default: the rulebook with 4 players).
        seed: a seed, an int from 0 to ``2**64 - 1`` (:mod:`borders_sim.checks`); the same
            config and seed always give the same game.

    The whole game lives in :attr:`state`, a one-element numpy array of
    :data:`~borders_sim.rules.state.STATE_DTYPE`; chance is drawn from the generator inside it.
    """

    def __init__(self, config: GameConfig | None = None, seed: int = 0) -> None:
        if config is None:
            config = GameConfig()
        if not isinstance(config, GameConfig):
            raise TypeError(f"config must be a GameConfig, got {type(config).__name__}")
        seed = as_seed(seed)
        if not _kernels_ready:
            _prepare_kernels()
        self.config = config
        self._attach(new_state(config, seed))
        self._call(_OP_ADVANCE, 0, "Game()")

    @classmethod
    def from_state(cls, state: np.ndarray) -> "Game":
        """Wrap an existing one-element state array (no copy: the game plays it in place),
        checked as :meth:`from_dict` checks a dict.

        Raises:
            ValueError: not a state the engine can play; the message names the field
                (:func:`~borders_sim.game.saved.dict_format.check_state`).
        """
        dict_format.check_state(state)
        return cls._wrap(state)

    @classmethod
    def _wrap(cls, state: np.ndarray) -> "Game":
        """A game on ``state``, a state already checked (loaded from a dict, unpickled)."""
        game = cls.__new__(cls)
        game._load(state)
        return game

    def _load(self, state: np.ndarray) -> None:
        if not _kernels_ready:
            _prepare_kernels()
        self.config = GameConfig.unpack(state[0]["cfg"], state[0]["menu"])
        self._attach(state)
        self._call(_OP_LIST, 0, "refresh()")

    def _attach(self, state: np.ndarray) -> None:
        self.state = self._attached = state  # (_attached: to notice a state replaced by hand)
        # the legal mask, then the legal ids as int16, as engine.game_op writes them
        self._buf = np.zeros(engine.LISTED_SIZE, dtype=np.uint8)
        self._mask = self._buf[:engine.MASK_SIZE]
        # the same bytes as bools: nonzero() of a bool array is ~2.5x faster than of uint8
        self._legal = self._mask.view(np.bool_)
        self._id_array = self._buf[engine.MASK_SIZE:].view(np.int16)
        self._count = -1  # legal ids listed in _id_array; -1: not listed (legal_actions lists them)
        self._buf_address = self._buf.ctypes.data
        self._ids_address = self._buf_address + engine.MASK_SIZE
        self._step_state = None  # the state bound to the builtin (see _bind)
        self._observe_state = None  # the state _observe was compiled for (step_observe)
        self._rows = iter(())  # (observation, mask) arrays for the coming step_observe calls
        # field views: reading memoryview(state["phase"])[0] is ~20x faster than
        # state[0]["phase"] (and ~4x faster than state["phase"][0])
        self._phase = memoryview(state["phase"])
        self._turn = memoryview(state["turn"])
        self._round = memoryview(state["round"])
        # whether the game is over, read by is_terminal; kept by the steps and refresh
        self._over = self._phase[0] == _GAME_OVER
        self._refused: str | None = None  # why refresh() refused the state, if it did

    def refresh(self) -> None:
        """Check :attr:`state` as :meth:`from_dict` checks a dict, then take it up: its config,
        the legal mask of its decision (the game keeps the mask of the current decision, which
        the step kernel computes anyway). Call this after editing ``state`` by hand (or
        replacing it).

        Raises:
            ValueError: not a state the engine can play; the message names the field
                (:func:`~borders_sim.game.saved.dict_format.check_state`). The game then has no
                legal action, and :meth:`step`, :meth:`scores` and the views raise
                :class:`~borders_sim.rules.engine.EngineError` until a ``refresh()`` succeeds.
        """
        try:
            dict_format.check_state(self.state)
        except ValueError as err:
            self._refuse(str(err))
            raise
        self._load(self.state)

    def _refuse(self, why: str) -> None:
        """Stop playing a state that ``refresh`` refused: no legal action, and every kernel
        call on it refused (:meth:`_require_playable`)."""
        self._buf[:] = 0
        self._count = -1
        self._refused = why

    def _require_playable(self) -> None:
        """Before a kernel reads :attr:`state` outside the fast step: :meth:`refresh` a state
        array replaced by hand, and raise the EngineError of a state ``refresh`` refused."""
        if self.state is not self._attached:
            self.refresh()
        if self._refused is not None:
            raise engine.EngineError(f"refresh() refused this game's state ({self._refused}); "
                                     "fix game.state and call refresh() again")

    # --- saving and loading --------------------------------------------------------------
    def to_dict(self) -> dict:
        """The whole game (rules, cards, gold, negotiation, random generator) as a JSON-ready
        dict in game words; the layout is documented in :mod:`borders_sim.game.saved.dict_format`.
        ``Game.from_dict(game.to_dict())`` continues exactly as ``game`` would."""
        return dict_format.state_to_dict(self.state)

    @classmethod
    def from_dict(cls, d: dict, reachable: bool = True) -> "Game":
        """A game rebuilt from a dict made by :meth:`to_dict` (e.g. after ``json.loads``).

        Args:
            d: the game in the layout of :mod:`borders_sim.game.saved.dict_format`.
            reachable: ``True`` (the default) accepts exactly the states a real game can
                reach: a saved game loads as it was, and anything else is refused. ``False``
                also accepts a *research position*, one the kernels can play but no game
                reaches (gold, hands, crates chosen by hand). The records of the past are then
                rebased to fit the position (:mod:`borders_sim.game.saved.rebase`): the bank's books
                (``bank``) balance the gold, the ``stats`` are the totals of the history,
                ``promises_made`` covers the promises still owed, and what players know of
                others' hands and face-down cards (``knowledge``) is lowered to the cards
                there are. Everything the kernels rely on is still checked, as with ``True``
                (:mod:`borders_sim.game.saved.validate`): every card of the deck exactly once
                across the piles, hands, crates and warehouses; every count in range; the
                escrow, the seats, the phase's bookkeeping; a decision to take; a game that
                ends within ``max_rounds``, with the bounds on stats, run-outs and gold
                counted against the whole game instead of the rounds played. Such a game plays
                to the end without breaking an invariant, like a saved one.

        Raises:
            ValueError: the dict is malformed or inconsistent; the message names the field.
            TypeError: ``reachable`` is not a bool.

        Example: a crate under inspection, with the crate's cards and two players' gold chosen
        by hand (the cards come from the draw pile, so that every card is there once)::

            >>> game = Game(GameConfig(num_players=4), seed=1)
            >>> while game.phase != "respond":          # play on to a border check
            ...     game.step(game.legal_actions()[0])
            >>> d = game.to_dict()
            >>> d["to_move"], d["negotiation"]["crate_of"], d["players"][1]["announced"]
            ('p0', 'p1', 'sugar')
            >>> owner, pile = d["players"][1], d["draw_pile"]
            >>> pile += [card for card, k in owner["crate"].items() for _ in range(k)]
            >>> for card in ["sugar"] * 2 + ["rum"] * 3:
            ...     pile.remove(card)
            >>> owner["crate"] = {"sugar": 2, "rum": 3}   # 5 cards, announced as sugar
            >>> owner["gold"], d["players"][0]["gold"] = 12, 80
            >>> Game.from_dict(d)  # doctest: +ELLIPSIS
            Traceback (most recent call last):
            ...
            ValueError: ...players[*].gold, bank: invariant violated: gold not conserved: ...
            >>> research = Game.from_dict(d, reachable=False)
            >>> research.to_dict()["bank"]         # rebased: 50 * 4 + 3 - 11 = 192 gold in all
            {'paid_in': 11, 'paid_out': 3}
            >>> [research.action_to_string(a) for a in research.legal_actions()]
            ... # doctest: +NORMALIZE_WHITESPACE
            ['demand 1', 'demand 2', 'demand 3', 'demand 4', 'demand 5', 'demand 6', 'demand 7',
             'demand 8', 'demand 10', 'demand 12', 'open', 'pass', 'wait']
        """
        return cls._wrap(dict_format.state_from_dict(d, reachable))

    # --- queries -------------------------------------------------------------------------
    @property
    def num_players(self) -> int:
        """The number of seats, 3 to 8 (``config.num_players``)."""
        return self.config.num_players

    @property
    def max_game_length(self) -> int:
        """Proven upper bound on the decisions of a game with this config (P-0.4)."""
        return max_game_length(self.config)

    @property
    def current_player(self) -> int:
        """Seat to decide now, or -1 when the game is over."""
        return -1 if self._over else int(self._turn[0])

    # a property whose getter is C code (no Python frame): the loop of a Python player reads
    # it after every step
    is_terminal = property(operator.attrgetter("_over"),
                           doc="Whether the game is over (no player decides any more).")

    @property
    def phase(self) -> str:
        """The name of the phase whose decision is next (``"market"``, ``"announce"``,
        ``"respond"``, ...: :data:`~borders_sim.rules.state.PHASE_NAMES`)."""
        return st.PHASE_NAMES[int(self._phase[0])]

    @property
    def round(self) -> int:
        """The round being played, from 1."""
        return int(self._round[0])

    def legal_mask(self) -> np.ndarray:
        """uint8[NUM_ACTIONS]: 1 where the action is legal for :attr:`current_player`."""
        return self._mask[: act.NUM_ACTIONS].copy()

    def legal_actions(self) -> list[int]:
        """Ids of the legal actions, increasing (a new list on every call)."""
        count = self._count
        if count < 0:  # not listed by the step kernel (a new, loaded or refreshed game)
            ids = self._legal.nonzero()[0]
            count = self._count = ids.size
            self._id_array[:count] = ids
        return _id_list(self._ids_address, count, ACTION_INTS)

    def action_to_string(self, action: int) -> str:
        """The readable form of the action id ``action`` (:func:`~borders_sim.rules.actions.
        action_to_string`, with this game's gold menu).

        Raises:
            IllegalActionError: ``action`` is not an action id (an int from 0 to
                ``NUM_ACTIONS - 1``), as :meth:`step` refuses it.
        """
        return act.action_to_string(action, self.config.gold_menu)

    def string_to_action(self, text: str) -> int:
        """The action id of the action string ``text``.

        Raises:
            IllegalActionError: ``text`` is not the string of an action.
        """
        return act.string_to_action(text, self.config.gold_menu)

    # --- play ----------------------------------------------------------------------------
    def step(self, action: Union[int, str], player: int | None = None) -> None:
        """Apply ``action`` (an id or its string) for :attr:`current_player`.

        Args:
            action: an action id or its string, e.g. ``"offer gold 5 to A"``.
            player: optionally the seat (an int from 0 to ``num_players - 1``) that means to
                act; a different seat than :attr:`current_player` is refused as out of turn.

        Raises:
            IllegalActionError: the game is over, the action is unknown, out of turn or not
                legal now, or ``player`` is not a seat; nothing changes.
            EngineError: the kernels gave up on the state, or it reached ``max_game_length``
                decisions (only a state built or edited by hand can cause it, see
                :mod:`borders_sim.rules.engine`), or :meth:`refresh` refused it.
            ValueError: :attr:`state` was replaced by hand with one that :meth:`refresh`
                refuses (naming the field).
        """
        # the common case first: an int id by the player to move, on the state the compiled
        # step is bound to by address; the kernel refuses an action the mask does not allow
        # (the mask is all 0 once the game is over, an id out of range is never allowed), and
        # everything else takes the checked path below
        if type(action) is int and self.state is self._step_state \
                and (player is None or (type(player) is int and player == self._turn[0])):
            count = _game_call(self._state_address, self._buf_address, _OP_STEP, action)
            if count > 0:
                self._count = count
                return
            if count != engine.ILLEGAL:  # the game is over, or the engine gave up
                self._keep(count, f"step({action!r})")
                return
        self._step_checked(action, player)

    def step_observe(self, action: Union[int, str]) -> tuple[int, Any, Any]:
        """Apply ``action`` for :attr:`current_player` as :meth:`step` does, and return the
        seat to move next with its observation (float32[OBS_SIZE], as
        :func:`~borders_sim.game.views.observe` gives it) and its legal mask
        (int8[NUM_ACTIONS]), in one compiled call: ``(seat, observation, mask)``, or
        ``(-1, None, None)`` once the game is over. The arrays are new and never written again
        (they are cut from blocks of 64), so a caller may keep them. The step of the AEC env.

        Raises:
            IllegalActionError, EngineError, ValueError: as :meth:`step`; nothing changes on an
                illegal action.
        """
        if type(action) is not int:
            action = self._legal_id(action, None)
        state = self.state
        if state is not self._observe_state:  # a new, loaded, copied or replaced state
            self._require_playable()
            state = self.state
            self._bind_observe()
        try:
            obs, mask = next(self._rows)
        except StopIteration:
            self._rows = _fresh_rows()
            obs, mask = next(self._rows)
        try:
            seat = self._observe(state, 0, action, self._mask, obs, mask)
        except OverflowError:  # an int beyond int64: outside the action space
            seat = OBSERVE_ILLEGAL
        self._count = -1  # the legal ids are listed again when asked (legal_actions)
        if seat >= 0:
            return seat, obs, mask
        if seat == OBSERVE_ILLEGAL:  # nothing changed; _legal_id raises, naming why
            self._legal_id(action, None)
        self._keep(0 if seat == OBSERVE_OVER else engine.ENGINE_ERROR,
                   f"step_observe({action!r})")
        return -1, None, None

    def _bind_observe(self) -> None:
        """Compile (or find) the entry point of ``step_observe_at`` for :attr:`state` and the
        game's buffers (:func:`~borders_sim._compile.fastcall.direct_entry`: no numba dispatch
        per step); the arrays of :func:`_fresh_rows` all have the types it is compiled for."""
        obs, mask = next(_fresh_rows(1))
        self._observe = direct_entry(step_observe_at, self.state, 0, 0, self._mask, obs, mask)
        self._observe_state = self.state

    def _bind(self) -> None:
        """Bind :attr:`state` to the builtin of :func:`~borders_sim.game.fastpath.game_call`,
        which plays it by its address (about half the cost of numba's own entry point); the
        state must be an array that builtin can read (see
        :func:`~borders_sim.game.fastpath.fast_state`), and holding it in ``_step_state`` keeps
        that address valid. A state array replaced by hand is bound again; one that does not
        qualify (a read-only array, another dtype) is played by ``engine.game_op_at`` through
        numba's entry point instead, typed by numba."""
        if fast_state(self.state):
            self._step_state = self.state
            self._state_address = self.state.ctypes.data
        else:
            self._step_state = None

    def _call(self, op: int, a: int, what: str) -> int:
        """``engine.game_op`` (``op``, action ``a``) on :attr:`state` and the game's buffer,
        its answer recorded by :meth:`_keep`. Returns the count (or ``ILLEGAL``)."""
        if self.state is not self._step_state:
            self._bind()
        if self.state is self._step_state:
            count = _game_call(self._state_address, self._buf_address, op, a)
        else:
            count = direct_entry(engine.game_op_at, self.state, 0, 0, 0, self._buf)(
                self.state, 0, op, a, self._buf)
        self._keep(count, what)
        return count

    def _keep(self, count: int, what: str) -> None:
        """Record the engine's answer ``count`` in ``_count`` and ``_over``; raise the
        EngineError of ``what`` if the engine gave up on the state."""
        self._count = count if count >= 0 else -1
        self._over = self._phase[0] == _GAME_OVER
        if count < 0 and count != engine.ILLEGAL:
            raise engine.engine_error(self.state, what)

    def _step_checked(self, action: Any, player: Any) -> None:
        a = self._legal_id(action, player)
        self._call(_OP_STEP, a, f"step({action!r})")  # (not ILLEGAL: the mask allowed ``a``)

    def _legal_id(self, action: Any, player: Any) -> int:
        """``action`` (an id, a numpy integer or an action string) as the id of an action legal
        now for ``player`` (None: whoever is to move); IllegalActionError naming why not (or
        the EngineError of a refused state)."""
        self._require_playable()
        if self.is_terminal:
            raise IllegalActionError(f"the game is over; no action is legal (got "
                                     f"{shown(action)})")
        if player is not None:
            self._check_seat(player)
            if player != self.current_player:
                raise IllegalActionError(
                    f"action {shown(action)} out of turn: player p{player} tried to act, but "
                    f"it is p{self.current_player}'s turn in phase {self.phase!r}")
        if isinstance(action, str):
            a = self.string_to_action(action)
        elif is_int(action):
            a = act.action_id(action)
        else:
            raise IllegalActionError(f"an action is an int id or a string, got {shown(action)} "
                                     f"({type(action).__name__})")
        if not self._mask[a]:
            raise IllegalActionError(
                f"illegal action {self.action_to_string(a)!r} (id {a}) for player "
                f"p{self.current_player} in phase {self.phase!r} of round {self.round}; "
                f"legal: {[self.action_to_string(b) for b in np.flatnonzero(self._mask)]}")
        return a

    def _check_seat(self, player: Any) -> None:
        """Refuse a ``player`` (of :meth:`step`) that is not a seat of this game."""
        try:
            as_seat(player, self.num_players, "player")
        except ValueError as err:
            raise IllegalActionError(str(err)) from None

    def scores(self) -> list[int]:
        """Final scores (§9) of every seat; also defined mid-game (scoring the current state)."""
        self._require_playable()
        out = np.zeros(st.MAX_PLAYERS, dtype=np.int64)
        scoring.scores_at(self.state, 0, out)
        return [int(x) for x in out[: self.num_players]]

    def winners(self) -> list[int]:
        """Seats that win, after the tie-breaks (9-9; several on a shared victory)."""
        self._require_playable()
        out = np.zeros(st.MAX_PLAYERS, dtype=np.int64)
        scoring.winners_at(self.state, 0, out)
        return [int(p) for p in np.flatnonzero(out[: self.num_players])]

    def copy(self) -> "Game":
        """An independent game in the same position (its own copy of the state)."""
        other = type(self).__new__(type(self))
        other.config = self.config  # frozen
        other._attach(self.state.copy())
        other._buf[:] = self._buf
        other._count = self._count
        other._refused = self._refused
        return other

    # copy.copy and copy.deepcopy give independent games too: a shallow copy sharing the state
    # array would let one game's steps move the other.
    def __copy__(self) -> "Game":
        return self.copy()

    def __deepcopy__(self, memo: dict) -> "Game":
        memo[id(self)] = other = self.copy()
        return other

    def __getstate__(self) -> dict:
        # Only the state: the field views and the mask are rebuilt from it on loading (pickled
        # views would come back as detached arrays).
        return {"state": self.state}

    def __setstate__(self, d: dict) -> None:
        dict_format.check_state(d["state"])
        self._load(d["state"])

    def __repr__(self) -> str:
        return (f"Game(num_players={self.num_players}, round={self.round}, phase={self.phase!r}, "
                f"current_player={self.current_player})")

    # --- pictures ------------------------------------------------------------------------
    def svg(self, seat: int | None = None,
            last_action: tuple[int, Any] | None = None) -> str:
        """The picture of the game as SVG text (:mod:`borders_sim.game.drawing`): the whole
        table, every card face up (``seat=None``), or what ``seat`` knows, drawn from its
        :func:`~borders_sim.game.views.observe_json` alone. ``last_action``, ``(seat, action)``,
        highlights the last decision (the game does not record it). The text is a ``str``
        that Jupyter shows as a picture: ``game.svg(seat=2)`` in a cell shows p2's view.

        Raises:
            ValueError: ``seat`` is not a seat of the game.
        """
        return _DRAWING[0](self, seat, last_action)

    def save_svg(self, path: Any, seat: int | None = None,
                 last_action: tuple[int, Any] | None = None) -> None:
        """Write :meth:`svg` (``seat``, ``last_action`` as there) to the file ``path``."""
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write(self.svg(seat, last_action))

    def _repr_svg_(self) -> str:
        """Jupyter's picture of the game: the whole table (:meth:`svg`)."""
        return str(self.svg())
