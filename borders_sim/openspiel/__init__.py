"""BORDERS and OpenSpiel, both ways; importing this package registers the game ``python_borders``.

* :mod:`.game`: BORDERS as an OpenSpiel game (3-8 players, every rule), its states, chance
  node of the deals, observer and JSON serialization; its docstring has the whole story.
* :mod:`.bots`: OpenSpiel's bots as ours, ``openspiel-ismcts``, ``openspiel-mcts`` and
  ``openspiel-random`` (with options, ``openspiel-ismcts:sims=50:rollout=honest``), for every
  lineup and ``borders-sim tournament``, and :class:`CompiledRolloutEvaluator`, an MCTS
  evaluator whose rollouts run in one compiled call.
* :mod:`.spiel_bot`: ours as OpenSpiel's, :class:`BordersBot` (any bot of
  :func:`borders_sim.agents.make` as a ``pyspiel.Bot``).

It needs OpenSpiel, the extra ``bench``: ``pip install ".[bench]"`` in the source checkout;
without it, importing this package raises a ModuleNotFoundError saying so. Nothing else in
``borders_sim`` imports it: a lineup that names an OpenSpiel bot imports it then
(:data:`borders_sim.agents.bots.PLUGIN_KINDS`).

    import pyspiel
    import borders_sim.openspiel  # registers "python_borders"

    game = pyspiel.load_game("python_borders", {"players": 4})
"""

from __future__ import annotations

# (first: it says how to install OpenSpiel when pyspiel is missing, and registers the game)
from .game import (DEAL_NODES, DEAL_OUTCOMES, DEALS, GAME_NAME, GAME_TYPE, PARAMETERS,
                   STATE_FORMAT, BordersGame, BordersObserver, BordersState, config_from_params,
                   deal_actions, game_type, params_from_config, parse_gold_menu, score_bound,
                   utility_bounds)
from .bots import KINDS, CompiledRolloutEvaluator, OpenSpielBot, bot_factory, parse_name
from .spiel_bot import BordersBot

__all__ = ["DEALS", "DEAL_NODES", "DEAL_OUTCOMES", "GAME_NAME", "GAME_TYPE", "KINDS", "PARAMETERS",
           "STATE_FORMAT", "BordersBot", "BordersGame", "BordersObserver", "BordersState",
           "CompiledRolloutEvaluator", "OpenSpielBot", "bot_factory", "config_from_params",
           "deal_actions", "game_type", "params_from_config", "parse_gold_menu", "parse_name",
           "score_bound", "utility_bounds"]
