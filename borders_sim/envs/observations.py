"""A player's view of a :class:`~borders_sim.Game`: the vector, JSON and text forms.

:func:`observe` is the vector every environment hands to a player (layout:
:data:`~borders_sim.rules.observation.OBSERVATION_LAYOUT`); :func:`observe_json` and
:func:`observe_text` say the same knowledge in words, for logs, humans and language-model agents.
All three read only what the player may know (RULINGS R-39).
"""

from __future__ import annotations

import numpy as np

from ..game import Game
from ..rules.observation import OBS_SIZE, observe_at


def check_seat(game: Game, player) -> int:
    """``player`` as an int seat of ``game``; ``ValueError`` naming it otherwise."""
    if isinstance(player, bool) or not isinstance(player, (int, np.integer)) \
            or not 0 <= player < game.num_players:
        raise ValueError(f"player must be a seat 0..{game.num_players - 1} of this "
                         f"{game.num_players}-player game, got {player!r}")
    return int(player)


def observe(game: Game, player: int) -> np.ndarray:
    """float32[OBS_SIZE]: everything ``player`` knows of ``game`` now (R-39), seat-relative
    (row 0 of every per-seat block is ``player``). See
    :data:`~borders_sim.rules.observation.OBSERVATION_LAYOUT` for the meaning of each index."""
    out = np.empty(OBS_SIZE, dtype=np.float32)
    observe_at(game.state, 0, check_seat(game, player), out)
    return out
