"""OpenSpiel's bots as our bots: ``openspiel-ismcts``, ``openspiel-mcts`` and ``openspiel-random``,
names that every lineup takes (``borders-sim tournament``, :func:`borders_sim.agents.make`),
which import this package when they are first named::

    borders-sim tournament --bots openspiel-ismcts,honest,bluffer,collector --games 12
    borders-sim tournament --bots openspiel-ismcts:sims=200:rollout=honest,honest,honest,honest

They need OpenSpiel (``pip install ".[bench]"`` in the source checkout) and run on the
tournament's Python path (worker processes). Options follow the name, each ``:key=value``:

============  ==========  ==============================================================
option        default     meaning
============  ==========  ==============================================================
``sims``      100         simulations per decision (``max_simulations``; ismcts, mcts)
``c``         2.0         UCT exploration constant (``uct_c``; ismcts, mcts)
``rollout``   ``random``  the leaf evaluator (ismcts, mcts): a compiled bot
                          (``honest``, ..., :data:`~borders_sim.agents.COMPILED_BOTS`):
                          the game played to the end by that bot in every seat
                          (:class:`CompiledRolloutEvaluator`, one kernel call);
                          ``openspiel``: OpenSpiel's own
                          ``RandomRolloutEvaluator`` over the Python game (the policy of
                          ``random``, far slower: docs/env-openspiel.md, Costs)
``rollouts``  1           rollouts per evaluated leaf (ismcts, mcts)
``worlds``    -1          ``max_world_samples`` of IS-MCTS (-1: a fresh world for every
                          simulation)
``reward``    ``win``     what the search maximises: a reward mode
                          (:data:`~borders_sim.rules.rewards.REWARDS`)
============  ==========  ==============================================================

``c`` is on the scale of the returns, the reward mode's bounds: ``win`` returns lie in -1..1;
with a mode in points (``score``, ``margin``: in the hundreds) raise it accordingly.

**What the bot sees.** A bot of the arena gets an observation vector and a legal mask, never the
game (:mod:`borders_sim.agents`). An OpenSpiel bot needs a state, so at each decision the bot
builds one from the observation alone, :func:`borders_sim.game.belief.world_from_observation`
(a complete game the viewer cannot tell from the real one: its hidden cards dealt at random
from the cards it cannot place, a fresh generator), and hands that to OpenSpiel's bot. IS-MCTS
then resamples from it (:meth:`~.game.BordersState.resample_from_infostate`),
so it searches over worlds consistent with the observation, and the real hidden cards and the
real future chance never reach it. ``openspiel-mcts`` is OpenSpiel's perfect-information MCTS on
that one sampled world (a determinized search, a baseline); ``openspiel-random`` is
``pyspiel.make_uniform_random_bot``.

Every bot is deterministic for its seed: the worlds, IS-MCTS's resampling (a seeded
``pyspiel.UniformProbabilitySampler``), its tie-breaks and the rollouts all draw from it.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pyspiel

from ..game.belief import world_from_observation
from ..rules import state as st
from ..rules.actions import NUM_ACTIONS
from ..checks import as_choice, as_float, as_int, as_seed, as_str
from ..rules.limits import max_game_length
from ..rules.rng import mix_seed, seed_words
from ..agents.base import Bot
from ..batch.games import run_bot_games
from ..policies.dispatch import COMPILED_BOTS
from ..rules.rewards import final_rewards_at, reward_info

#: The OpenSpiel bot kinds and, for each, the options it takes.
KINDS = {
    "openspiel-ismcts": ("sims", "c", "rollout", "rollouts", "worlds", "reward"),
    "openspiel-mcts": ("sims", "c", "rollout", "rollouts", "reward"),
    "openspiel-random": (),
}
#: Every option: its default and a parser of the option's text.
DEFAULTS: dict[str, Any] = {"sims": 100, "c": 2.0, "rollout": "random", "rollouts": 1,
                            "worlds": -1, "reward": "win"}
ROLLOUTS = (*COMPILED_BOTS, "openspiel")


def _whole(key: str, text: str) -> int:
    """``text``, an option's value, as an int: decimal digits with an optional ``-``."""
    digits = text[1:] if text.startswith("-") else text
    if not (digits.isascii() and digits.isdigit() and len(digits) <= 18):
        raise ValueError(f"{key} must be a whole number, got {text!r}")
    return int(text)


def _positive(key: str) -> Callable[[str], int]:
    def parse(text: str) -> int:
        return as_int(_whole(key, text), key, 1)
    return parse


def _world_count(text: str) -> int:
    value = _whole("worlds", text)
    if value < 1 and value != -1:
        raise ValueError("worlds must be -1 (a new world per simulation) or at least 1")
    return value


def _choice(key: str, allowed: tuple[str, ...]) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in allowed:
            raise ValueError(f"{key} must be one of {', '.join(allowed)}")
        return text
    return parse


def _exploration(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"c must be a number, got {text!r}") from None
    return as_float(value, "c", lo=0, finite=True)


_PARSERS: dict[str, Callable[[str], Any]] = {
    "sims": _positive("sims"), "c": _exploration, "rollout": _choice("rollout", ROLLOUTS),
    "rollouts": _positive("rollouts"), "worlds": _world_count,
    "reward": lambda text: reward_info(text).name}


def parse_name(name: str) -> tuple[str, dict[str, Any]]:
    """``"openspiel-ismcts:sims=50:c=1.5"`` -> ``("openspiel-ismcts", {"sims": 50, "c": 1.5,
    ...every other option at its default})``.

    Raises:
        ValueError: not an OpenSpiel bot, an option the kind does not take, or a bad value.
    """
    kind, *items = as_str(name, "name", "an OpenSpiel bot name").split(":")
    if kind not in KINDS:
        raise ValueError(f"unknown bot {kind!r}: OpenSpiel's bots are {', '.join(KINDS)}")
    options = {key: DEFAULTS[key] for key in KINDS[kind]}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or key not in KINDS[kind]:
            takes = ", ".join(f"{k}=" for k in KINDS[kind]) or "no options"
            raise ValueError(f"bad option {item!r} of bot {name!r}: {kind} takes {takes} "
                             "(options follow the name as :key=value)")
        try:
            options[key] = _PARSERS[key](text)
        except ValueError as err:
            raise ValueError(f"bad option {item!r} of bot {name!r}: {err}") from None
    return kind, options


def bot_factory(name: str) -> Callable[[int], "OpenSpielBot"]:
    """The factory ``(seed) -> bot`` of an OpenSpiel bot name with options (checked now).

    Raises:
        ValueError: a bad name or option.
    """
    parse_name(name)
    return lambda seed: OpenSpielBot(name, seed)


class CompiledRolloutEvaluator:
    """An OpenSpiel MCTS evaluator (``evaluate`` and ``prior``) whose rollouts play the game to
    the end with one of our compiled bots in every seat, in one kernel call
    (:func:`borders_sim.batch.games.run_bot_games`).

    Each rollout gets a fresh chance stream (the state's generator is reseeded), so a leaf's
    rollouts do not share the future deal; the return is the mean of the game's rewards.

    Args:
        policy: one of :data:`~borders_sim.policies.dispatch.COMPILED_BOTS` (``"random"``: uniform
            random actions, the policy of OpenSpiel's ``RandomRolloutEvaluator``).
        n_rollouts: rollouts per evaluation (at least 1).
        seed: seeds the rollouts (the k-th rollout of the evaluator is seeded from
            ``(seed, k)``); a seed, :mod:`borders_sim.checks`.
    """

    def __init__(self, policy: str = "random", n_rollouts: int = 1, seed: int = 0) -> None:
        self.kind = COMPILED_BOTS.index(as_choice(policy, "policy", COMPILED_BOTS))
        self.n_rollouts = as_int(n_rollouts, "n_rollouts", 1)
        self.seed = as_seed(seed)
        self._count = 0

    def evaluate(self, state) -> np.ndarray:
        """The mean return of every player over ``n_rollouts`` games from ``state``."""
        game = state.get_game()
        n = game.num_players()
        if state.is_terminal():
            return np.array(state.returns())
        k = self.n_rollouts
        states = np.repeat(state.game.state, k)
        seeds = np.empty(k, dtype=np.int64)
        for i in range(k):
            seeds[i] = int(mix_seed(np.uint64(self.seed), self._count)) & (2**63 - 1)
            # the bots of rollout i are seeded from (seeds[i], seat) (run_bot_games), its
            # chance from (seeds[i], MAX_PLAYERS): a stream unrelated to every seat's
            states[i]["rng"] = seed_words(int(mix_seed(np.uint64(seeds[i]), st.MAX_PLAYERS)))
            self._count += 1
        kinds = np.full((k, st.MAX_PLAYERS), self.kind, dtype=np.int64)
        run_bot_games(states, kinds, seeds, max_game_length(game.config))
        total = np.zeros(n)
        out = np.zeros(st.MAX_PLAYERS, dtype=np.float64)
        for i in range(k):
            final_rewards_at(states, i, game.reward_index, out)
            total += out[:n]
        return total / k

    def prior(self, state) -> list[tuple[int, float]]:
        """Uniform over the legal actions."""
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


_BOT_SEEDS = 1 << 40  # sub-seeds from here on seed the OpenSpiel bot of a seat; below, worlds


class OpenSpielBot(Bot):
    """An OpenSpiel bot behind our bot interface ``act(observation, action_mask) -> int`` (see
    the module docstring).

    Args:
        name: ``openspiel-ismcts``, ``openspiel-mcts`` or ``openspiel-random``, with options.
        seed: seeds everything the bot draws (a seed, :mod:`borders_sim.checks`).
    """

    def __init__(self, name: str, seed: int = 0) -> None:
        self.kind, self.options = parse_name(name)
        self.name = name
        self.seed = as_seed(seed)
        self._decisions = 0
        self._games: dict = {}  # GameConfig -> the pyspiel game of that config
        self._bots: dict = {}   # (GameConfig, seat) -> the pyspiel bot of that seat

    def _sub_seed(self, k: int) -> int:
        return int(mix_seed(np.uint64(self.seed), k)) & (2**31 - 1)

    def _spiel_game(self, config):
        game = self._games.get(config)
        if game is None:
            from .game import GAME_NAME, params_from_config
            reward = self.options.get("reward", "win")
            game = pyspiel.load_game(GAME_NAME, params_from_config(config, reward=reward))
            self._games[config] = game
        return game

    def _evaluator(self, seed: int):
        rollout, n = self.options["rollout"], self.options["rollouts"]
        if rollout == "openspiel":
            from open_spiel.python.algorithms import mcts
            return mcts.RandomRolloutEvaluator(n, np.random.RandomState(seed))
        return CompiledRolloutEvaluator(rollout, n, seed)

    def _spiel_bot(self, game, seat: int):
        key = (game.config, seat)
        bot = self._bots.get(key)
        if bot is not None:
            return bot
        seed = self._sub_seed(_BOT_SEEDS + seat)
        if self.kind == "openspiel-random":
            bot = pyspiel.make_uniform_random_bot(seat, seed)
        elif self.kind == "openspiel-mcts":
            from open_spiel.python.algorithms import mcts
            bot = mcts.MCTSBot(game, self.options["c"], self.options["sims"],
                               self._evaluator(seed), random_state=np.random.RandomState(seed))
        else:
            from open_spiel.python.algorithms import ismcts
            bot = ismcts.ISMCTSBot(
                game, self._evaluator(seed), self.options["c"], self.options["sims"],
                max_world_samples=self.options["worlds"],
                random_state=np.random.RandomState(seed), use_observation_string=True)
            sampler = pyspiel.UniformProbabilitySampler(seed, 0.0, 1.0)
            bot.set_resampler(lambda state, player: state.resample_from_infostate(player,
                                                                                  sampler))
        self._bots[key] = bot
        return bot

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        mask = np.asarray(action_mask)
        if mask.shape != (NUM_ACTIONS,):
            raise ValueError(f"{self.name} bot: expected a mask of shape ({NUM_ACTIONS},), got "
                             f"{mask.shape}")
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            raise ValueError(f"{self.name} bot: the action mask allows no action")
        if legal.size == 1:
            return int(legal[0])
        world = world_from_observation(observation, self._sub_seed(self._decisions))
        self._decisions += 1
        if not np.array_equal(world.legal_mask() != 0, mask != 0):
            raise ValueError(f"{self.name} bot: the legal mask is not the one of the observed "
                             "decision")
        game = self._spiel_game(world.config)
        seat = world.current_player
        action = int(self._spiel_bot(game, seat).step(game.state_from_game(world)))
        if not mask[action]:
            raise RuntimeError(f"{self.name} bot chose action {action}, which the mask does "
                               "not allow (a bug)")
        return action

    def __repr__(self) -> str:
        return f"OpenSpielBot({self.name!r})"
