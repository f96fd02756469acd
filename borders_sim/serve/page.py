"""The page of ``borders-sim serve``: plain HTML, CSS and JavaScript of :mod:`.static`, read
once when the app is made and served from memory (no request path reaches the disk, nothing is
fetched from another site: the page works offline).

The page (``static/index.html``, ``static/play.js``, ``static/play.css``) only calls the JSON
API of :mod:`.api`: a person picks a lineup and a seat (or watches bots, or opens a recorded
game), sees the picture of their own view, clicks one of the legal actions, and sees the bots'
moves one by one (a *Next move* button, or automatically at a chosen pace).
"""

from __future__ import annotations

from importlib import resources

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from .refusals import Refused

#: The files of the page and their media types.
FILES = {"index.html": "text/html; charset=utf-8",
         "play.js": "text/javascript; charset=utf-8",
         "play.css": "text/css; charset=utf-8"}
#: The page loads its own script and style only; the pictures are inline SVG.
HEADERS = {"Content-Security-Policy": "default-src 'self'; img-src 'self' data:; "
                                      "frame-ancestors 'none'",
           "X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache"}


def page_routes() -> list[Route]:
    """The routes of the page: ``/`` and ``/static/NAME`` for the files of :data:`FILES`."""
    static = resources.files(__package__) / "static"
    texts = {name: (static / name).read_bytes() for name in FILES}

    async def index(request: Request) -> Response:
        return Response(texts["index.html"], media_type=FILES["index.html"], headers=HEADERS)

    async def file(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in FILES:
            raise Refused(404, "no such file")
        return Response(texts[name], media_type=FILES[name], headers=HEADERS)

    return [Route("/", index, methods=["GET"]),
            Route("/static/{name}", file, methods=["GET"])]
