"""Reinforcement-learning environments on the BORDERS rules engine.

* :mod:`borders_v0`: the PettingZoo AEC environment (``borders_v0.env()``, ``raw_env()``).
* :class:`SingleSeatEnv`: a Gymnasium environment in which one seat learns against policies
  (also ``gymnasium.make("borders_sim/SingleSeat-v0", ...)``).
* :class:`VectorEnv`: N games stepped in one compiled, multi-threaded call (Pgx-style).
* :class:`TrainingEnv`: N games of one learning seat each, the opponents played inside the
  compiled call (a ``gymnasium.vector.VectorEnv``); :mod:`.sb3` wraps it for stable-baselines3.
* :data:`OBS_SIZE`, :data:`NUM_ACTIONS`: the length of an observation and of a legal mask, the
  same for every player count (``NUM_ACTIONS`` is ``borders_sim.NUM_ACTIONS``, re-exported).
* :func:`observe`: the observation vector of one player (layout :data:`OBSERVATION_LAYOUT`);
  :func:`observation_scales`: the documented scale of each entry (``obs / observation_scales()``
  is the normalised observation, what ``TrainingEnv(..., scale_obs=True)`` returns).
* :func:`observe_json`, :func:`observe_text`: the same knowledge in words.
* :func:`sample_consistent_state`: a game the player cannot tell from the real one.
* :func:`world_from_observation`: such a game built from an observation alone.
* OpenSpiel: :mod:`borders_sim.openspiel` (imported on its own, it needs OpenSpiel) registers
  the game ``python_borders`` with ``pyspiel``.
"""

from ..rules.actions import NUM_ACTIONS
from ..rules.observation import OBS_SIZE, OBSERVATION_LAYOUT, observation_scales
from . import borders_v0
from ..game.belief import sample_consistent_state, world_from_observation
from ..game.views import observe, observe_json, observe_text
from .single import SingleSeatEnv
from .training import TrainingEnv
from .vector import VectorEnv, VectorStep

import gymnasium  # noqa: E402

#: ``gymnasium.make(SINGLE_SEAT_ID, num_players=4, ...)`` builds a :class:`SingleSeatEnv`.
SINGLE_SEAT_ID = "borders_sim/SingleSeat-v0"
if SINGLE_SEAT_ID not in gymnasium.registry:
    gymnasium.register(id=SINGLE_SEAT_ID, entry_point="borders_sim.envs.single:SingleSeatEnv")

__all__ = ["NUM_ACTIONS", "OBSERVATION_LAYOUT", "OBS_SIZE", "SINGLE_SEAT_ID", "SingleSeatEnv",
           "TrainingEnv", "VectorEnv", "VectorStep", "borders_v0", "observation_scales",
           "observe", "observe_json", "observe_text", "sample_consistent_state",
           "world_from_observation"]
