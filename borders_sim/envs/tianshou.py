"""BORDERS for Tianshou's multi-agent API, with each seat's outcome on its own transition.

Tianshou plays a PettingZoo AEC env through ``tianshou.env.PettingZooEnv``: every step stores one
transition of the agent that acted, with a reward for every agent (the env's ``rewards``) and one
``terminated`` for the whole game, and ``MultiAgentPolicy`` hands agent ``a`` its own
transitions with column ``a`` of the rewards. In a turn-based game of three or more players that
loses the outcome: the game ends on the last mover's step, the episode ends there, and every
other seat's last transition, stored before, keeps a reward of 0 (with ``PettingZooEnv`` over
``borders_v0.env()``, a seat sees its outcome on about one transition in 600).

:class:`TianshouEnv` ends a game as PettingZoo's AEC protocol does: once the game is over, each
agent in turn gets its own final observation (its own view, an all-zero mask) and acts once more
(the action is ignored: Tianshou's masked policies pick one anyway); that transition's reward,
in the agent's own column, is its final reward. The episode ends (``terminated``) on the last
agent's final turn. So each seat's outcome is the reward of exactly one of its own transitions,
its last, and an illegal move, which ends the game as ``borders_v0.env()`` ends it (-1 for the
offender, 0 for the others), reaches every seat the same way::

    from tianshou.data import Collector
    from tianshou.env import DummyVectorEnv
    from borders_sim.envs.tianshou import TianshouEnv

    envs = DummyVectorEnv([lambda: TianshouEnv(num_players=4) for _ in range(2)])
    # Collector(MultiAgentPolicy or a MultiAgentOffPolicyAlgorithm's policy, envs, buffer) ...

Needs Tianshou 2 (the ``tianshou`` extra: ``pip install torch==2.13.0``, the CPU build, then
``pip install ".[tianshou]"`` in the source checkout); importing this module without it raises
a ModuleNotFoundError with that line.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..install_hints import needs
from . import borders_v0

try:
    from tianshou.env import PettingZooEnv
except ModuleNotFoundError as err:  # tianshou, or torch under it, is not installed
    _missing = (err.name or "tianshou").partition(".")[0]
    raise ModuleNotFoundError(needs("borders_sim.envs.tianshou (TianshouEnv)", "tianshou",
                                    _missing), name=_missing) from err


class TianshouEnv(PettingZooEnv):
    """``borders_v0.env(**kwargs)`` as Tianshou's ``PettingZooEnv``, every seat's final reward
    on its own last transition (module docstring).

    Observations are Tianshou's dicts: ``agent_id`` (``"player_k"``), ``obs`` (the agent's
    own view, float32[OBS_SIZE]) and ``mask`` (bool[NUM_ACTIONS], all False on a final turn).
    ``step`` returns ``(obs, rewards, terminated, truncated, info)`` with ``rewards`` a list of
    one float per agent, 0 but for the agent that just took its final turn.

    Args:
        **kwargs: :func:`borders_sim.envs.borders_v0.env`'s arguments (``num_players``,
            ``reward``, ``GameConfig`` flags).
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(borders_v0.env(**kwargs))

    def reset(self, *args: Any, **kwargs: Any) -> tuple[dict, dict]:
        self.rewards = [0.0] * len(self.agents)
        return super().reset(*args, **kwargs)

    def step(self, action: Any) -> tuple[dict, list[float], bool, bool, dict]:
        env = self.env
        agent = env.agent_selection
        rewards = [0.0] * len(self.agents)
        if env.terminations[agent] or env.truncations[agent]:
            # the agent's final turn: its reward, then it steps out as AEC agents do
            final, reward, _term, _trunc, info = env.last()
            rewards[self.agent_idx[agent]] = float(reward)
            env.step(None)
        else:
            env.step(action)
        self.rewards = rewards
        if not env.agents:  # every agent has had its final turn: the episode ends
            return self._dict(agent, final), rewards, True, False, info
        observation, _reward, _term, _trunc, info = env.last()
        return self._dict(env.agent_selection, observation), rewards, False, False, info

    @staticmethod
    def _dict(agent: str, observation: dict) -> dict:
        """Tianshou's observation dict of ``agent`` (its view and its mask as bools)."""
        return {"agent_id": agent, "obs": observation["observation"],
                "mask": observation["action_mask"].astype(np.bool_)}
