"""The connections of ``borders-sim serve``, guarded: no client can lock the others out.

uvicorn's HTTP/1.1 protocol (h11) waits for a request as long as the client likes: 63 requests
whose headers never finished, or 64 connections that never sent a byte, once made every other
request answer 503 for as long as they stayed open. :class:`GuardedH11Protocol` is uvicorn's
protocol with two limits:

* **a deadline per request**: a connection must deliver a whole request (headers and body)
  within :data:`REQUEST_SECONDS` of opening, or of its last response; past it, it is answered
  408 and closed (between requests uvicorn's keep-alive timeout closes it sooner);
* **connections per client**: at most :data:`PER_CLIENT` open connections from one address; one
  more is answered 503 and closed at once, so a client's connections never count against
  another's (there is no global cap to exhaust).

Every answer of its own, as every refusal of the API, is one line of JSON (``{"error": ...}``),
and so is uvicorn's 400 for a request that is not HTTP.
"""

from __future__ import annotations

import asyncio
import json

from uvicorn.protocols.http.h11_impl import H11Protocol

#: Seconds a connection has to deliver a whole request.
REQUEST_SECONDS = 10.0
#: Open connections at most from one client address (a browser opens about six).
PER_CLIENT = 32

_PHRASES = {400: b"Bad Request", 408: b"Request Timeout", 503: b"Service Unavailable"}


def json_response(status: int, reason: str) -> bytes:
    """A whole HTTP/1.1 response ``{"error": reason}`` that closes the connection."""
    body = json.dumps({"error": reason}).encode("utf-8")
    return (b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\n"
            b"connection: close\r\n\r\n" % (status, _PHRASES[status], len(body))) + body


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline per request and a cap per client (module
    docstring); ``request_seconds`` and ``per_client`` are class attributes a server may set
    (:func:`~.server.guarded`)."""

    request_seconds = REQUEST_SECONDS
    per_client = PER_CLIENT

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._guard: asyncio.TimerHandle | None = None
        self._peer = self.client[0] if self.client else ""
        open_ = self.server_state.__dict__.setdefault("borders_clients", {})
        if open_.get(self._peer, 0) >= self.per_client:
            self._peer = None  # (not counted)
            transport.write(json_response(503, f"too many connections from this address (at "
                                               f"most {self.per_client})"))
            transport.close()
            return
        open_[self._peer] = open_.get(self._peer, 0) + 1
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if getattr(self, "_peer", None) is not None:
            open_ = self.server_state.__dict__["borders_clients"]
            open_[self._peer] -= 1
            if not open_[self._peer]:
                del open_[self._peer]
            self._peer = None
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        cycle = self.cycle
        if cycle is not None and not cycle.more_body and not cycle.response_complete:
            self._disarm()  # (the whole request is in: the answer is the app's)

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # (the next request has its own deadline)

    def send_400_response(self, msg: str) -> None:
        self.transport.write(json_response(400, f"not an HTTP request this server reads "
                                                f"({msg.rstrip('.')})"))
        self.transport.close()

    def _arm(self) -> None:
        self._disarm()
        self._guard = self.loop.call_later(self.request_seconds, self._too_slow)

    def _disarm(self) -> None:
        if getattr(self, "_guard", None) is not None:
            self._guard.cancel()
            self._guard = None

    def _too_slow(self) -> None:
        self._guard = None
        if self.transport.is_closing():
            return
        if self.cycle is None or not self.cycle.response_started:
            self.transport.write(json_response(
                408, f"no whole request within {self.request_seconds:g} s"))
        self.transport.close()
