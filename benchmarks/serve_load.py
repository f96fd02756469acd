"""A shared server under load: many people's clients at once on loopback, the latency of each
route and whether any answer was a server error.

Usage::

    python benchmarks/serve_load.py                  # 200 clients for 60 s
    python benchmarks/serve_load.py --quick          # 20 clients for 5 s
    python benchmarks/serve_load.py --json out.json
    python benchmarks/serve_load.py --write-docs     # the serve-load section of docs/speed.md

Starts ``borders-sim serve`` in a process of its own (one core, as a study's laptop would run
it; ``--max-games`` above the clients), then runs ``--clients`` clients in this process
(``httpx``'s async client, one connection each), spread over loopback addresses 127.0.0.1 to
127.0.0.8 so that no address holds more connections than the server grants one address (a
person each, as a study's people come from their own machines). Each client plays the way the
page does: it creates a game with one person (``"people": [0]``, its token as ``Authorization:
Bearer``) against three heuristic bots, then reads the game, reads its legal actions and acts
when it is its turn, or asks the server to step the bots, and starts a new game when one ends,
until ``--seconds`` are up. Every request's latency and status is kept: the table gives each
route's requests, p50, p99 and the slowest, and the totals count 4xx and 5xx answers (the
target: no 5xx).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import random
import socket
import statistics
import subprocess
import sys
import time

import httpx

from borders_sim.report import markdown_table
from freshness import measured_at
from harness import add_shared, load, machine_line, run

#: The loopback addresses the clients come from (the server allows 32 connections an address).
ADDRESSES = tuple(f"127.0.0.{k}" for k in range(1, 9))
BOTS = ["honest", "bluffer", "strict"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, max_games: int) -> subprocess.Popen:
    """``borders-sim serve`` on ``port`` in a process of its own, once it answers."""
    command = [sys.executable, "-c", "import sys; from borders_sim.cli import main; "
               "sys.exit(main(sys.argv[1:]))", "serve", "--port", str(port),
               "--max-games", str(max_games), "--idle-minutes", "10"]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server stopped: {server.stderr.read()[-2000:]}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/bots", timeout=2).status_code == 200:
                return server
        except httpx.HTTPError:
            time.sleep(0.2)
    server.kill()
    raise RuntimeError("the server did not answer within 120 s")


async def client(k: int, base: str, until: float, out: list, rng: random.Random) -> int:
    """One person's client (module docstring); returns the games it saw to their end."""
    transport = httpx.AsyncHTTPTransport(local_address=ADDRESSES[k % len(ADDRESSES)])
    finished = 0
    async with httpx.AsyncClient(base_url=base, transport=transport, timeout=30) as http:

        async def call(route: str, method: str, path: str, **kwargs) -> httpx.Response:
            start = time.perf_counter()
            response = await http.request(method, path, **kwargs)
            out.append((route, time.perf_counter() - start, response.status_code))
            return response

        game = None
        while time.monotonic() < until:
            if game is None:
                r = await call("POST /api/games", "POST", "/api/games",
                               json={"players": 4, "people": [0], "bots": BOTS})
                if r.status_code != 201:
                    await asyncio.sleep(0.5)
                    continue
                answer = r.json()
                game = f"/api/games/{answer['id']}"
                auth = {"Authorization": f"Bearer {answer['people'][0]['token']}"}
            r = await call("GET /api/games/ID", "GET", game, headers=auth)
            status = r.json().get("game", {}) if r.status_code == 200 else {}
            if status.get("over") or r.status_code == 404:
                finished += bool(status.get("over"))
                game = None
            elif status.get("your_turn"):
                r = await call("GET /api/games/ID/legal", "GET", game + "/legal", headers=auth)
                if r.status_code == 200:
                    action = rng.choice(r.json()["actions"])["id"]
                    await call("POST /api/games/ID/act", "POST", game + "/act", headers=auth,
                               json={"action": action})
            elif status:
                await call("POST /api/games/ID/step", "POST", game + "/step", headers=auth,
                           json={})
    return finished


async def load_run(base: str, clients: int, seconds: float) -> tuple[list, int]:
    until = time.monotonic() + seconds
    out: list = []
    finished = await asyncio.gather(*(client(k, base, until, out, random.Random(k))
                                      for k in range(clients)))
    return out, sum(finished)


def measure(args: argparse.Namespace) -> dict:
    """Run the server and ``args.clients`` clients for ``args.seconds``: every request's
    route, seconds and status, the load average at the start and the table's stamp."""
    load_start, stamp = load(), measured_at("serve-load")
    clients, seconds = args.clients, args.seconds
    print(f"serving {clients} clients for {seconds:g} s ...", file=sys.stderr, flush=True)
    port = free_port()
    server = start_server(port, max_games=2 * clients + 16)
    try:
        start = time.perf_counter()
        requests, finished = asyncio.run(load_run(f"http://127.0.0.1:{port}", clients,
                                                  seconds))
        wall = time.perf_counter() - start
    finally:
        server.terminate()
        server.wait(30)
    return {"clients": clients, "seconds": wall, "games_finished": finished,
            "load": load_start,
            "stamp": stamp,
            "requests": [[route, round(s, 6), code] for route, s, code in requests]}


def quantile(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def render(figures: dict, args: argparse.Namespace) -> str:
    """The table of :func:`measure`'s figures and the lines around it."""
    requests = figures["requests"]
    routes: dict[str, list[float]] = {}
    for route, seconds, _ in requests:
        routes.setdefault(route, []).append(seconds)
    every = [s for _, s, _ in requests]
    rows = [[route, f"{len(times):,}", f"{1000 * statistics.median(times):.1f}",
             f"{1000 * quantile(times, 0.99):.1f}", f"{1000 * max(times):.0f}"]
            for route, times in sorted(routes.items())]
    rows.append(["every request", f"{len(every):,}", f"{1000 * statistics.median(every):.1f}",
                 f"{1000 * quantile(every, 0.99):.1f}", f"{1000 * max(every):.0f}"])
    errors = sum(code >= 500 for *_, code in requests)
    refused = sum(400 <= code < 500 for *_, code in requests)
    return "\n".join([
        f"**A shared server under load** (`python benchmarks/serve_load.py --write-docs`, "
        f"{datetime.date.today()}, {figures['stamp']}; {machine_line(figures['load'])}): "
        f"{figures['clients']} "
        f"clients at once on loopback for {figures['seconds']:.0f} s, each a person playing "
        f"4-player games against three heuristics as the page does, the server "
        f"(`borders-sim serve`) in a process of its own:", "",
        markdown_table(["route", "requests", "p50 ms", "p99 ms", "slowest ms"], rows), "",
        f"{len(every) / figures['seconds']:,.0f} requests/s; {figures['games_finished']:,} "
        f"games played to the end; {errors} server errors (5xx), {refused} refusals (4xx)."])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=200, help="clients at once (default 200)")
    parser.add_argument("--seconds", type=float, default=60.0,
                        help="how long they play (default 60)")
    add_shared(parser, quick={"clients": 20, "seconds": 5.0},
               docs="put the table in the serve-load section of docs/speed.md", json=True)
    figures = run(parser, measure, render, argv, section="serve-load")
    errors = sum(code >= 500 for *_, code in figures["requests"])
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
