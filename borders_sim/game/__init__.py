"""The checked Python layer over the rules kernels.

* :class:`Game` (:mod:`.game`): one game, played step by step with legal masks and action
  strings; saved and loaded as a JSON-ready dict (:mod:`.saved`: the format, checked by
  :mod:`.saved.validate`).
* :mod:`.views`: what one player knows, as the observation vector, JSON or text (the text
  rendered by :mod:`.text_view`).
* :mod:`.drawing`: pictures (SVG) of a seat's view, drawn from its JSON view, and of the whole
  table, drawn from the saved-game dict; ``game.svg(seat=...)``, ``game.save_svg(...)``, the
  picture Jupyter shows, and the environments' ``rgb_array`` frames.
* :mod:`.turns`: the one Python game loop (each seat's player chooses in turn), shared by
  tournaments, the single-seat env, the terminal game and replays.
* :mod:`.belief`: games a player cannot tell from the real one (determinization).
* :mod:`.invariants`: consistency checks of a state (cards and gold conserved, ...).
"""

from ..rules.actions import IllegalActionError
from .game import Game
from . import drawing  # noqa: F401,E402  (gives Game.svg its picture: game.set_drawing)

__all__ = ["Game", "IllegalActionError"]
