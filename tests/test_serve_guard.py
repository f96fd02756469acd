"""No client locks the others out of ``borders-sim serve`` (issue 51, item 3, the probe's worst
finding): 63 half-sent requests and 64 idle connections from one address once made every other
request 503 for over a minute. The guarded protocol (borders_sim.serve.guard) gives each
connection a deadline for a whole request and caps the connections of one address; its own
answers are one line of JSON. Real sockets against a real uvicorn on loopback; the attacker
connects from 127.0.0.2, the person from 127.0.0.1."""

from __future__ import annotations

import json
import socket
import time
import urllib.request

from borders_sim.serve import create_app
from borders_sim.serve.server import guarded, running


def _answer(sock: socket.socket) -> tuple[int, dict]:
    sock.settimeout(5)
    data = b""
    while b"\r\n\r\n" not in data or not data.rstrip().endswith(b"}"):
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


def test_idle_and_half_sent_connections_of_one_address_lock_no_one_out():
    with running(create_app(), protocol=guarded(request_seconds=1.0, per_client=32)) as url:
        port = int(url.rsplit(":", 1)[1])

        def attacker() -> socket.socket:
            return socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.2", 0))

        held = []
        for k in range(32):
            sock = attacker()
            if k % 2:
                sock.sendall(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le")
            held.append(sock)
        refused = [attacker() for _ in range(8)]  # past the cap of this address
        for sock in refused:
            assert _answer(sock) == (503, {"error": "too many connections from this address "
                                                    "(at most 32)"})
        start = time.monotonic()
        with urllib.request.urlopen(f"{url}/api/bots", timeout=5) as response:
            assert response.status == 200  # the person at another address: not locked out
        assert time.monotonic() - start < 1.0
        time.sleep(1.2)  # past the deadline: every held connection answered 408 and closed
        for sock in held:
            status, body = _answer(sock)
            assert status == 408 and body["error"].startswith("no whole request within")
        garbage = socket.create_connection(("127.0.0.1", port))
        garbage.sendall(b"NOT HTTP AT ALL\r\n\r\n")
        status, body = _answer(garbage)
        assert status == 400 and body["error"].startswith("not an HTTP request")
        for sock in held + refused + [garbage]:
            sock.close()


def test_a_slow_but_whole_request_and_keep_alive_still_work():
    with running(create_app(), protocol=guarded(request_seconds=1.0)) as url:
        port = int(url.rsplit(":", 1)[1])
        sock = socket.create_connection(("127.0.0.1", port))
        for _ in range(3):  # three requests on one connection, each sent in two halves
            sock.sendall(b"GET /api/bots HTTP/1.1\r\nHost: 127.0.0.1")
            time.sleep(0.4)
            sock.sendall(b"\r\n\r\n")
            status, body = _answer(sock)
            assert status == 200 and "bots" in body
        sock.close()
