"""Bots: policies that see a player's observation and legal mask only, never the state.

* :func:`make` ``(name, seed=0)``: a bot with ``act(observation, action_mask) -> int``.
* :data:`COMPILED_BOTS`: bots whose policy is a compiled kernel, playable inside whole-game
  kernels (:func:`borders_sim.agents.play.play_bot_games`) with the same choices as the
  Python bot for the same seed.
"""

from .bots import REGISTRY, Bot, CompiledBot, make
from .policies import COMPILED_BOTS

__all__ = ["COMPILED_BOTS", "REGISTRY", "Bot", "CompiledBot", "make"]
