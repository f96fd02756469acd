"""BORDERS as an OpenSpiel game: ``pyspiel.load_game("python_borders", {"players": 4})``.

The game, its states and its observer. Importing :mod:`borders_sim.openspiel` (this package)
registers it with OpenSpiel (the extra ``bench``, ``pip install ".[bench]"`` in the source
checkout, installs ``open_spiel``; the rest of ``borders_sim`` never needs it)::

    import pyspiel
    import borders_sim.openspiel  # registers "python_borders"

    game = pyspiel.load_game("python_borders", {"players": 5, "action_cards": False})
    state = game.new_initial_state()          # the chance node of the deal
    state.apply_action(7)                     # deal 7: borders_sim.Game(config, seed=0 + 7)
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    print(state.returns())

**Parameters.** ``players`` (3..8, default 4) is the player count (OpenSpiel's name for it; it
is :class:`~borders_sim.GameConfig`'s ``num_players``). Every other :class:`GameConfig` flag is
a parameter of the same name and default (``haggling="full"``, ``haggle_rounds=3``,
``bounties=True``, ``action_cards=True``, ...), except that ``gold_menu``, a tuple in
:class:`GameConfig`, is a string of the amounts separated by ``/`` (default
``"1/2/3/4/5/6/7/8/10/12/15/20/25/30"``): OpenSpiel's game strings separate parameters by
commas, so a comma-separated value would not survive ``game.serialize()``. ``seed`` (default 0)
is the first engine seed of the deals (see Chance), an int from 0 to ``2**31 - 1`` (OpenSpiel's
int parameters are 32-bit), and ``reward`` is a reward mode of
:data:`~borders_sim.rules.rewards.REWARDS` (default its first, ``"win"``), which also gives the
game's type and utility bounds (:func:`game_type`, :func:`utility_bounds`). Every parameter is
checked when the game loads, by the rules of :mod:`borders_sim.checks` (a ``ValueError`` naming
it).

**Chance.** The engine draws every chance event (the deal, every shuffle, the Robbery die) from
a generator inside the state record, so the deck and the dice cannot be OpenSpiel chance nodes
one by one. OpenSpiel's ``SAMPLED_STOCHASTIC`` mode fits that on paper, but
``pyspiel.serialize_game_and_state`` (and ``random_sim_test(serialize=True)``) of a sampled
game asks the game for its generator state (``Game::GetRNGState``), which a Python game cannot
provide. So the game is ``EXPLICIT_STOCHASTIC`` and its only chance is the deal: one of
:data:`DEALS` equally likely deals ``k`` (0 to ``DEALS - 1``) chooses the engine seed
``seed + k``, and everything after it (shuffles, die) follows from that seed through the
generator in the state, which no player observes. The deal is drawn as :data:`DEAL_NODES`
chance nodes of :data:`DEAL_OUTCOMES` equally likely outcomes each, the hexadecimal digits of
``k``, most significant first (:func:`deal_actions` gives them for a ``k``), so a generic loop
that lists a chance node's outcomes lists a few dozen a game, not 65,536. After the deal the
game is, step for step, ``borders_sim.Game(config, seed=seed + k)`` with the same actions. Every
``new_initial_state()`` is the first of those chance nodes, so a caller that samples chance
(``evaluate_bots``, ``rl_environment``, ``random_sim_test``) gets a new deal each game;
``seed`` moves the block of deals.

**Observations.** :meth:`BordersGame.make_py_observer` gives the player's observation vector,
:func:`borders_sim.envs.observe` (layout
:data:`~borders_sim.rules.observation.OBSERVATION_LAYOUT`, one named block of it per entry in
the observer's ``dict``), with the same guarantee: it holds everything the player knows and
nothing else (RULINGS R-39). ``observation_string`` is :func:`borders_sim.envs.observe_text`.
That observation is the player's knowledge as the rules define it (its cards, the table, what it
knows of others' cards, public history *counters*), not a perfect-recall record: two histories
that leave the same counters look alike. OpenSpiel means by an *information state* a
perfect-recall one: ``information_state_string`` is such a record, kept apart from the
observation (next paragraph); there is no information-state tensor
(``provides_information_state_tensor = False``: a record of a history up to a million decisions
long has no fixed size), so ``rl_environment`` takes the observation tensor by itself, and
``make_py_observer`` gives ``None`` for an observation type the game does not provide
(OpenSpiel's contract, which ``generate_playthrough`` relies on).

**Information state.** ``state.information_state_string(p)`` is a perfect-recall record of
player ``p``: a fingerprint (a BLAKE2b digest, 128 bits) chained over the sequence of ``p``'s
observations after every move since the deal, each with who moved and, for ``p``'s own moves,
the action, then the number of moves. Two histories give ``p`` the same string exactly when
``p`` saw the same sequence (up to a collision of the digest, about one in 2**64 for billions
of strings), so outcome-sampling MCCFR and IS-MCTS with its defaults run on it
(``make_py_observer`` with ``perfect_recall=True`` gives an observer of that string, no tensor).
The records are kept from the first time a state of a line of play is asked for one, so a loop
that never asks pays nothing; a state with no history (:meth:`BordersGame.state_from_game`,
:meth:`BordersState.resample_from_infostate`, a deserialized state) starts its records at its
own position (a resampled state keeps the record of the player it was resampled for). What such
algorithms can do on a game this size is on the OpenSpiel page of the docs.

**IS-MCTS.** :meth:`BordersState.resample_from_infostate` deals the cards the player cannot
see anew (:func:`borders_sim.game.belief.sample_consistent_state`): a state with the player's
observation and legal actions and a fresh generator, so neither hidden cards nor future chance
leak. With it OpenSpiel's own IS-MCTS plays whole games::

    import numpy as np
    from open_spiel.python.algorithms import ismcts, mcts
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
                           uct_c=2.0, max_simulations=50, use_observation_string=True)
    action = bot.step(state)

(:mod:`.bots` has a far faster rollout evaluator, one kernel call per rollout, measured on the
OpenSpiel page of the docs, and puts such bots into ``borders-sim tournament``.) A resampled state
is a dealt world, not a replay: its ``history()`` is empty.

**Serialization.** ``state.serialize()`` is JSON and nothing else, an object of three keys:
``format`` (:data:`STATE_FORMAT`), ``history`` (the state's OpenSpiel history as ``[player,
action]`` pairs: the deal's digits by player -1, then every move) and ``game`` (the game as
:meth:`borders_sim.Game.to_dict` writes it, ``null`` before the deal).
``game.deserialize_state(text)`` reads it back and runs no code: it replays the history from
the deal, each move checked legal, and that must reach the game of the text (a state with no
history, such as :meth:`BordersGame.state_from_game` makes, is the game as loaded by
:meth:`borders_sim.Game.from_dict`, every field checked). Text in OpenSpiel's own format for
Python states (``history=...``, ``move_number=...``, ``__dict__=`` a base64 pickle, what this
module's ``serialize()`` wrote before) is refused with a ``ValueError``: unpickling runs whatever
code the pickle names.

``pyspiel.serialize_game_and_state`` / ``deserialize_game_and_state`` (and ``pickle`` of a
state, and ``random_sim_test(serialize=True)``) are OpenSpiel's C++ code, which does not call
these two methods: for a Python game it writes that ``__dict__=`` pickle of the state's
attributes (the game pickles as its JSON state) and round-trips exactly, but its reader unpickles
whatever text it is handed, so hand ``deserialize_game_and_state`` only text you wrote yourself.

:class:`~.spiel_bot.BordersBot` goes the other way: any bot of
:func:`borders_sim.agents.make` as a ``pyspiel.Bot`` (it reads the state's observation tensor
and legal mask only), e.g. for ``pyspiel.evaluate_bots``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import fields
from typing import Any

import numpy as np

from ..install_hints import needs

try:
    import pyspiel
except ModuleNotFoundError as err:  # pragma: no cover - exercised only without open_spiel
    raise ModuleNotFoundError(needs("borders_sim's OpenSpiel game", "bench", "OpenSpiel (pyspiel)",
                                    alone=("open_spiel",)), name=err.name) from err

from ..game.belief import sample_consistent_state
from ..game.game import Game
from ..game.views import observe_text
from ..rules import state as st
from ..rules.actions import NUM_ACTIONS, action_to_string
from ..checks import (ArgumentTypeError, as_float, as_int, as_mapping, as_seat, as_str,
                          is_int, shown)
from ..rules.cards import (CARD_VALUE, COPIES, FIRST_INSPECTOR_BONUS, KING_BONUS, MAIN_POINTS,
                           MAX_MAIN_HELD, NUM_GOODS, START_GOLD, TOBACCO, deck_tier)
from ..rules.config import GameConfig
from ..rules.limits import max_game_length, max_rounds
from ..rules.observation import OBS_SIZE, OBSERVATION_LAYOUT, observe_at
from ..rules.rewards import REWARD_MODES, final_rewards_at, reward_info, reward_mode
from ..rules.scoring import TOBACCO_BONUS_MIN_PLAYERS

GAME_NAME = "python_borders"
#: Outcomes of one chance node of the deal: a hexadecimal digit of the deal.
DEAL_OUTCOMES = 16
#: Chance nodes of the deal, one per digit, most significant first.
DEAL_NODES = 4
#: The deals: deal ``k`` is the engine seed ``seed + k``.
DEALS = DEAL_OUTCOMES ** DEAL_NODES
#: The ``format`` of a state's serialization (:meth:`BordersState.serialize`); version 1, whose
#: history dealt in one chance action of 0 to ``DEALS - 1``, is read too.
STATE_FORMAT = "borders_sim.openspiel_state/2"
_STATE_FORMAT_ONE_DEAL = "borders_sim.openspiel_state/1"
#: The largest ``seed`` parameter: OpenSpiel's int parameters are 32-bit.
SEED_PARAMETER_MAX = 2**31 - 1
_MENU_SEPARATOR = "/"

_FLAGS = tuple(f for f in fields(GameConfig) if f.name != "num_players")
#: Every parameter and its default (``gold_menu`` as a ``/``-separated string).
PARAMETERS: dict[str, Any] = {
    "players": GameConfig().num_players,
    "seed": 0,
    "reward": REWARD_MODES[0],
    **{f.name: (_MENU_SEPARATOR.join(map(str, f.default)) if f.name == "gold_menu"
                else f.default) for f in _FLAGS},
}

_TYPE_FIELDS = dict(
    short_name=GAME_NAME,
    long_name="BORDERS (borders_sim)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=st.MAX_PLAYERS,
    min_num_players=st.MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS,
)
#: The registered type, general-sum: the type of a game loaded with a reward mode is that
#: mode's (:func:`game_type`).
GAME_TYPE = pyspiel.GameType(utility=pyspiel.GameType.Utility.GENERAL_SUM, **_TYPE_FIELDS)


#: A reward mode's :attr:`~borders_sim.rules.rewards.RewardMode.sum_kind` -> OpenSpiel's utility.
_UTILITY = {"zero-sum": pyspiel.GameType.Utility.ZERO_SUM,
            "constant-sum": pyspiel.GameType.Utility.CONSTANT_SUM,
            "general-sum": pyspiel.GameType.Utility.GENERAL_SUM}


def game_type(reward: str) -> pyspiel.GameType:
    """The type of a game with this reward mode: zero-sum, constant-sum or general-sum as the
    mode's entry of :data:`~borders_sim.rules.rewards.REWARDS` says."""
    utility = _UTILITY[reward_info(reward).sum_kind]
    return pyspiel.GameType(utility=utility, **_TYPE_FIELDS)


def parse_gold_menu(text: str) -> tuple[int, ...]:
    """``"1/2/5"`` -> ``(1, 2, 5)``: whole amounts in decimal digits, separated by ``/``;
    ValueError (naming the parameter) otherwise. :class:`GameConfig` checks the amounts."""
    what = (f"whole amounts separated by '{_MENU_SEPARATOR}' (not commas: OpenSpiel's game "
            f"strings use them), e.g. '1/2/5'")
    parts = as_str(text, "gold_menu", f"a string of {what}").split(_MENU_SEPARATOR)
    if not all(part.isascii() and part.isdigit() and len(part) <= 9 for part in parts):
        raise ValueError(f"gold_menu must be {what}, got {shown(text)}")
    return tuple(int(part) for part in parts)


def config_from_params(params: dict) -> GameConfig:
    """The :class:`GameConfig` of a dict of game parameters (missing ones take their default).

    Raises:
        ValueError: an unknown parameter or a bad value (the message names it).
    """
    params = as_mapping(params, "params", "a dict of game parameters")
    unknown = [key for key in params if key not in PARAMETERS]
    if unknown:
        raise ValueError(f"unknown parameter(s) {shown(unknown)} of {GAME_NAME}; known: "
                         f"{sorted(PARAMETERS)}")
    flags = {f.name: params.get(f.name, PARAMETERS[f.name]) for f in _FLAGS}
    flags["gold_menu"] = parse_gold_menu(flags["gold_menu"])
    return GameConfig(num_players=params.get("players", PARAMETERS["players"]), **flags)


def params_from_config(config: GameConfig, seed: int = 0, reward: str = "win") -> dict:
    """The game parameters of ``config`` (inverse of :func:`config_from_params`), with the
    first seed of the deals and the reward mode (both checked as the game checks them)."""
    if not isinstance(config, GameConfig):
        raise ArgumentTypeError(f"config must be a GameConfig, got {type(config).__name__}")
    params = {"players": config.num_players, "seed": _seed_parameter(seed),
              "reward": reward_info(reward).name}
    for f in _FLAGS:
        value = getattr(config, f.name)
        params[f.name] = _MENU_SEPARATOR.join(map(str, value)) if f.name == "gold_menu" \
            else value
    return params


def _seed_parameter(seed: Any) -> int:
    """``seed``, the first engine seed of the deals, checked: an int from 0 to
    :data:`SEED_PARAMETER_MAX`."""
    return as_int(seed, "seed", 0, SEED_PARAMETER_MAX,
                  "a seed of the deals, an int from 0 to 2**31 - 1 (OpenSpiel's int parameters "
                  "are 32-bit)")


def score_bound(config: GameConfig) -> int:
    """An upper bound on any seat's final score (scores are never negative), from the rules:

    * (a) goods: every goods card of the deck in one warehouse, at its value;
    * (b) gold: all of it, the players' start gold plus the only gold the bank pays out, the
      first inspectors' bonus (3.4-3) and the odd gold of a fine split between two openers
      (at most 1 per crate, so with 2 inspectors at most the smugglers' crates of
      :func:`~borders_sim.rules.limits.max_rounds` rounds);
    * (c) main resources: the two most valuable (a seat holds at most 2, 5-13);
    * (d) King and Queen bonuses: the King of every legal type (a single holder is King and
      nobody Queen; a tie splits King + Queen among at least two, 9-6).
    """
    n = config.num_players
    tier = deck_tier(n)
    goods = int((COPIES[tier, :NUM_GOODS] * CARD_VALUE[:NUM_GOODS]).sum())
    odd = max_rounds(config) * (n - config.num_inspectors) if config.num_inspectors == 2 else 0
    gold = START_GOLD * n + FIRST_INSPECTOR_BONUS * config.num_inspectors + odd
    main = int(np.sort(MAIN_POINTS)[-MAX_MAIN_HELD:].sum())
    kings = int(KING_BONUS.sum()) - (int(KING_BONUS[TOBACCO])
                                     if n < TOBACCO_BONUS_MIN_PLAYERS else 0)
    return goods + gold + main + kings


def utility_bounds(config: GameConfig, reward: str) -> tuple[float, float]:
    """``(min, max)`` of a seat's return: the reward mode's bounds
    (:meth:`~borders_sim.rules.rewards.RewardMode.bounds`), in points of :func:`score_bound`
    for a mode in points."""
    return reward_info(reward).bounds(score_bound(config))


class _SpielGame(Game):
    """The :class:`~borders_sim.Game` inside a :class:`BordersState`: it pickles as its JSON
    state (:meth:`~borders_sim.Game.to_dict`), which is what OpenSpiel's C++ serializer
    (``pyspiel.serialize_game_and_state``, module docstring) stores of it, and it caches the
    observation text of one seat until the next step."""

    text_cache: tuple[int, str] | None = None  # (seat, observe_text); copies start without it

    def __reduce__(self):
        return _game_from_json, (json.dumps(self.to_dict(), separators=(",", ":")),)


def _game_from_json(text: str) -> _SpielGame:
    return _SpielGame.from_dict(json.loads(text))


_CHANCE_OUTCOMES = [(d, 1.0 / DEAL_OUTCOMES) for d in range(DEAL_OUTCOMES)]


def deal_actions(deal: int) -> list[int]:
    """The chance actions that draw deal ``deal`` (0 to ``DEALS - 1``): its
    :data:`DEAL_NODES` hexadecimal digits, most significant first. ``deal_actions(7)`` is
    ``[0, 0, 0, 7]``::

        state = game.new_initial_state()
        for a in deal_actions(7):
            state.apply_action(a)          # now borders_sim.Game(config, seed + 7)

    Raises:
        ValueError: a deal out of range (the message names it).
    """
    deal = as_int(deal, "deal", 0, DEALS - 1)
    return [(deal // DEAL_OUTCOMES ** (DEAL_NODES - 1 - i)) % DEAL_OUTCOMES
            for i in range(DEAL_NODES)]


class BordersGame(pyspiel.Game):
    """The OpenSpiel game (see the module docstring for the parameters)."""

    def __init__(self, params: dict | None = None) -> None:
        params = dict(as_mapping(params or {}, "params", "a dict of game parameters"))
        self.config = config_from_params(params)
        self.seed = _seed_parameter(params.get("seed", PARAMETERS["seed"]))
        mode = reward_info(params.get("reward", PARAMETERS["reward"]))
        self.reward = mode.name
        self.reward_index = reward_mode(self.reward)
        lo, hi = utility_bounds(self.config, self.reward)
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=DEAL_OUTCOMES,
            num_players=self.config.num_players,
            min_utility=lo,
            max_utility=hi,
            utility_sum=mode.total,
            max_game_length=max_game_length(self.config))
        super().__init__(game_type(self.reward), info, params)

    def new_initial_state(self) -> "BordersState":
        """The first chance node of the deal (the same for every call; see Chance)."""
        return BordersState(self)

    def state_from_game(self, game: Game) -> "BordersState":
        """A state of this game in the position of ``game`` (copied; its config must be this
        game's). Its ``history()`` is empty."""
        if not isinstance(game, Game):
            raise ArgumentTypeError(f"game must be a borders_sim.Game, got "
                                    f"{type(game).__name__}")
        if game.config != self.config:
            raise ValueError(f"the game's config {game.config} is not this game's "
                             f"{self.config}")
        state = BordersState(self)
        state.game = _SpielGame.from_state(game.state.copy())
        return state

    def deserialize_state(self, text: str) -> "BordersState":
        """The state that :meth:`BordersState.serialize` wrote as ``text`` (module docstring,
        Serialization): its history replayed from the deal, reaching the game the text holds.
        Reading runs no code.

        Raises:
            ValueError: ``text`` is not that JSON (a pickle payload of OpenSpiel's format among
                others), a move of the history is not legal where it is played, the game is
                malformed or of another config (the message names the field), or the history
                does not reach it.
        """
        history, game = _read_state(text)
        state = self.new_initial_state()
        for i, (player, action) in enumerate(history):
            _replay(state, i, player, action)
        if game is None:
            if state.game is not None:
                raise ValueError("the history deals a game, but the game is null")
            return state
        try:
            loaded = _SpielGame.from_dict(game)
        except ValueError as err:
            raise ValueError(f"game: {err}") from None
        if loaded.config != self.config:
            raise ValueError(f"game.config is {loaded.config}, not this game's {self.config}")
        if state.game is None:
            state.game = loaded
        elif loaded.state.tobytes() != state.game.state.tobytes():
            raise ValueError("the history does not reach the game: replayed from the deal, it "
                             "leads to another position")
        return state

    def max_chance_nodes_in_history(self) -> int:
        return DEAL_NODES

    def make_py_observer(self, iig_obs_type: pyspiel.IIGObservationType | None = None,
                         params: dict | None = None) -> "BordersObserver | RecallObserver | None":
        """The observer of one player's observation, or of its perfect-recall record
        (:class:`RecallObserver`); ``None`` (OpenSpiel's answer for an observation type a game
        does not provide) for any other type (:func:`provides`).

        Raises:
            ValueError: observer parameters (it takes none).
        """
        if params:
            raise ValueError(f"{GAME_NAME} observers take no parameters, got {params}")
        if not provides(iig_obs_type):
            return None
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            return RecallObserver()
        return BordersObserver(iig_obs_type)


class BordersState(pyspiel.State):
    """A state: the chance nodes of the deal (``digits`` drawn so far), then a
    :class:`~borders_sim.Game` (``game``)."""

    def __init__(self, game: BordersGame) -> None:
        super().__init__(game)
        self.game: _SpielGame | None = None  # None: the deal is still to come
        self.digits: list[int] = []  # the deal's digits drawn so far, most significant first
        # each seat's perfect-recall record (module docstring, Information state): None until
        # a state of this line of play is asked for one, then kept up to date by every move
        self.records: list[bytes] | None = None
        self.moves = 0  # moves since the deal, or since the position a state was made at
        self.from_deal = False  # the game was dealt here, so the history replays it

    def current_player(self) -> int:
        g = self.game
        if g is None:
            return pyspiel.PlayerId.CHANCE
        if g.is_terminal:
            return pyspiel.PlayerId.TERMINAL
        return g.current_player

    def is_terminal(self) -> bool:
        return self.game is not None and self.game.is_terminal

    def _legal_actions(self, player: int) -> list[int]:
        return self.game.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return _CHANCE_OUTCOMES

    def _apply_action(self, action: int) -> None:
        g = self.game
        if g is None:
            self.digits.append(as_int(action, "the deal's chance outcome", 0, DEAL_OUTCOMES - 1))
            if len(self.digits) == DEAL_NODES:
                deal = 0
                for digit in self.digits:
                    deal = deal * DEAL_OUTCOMES + digit
                game = self.get_game()
                self.game = _SpielGame(game.config, seed=game.seed + deal)
                self.from_deal = True
        else:
            g.text_cache = None
            mover = g.current_player
            g.step(action)
            self.moves += 1
            if self.records is not None:
                self.records = _extended(self.records, g, mover, action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal digit {len(self.digits) + 1} of {DEAL_NODES}: {action:x}"
        return action_to_string(action, self.get_game().config.gold_menu)

    def returns(self) -> list[float]:
        n = self.get_game().config.num_players
        g = self.game
        if g is None or not g.is_terminal:
            return [0.0] * n
        out = np.zeros(st.MAX_PLAYERS, dtype=np.float64)
        final_rewards_at(g.state, 0, self.get_game().reward_index, out)
        return out[:n].tolist()

    def resample_from_infostate(self, player_id: int, probability_sampler) -> "BordersState":
        """A state that ``player_id`` cannot tell from this one: the cards it cannot see dealt
        anew (:func:`~borders_sim.game.belief.sample_consistent_state`, seeded by one draw of
        ``probability_sampler``, e.g. ``pyspiel.UniformProbabilitySampler(0., 1.)``), a fresh
        generator for the chance to come, and an empty ``history()``. Before the deal it is a
        copy of this chance node (the deal's digits drawn so far included)."""
        n = self.get_game().config.num_players
        player_id = as_seat(player_id, n, "player_id")
        state = BordersState(self.get_game())
        state.digits = list(self.digits)
        if self.game is not None:
            u = as_float(probability_sampler(), "probability_sampler()", 0, 1, finite=True)
            seed = int(u * 2**53)
            world = sample_consistent_state(self.game, player_id, seed)
            state.game = _SpielGame.from_state(world.state)
            # the player's record is its own; the others' follow from it alone, the same in
            # every world resampled from this state
            own = self._records()[player_id]
            state.records = [own if q == player_id else _digest(own, q.to_bytes(1, "little"))
                             for q in range(n)]
            state.moves = self.moves
        return state

    def serialize(self) -> str:
        """This state as JSON (module docstring, Serialization): its history and its game
        (:meth:`borders_sim.Game.to_dict`, ``null`` before the deal);
        ``game.deserialize_state`` reads it back."""
        g = self.game
        return json.dumps({"format": STATE_FORMAT,
                           "history": [[h.player, h.action] for h in self.full_history()],
                           "game": None if g is None else g.to_dict()},
                          separators=(",", ":"))

    def information_state_string(self, player: int | None = None) -> str:
        """``player``'s perfect-recall record (module docstring, Information state); the
        player to move by default."""
        n = self.get_game().config.num_players
        player = self.current_player() if player is None else player
        player = as_seat(player, n, "player")
        if self.game is None:
            return f"p{player}: before the deal, nothing seen"
        return f"p{player}: record {self._records()[player].hex()} after {self.moves} moves"

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        raise pyspiel.SpielError(_NO_INFOSTATE_TENSOR)

    def _records(self) -> list[bytes]:
        """The seats' records, begun now if this line of play has none: replayed from the
        deal through the history, or, for a state with no history, from here."""
        if self.records is None:
            g = self.game
            if not self.from_deal:  # no history to replay: the records start here
                self.records = _started(g)
            else:
                history = [h.action for h in self.full_history()][DEAL_NODES:]
                replay = _SpielGame(g.config, seed=self._seed())
                records = _started(replay)
                for action in history:
                    mover = replay.current_player
                    replay.step(action)
                    records = _extended(records, replay, mover, action)
                if replay.state.tobytes() != g.state.tobytes():
                    raise RuntimeError("the replayed history does not reach this state")
                self.records = records
        return self.records

    def _seed(self) -> int:
        """The engine seed of this state's deal."""
        deal = 0
        for digit in self.digits:
            deal = deal * DEAL_OUTCOMES + digit
        return self.get_game().seed + deal

    def __str__(self) -> str:
        g = self.game
        if g is None:
            drawn = "".join(f"{d:x}" for d in self.digits) or "none"
            return (f"the deal (chance node {len(self.digits) + 1} of {DEAL_NODES}; digits "
                    f"drawn: {drawn}): engine seed {self.get_game().seed} + deal")
        s = g.state[0]
        gold = ", ".join(f"p{p} {int(s['gold'][p])}" for p in range(g.num_players))
        who = "game over" if g.is_terminal else f"p{g.current_player} to move"
        digest = hashlib.blake2b(g.state.tobytes(), digest_size=12).hexdigest()
        return f"round {g.round}, {g.phase}, {who}; gold {gold}; state {digest}"


_PICKLED = (
    "a serialized state in OpenSpiel's format for Python states (history=, move_number=, "
    "__dict__= a pickle, what pyspiel.serialize_game_and_state and older versions of this game "
    "write): refused, since unpickling runs whatever code the pickle names. Serialize the state "
    f"again with state.serialize(), the JSON this reads (format {STATE_FORMAT!r}); text you "
    "wrote yourself with pyspiel.serialize_game_and_state reads back with "
    "pyspiel.deserialize_game_and_state")
_STATE_KEYS = ("format", "history", "game")


def _read_state(text: str) -> tuple[list, dict | None]:
    """The history (``[player, action]`` pairs of ints) and the game dict (or None) of a
    state's JSON (:meth:`BordersState.serialize`), checked in form."""
    text = as_str(text, "text", "a state's JSON, as state.serialize() writes it")
    if text.startswith("history="):
        raise ValueError(_PICKLED)
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError) as err:
        raise ValueError(f"a serialized {GAME_NAME} state is the JSON of state.serialize(); "
                         f"this text cannot be read as JSON: {err}") from None
    if not isinstance(doc, dict) or sorted(doc) != sorted(_STATE_KEYS):
        raise ValueError(f"a serialized {GAME_NAME} state is a JSON object of the keys "
                         f"{list(_STATE_KEYS)}, got {shown(doc)}")
    if doc["format"] not in (STATE_FORMAT, _STATE_FORMAT_ONE_DEAL):
        raise ValueError(f"format must be {STATE_FORMAT!r} (or {_STATE_FORMAT_ONE_DEAL!r}), "
                         f"got {shown(doc['format'])}")
    history = doc["history"]
    if not isinstance(history, list) or not all(
            isinstance(h, list) and len(h) == 2 and is_int(h[0]) and is_int(h[1])
            for h in history):
        raise ValueError(f"history must be a list of [player, action] pairs of ints, got "
                         f"{shown(history)}")
    if doc["format"] == _STATE_FORMAT_ONE_DEAL and history:
        # version 1 dealt in one chance action: its digits are the deal of this version
        player, deal = history[0]
        if player == pyspiel.PlayerId.CHANCE and 0 <= deal < DEALS:
            history = [[player, d] for d in deal_actions(deal)] + history[1:]
    if doc["game"] is not None and not isinstance(doc["game"], dict):
        raise ValueError(f"game must be a game's dict (Game.to_dict) or null, got "
                         f"{shown(doc['game'])}")
    return history, doc["game"]


def _replay(state: BordersState, i: int, player: int, action: int) -> None:
    """Apply move ``i`` of a serialized history, ``action`` by ``player``, to ``state``, where
    that player must be to move and the action legal."""
    if player != state.current_player():
        raise ValueError(f"history[{i}]: player {player} moves, but "
                         f"{_mover(state.current_player())} is to move")
    if state.is_chance_node():
        ok = 0 <= action < DEAL_OUTCOMES
    else:
        ok = 0 <= action < NUM_ACTIONS and state.game.legal_mask()[action] != 0
    if not ok:
        raise ValueError(f"history[{i}]: action {shown(action)} is not legal there")
    state.apply_action(action)


def _mover(player: int) -> str:
    """Who is to move, in words (a seat, chance, or nobody at the end)."""
    if player == pyspiel.PlayerId.CHANCE:
        return f"chance ({player})"
    if player == pyspiel.PlayerId.TERMINAL:
        return "nobody (the game is over)"
    return f"player {player}"


_NO_INFOSTATE_TENSOR = (
    f"{GAME_NAME} provides no information-state tensor: a perfect-recall record of a history "
    "up to a million decisions long has no fixed size. Use information_state_string (the "
    "record's fingerprint) or observation_tensor (everything the player knows now).")


def _digest(*parts: bytes) -> bytes:
    """A 128-bit BLAKE2b digest of ``parts``, one after the other."""
    h = hashlib.blake2b(digest_size=16)
    for part in parts:
        h.update(part)
    return h.digest()


def _seen(g: Game, seat: int) -> bytes:
    """``seat``'s observation of ``g``, as bytes."""
    obs = np.empty(OBS_SIZE, dtype=np.float32)
    observe_at(g.state, 0, seat, obs)
    return obs.tobytes()


def _started(g: Game) -> list[bytes]:
    """Each seat's record begun at ``g``'s position: the digest of what it sees there."""
    return [_digest(b"start", _seen(g, q)) for q in range(g.num_players)]


def _extended(records: list[bytes], g: Game, mover: int, action: int) -> list[bytes]:
    """``records`` after ``mover`` played ``action``, reaching ``g``: each seat's record
    chained with who moved, the action if the seat is the mover, and what it sees now."""
    out = []
    for q, record in enumerate(records):
        move = f"{mover}:{action if q == mover else '-'}".encode()
        out.append(_digest(record, move, _seen(g, q)))
    return out


def provides(iig_obs_type: pyspiel.IIGObservationType | None) -> bool:
    """Whether the game provides observations of ``iig_obs_type``: the default (``None``) and
    a player's own private and the public information (``IIGObservationType(public_info=True,
    private_info=SINGLE_PLAYER)``), without perfect recall (:class:`BordersObserver`) or with
    it (:class:`RecallObserver`)."""
    return iig_obs_type is None or (
        iig_obs_type.public_info
        and iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER)


class RecallObserver:
    """An OpenSpiel Python observer of a player's perfect-recall record: ``string_from`` is
    :meth:`BordersState.information_state_string`; no tensor (``tensor`` is ``None``)."""

    def __init__(self) -> None:
        self.tensor = None
        self.dict: dict = {}

    def set_from(self, state: BordersState, player: int) -> None:
        """Nothing to fill: the record has no tensor."""

    def string_from(self, state: BordersState, player: int) -> str:
        """``player``'s record in ``state``."""
        return state.information_state_string(player)


class BordersObserver:
    """An OpenSpiel Python observer of one player's observation (see the module docstring):
    ``tensor`` float32[OBS_SIZE] as :func:`borders_sim.envs.observe` writes it, ``dict`` its
    named blocks (views into ``tensor``, shaped as :data:`OBSERVATION_LAYOUT` says), and
    :meth:`string_from` the text observation. Before the deal the tensor is all 0.
    ``game.make_py_observer`` makes it for the types it :func:`provides`, and gives ``None``
    for the others.

    Raises:
        ValueError: another observation type (see :func:`provides`; a perfect-recall one is
            :class:`RecallObserver`'s).
    """

    def __init__(self, iig_obs_type: pyspiel.IIGObservationType | None = None) -> None:
        if not provides(iig_obs_type) or (iig_obs_type is not None
                                          and iig_obs_type.perfect_recall):
            raise ValueError(f"{GAME_NAME} has one observation type: a player's own private "
                             "and the public information (IIGObservationType(perfect_recall="
                             "False, public_info=True, private_info=SINGLE_PLAYER)); its "
                             "perfect-recall record is RecallObserver's")
        self.tensor = np.zeros(OBS_SIZE, dtype=np.float32)
        self.dict = {e.name: self.tensor[e.offset:e.offset + e.size].reshape(e.shape)
                     for e in OBSERVATION_LAYOUT}

    def set_from(self, state: BordersState, player: int) -> None:
        """Fill ``tensor`` (and so ``dict``) with ``player``'s observation of ``state``."""
        player = as_seat(player, state.get_game().config.num_players, "player")
        if state.game is None:
            self.tensor.fill(0)
        else:
            observe_at(state.game.state, 0, player, self.tensor)

    def string_from(self, state: BordersState, player: int) -> str:
        """``player``'s observation of ``state`` as text (:func:`borders_sim.envs.observe_text`)."""
        player = as_seat(player, state.get_game().config.num_players, "player")
        g = state.game
        if g is None:
            return "the deal (chance node): no cards yet"
        cached = g.text_cache
        if cached is not None and cached[0] == player:
            return cached[1]
        text = observe_text(g, player)
        g.text_cache = (player, text)
        return text


pyspiel.register_game(GAME_TYPE, BordersGame)
