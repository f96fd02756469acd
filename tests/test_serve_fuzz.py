"""The JSON API of ``borders-sim serve`` under junk (hypothesis): wrong ids, illegal actions,
wrong types, huge and broken bodies, path tricks. Every answer is a 4xx with a one-line reason
or a legal result, the last-resort handler of bugs is never reached, and the server still
plays a game afterwards."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

pytest.importorskip("starlette")  # the optional serve extra: pip install ".[serve]"
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402
from starlette.testclient import TestClient  # noqa: E402

from borders_sim.serve import Settings, create_app  # noqa: E402

JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner,
                                                                max_size=4),
    max_leaves=12)
FIELDS = st.sampled_from(["players", "seat", "bots", "seed", "action_cards", "record", "action",
                          "x"])
BODIES = (st.dictionaries(FIELDS, JSON, max_size=5).map(lambda d: json.dumps(d).encode())
          | JSON.map(lambda v: json.dumps(v).encode()) | st.binary(max_size=300)
          | st.sampled_from([b"", b"{", b"\x00", b"[" * 3000, b'{"seed": 1e400}',
                             b'{"players": 4, "seat": 0, "bots": ["honest", "honest"]}']))
IDS = st.text(max_size=40) | st.sampled_from(["..", "../..", "%2e%2e", "%00", "a/b", " ", "\x00"])
TRICKS = st.sampled_from(["../", "..%2f", "%2e%2e%2f", "/etc/passwd", "C:\\Windows", "\x00",
                          "game-000000.jsonl\x00.txt", "~", "//", "%252e"])
RECORDS = (st.tuples(TRICKS, st.text(max_size=10)).map("".join) | JSON)
ROUTES = st.sampled_from(["", "/view", "/legal", "/act", "/step", "/nothing"])
AS_JSON = {"Content-Type": "application/json"}
METHODS = st.sampled_from(["GET", "POST", "DELETE", "PUT", "PATCH"])


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    records = tmp_path_factory.mktemp("records")
    (records / "game-000000.jsonl").write_text("not a trace\n")
    app = create_app(Settings(records=records, max_games=8, allow_seeds=True))
    with TestClient(app, raise_server_exceptions=False) as client:
        game = client.post("/api/games", json={"players": 3, "seat": 0, "seed": 1}).json()["id"]
        yield app, client, game


def answered_well(app, r) -> None:
    assert r.status_code < 500, (r.status_code, r.text)
    if r.status_code >= 400:
        error = r.json()["error"]
        assert isinstance(error, str) and "\n" not in error and "Traceback" not in error
    assert app.state.bugs == 0


FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])


@FUZZ
@given(method=METHODS, game_id=IDS, route=ROUTES, body=BODIES, real=st.booleans())
def test_junk_on_any_route_is_a_4xx_or_a_legal_result(server, method, game_id, route, body, real):
    app, client, game = server
    path = f"/api/games/{game if real else quote(game_id, safe='/%.~')}{route}"
    r = client.request(method, path, content=body, headers=AS_JSON)  # (as JSON: the parser's)
    answered_well(app, r)


@FUZZ
@given(body=BODIES)
def test_junk_new_games_are_refused_or_dealt(server, body):
    app, client, _game = server
    answered_well(app, client.post("/api/games", content=body, headers=AS_JSON))
    answered_well(app, client.post("/api/games", content=body))  # (no type: 415 or empty)


@FUZZ
@given(name=RECORDS)
def test_path_tricks_never_open_a_file(server, name):
    app, client, _game = server
    r = client.post("/api/games", json={"record": name})
    answered_well(app, r)
    assert r.status_code in (400, 404, 422)


@FUZZ
@given(action=JSON | st.integers(-10, 2000), seat=st.text(max_size=6) | st.integers(-3, 12)
       .map(str))
def test_junk_actions_and_seats_never_break_a_game(server, action, seat):
    app, client, game = server
    answered_well(app, client.post(f"/api/games/{game}/act", json={"action": action}))
    answered_well(app, client.get(f"/api/games/{game}/view", params={"seat": seat}))
    answered_well(app, client.post(f"/api/games/{game}/step"))


def test_huge_bodies_are_refused_and_the_server_plays_on(server):
    app, client, _game = server
    for body in (b"{" * 10**6, b" " * 10**6, json.dumps({"bots": ["honest"] * 10**5}).encode()):
        r = client.post("/api/games", content=body, headers=AS_JSON)
        assert r.status_code == 413
    r = client.post("/api/games", json={"players": 4, "seat": None, "seed": 9})
    if r.status_code == 429:  # (the fuzz filled the server with games of a person: a new one)
        app = create_app(Settings(allow_seeds=True))
        client = TestClient(app, raise_server_exceptions=False)
        r = client.post("/api/games", json={"players": 4, "seat": None, "seed": 9})
    game = r.json()["id"]
    while not client.get(f"/api/games/{game}").json()["game"]["over"]:
        answered_well(app, client.post(f"/api/games/{game}/step"))
    assert client.get(f"/api/games/{game}").json()["game"]["scores"]
