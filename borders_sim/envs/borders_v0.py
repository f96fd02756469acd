"""BORDERS, version 0 of the PettingZoo environment (documentation: :mod:`.borders`)."""

from .borders import env, raw_env

__all__ = ["env", "raw_env"]
