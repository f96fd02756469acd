"""borders_sim: the card game BORDERS (3-8 players) as a fast, faithful simulator for RL.

* :class:`GameConfig`: player count and rule variants (defaults are the rulebook).
* :class:`Game`: play a game step by step with legal masks and readable action strings.
* :mod:`borders_sim.rules`: the numba kernels over a plain array state.
"""

from .game import Game, IllegalActionError
from .rules.actions import NUM_ACTIONS
from .rules.config import GameConfig
from .rules.engine import EngineError

__version__ = "0.1.0"
__all__ = ["EngineError", "Game", "GameConfig", "IllegalActionError", "NUM_ACTIONS",
           "__version__"]
