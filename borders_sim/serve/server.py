"""Serving the app with uvicorn: in the foreground (``borders-sim serve``) or in a thread
(:func:`running`: a notebook, a test, a script that drives the page in a browser)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from starlette.applications import Starlette

#: Open connections at most; more are answered 503 by uvicorn.
MAX_CONNECTIONS = 64


def _config(app: Starlette, host: str, port: int) -> uvicorn.Config:
    return uvicorn.Config(app, host=host, port=port, log_level="warning",
                          limit_concurrency=MAX_CONNECTIONS, timeout_keep_alive=5)


def serve(app: Starlette, host: str, port: int) -> None:
    """Serve ``app`` on ``host:port`` until interrupted (Ctrl-C)."""
    uvicorn.Server(_config(app, host, port)).run()


@contextmanager
def running(app: Starlette, host: str = "127.0.0.1", port: int = 0,
            timeout: float = 30.0) -> Iterator[str]:
    """Serve ``app`` in a thread while the ``with`` block runs; yields its base URL
    (``http://127.0.0.1:PORT``; ``port=0`` takes a free one).

    Raises:
        RuntimeError: the server did not start within ``timeout`` seconds.
    """
    server = uvicorn.Server(_config(app, host, port))
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
