"""Serving the app with uvicorn: in the foreground (``borders-sim serve``) or in a thread
(:func:`running`: a notebook, a test, a script that drives the page in a browser), its
connections guarded (:mod:`.guard`: a deadline per request, a cap per client)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from starlette.applications import Starlette

from .guard import PER_CLIENT, REQUEST_SECONDS, GuardedH11Protocol


def guarded(request_seconds: float = REQUEST_SECONDS, per_client: int = PER_CLIENT) -> type:
    """The guarded protocol (:mod:`.guard`) with these limits."""
    return type("Guarded", (GuardedH11Protocol,),
                {"request_seconds": request_seconds, "per_client": per_client})


def _config(app: Starlette, host: str, port: int, protocol: type | None = None
            ) -> uvicorn.Config:
    # no global cap on connections: idle or half-sent ones are closed by the guard's deadline,
    # and one client's count against its own cap only
    return uvicorn.Config(app, host=host, port=port, log_level="warning",
                          http=protocol or guarded(), timeout_keep_alive=5)


def serve(app: Starlette, host: str, port: int) -> None:
    """Serve ``app`` on ``host:port`` until interrupted (Ctrl-C)."""
    uvicorn.Server(_config(app, host, port)).run()


@contextmanager
def running(app: Starlette, host: str = "127.0.0.1", port: int = 0,
            timeout: float = 30.0, protocol: type | None = None) -> Iterator[str]:
    """Serve ``app`` in a thread while the ``with`` block runs; yields its base URL
    (``http://127.0.0.1:PORT``; ``port=0`` takes a free one); ``protocol``: the guarded
    protocol with other limits (:func:`guarded`).

    Raises:
        RuntimeError: the server did not start within ``timeout`` seconds.
    """
    server = uvicorn.Server(_config(app, host, port, protocol))
    thread = threading.Thread(target=server.run, name="borders-sim-serve", daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError(f"the server did not start on {host}:{port}")
        time.sleep(0.02)
    bound = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://{host}:{bound}"
    finally:
        server.should_exit = True
        thread.join(timeout)
