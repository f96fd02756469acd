"""What a bot is: ``act(observation, action_mask) -> int``, and a bot is also that callable.

:class:`Bot` is the protocol every bot of :func:`borders_sim.agents.make` follows, and the base
class of the library's bots: subclassing it adds ``__call__``, so a bot is a policy
``(observation, action_mask) -> action`` wherever one is accepted (the opponents of
:class:`~borders_sim.envs.SingleSeatEnv`, of the RLlib single-seat env)::

    from borders_sim.agents import make
    from borders_sim.envs import SingleSeatEnv

    env = SingleSeatEnv(num_players=4, opponents=[make("honest", seed=i) for i in range(3)])

It lives apart from :mod:`.bots` (which imports every bot) so that each bot's module can
subclass it without an import cycle.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np


class Bot(Protocol):
    """A policy over one player's observation and legal mask; calling it is :meth:`act`."""

    name: str

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A legal action id for this observation and mask."""

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """:meth:`act`: a bot is a policy ``(observation, action_mask) -> action``."""
        return self.act(observation, action_mask)
