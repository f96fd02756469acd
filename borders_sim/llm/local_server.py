"""An OpenAI-compatible chat-completions server on 127.0.0.1 whose "model" is a small scripted
player: for tests, examples and the harness's benchmark, with no model and no network.

``POST /v1/chat/completions`` reads the legal actions from the last user message (the JSON
array the seat's default prompt ends with) and answers by the model's name:

* ``random``: a legal action drawn by a generator seeded from the prompt (the same prompt, the
  same reply), in a rotation of reply forms: a bare JSON object, reasoning then the object, a
  fenced ``json`` block, the action's text instead of its id, the id as a string of digits;
* ``first``, ``last``: the first or last legal id, as a bare object;
* ``talk``: as ``random``, with a public message;
* ``bad-N``: N unusable replies (prose, an illegal id, two actions, ... in turn) for each
  prompt, then as ``random``: a seat that retries N times or more recovers;
* ``junk``: never a usable reply (the seat falls back);
* ``status-S``: HTTP status S with an OpenAI-style error body (``status-401``, ``status-429``);
* ``flaky-N``: status 503 for the server's first N requests, then as ``random``;
* ``slow-MS``: as ``random``, after MS milliseconds.

A request with ``tools`` is answered by a call of its first tool, the reply's JSON object as its
arguments (a reply without one, prose, stays content: a model that ignored the tool).

Every request is kept (:attr:`LocalServer.requests`: its headers and body) so a test can check
what a seat sent, and :attr:`LocalServer.max_in_flight` is the most requests it answered at once. Run one with ``with LocalServer() as server:`` and seat
``f"llm:random@{server.url}"``.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_LIST = re.compile(r"(\[\{\"id\".*\}\])\s*$", re.S)
_OBJECT = re.compile(r"\{.*\}", re.S)  # a reply's JSON object, for a tool call's arguments
_BAD_REPLIES = ("I would rather not say.", '{"action": 100000}',
                '{"action": 0} and {"action": 1}', '{"action": "something else entirely"}',
                '{"move": 3}', "")


class LocalServer:
    """The server (module docstring), on a free port of 127.0.0.1 in a thread of its own."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.in_flight = self.max_in_flight = 0  # requests being answered now, and the most
        self._lock = threading.Lock()
        self._seen: dict[str, int] = {}
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> LocalServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Stop serving and free the port."""
        self._httpd.shutdown()
        self._httpd.server_close()

    def answer(self, body: dict) -> tuple[int, dict]:
        """The status and JSON body answering the request ``body``."""
        model = str(body.get("model", ""))
        messages = body.get("messages") or [{}]
        with self._lock:
            count = len(self.requests)
        kind, _, arg = model.partition("-")
        if kind == "status":
            return int(arg), {"error": {"message": f"the test server answers {arg}",
                                        "type": "test"}}
        if kind == "flaky" and count <= int(arg):
            return 503, {"error": {"message": "busy", "type": "test"}}
        if kind == "slow":
            time.sleep(int(arg) / 1000)
        users = [m for m in messages if m.get("role") == "user"]
        first = str(users[0].get("content", "")) if users else ""
        found = _LIST.search(first)
        legal = json.loads(found[1]) if found else []
        key = hashlib.sha256(f"{model}\n{first}".encode()).hexdigest()
        with self._lock:
            asked = self._seen[key] = self._seen.get(key, -1) + 1
        if kind == "junk" or (kind == "bad" and asked < int(arg)) or not legal:
            text = _BAD_REPLIES[asked % len(_BAD_REPLIES)]
        else:
            text = _reply(kind, legal, key, asked)
        usage = {"prompt_tokens": sum(len(str(m.get("content", ""))) for m in messages) // 4,
                 "completion_tokens": len(text) // 4 + 1}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        message = {"role": "assistant", "content": text}
        tools = body.get("tools")
        found = _OBJECT.search(text) if tools else None
        if found:
            name = str(tools[0].get("function", {}).get("name", "act"))
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call-{count}", "type": "function",
                 "function": {"name": name, "arguments": found[0]}}]}
        return 200, {"id": f"local-{count}", "object": "chat.completion", "model": model,
                     "choices": [{"index": 0, "finish_reason": "tool_calls" if found else "stop",
                                  "message": message}],
                     "usage": usage}


def _reply(kind: str, legal: list[dict], key: str, asked: int) -> str:
    """A usable reply naming a legal action, in one of the rotation's forms."""
    if kind == "first":
        return json.dumps({"action": legal[0]["id"]})
    if kind == "last":
        return json.dumps({"action": legal[-1]["id"]})
    rng = random.Random(key)
    pick = rng.choice(legal)
    form = (int(key[:8], 16) + asked) % 5
    talk = {"talk": "Nothing to see in my crate."} if kind == "talk" else {}
    if form == 0:
        return json.dumps({"action": pick["id"], **talk})
    if form == 1:
        return (f"Let me think. The safest choice is {pick['action']}.\n"
                + json.dumps({"action": pick["id"], **talk}))
    if form == 2:
        return "```json\n" + json.dumps({"action": pick["id"], **talk}, indent=2) + "\n```"
    if form == 3:
        return json.dumps({"action": pick["action"], **talk})
    return json.dumps({"action": str(pick["id"]), **talk})


def _handler(server: LocalServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()  # (the headers and the body go out as two writes: no Nagle wait)
            self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                body = None
            with server._lock:
                server.requests.append({"path": self.path, "headers": dict(self.headers),
                                        "body": body})
                server.in_flight += 1
                server.max_in_flight = max(server.max_in_flight, server.in_flight)
            try:
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    status, out = 404, {"error": {"message": f"no route {self.path}"}}
                elif not isinstance(body, dict):
                    status, out = 400, {"error": {"message": "the body is not a JSON object"}}
                else:
                    status, out = server.answer(body)
            finally:
                with server._lock:  # (before the reply goes out: the next request may follow)
                    server.in_flight -= 1
            data = json.dumps(out).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args) -> None:  # (quiet: tests read self.requests)
            pass

    return Handler
