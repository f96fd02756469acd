"""Reinforcement-learning environments on the BORDERS rules engine.

* :func:`observe`: the observation vector of one player (layout :data:`OBSERVATION_LAYOUT`).
* :class:`SingleSeatEnv`: a Gymnasium env in which one seat learns against given policies.
* :class:`VectorEnv`: N games stepped in one compiled, multi-threaded call.
"""

from ..rules.observation import OBS_SIZE, OBSERVATION_LAYOUT
from .observations import observe
from .single import SingleSeatEnv
from .vector import VectorEnv

__all__ = ["OBSERVATION_LAYOUT", "OBS_SIZE", "observe"]
__all__ += ["SingleSeatEnv"]
__all__ += ["VectorEnv"]
