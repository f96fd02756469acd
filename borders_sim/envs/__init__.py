"""Reinforcement-learning environments on the BORDERS rules engine.

* :func:`observe`: the observation vector of one player (layout :data:`OBSERVATION_LAYOUT`).
* :func:`sample_consistent_state`: a game the player cannot tell from the real one.
"""

from ..rules.observation import OBS_SIZE, OBSERVATION_LAYOUT
from .observations import observe

from .belief import sample_consistent_state

__all__ = ["OBSERVATION_LAYOUT", "OBS_SIZE", "observe", "sample_consistent_state"]
