"""Reinforcement-learning environments on the BORDERS rules engine.

* :func:`observe`: the observation vector of one player (layout :data:`OBSERVATION_LAYOUT`).
"""

from ..rules.observation import OBS_SIZE, OBSERVATION_LAYOUT
from .observations import observe

__all__ = ["OBSERVATION_LAYOUT", "OBS_SIZE", "observe"]
