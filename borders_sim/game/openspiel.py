"""BORDERS as an OpenSpiel game: ``pyspiel.load_game("python_borders", {"players": 4})``.

The game, its states and its observer, here below the bots and the environments, which both
use it (OpenSpiel's bots in the arena, :mod:`borders_sim.agents.openspiel`); the public import
is :mod:`borders_sim.envs.openspiel`, which adds :class:`~borders_sim.envs.openspiel.BordersBot`.
Importing either module registers the game with OpenSpiel (``pip install 'borders-sim[bench]'``
installs ``open_spiel``; the rest of ``borders_sim`` never needs it)::

    import pyspiel
    import borders_sim.envs.openspiel  # registers "python_borders"

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
is the first engine seed of the deals (see Chance), and ``reward`` is ``"win"`` (default),
``"score"`` or ``"margin"`` (:mod:`borders_sim.rules.rewards`).

**Chance.** The engine draws every chance event (the deal, every shuffle, the Robbery die) from
a generator inside the state record, so the deck and the dice cannot be OpenSpiel chance nodes
one by one. OpenSpiel's ``SAMPLED_STOCHASTIC`` mode fits that on paper, but
``pyspiel.serialize_game_and_state`` (and ``random_sim_test(serialize=True)``) of a sampled
game asks the game for its generator state (``Game::GetRNGState``), which a Python game cannot
provide. So the game is ``EXPLICIT_STOCHASTIC`` with exactly **one** chance node, the first
state: its :data:`DEALS` equally likely outcomes ``k`` choose the engine seed ``seed + k``, and
everything after it (shuffles, die) follows from that seed through the generator in the state,
which no player observes. After outcome ``k`` the game is, step for step, ``borders_sim.Game(
config, seed=seed + k)`` with the same actions. Every ``new_initial_state()`` is that chance
node, so a caller that samples chance (``evaluate_bots``, ``rl_environment``,
``random_sim_test``) gets a new deal each game; ``seed`` moves the block of deals.

**Observations.** :meth:`BordersGame.make_py_observer` gives the player's observation vector,
:func:`borders_sim.envs.observe` (layout :data:`~borders_sim.rules.observation.OBSERVATION_LAYOUT`,
its 60 named blocks in the observer's ``dict``), with the same guarantee: it holds everything the
player knows and nothing else (RULINGS R-39). ``observation_string`` is
:func:`borders_sim.envs.observe_text`. That observation is the player's knowledge as the rules
define it (its cards, the table, what it knows of others' cards, public history *counters*),
not a perfect-recall record: two histories that leave the same counters look alike. OpenSpiel
means by an *information state* a perfect-recall one, so the game says
``provides_information_state_string/tensor = False``, and asking for one
(``information_state_string``, a perfect-recall observer) raises. Algorithms that key on
information states take the observation instead (IS-MCTS: ``use_observation_string=True``;
``rl_environment`` falls back to the observation tensor by itself).

**IS-MCTS.** :meth:`BordersState.resample_from_infostate` deals the cards the player cannot
see anew (:func:`borders_sim.game.belief.sample_consistent_state`): a state with the player's
observation and legal actions and a fresh generator, so neither hidden cards nor future chance
leak. With it OpenSpiel's own IS-MCTS plays whole games::

    import numpy as np
    from open_spiel.python.algorithms import ismcts, mcts
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
                           uct_c=2.0, max_simulations=50, use_observation_string=True)
    action = bot.step(state)

(:mod:`borders_sim.agents.openspiel` has a rollout evaluator ~20x faster and puts such bots
into ``borders-sim tournament``.) A resampled state is a dealt world, not a replay: its
``history()`` is empty.

**Serialization.** A state's ``serialize()`` (which OpenSpiel builds from the Python
attributes of the state) holds the game as its JSON state (:meth:`borders_sim.Game.to_dict`);
``pyspiel.serialize_game_and_state`` / ``deserialize_game_and_state`` round-trip exactly.

``borders_sim.envs.openspiel.BordersBot`` goes the other way: any bot of
:func:`borders_sim.agents.make` as a ``pyspiel.Bot`` (it reads the state's observation tensor
and legal mask only), e.g. for ``pyspiel.evaluate_bots``.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import fields
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as err:  # pragma: no cover - exercised only without open_spiel
    raise ImportError("borders_sim's OpenSpiel game needs OpenSpiel (pyspiel): "
                      "pip install 'borders-sim[bench]'") from err

from ..game.belief import sample_consistent_state
from ..game.game import Game
from ..game.views import observe_text
from ..rules import state as st
from ..rules.actions import NUM_ACTIONS, action_to_string
from ..rules.cards import (CARD_VALUE, COPIES, FIRST_INSPECTOR_BONUS, KING_BONUS, MAIN_POINTS,
                           MAX_MAIN_HELD, NUM_GOODS, START_GOLD, TOBACCO, deck_tier)
from ..rules.config import GameConfig
from ..rules.limits import max_game_length, max_rounds
from ..rules.observation import OBS_SIZE, OBSERVATION_LAYOUT, observe_at
from ..rules.rewards import REWARD_MODES, final_rewards_at, reward_mode
from ..rules.scoring import TOBACCO_BONUS_MIN_PLAYERS

GAME_NAME = "python_borders"
#: Outcomes of the deal's chance node: outcome ``k`` is the engine seed ``seed + k``.
DEALS = 1 << 16
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
    provides_information_state_string=False,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS,
)
#: The registered type. ``"score"`` rewards are general-sum; ``"win"`` and ``"margin"`` are
#: zero-sum, which the type of a game loaded with them says (:func:`game_type`).
GAME_TYPE = pyspiel.GameType(utility=pyspiel.GameType.Utility.GENERAL_SUM, **_TYPE_FIELDS)


def game_type(reward: str) -> pyspiel.GameType:
    """The type of a game with this reward mode: zero-sum for ``"win"`` (the winners share +1,
    the others -1) and ``"margin"`` (score minus the others' mean: the margins add up to 0),
    general-sum for ``"score"``."""
    zero_sum = reward_mode(reward) != REWARD_MODES.index("score")
    utility = pyspiel.GameType.Utility.ZERO_SUM if zero_sum else \
        pyspiel.GameType.Utility.GENERAL_SUM
    return pyspiel.GameType(utility=utility, **_TYPE_FIELDS)


def parse_gold_menu(text: str) -> tuple[int, ...]:
    """``"1/2/5"`` -> ``(1, 2, 5)``; ValueError (naming the parameter) otherwise."""
    if not isinstance(text, str):
        raise ValueError(f"gold_menu must be a string of amounts separated by "
                         f"'{_MENU_SEPARATOR}', e.g. '1/2/5', got {text!r}")
    try:
        return tuple(int(part) for part in text.split(_MENU_SEPARATOR))
    except ValueError:
        raise ValueError(f"gold_menu must be whole amounts separated by '{_MENU_SEPARATOR}' "
                         f"(not commas: OpenSpiel's game strings use them), e.g. '1/2/5', "
                         f"got {text!r}") from None


def config_from_params(params: dict) -> GameConfig:
    """The :class:`GameConfig` of a dict of game parameters (missing ones take their default).

    Raises:
        ValueError: an unknown parameter or a bad value (the message names it).
    """
    unknown = sorted(set(params) - set(PARAMETERS))
    if unknown:
        raise ValueError(f"unknown parameter(s) {unknown} of {GAME_NAME}; known: "
                         f"{sorted(PARAMETERS)}")
    flags = {f.name: params.get(f.name, PARAMETERS[f.name]) for f in _FLAGS}
    flags["gold_menu"] = parse_gold_menu(flags["gold_menu"])
    return GameConfig(num_players=params.get("players", PARAMETERS["players"]), **flags)


def params_from_config(config: GameConfig, seed: int = 0, reward: str = "win") -> dict:
    """The game parameters of ``config`` (inverse of :func:`config_from_params`)."""
    params = {"players": config.num_players, "seed": int(seed), "reward": reward}
    for f in _FLAGS:
        value = getattr(config, f.name)
        params[f.name] = _MENU_SEPARATOR.join(map(str, value)) if f.name == "gold_menu" \
            else value
    return params


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
    """``(min, max)`` of a seat's return: ``win`` -1..1 (a lone loser gets -1, a lone winner
    +1); ``score`` 0..:func:`score_bound`; ``margin`` -bound..+bound."""
    mode = REWARD_MODES[reward_mode(reward)]
    if mode == "win":
        return -1.0, 1.0
    bound = float(score_bound(config))
    return (0.0, bound) if mode == "score" else (-bound, bound)


class _SpielGame(Game):
    """The :class:`~borders_sim.Game` inside a :class:`BordersState`: it pickles as its JSON
    state (:meth:`~borders_sim.Game.to_dict`), which is what OpenSpiel's ``serialize()`` of a
    Python state stores, and it caches the observation text of one seat until the next step."""

    text_cache: tuple[int, str] | None = None  # (seat, observe_text); copies start without it

    def __reduce__(self):
        return _game_from_json, (json.dumps(self.to_dict(), separators=(",", ":")),)


def _game_from_json(text: str) -> _SpielGame:
    return _SpielGame.from_dict(json.loads(text))


_CHANCE_OUTCOMES = [(k, 1.0 / DEALS) for k in range(DEALS)]


class BordersGame(pyspiel.Game):
    """The OpenSpiel game (see the module docstring for the parameters)."""

    def __init__(self, params: dict | None = None) -> None:
        params = dict(params or {})
        self.config = config_from_params(params)
        self.seed = int(params.get("seed", PARAMETERS["seed"]))
        self.reward = params.get("reward", PARAMETERS["reward"])
        self.reward_index = reward_mode(self.reward)
        lo, hi = utility_bounds(self.config, self.reward)
        zero_sum = game_type(self.reward).utility == pyspiel.GameType.Utility.ZERO_SUM
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=DEALS,
            num_players=self.config.num_players,
            min_utility=lo,
            max_utility=hi,
            utility_sum=0.0 if zero_sum else None,
            max_game_length=max_game_length(self.config))
        super().__init__(game_type(self.reward), info, params)

    def new_initial_state(self) -> "BordersState":
        """The chance node of the deal (the same for every call; see Chance)."""
        return BordersState(self)

    def state_from_game(self, game: Game) -> "BordersState":
        """A state of this game in the position of ``game`` (copied; its config must be this
        game's). Its ``history()`` is empty."""
        if game.config != self.config:
            raise ValueError(f"the game's config {game.config} is not this game's "
                             f"{self.config}")
        state = BordersState(self)
        state.game = _SpielGame.from_state(game.state.copy())
        return state

    def max_chance_nodes_in_history(self) -> int:
        return 1

    def make_py_observer(self, iig_obs_type: pyspiel.IIGObservationType | None = None,
                         params: dict | None = None) -> "BordersObserver":
        """The observer of one player's observation (the only kind this game has)."""
        return BordersObserver(iig_obs_type, params)


class BordersState(pyspiel.State):
    """A state: the chance node of the deal, then a :class:`~borders_sim.Game` (``game``)."""

    def __init__(self, game: BordersGame) -> None:
        super().__init__(game)
        self.game: _SpielGame | None = None  # None: the deal is still to come

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
            game = self.get_game()
            self.game = _SpielGame(game.config, seed=game.seed + int(action))
        else:
            g.text_cache = None
            g.step(action)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action} (engine seed {self.get_game().seed + action})"
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
        copy of this chance node."""
        state = BordersState(self.get_game())
        if self.game is not None:
            seed = int(probability_sampler() * 2**53)
            world = sample_consistent_state(self.game, player_id, seed)
            state.game = _SpielGame.from_state(world.state)
        return state

    def information_state_string(self, player: int | None = None) -> str:
        raise pyspiel.SpielError(_NO_INFOSTATE)

    def information_state_tensor(self, player: int | None = None) -> list[float]:
        raise pyspiel.SpielError(_NO_INFOSTATE)

    def __str__(self) -> str:
        g = self.game
        if g is None:
            return f"the deal (chance node): engine seed {self.get_game().seed} + outcome"
        s = g.state[0]
        gold = ", ".join(f"p{p} {int(s['gold'][p])}" for p in range(g.num_players))
        who = "game over" if g.is_terminal else f"p{g.current_player} to move"
        digest = hashlib.blake2b(g.state.tobytes(), digest_size=12).hexdigest()
        return f"round {g.round}, {g.phase}, {who}; gold {gold}; state {digest}"


_NO_INFOSTATE = (
    f"{GAME_NAME} provides no perfect-recall information state: the observation (everything "
    "the player knows, with public history counters, RULINGS R-39) does not remember the "
    "order of past events. Use observation_string / observation_tensor (for IS-MCTS: "
    "ISMCTSBot(..., use_observation_string=True)).")


class BordersObserver:
    """An OpenSpiel Python observer of one player's observation (see the module docstring):
    ``tensor`` float32[OBS_SIZE] as :func:`borders_sim.envs.observe` writes it, ``dict`` its
    named blocks (views into ``tensor``, shaped as :data:`OBSERVATION_LAYOUT` says), and
    :meth:`string_from` the text observation. Before the deal the tensor is all 0.

    Raises:
        ValueError: a perfect-recall observation type (see :data:`_NO_INFOSTATE`), another
            observation type than the single player's own private and public information, or
            observer parameters.
    """

    def __init__(self, iig_obs_type: pyspiel.IIGObservationType | None = None,
                 params: dict | None = None) -> None:
        if params:
            raise ValueError(f"{GAME_NAME} observers take no parameters, got {params}")
        if iig_obs_type is not None:
            if iig_obs_type.perfect_recall:
                raise ValueError(_NO_INFOSTATE)
            if not iig_obs_type.public_info or \
                    iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
                raise ValueError(f"{GAME_NAME} has one observation type: a player's own "
                                 "private and the public information (IIGObservationType("
                                 "perfect_recall=False, public_info=True, private_info="
                                 "SINGLE_PLAYER))")
        self.tensor = np.zeros(OBS_SIZE, dtype=np.float32)
        self.dict = {e.name: self.tensor[e.offset:e.offset + e.size].reshape(e.shape)
                     for e in OBSERVATION_LAYOUT}

    def set_from(self, state: BordersState, player: int) -> None:
        """Fill ``tensor`` (and so ``dict``) with ``player``'s observation of ``state``."""
        if state.game is None:
            self.tensor.fill(0)
        else:
            observe_at(state.game.state, 0, player, self.tensor)

    def string_from(self, state: BordersState, player: int) -> str:
        """``player``'s observation of ``state`` as text (:func:`borders_sim.envs.observe_text`)."""
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
