"""``borders-sim serve``: a table of BORDERS in the browser, and a JSON API under it.

A person plays a seat against any lineup of bots, seeing only their own view and choosing
among their legal actions; watches bots play from any seat's view or the whole table; or opens a
recorded game of ``borders-sim tournament --record DIR`` (``--records DIR``). Another front end,
a script or a language-model agent can drive the same games through the JSON API (:mod:`.api`
lists its routes); :func:`running` serves the app in a thread (a notebook, a script)::

    borders-sim serve                       # http://127.0.0.1:8000
    curl -X POST localhost:8000/api/games --json '{"players": 4, "seat": 0}'
    curl localhost:8000/api/games/ID/legal
    curl -X POST localhost:8000/api/games/ID/act --json '{"action": "pass"}'
    curl -X POST localhost:8000/api/games/ID/step          # the next bot's move

A body is JSON sent as ``Content-Type: application/json`` (curl's ``--json``); a request from a
page of another origin may not change a game; every game is dealt from a secret seed unless
the server was started with ``--allow-seeds`` (then ``"seed": S`` replicates a deal).

**Why Starlette.** The app is a few JSON routes and one static page: Starlette (the ASGI
toolkit FastAPI is built on) gives routing, a test client and exception handlers in two small
pure-Python wheels (Starlette, AnyIO), with uvicorn to serve it. FastAPI would add pydantic and
its compiled core for request models and generated OpenAPI pages this API does not need: the
bodies are three small objects, checked by the same argument rules as the library
(:mod:`borders_sim.checks`), so the API refuses what the library refuses, in its words.

**Safe by default.** The server binds 127.0.0.1 (``--host`` opens it, with a warning); games
live under random ids (:mod:`.sessions`), are dropped after ``--idle-minutes`` and are at most
``--max-games``; a body over the size limit is refused before it is read; every bad request is a
4xx with a one-line JSON reason (:mod:`.refusals`); the only file a request can name is a trace
directly under ``--records DIR`` (:mod:`.record_files`); a policy file is named on the command
line only (``--bot ppo@PATH``). While a person plays, the API shows that seat's view alone (its
observation, :mod:`.table`); the whole table only in games without a person or after the end.

Layers: this package sits on top, beside :mod:`borders_sim.cli`; it imports ``game``,
``agents`` and ``arena``, and nothing below imports it. It needs the optional ``serve`` extra
(Starlette, uvicorn).
"""

from .app import Settings, create_app
from .server import running, serve

__all__ = ["Settings", "create_app", "running", "serve"]
