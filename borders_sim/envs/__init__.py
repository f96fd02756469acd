"""Reinforcement-learning environments on the BORDERS rules engine.

* :mod:`borders_v0`: the PettingZoo AEC environment (``borders_v0.env()``, ``raw_env()``).
* :func:`observe`: the observation vector of one player (layout :data:`OBSERVATION_LAYOUT`).
* :func:`observe_json`, :func:`observe_text`: the same knowledge in words.
"""

from ..rules.observation import OBS_SIZE, OBSERVATION_LAYOUT
from . import borders_v0
from .observations import observe
from .observations import observe_json, observe_text

__all__ = ["OBSERVATION_LAYOUT", "OBS_SIZE", "observe"]
__all__ += ["borders_v0", "observe_json", "observe_text"]
