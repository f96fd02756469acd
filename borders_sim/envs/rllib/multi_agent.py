"""Every seat of a game of BORDERS as an agent of an RLlib ``MultiAgentEnv``.

:class:`MultiAgentBordersEnv` plays one :class:`~borders_sim.Game` per copy, like
:mod:`borders_sim.envs.borders_v0` but in RLlib's multi-agent protocol and its masking keys:
agents ``player_0 .. player_{n-1}``, each step returns the observation of the one agent to move
next (a Dict of ``"observations"`` and a float32 ``"action_mask"``,
:mod:`.spaces`), and the step that ends the game returns every agent's last observation, its
reward (``reward``, a mode of :data:`~borders_sim.rules.rewards.REWARDS`) and
``terminated`` for all of them and ``"__all__"``. Rewards come only then. With one policy for
every agent (:func:`~borders_sim.envs.rllib.config.ppo_config`'s default), every seat's
decisions train the same network: self-play.

An illegal action (one the mask forbids) ends the game with -1 for the offender and 0 for the
others, PettingZoo's classic convention, and counts in :attr:`MultiAgentBordersEnv.illegal_actions`
(``illegal_action="raise"``: :class:`~borders_sim.IllegalActionError`, nothing changes). A
masked policy never takes one.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from ...game.game import Game
from ...rules.actions import NUM_ACTIONS, action_id
from ...checks import as_choice, as_seed
from ...rules.config import GameConfig
from ...rules.observation import OBS_SIZE, observe_at
from ...rules.rewards import final_rewards_at, reward_mode
from ...rules.state import MAX_PLAYERS
from ..single import ILLEGAL_ACTION_MODES
from .spaces import dict_obs, env_settings, observation_space, runner_seed, scales

#: The settings of ``env_config`` this env reads itself; every other key is a
#: :class:`~borders_sim.GameConfig` flag.
SETTINGS = ("num_players", "reward", "scale_obs", "illegal_action", "seed")


class MultiAgentBordersEnv(MultiAgentEnv):
    """One game of BORDERS at a time, every seat an agent (module docstring).

    Args:
        config: RLlib's ``env_config`` (a dict or an ``EnvContext``): ``num_players`` (3..8,
            default 4), ``reward`` (a mode of :data:`~borders_sim.rules.rewards.REWARDS`),
            ``scale_obs`` (default True: observations divided by
            :func:`~borders_sim.rules.observation.observation_scales`), ``illegal_action``
            (``"lose"``, the default, or ``"raise"``), ``seed`` (the stream of games of a first
            ``reset()`` without one; mixed with the runner's and the copy's index; default:
            fresh entropy) and any :class:`~borders_sim.GameConfig` flag.

    Raises:
        ValueError: a bad setting, named (an unknown key is refused by ``GameConfig``).
    """

    def __init__(self, config: Any = None) -> None:
        super().__init__()
        own, flags = env_settings(config, SETTINGS)
        self.config = GameConfig(num_players=own.get("num_players", 4), **flags)
        self.reward = own.get("reward", "win")
        self._mode = reward_mode(self.reward)
        self.illegal_action = as_choice(own.get("illegal_action", "lose"), "illegal_action",
                                        ILLEGAL_ACTION_MODES)
        self._scales = scales(own.get("scale_obs", True))
        seed = own.get("seed")
        entropy = None if seed is None else runner_seed(config, as_seed(seed))
        self._seeds = np.random.default_rng(entropy)
        n = self.config.num_players
        self.agents = self.possible_agents = [f"player_{i}" for i in range(n)]
        space = observation_space()
        self.observation_spaces = {a: space for a in self.agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.agents}
        self.observation_space = spaces.Dict(self.observation_spaces)
        self.action_space = spaces.Dict(self.action_spaces)
        self.game: Game | None = None
        self.illegal_actions = 0  #: illegal actions taken since the env was made
        self._to_move = -1
        self._rewards = np.zeros(MAX_PLAYERS, dtype=np.float64)

    def reset(self, *, seed: int | None = None,
              options: dict | None = None) -> tuple[dict, dict]:
        """Deal a new game (``seed``: reseed the stream of games first; ``options`` unused)
        and return the observation of the agent to move."""
        if seed is not None:
            self._seeds = np.random.default_rng(as_seed(seed))
        self.game = Game(self.config, int(self._seeds.integers(2**63)))
        self._to_move = self.game.current_player
        agent = self.agents[self._to_move]
        obs = np.empty(OBS_SIZE, dtype=np.float32)
        observe_at(self.game.state, 0, self._to_move, obs)
        return {agent: dict_obs(obs, self.game.legal_mask(), self._scales)}, {agent: {}}

    def step(self, action_dict: dict) -> tuple[dict, dict, dict, dict, dict]:
        """Apply the action of the agent to move (``action_dict[agent]``) and return the next
        agent's observation, or everyone's last one when the game ends.

        Raises:
            RuntimeError: no game in play (call ``reset()``).
            ValueError: ``action_dict`` has no action for the agent to move.
            IllegalActionError: an action outside the action space, or an illegal one with
                ``illegal_action="raise"`` (nothing changes).
        """
        if self.game is None or self._to_move < 0:
            raise RuntimeError("no game in play: call reset()")
        seat = self._to_move
        agent = self.agents[seat]
        if agent not in action_dict:
            raise ValueError(f"action_dict must hold an action for {agent!r}, the agent to "
                             f"move; got one for {sorted(action_dict)}")
        action = action_dict[agent]
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
        action = action_id(action)
        if self.game.legal_mask()[action] == 0:
            self.illegal_actions += 1
            if self.illegal_action == "raise":
                self.game.step(action)  # raises IllegalActionError, naming the action
            self._rewards[:] = 0.0
            self._rewards[seat] = -1.0
            return self._end()
        to_move, obs, mask = self.game.step_observe(action)
        self._to_move = to_move
        if to_move < 0:
            final_rewards_at(self.game.state, 0, self._mode, self._rewards)
            return self._end()
        nxt = self.agents[to_move]
        # RLlib asks a reward beside every observation of an agent that acted before: 0 until
        # the end
        return ({nxt: dict_obs(obs, mask, self._scales)}, {nxt: 0.0}, {"__all__": False},
                {"__all__": False}, {})

    def _end(self) -> tuple[dict, dict, dict, dict, dict]:
        """Every agent's last observation (an all-ones mask, :mod:`.spaces`) and reward, all
        terminated."""
        self._to_move = -1
        observations, rewards = {}, {}
        for seat, agent in enumerate(self.agents):
            obs = np.empty(OBS_SIZE, dtype=np.float32)
            observe_at(self.game.state, 0, seat, obs)
            observations[agent] = dict_obs(obs, None, self._scales)
            rewards[agent] = float(self._rewards[seat])
        done = dict.fromkeys(self.agents, True)
        return (observations, rewards, {**done, "__all__": True},
                {**dict.fromkeys(self.agents, False), "__all__": False},
                {agent: {} for agent in self.agents})

    def legal_mask(self) -> np.ndarray:
        """bool[NUM_ACTIONS]: the legal actions of the agent to move (all False between games)."""
        if self.game is None or self._to_move < 0:
            return np.zeros(NUM_ACTIONS, dtype=np.bool_)
        return self.game.legal_mask().astype(np.bool_)

    def __repr__(self) -> str:
        return (f"MultiAgentBordersEnv(num_players={self.config.num_players}, "
                f"reward={self.reward!r}, illegal_action={self.illegal_action!r}, "
                f"scale_obs={self._scales is not None})")
