"""Reinforcement-learning environments on the BORDERS rules engine.

* :mod:`borders_v0`: the PettingZoo AEC environment (``borders_v0.env()``, ``raw_env()``).
* :func:`observe`: the observation vector of one player (layout :data:`OBSERVATION_LAYOUT`).
* :func:`observe_json`, :func:`observe_text`: the same knowledge in words.
* :func:`sample_consistent_state`: a game the player cannot tell from the real one.
* :func:`world_from_observation`: such a game built from an observation alone.
"""

from ..rules.observation import OBS_SIZE, OBSERVATION_LAYOUT
from . import borders_v0
from .belief import sample_consistent_state, world_from_observation
from .observations import observe, observe_json, observe_text

__all__ = ["OBSERVATION_LAYOUT", "OBS_SIZE", "borders_v0", "observe", "observe_json",
           "observe_text", "sample_consistent_state", "world_from_observation"]
