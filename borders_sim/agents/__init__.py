"""Bots: policies that see a player's observation and legal mask only, never the state.

* :func:`make` ``(name, seed=0)``: a bot with ``act(observation, action_mask) -> int``.
* ``random``, ``honest``, ``bluffer``, ``collector``, ``strict``: compiled policies
  (:mod:`borders_sim.policies`, where each bot's module says how it plays) behind
  :class:`~.bots.CompiledBot`.
* ``ismcts`` (:class:`~.ismcts.ISMCTSBot`): determinized Monte Carlo search over worlds
  rebuilt from the observation, with rollouts by compiled bots.
* ``ppo`` (:class:`~.ppo_bot.PPOBot`): the learned policy the package ships, or any policy file
  (``make("ppo", weights=PATH)``, ``ppo@PATH`` in a lineup), sampled by default
  (``make("ppo", sample=False)``, ``ppo:argmax``: greedy); compiled too (the network,
  its file and its one compiled sampler: :mod:`borders_sim.policies.network`).
* ``openspiel-ismcts``, ``openspiel-mcts``, ``openspiel-random`` (:mod:`borders_sim.openspiel`,
  imported when a name asks for one): OpenSpiel's bots over worlds rebuilt from the observation
  (need OpenSpiel: ``pip install ".[bench]"`` in
  the source checkout); their names take options, e.g. ``openspiel-ismcts:sims=50``.
* :mod:`.lineup`: bot *specs*, the names with options a lineup is written in
  (``ppo:argmax@PATH``, ``openspiel-ismcts:sims=50``), and how a lineup plays compiled.
* :class:`~.seats.Seat` and :func:`~.seats.as_seat`: a seat of a lineup as a value, made of a
  spec, a user's bot ``MODULE:NAME``, a bot class or a factory ``(seed) -> bot``.
* :data:`COMPILED_BOTS`: bots whose policy is a compiled kernel, playable inside whole-game
  kernels (:func:`borders_sim.batch.games.play_bot_games`) with the same choices as the
  Python bot for the same seed.
"""

from .bots import REGISTRY, Bot, CompiledBot, make
from .ismcts import ISMCTSBot
from .lineup import make_spec
from .seats import Seat, as_seat
from ..policies.dispatch import COMPILED_BOTS
from .ppo_bot import PPOBot

__all__ = ["COMPILED_BOTS", "REGISTRY", "Bot", "CompiledBot", "ISMCTSBot", "PPOBot", "Seat",
           "as_seat", "make", "make_spec"]
