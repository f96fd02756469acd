"""The ``Host`` headers the server answers: an ASGI middleware that refuses any other with one
line of JSON (400), reading an IPv6 host in brackets as one (``[::1]:8000`` is ``::1``).

Starlette's ``TrustedHostMiddleware`` cuts a ``Host`` at its first colon (``[::1]:8000`` became
``[``, refused) and answers in plain text; a server bound to loopback answers only loopback
names, so a page of another site cannot reach it through DNS rebinding.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from starlette.types import ASGIApp, Receive, Scope, Send


def host_of(header: str) -> str:
    """The host of a ``Host`` header, its port and an IPv6 address's brackets left out,
    lowercased: ``[::1]:8000`` -> ``::1``, ``LocalHost:80`` -> ``localhost``."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].partition("]")[0]
    return header.partition(":")[0]


class AllowedHosts:
    """Answer only requests whose ``Host`` is one of ``hosts`` (``("*",)``: any)."""

    def __init__(self, app: ASGIApp, hosts: Sequence[str]) -> None:
        self.app = app
        self.any = "*" in hosts
        self.hosts = {host_of(h) if h.startswith("[") else h.lower() for h in hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or self.any:
            await self.app(scope, receive, send)
            return
        header = dict(scope["headers"]).get(b"host", b"").decode("latin-1")
        if host_of(header) in self.hosts:
            await self.app(scope, receive, send)
            return
        body = json.dumps({"error": f"this server answers only the hosts "
                                    f"{', '.join(sorted(self.hosts))}, not "
                                    f"{header[:80]!r}"}).encode("utf-8")
        await send({"type": "http.response.start", "status": 400,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})
