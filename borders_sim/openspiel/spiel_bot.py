"""Any bot of :func:`borders_sim.agents.make` as a ``pyspiel.Bot``: :class:`BordersBot`.

It plays in OpenSpiel's own loops (``evaluate_bots``, its MCTS and IS-MCTS opponents) on the
game of :mod:`.game`, and sees only what its seat sees: the state's observation tensor and
legal actions mask.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from ..agents import make
from ..checks import as_int, as_seed
from ..rules.state import MAX_PLAYERS


class BordersBot(pyspiel.Bot):
    """One of our bots (:func:`borders_sim.agents.make`) as a ``pyspiel.Bot`` for ``player``.

    At each decision it reads the state's observation tensor and legal actions mask, the
    OpenSpiel API of any state of this game, so it sees what the player sees and nothing more.

    Args:
        player: the seat it plays (an int from 0 to 7).
        name: a bot name of :data:`borders_sim.agents.REGISTRY` (e.g. ``"honest"``).
        seed: the bot's seed.
    """

    def __init__(self, player: int, name: str, seed: int = 0) -> None:
        pyspiel.Bot.__init__(self)
        self.player = as_int(player, "player", 0, MAX_PLAYERS - 1)
        self.seed = as_seed(seed)
        self.bot = make(name, self.seed)
        self.name = name

    def step(self, state: pyspiel.State) -> int:
        observation = np.asarray(state.observation_tensor(self.player), dtype=np.float32)
        mask = np.asarray(state.legal_actions_mask(self.player), dtype=np.uint8)
        return int(self.bot.act(observation, mask))

    def restart_at(self, state: pyspiel.State) -> None:
        """A new game: a fresh bot of the same name and seed."""
        self.bot = make(self.name, self.seed)

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        """Our bots keep no memory beyond the observation: nothing to do."""
