"""The saved-game format: a game as a JSON-ready dict in game words, and what a loaded one passes.

* :mod:`.dict_format`: :func:`state_to_dict` / :func:`state_from_dict`, the layout documented
  field by field (``Game.to_dict`` and ``Game.from_dict`` use them).
* :mod:`.validate`: which states the engine can play, the checks every loaded dict passes.
* :mod:`.rebase`: research positions (``Game.from_dict(d, reachable=False)``): the records only
  a game's past explains, rebased to fit the position.
"""

from .dict_format import FORMAT, state_from_dict, state_to_dict

__all__ = ["FORMAT", "state_from_dict", "state_to_dict"]
