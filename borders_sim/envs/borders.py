"""BORDERS as a PettingZoo AEC environment: ``borders_v0.env()`` (wrapped) and ``raw_env`` (bare).

BORDERS is a Prohibition-era smuggling game for 3 to 8 players: smugglers pack goods into crates
and announce them, truthfully or not, and the round's inspector(s) let crates pass for a deal
or open them. Every decision of the game (the market, packing, the announcement, each haggling
step, action cards, collecting main resources) is one step of one agent, ``player_0`` ..
``player_{n-1}``, in PettingZoo's classic conventions; the environment wraps a
:class:`~borders_sim.Game`.

* Observation: ``{"observation": float32[OBS_SIZE], "action_mask": int8[NUM_ACTIONS]}``. The
  vector is what the agent knows and nothing else (RULINGS R-39), seat-relative (row 0 is the
  agent), laid out by :data:`borders_sim.rules.observation.OBSERVATION_LAYOUT`; the mask is all
  zeros but for the agent to move.
* Actions: ``Discrete(NUM_ACTIONS)``, one flat space for every phase and player count, one range
  of ids per kind of decision (:data:`borders_sim.rules.actions.RANGES`).
* Rewards: only at the end, all agents terminating together, by ``reward``, a mode of
  :data:`~borders_sim.rules.rewards.REWARDS` (default ``"win"``); no truncation.
* Arguments: ``num_players``, ``reward``, ``render_mode`` and every
  :class:`~borders_sim.GameConfig` flag as a keyword.
* Rendering: the view of the agent to move, as text (``"ansi"``, ``"human"``) or as an
  ``H x W x 3`` uint8 picture (``"rgb_array"``, :mod:`borders_sim.game.drawing`; it needs the
  optional ``render`` extra).

The full doc page, with the observation index table, the action table, the rewards, the
arguments, seeding and pickling, is ``docs/borders_v0.md``, generated from the code by
``python docs/generate.py`` (a test fails when it drifts).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..game.game import Game
from ..rules import actions as act
from ..checks import as_seed, shown
from ..rules.config import GameConfig
from ..rules.observation import OBS_SIZE, observe_at
from ..rules.state import MAX_PLAYERS
from ..rules import rewards as rw
from ..game.drawing import game_svg, svg_to_rgb
from ..game.views import observe_text

#: Largest value of the observation Box: entries are counts and one-hots, all >= 0, with no
#: useful finite bound on gold, so the Box is [0, float32 max] (finite, as PettingZoo asks).
OBS_HIGH = float(np.finfo(np.float32).max)


def env(**kwargs) -> AECEnv:
    """:class:`raw_env` inside PettingZoo's classic wrappers: an illegal action ends the game
    with reward -1 for the offender and 0 for the others (``TerminateIllegalWrapper``), an
    action outside the action space fails an assertion (``AssertOutOfBoundsWrapper``), and
    calls out of order are refused (``OrderEnforcingWrapper``). Arguments: see :class:`raw_env`.
    """
    wrapped = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=-1)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    wrapped = wrappers.OrderEnforcingWrapper(wrapped)
    return wrapped


class raw_env(AECEnv):
    """BORDERS as a PettingZoo AEC environment, without wrappers (``docs/borders_v0.md`` is the
    full documentation).

    Args:
        num_players: 3..8.
        reward: a reward mode of :data:`~borders_sim.rules.rewards.REWARDS`.
        render_mode: ``None``, ``"ansi"`` (``render()`` returns the text), ``"human"``
            (``render()`` prints it, and so does every ``step``) or ``"rgb_array"``
            (``render()`` returns the picture, uint8 of shape
            :func:`~borders_sim.game.drawing.frame_shape` ``(num_players)``: 720 x 1440 x 3
            for 3 to 6 players, 800 x 1440 x 3 for 7, 896 x 1440 x 3 for 8).
        **flags: any other :class:`~borders_sim.GameConfig` flag.

    Attributes:
        config: the :class:`~borders_sim.GameConfig` of every game.
        reward: the reward mode.
        game: the :class:`~borders_sim.Game` in play (``None`` before the first ``reset``).

    Raises:
        ValueError: an unknown keyword or a bad value; the message names it.
    """

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "name": "borders_v0",
                "is_parallelizable": False, "render_fps": 2}

    def __init__(self, num_players: int = 4, reward: str = "win",
                 render_mode: str | None = None, **flags: Any) -> None:
        super().__init__()
        known = [f.name for f in fields(GameConfig) if f.name != "num_players"]
        unknown = sorted(set(flags) - set(known))
        if unknown:
            raise ValueError(f"unknown borders_v0 keyword(s) {unknown}; known: num_players, "
                             f"reward, render_mode and the GameConfig flags {known}")
        self.config = GameConfig(num_players=num_players, **flags)
        self._reward_mode = rw.reward_mode(reward)
        self.reward = reward
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of "
                             f"{self.metadata['render_modes']}, got {render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(self.config.num_players)]
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}
        self.action_spaces = {a: spaces.Discrete(act.NUM_ACTIONS) for a in self.possible_agents}
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(0.0, OBS_HIGH, (OBS_SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (act.NUM_ACTIONS,), np.int8),
            }) for a in self.possible_agents}
        # seeds of reset(seed=None) come from here; reset(seed=s) reseeds it with s
        self._seeds = np.random.default_rng()
        self._rewards = np.zeros(MAX_PLAYERS, dtype=np.float64)
        self._last_mover = 0
        self._last_action: int | str | None = None  # the last step's action, for render()
        self._to_move = -1  # seat to move, -1 once the game is over or the env is closed
        # observe() of the seat _to_move in the game's present state: written by the step that
        # made it the mover (or by the first observe after reset), dropped by every step,
        # reset and close, and served only to that seat while its agent is live
        self._view: dict[str, np.ndarray] | None = None
        self._closed = False
        self.game: Game | None = None
        self.agents: list[str] = []  # (until reset: no agent, no game)

    # --- spaces ---------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[self._known(agent)]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[self._known(agent)]

    def _known(self, agent: Any) -> str:
        """``agent`` if it is one of :attr:`possible_agents`, else a ValueError naming it."""
        if not isinstance(agent, str) or agent not in self._seat:
            raise ValueError(f"unknown agent {shown(agent)}; agents are {self.possible_agents}")
        return agent

    def _no_game(self, what: str) -> RuntimeError:
        """The error of ``what`` when no game is in play: before the first :meth:`reset`,
        after :meth:`close`, or once every agent is done."""
        if self.game is None:
            return RuntimeError(f"{what} before reset(): call reset() to start a game")
        if self._closed:
            return RuntimeError(f"{what} after close(): call reset() to start a new game")
        return RuntimeError(f"{what}: every agent is done (the game is over and each agent has "
                            "stepped None); call reset() to start a new game")

    # --- the AEC loop ---------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game: ``Game(config, seed)`` for a ``seed`` (0 to ``2**64 - 1``,
        :mod:`borders_sim.checks`; it also reseeds the stream of seeds), with ``None`` the
        next seed of that stream. ``options`` is unused."""
        if seed is None:
            game_seed = int(self._seeds.integers(2**63))
        else:
            game_seed = as_seed(seed)
            self._seeds = np.random.default_rng(game_seed)
        self.game = Game(self.config, seed=game_seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self._to_move = self._last_mover = self.game.current_player
        self._last_action = None
        self.agent_selection = self.possible_agents[self._to_move]
        self._view = None
        self._closed = False

    def step(self, action: int) -> None:
        """Apply ``action`` for :attr:`agent_selection` (``None`` for an agent that is done).

        Raises:
            borders_sim.IllegalActionError: the action is not legal now; nothing changes.
            RuntimeError: before :meth:`reset`, after :meth:`close`, or once every agent
                is done.
        """
        seat = self._to_move  # the seat of agent_selection; -1: every agent is done
        if self._closed:
            raise self._no_game("step()")
        if seat < 0 or not self._live(self.agent_selection):
            # the game is over, here or by a wrapper that ended it (TerminateIllegalWrapper)
            if not self.agents:
                raise self._no_game("step()")
            self._was_dead_step(action)
            return
        # the step and the next mover's view in one compiled call (IllegalActionError before
        # any change)
        to_move, obs, mask = self.game.step_observe(action)
        self._view = None if to_move < 0 else {"observation": obs, "action_mask": mask}
        self._to_move = to_move
        self._last_mover = seat
        self._last_action = action
        # (_cumulative_rewards stay 0 until the last step: rewards come only at the end)
        if self._to_move < 0:
            # every agent terminates together; the rewards come only now (rewards.py)
            rw.final_rewards_at(self.game.state, 0, self._reward_mode, self._rewards)
            for a in self.agents:
                self.rewards[a] = float(self._rewards[self._seat[a]])
                self.terminations[a] = True
            self._accumulate_rewards()
        else:
            self.agent_selection = self.possible_agents[self._to_move]
        if self.render_mode == "human":
            self.render()

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict]:
        """``(observation, cumulative reward, termination, truncation, info)`` of
        :attr:`agent_selection` (PettingZoo's ``last``).

        Raises:
            RuntimeError: before :meth:`reset`, after :meth:`close`, or once every agent
                is done.
        """
        agent = self.agent_selection if self.agents and not self._closed else None
        try:
            reward = self._cumulative_rewards[agent]
        except (AttributeError, KeyError):
            raise self._no_game("last()") from None
        return (self.observe(agent) if observe else None, reward, self.terminations[agent],
                self.truncations[agent], self.infos[agent])

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``{"observation": float32[OBS_SIZE], "action_mask": int8[NUM_ACTIONS]}`` of
        ``agent``: always its own view; the mask is all zeros unless ``agent`` is the one to
        move and the game is still on (not over, not ended by a wrapper, env not closed).

        Raises:
            ValueError: an unknown agent.
            RuntimeError: before :meth:`reset`.
        """
        seat = self._seat[self._known(agent)]
        if self.game is None:
            raise self._no_game(f"observe({agent!r})")
        if seat == self._to_move and self._live(agent):
            if self._view is None:  # computed once per step; the next step makes new arrays
                obs = np.empty(OBS_SIZE, dtype=np.float32)
                observe_at(self.game.state, 0, seat, obs)
                self._view = {"observation": obs,
                              "action_mask": self.game.legal_mask().view(np.int8)}
            return self._view
        obs = np.empty(OBS_SIZE, dtype=np.float32)
        observe_at(self.game.state, 0, seat, obs)
        return {"observation": obs, "action_mask": np.zeros(act.NUM_ACTIONS, dtype=np.int8)}

    def _live(self, agent: str) -> bool:
        """Whether ``agent`` still plays: neither terminated nor truncated, nor stepped out. The
        game's own end sets ``_to_move`` to -1; a wrapper that ends the game
        (``TerminateIllegalWrapper`` after an illegal move) sets only the terminations and
        truncations."""
        return not (self.terminations.get(agent, True) or self.truncations.get(agent, True))

    # --- rendering ------------------------------------------------------------------------
    def render(self) -> str | np.ndarray | None:
        """The public table and the private cards of the agent to move (of the last mover once
        the game is over), as :func:`~borders_sim.envs.observe_text` writes them: returned with
        ``render_mode="ansi"``, printed with ``"human"``; with ``"rgb_array"``, the same view
        drawn (:func:`~borders_sim.game.drawing.seat_svg`, the last step highlighted, the
        scores once the game is over) as a uint8 array of shape
        :func:`~borders_sim.game.drawing.frame_shape` ``(num_players)``.

        Raises:
            ModuleNotFoundError: ``"rgb_array"`` without the optional ``render`` extra (the
                message says how to install it).
        """
        if self.render_mode is None:
            gymnasium.logger.warn(
                "You are calling render method without specifying any render mode.")
            return None
        if self.game is None:
            raise self._no_game("render()")
        viewer = self.game.current_player if not self.game.is_terminal else self._last_mover
        if self.render_mode == "rgb_array":
            last = None if self._last_action is None else (self._last_mover, self._last_action)
            return svg_to_rgb(game_svg(self.game, viewer, last))
        text = observe_text(self.game, viewer)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        """End play: from now on every agent's :meth:`observe` is its own view with an all-zero
        mask, and ``step`` and ``last`` raise until :meth:`reset` starts a new game."""
        self._closed = True
        self._to_move = -1
        self._view = None

    # --- pickling -------------------------------------------------------------------------
    # The game travels as Game.to_dict() (the exact state, random generator included), so an
    # unpickled env continues exactly as the original would.
    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        if self.game is not None:
            state["game"] = self.game.to_dict()
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        if state["game"] is not None:
            self.game = Game.from_dict(state["game"])

