"""A request the server turns down: its HTTP status and a one-line reason.

Every check of :mod:`borders_sim.serve` raises :class:`Refused`; the app answers it as
``{"error": reason}`` with its status (:mod:`.app`), so a bad request never reaches the
last-resort handler of genuine bugs.
"""

from __future__ import annotations


class Refused(Exception):
    """A bad request: answered with ``status`` (a 4xx) and ``{"error": reason}``.

    Args:
        status: the HTTP status, 400 to 499.
        reason: why, in one line (line breaks are replaced by spaces).
    """

    def __init__(self, status: int, reason: str) -> None:
        reason = " ".join(str(reason).split())
        super().__init__(reason)
        self.status = status
        self.reason = reason
