"""``borders-sim serve``: the JSON API played as a front end would play it (Starlette's
TestClient), what a seat may see, recorded games and the paths a request may name, the limits
on games and bodies, and the command line."""

from __future__ import annotations

import json
import os
import sys

import pytest

pytest.importorskip("starlette")  # the optional serve extra: pip install ".[serve]"
from starlette.testclient import TestClient  # noqa: E402

from borders_sim import Game, GameConfig, cli  # noqa: E402
from borders_sim.agents import as_seat  # noqa: E402
from borders_sim.agents.lineup import make_spec  # noqa: E402
from borders_sim.arena.records import read_trace  # noqa: E402
from borders_sim.batch.seeds import bot_seed  # noqa: E402
from borders_sim.envs import observe  # noqa: E402
from borders_sim.game.drawing import seen_action  # noqa: E402
from borders_sim.game.views import observe_json  # noqa: E402
from borders_sim.serve import Settings, create_app  # noqa: E402
from borders_sim.serve.refusals import Refused  # noqa: E402
from borders_sim.serve.sessions import Sessions  # noqa: E402
from borders_sim.serve.table import play_table  # noqa: E402

BOTS = ["honest", "bluffer", "strict"]


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """A directory with two recorded 4-player games."""
    where = tmp_path_factory.mktemp("records")
    assert cli.main(["tournament", "--players", "4", "--bots", "random,honest,bluffer,strict",
                     "--games", "2", "--seed", "5", "--record", str(where), "--threads", "1",
                     "--no-progress"]) == 0
    return where


@pytest.fixture
def client(records):
    app = create_app(Settings(records=records, allow_seeds=True))  # (games replicated here)
    with TestClient(app, raise_server_exceptions=False) as c:
        yield c
    assert app.state.bugs == 0


def new_game(client, **body) -> str:
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()["id"]


def test_a_whole_game_through_the_api_to_the_final_scores(client):
    """A person in seat 1 against three bots, to the end: at every decision the API's view is
    the seat's own observe_json, the bots move as the same bots move in a local game of the same
    seed, and each bot move comes as the person saw it."""
    seat, seed = 1, 21
    game_id = new_game(client, players=4, seat=seat, bots=BOTS, seed=seed)
    local = Game(GameConfig(num_players=4), seed=seed)
    names = BOTS[:seat] + ["you"] + BOTS[seat:]
    bots = {p: make_spec(name, bot_seed(seed, p)) for p, name in enumerate(names) if p != seat}
    decisions = 0
    while not local.is_terminal:
        view = client.get(f"/api/games/{game_id}/view").json()
        assert view["seat"] == seat and view["view"] == observe_json(local, seat)
        assert view["svg"].startswith("<svg") and view["game"]["scores"] is None
        p = local.current_player
        if p == seat:
            legal = client.get(f"/api/games/{game_id}/legal").json()
            assert [a["id"] for a in legal["actions"]] == local.legal_actions()
            choice = legal["actions"][decisions % len(legal["actions"])]
            r = client.post(f"/api/games/{game_id}/act", json={"action": choice["action"]})
            a = choice["id"]
        else:
            assert client.get(f"/api/games/{game_id}/legal").json()["actions"] == []
            a = bots[p].act(observe(local, p), local.legal_mask().astype(bool))
            r = client.post(f"/api/games/{game_id}/step")
        assert r.status_code == 200, r.text
        local.step(a)
        seen = seen_action(p, a, None if local.is_terminal else seat, local.config.gold_menu)
        assert r.json()["move"] == seen
        decisions += 1
    status = client.get(f"/api/games/{game_id}").json()["game"]
    assert status["over"] and status["moves"] == decisions
    assert status["scores"] == local.scores() and status["winners"] == local.winners()


def test_the_bots_menu_offers_only_what_a_new_game_accepts(client):
    """Every player count ``GET /api/bots`` offers is accepted, with its default lineups (a
    person's game and a watched one), and the counts around them are refused."""
    menu = client.get("/api/bots").json()
    assert sorted(int(n) for n in menu["default_lineups"]) == menu["players"]
    for n in menu["players"]:
        lineups = menu["default_lineups"][str(n)]
        assert len(lineups["play"]) == n - 1 and len(lineups["watch"]) == n
        assert set(lineups["play"] + lineups["watch"]) <= set(menu["bots"])
        new_game(client, players=n, seat=0, bots=lineups["play"], seed=1)
        new_game(client, players=n, seat=None, bots=lineups["watch"], seed=1)
    for n in (min(menu["players"]) - 1, max(menu["players"]) + 1):
        assert client.post("/api/games", json={"players": n}).status_code == 400


def test_only_the_persons_seat_is_seen_while_the_game_runs(client):
    game_id = new_game(client, players=5, seat=2, seed=3)
    for seat in ("0", "4", "table"):
        r = client.get(f"/api/games/{game_id}/view?seat={seat}")
        assert r.status_code == 403 and "hidden while the game runs" in r.json()["error"]
    r = client.get(f"/api/games/{game_id}/view?seat=2")
    assert r.status_code == 200 and "table" not in r.json()
    while not client.get(f"/api/games/{game_id}").json()["game"]["over"]:
        legal = client.get(f"/api/games/{game_id}/legal").json()["actions"]
        r = (client.post(f"/api/games/{game_id}/act", json={"action": legal[0]["id"]}) if legal
             else client.post(f"/api/games/{game_id}/step"))
        assert r.status_code == 200
    for seat in ("0", "4", "table"):  # after the end every card may be seen
        assert client.get(f"/api/games/{game_id}/view?seat={seat}").status_code == 200
    assert client.post(f"/api/games/{game_id}/step").status_code == 409


def test_the_log_hides_the_cards_others_packed_until_the_end(client):
    """While the game runs, another seat's pack is "pack a card" in the person's log; once it
    is over the whole table's log names every card."""
    game_id = new_game(client, players=4, seat=0, seed=8)
    while not client.get(f"/api/games/{game_id}").json()["game"]["over"]:
        legal = client.get(f"/api/games/{game_id}/legal").json()["actions"]
        r = (client.post(f"/api/games/{game_id}/act", json={"action": legal[-1]["id"]}) if legal
             else client.post(f"/api/games/{game_id}/step"))
        move = r.json()["move"]
        if move["seat"] != "p0" and not r.json()["game"]["over"]:
            assert move["action"] == "pack a card" or not move["action"].startswith("pack")
    log = client.get(f"/api/games/{game_id}/view?seat=table").json()["log"]
    packs = [m["action"] for m in log if m["action"].startswith("pack")]
    assert packs and all(a.startswith("pack ") and a != "pack a card" for a in packs)
    seen = client.get(f"/api/games/{game_id}/view?seat=0").json()["log"]
    assert any(m["action"] == "pack a card" for m in seen if m["seat"] != "p0")


def test_a_watch_game_shows_any_seat_and_takes_no_person_move(client):
    game_id = new_game(client, players=3, seat=None, bots=["random", "honest", "ppo"], seed=2)
    for seat in ("0", "1", "2", "table"):
        assert client.get(f"/api/games/{game_id}/view?seat={seat}").status_code == 200
    assert "table" in client.get(f"/api/games/{game_id}/view").json()
    assert client.get(f"/api/games/{game_id}/legal").status_code == 409
    assert client.post(f"/api/games/{game_id}/act", json={"action": 0}).status_code == 409
    for _ in range(5):
        assert client.post(f"/api/games/{game_id}/step").json()["move"]["seat"].startswith("p")


def test_a_recorded_game_steps_to_its_recorded_scores(client, records):
    names = client.get("/api/records").json()["records"]
    assert names == ["game-000000.jsonl", "game-000001.jsonl"]
    r = client.post("/api/games", json={"record": names[1]})
    assert r.status_code == 201 and r.json()["game"]["kind"] == "record"
    game_id = r.json()["id"]
    trace = read_trace(records / names[1])
    assert [s["name"] for s in r.json()["game"]["seats"]] == trace.header["lineup"]
    for _line, seat, a, text in trace.actions:
        move = client.post(f"/api/games/{game_id}/step").json()["move"]
        assert move == {"seat": f"p{seat}", "action": text}
    status = client.get(f"/api/games/{game_id}").json()["game"]
    assert status["over"] and status["scores"] == trace.result["scores"]
    assert status["winners"] == trace.result["winners"]


@pytest.mark.parametrize("name, status", [
    ("../game-000000.jsonl", 400), ("/etc/passwd", 400), ("..", 400), ("a/b.jsonl", 400),
    ("%2e%2e%2fgame-000000.jsonl", 400), ("game-000000.jsonl\x00", 400), ("", 400),
    (7, 400), (None, 400), (["game-000000.jsonl"], 400), ("missing.jsonl", 404),
    ("outside.jsonl", 404), ("loop.jsonl", 404), ("folder.jsonl", 404), ("junk.jsonl", 422),
])
def test_no_path_of_a_request_leaves_the_records_directory(client, records, name, status):
    outside = records.parent / "outside-target.jsonl"
    outside.write_text((records / "game-000000.jsonl").read_text())
    for link, target in (("outside.jsonl", outside), ("loop.jsonl", records / "loop.jsonl")):
        if not os.path.lexists(records / link):
            os.symlink(target, records / link)
    (records / "folder.jsonl").mkdir(exist_ok=True)
    (records / "junk.jsonl").write_text("not a trace\n")
    r = client.post("/api/games", json={"record": name})
    assert r.status_code == status and "\n" not in r.json()["error"]
    if name == "junk.jsonl":
        assert str(records) not in r.json()["error"]  # the server's paths are not told
    assert "outside.jsonl" not in client.get("/api/records").json()["records"]


def test_without_a_records_directory_no_record_opens():
    with TestClient(create_app()) as c:
        assert c.get("/api/records").json() == {"records": []}
        r = c.post("/api/games", json={"record": "game-000000.jsonl"})
        assert r.status_code == 404 and "--records" in r.json()["error"]


@pytest.mark.parametrize("body, status, words", [
    ({"players": 9}, 400, "players"), ({"players": "4"}, 400, "players"),
    ({"seat": 4}, 400, "seat"), ({"seat": True}, 400, "seat"), ({"seed": -1}, 400, "seed"),
    ({"seed": 2**64}, 400, "seed"), ({"bots": ["honest"]}, 400, "must list 3"),
    ({"bots": "honest,honest,honest"}, 400, "bots"), ({"bots": ["ppo@/etc/passwd"] * 3}, 400,
                                                      "unknown bot"),
    ({"colour": "red"}, 400, "unknown field"), ({"action_cards": 1}, 400, "action_cards"),
    ({"record": "game-000000.jsonl", "seed": 1}, 400, "unknown field"),
])
def test_a_bad_new_game_is_a_400_naming_the_field(client, body, status, words):
    r = client.post("/api/games", json=body)
    assert r.status_code == status and words in r.json()["error"]


def test_moves_out_of_turn_and_illegal_ones_are_refused(client):
    game_id = new_game(client, players=4, seat=3, seed=1)
    r = client.post(f"/api/games/{game_id}/act", json={"action": 0})
    assert r.status_code == 409 and "not your turn" in r.json()["error"]
    while not client.get(f"/api/games/{game_id}").json()["game"]["your_turn"]:
        client.post(f"/api/games/{game_id}/step")
    assert client.post(f"/api/games/{game_id}/step").status_code == 409
    legal = {a["id"] for a in client.get(f"/api/games/{game_id}/legal").json()["actions"]}
    illegal = next(a for a in range(1000) if a not in legal)
    for action, status in ((illegal, 422), (10**6, 422), (-1, 422), ("fly away", 422),
                           (1.5, 400), (None, 400), ([1], 400), (True, 400)):
        r = client.post(f"/api/games/{game_id}/act", json={"action": action})
        assert r.status_code == status, (action, r.text)
    assert client.post(f"/api/games/{game_id}/act", json={}).status_code == 400
    assert client.get(f"/api/games/{game_id}").json()["game"]["moves"] >= 0


JSON = {"Content-Type": "application/json"}


def test_a_body_over_the_limit_is_413_and_junk_bodies_400(client):
    r = client.post("/api/games", content=b'{"seed": ' + b"1" * 20000 + b"}")
    assert r.status_code == 413
    r = client.post("/api/games", content=(b"x" * 10 for _ in range(5000)))  # chunked, no length
    assert r.status_code == 413
    for junk in (b"{", b"[1, 2]", b"\xff\xfe", b"[" * 5000 + b"]" * 5000, b'{"seed": 1e999}',
                 b'"text"', b"nan"):
        r = client.post("/api/games", content=junk, headers=JSON)
        assert r.status_code in (400, 413) and "\n" not in r.json()["error"], junk[:20]


def test_another_sites_page_cannot_create_or_play_games(client):
    """The probe's page on another origin created games with no-cors text/plain POSTs: a body
    must be sent as application/json (which such a page cannot send without asking), and a
    request naming another Origin is refused before anything changes."""
    before = client.get("/api/records").status_code
    body = b'{"players": 3, "seat": 0}'
    for headers in ({"Content-Type": "text/plain"}, {},
                    {"Content-Type": "application/x-www-form-urlencoded"}):
        r = client.post("/api/games", content=body, headers=headers)
        assert r.status_code == 415 and "application/json" in r.json()["error"]
    for origin in ("null", "http://evil.example", "file://"):
        r = client.post("/api/games", json={"players": 3, "seat": 0}, headers={"Origin": origin})
        assert r.status_code == 403 and "another origin" in r.json()["error"]
    own = client.post("/api/games", json={"players": 3, "seat": 0},
                      headers={"Origin": "http://testserver"})
    assert own.status_code == 201 and before == 200
    game_id = own.json()["id"]
    for method, path in (("POST", f"/api/games/{game_id}/act"),
                         ("POST", f"/api/games/{game_id}/step"),
                         ("DELETE", f"/api/games/{game_id}")):
        r = client.request(method, path, json={"action": 0} if path.endswith("act") else None,
                           headers={"Origin": "http://evil.example"})
        assert r.status_code == 403, (method, path)
    assert client.get(f"/api/games/{game_id}").status_code == 200  # (still there)


def test_games_expire_when_idle_and_the_oldest_idle_makes_room():
    now = [0.0]
    sessions = Sessions(idle_seconds=60, max_games=2, clock=lambda: now[0])
    tables = [play_table(GameConfig(num_players=3), seed, None, [as_seat("random")] * 3)
              for seed in range(3)]  # (watched games: a person's is never dropped for room)
    first = sessions.add(tables[0])
    now[0] = 10
    second = sessions.add(tables[1])
    now[0] = 20
    third = sessions.add(tables[2])
    assert len(sessions) == 2 and first != second != third
    with pytest.raises(Refused, match="no open game"):
        with sessions.use(first):
            pass
    now[0] = 75  # the second idle for 65 s
    assert len(sessions) == 1


def test_games_are_bounded_and_ids_unguessable(records):
    app = create_app(Settings(max_games=2, allow_seeds=True))
    with TestClient(app) as c:
        ids = [new_game(c, players=3, seat=None, seed=s) for s in range(3)]
        assert len(set(ids)) == 3 and all(len(i) >= 22 for i in ids)
        assert c.get(f"/api/games/{ids[0]}").status_code == 404
        assert c.get(f"/api/games/{ids[2]}").status_code == 200
        assert c.delete(f"/api/games/{ids[2]}").json() == {"deleted": ids[2]}
        assert c.get(f"/api/games/{ids[2]}").status_code == 404


def test_the_page_is_served_and_nothing_else(client):
    page = client.get("/")
    assert page.status_code == 200 and "/static/play.js" in page.text
    assert "http" not in page.text.replace("http-equiv", "")  # nothing from another site
    assert client.get("/static/play.js").headers["content-type"].startswith("text/javascript")
    for path in ("/static/..%2f__init__.py", "/static/app.py", "/static/%00", "/etc/passwd",
                 "/static/../serve/app.py"):
        r = client.get(path)
        assert r.status_code == 404 and r.json()["error"], path
    assert client.post("/").status_code == 405
    assert client.post("/api/games/x/view").status_code == 405


def test_only_the_loopback_host_header_is_answered_when_bound_to_it():
    with TestClient(create_app(Settings(allowed_hosts=("127.0.0.1", "localhost", "::1")))) as c:
        for host in ("evil.example", "127.0.0.1.evil.example", "[::2]:8000", "[", ""):
            r = c.get("/api/bots", headers={"host": host})
            assert r.status_code == 400 and "answers only the hosts" in r.json()["error"], host
        for host in ("localhost:8000", "127.0.0.1", "[::1]:8000", "[::1]", "LOCALHOST"):
            assert c.get("/api/bots", headers={"host": host}).status_code == 200, host


def test_a_trailing_slash_is_a_json_404_not_a_redirect(client):
    for path in ("/api/games/", "/api/bots/"):
        r = client.get(path, follow_redirects=False)
        assert r.status_code == 404 and r.json() == {"error": "no such page or API route"}


# --- the command line --------------------------------------------------------------------
def test_serve_starts_uvicorn_on_loopback_and_warns_for_another_host(monkeypatch, capsys,
                                                                      records):
    served = []
    monkeypatch.setattr("borders_sim.serve.serve",
                        lambda app, host, port: served.append((app, host, port)))
    assert cli.main(["serve", "--port", "8123", "--records", str(records),
                     "--bot", "ppo:argmax"]) == 0
    app, host, port = served[-1]
    assert (host, port) == ("127.0.0.1", 8123) and "warning" not in capsys.readouterr().err
    assert "ppo:argmax" in TestClient(app, base_url="http://127.0.0.1").get(
        "/api/bots").json()["bots"]
    assert cli.main(["serve", "--host", "0.0.0.0"]) == 0
    err = capsys.readouterr().err
    assert served[-1][1] == "0.0.0.0" and "warning: --host 0.0.0.0 opens the server" in err


@pytest.mark.parametrize("argv, words", [
    (["--bot", "nobody"], "unknown bot"), (["--records", "/nonexistent/dir"], "not a directory"),
])
def test_serve_refuses_bad_options_in_one_line(capsys, argv, words):
    assert cli.main(["serve", *argv]) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and words in err


def test_without_the_serve_extra_one_line_says_which_extra(monkeypatch, capsys):
    gone = ("starlette", "uvicorn", "borders_sim.serve")
    for name in [m for m in sys.modules if m.partition(".")[0] in gone[:2]
                 or m.startswith(gone[2])]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "starlette", None)
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    assert cli.main(["serve"]) == 1
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and 'pip install ".[serve]"' in err


def test_a_bot_of_your_own_is_offered_from_the_command_line_only(tmp_path, monkeypatch):
    """--bot MODULE:NAME puts a user's bot on the menu, a game seats it; a request can name
    only what the menu holds, never a module."""
    (tmp_path / "servebots.py").write_text(
        "import numpy as np\n\n"
        "class Last:\n"
        "    def __init__(self, seed):\n        self.seed = seed\n"
        "    def act(self, observation, action_mask):\n"
        "        return int(np.flatnonzero(action_mask)[-1])\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "servebots", raising=False)
    app = create_app(Settings(bots=("servebots:Last",), allow_seeds=True))
    with TestClient(app, raise_server_exceptions=False) as c:
        assert "servebots:Last" in c.get("/api/bots").json()["bots"]
        game_id = new_game(c, players=3, seat=None, bots=["servebots:Last", "honest", "honest"],
                           seed=2)
        assert c.get(f"/api/games/{game_id}").status_code == 200
        r = c.post("/api/games", json={"players": 3, "seat": None,
                                       "bots": ["os:getcwd", "honest", "honest"]})
        assert r.status_code == 400 and "os:getcwd" in r.text
    assert app.state.bugs == 0
    sys.modules.pop("servebots", None)


def test_a_client_that_hangs_up_mid_body_is_refused_not_a_bug():
    """The probe's hang-ups were logged as "a bug answering POST /api/games" with a traceback:
    the body's reader turns Starlette's ClientDisconnect into a plain 400 refusal."""
    import asyncio

    from starlette.requests import Request

    from borders_sim.serve.bodies import read_json

    async def hang_up() -> dict:
        return {"type": "http.disconnect"}

    scope = {"type": "http", "method": "POST", "path": "/api/games", "headers": [
        (b"content-type", b"application/json"), (b"content-length", b"20")]}
    with pytest.raises(Refused, match="closed the connection before its body was sent") as err:
        asyncio.run(read_json(Request(scope, hang_up)))
    assert err.value.status == 400


def test_a_game_a_person_plays_is_never_dropped_to_make_room():
    """The probe's 64 new games evicted the game a person was playing: now only games without
    a person make room, and when every open game has one the new game is refused (429, JSON)."""
    now = [0.0]
    sessions = Sessions(idle_seconds=60, max_games=2, clock=lambda: now[0])
    person = sessions.add(play_table(GameConfig(num_players=3), 1, 0, [as_seat("random")] * 2))
    now[0] = 1
    watched = sessions.add(play_table(GameConfig(num_players=3), 2, None,
                                      [as_seat("random")] * 3))
    now[0] = 2
    newer = sessions.add(play_table(GameConfig(num_players=3), 3, 0, [as_seat("random")] * 2))
    with sessions.use(person):  # (the person's game stayed; the watched one made room)
        pass
    with pytest.raises(Refused, match="no open game"):
        with sessions.use(watched):
            pass
    with pytest.raises(Refused, match="each with a person in it") as err:
        sessions.add(play_table(GameConfig(num_players=3), 4, None, [as_seat("random")] * 3))
    assert err.value.status == 429 and len(sessions) == 2 and newer != person
    now[0] = 100  # (idle past the limit: a person's game goes too)
    assert len(sessions) == 0


def test_every_ppo_seat_of_a_file_shares_one_copy_of_its_weights(tmp_path):
    """The probe's 64 watch games of 8 ppo seats took 2.8 GB, 5.3 MB a seat: every seat read
    its own copy. A file's weights are read once now (until the file changes), shared by every
    bot at a temperature, and by every temperature's bot for the policy."""
    from borders_sim.agents import make
    from borders_sim.policies.network import SHIPPED_WEIGHTS

    bots = [make("ppo", seed=s) for s in range(8)] + [make("ppo", seed=9, sample=False)]
    assert all(bot.nets.w0 is bots[0].nets.w0 for bot in bots[:8])
    assert all(bot.policy is bots[0].policy for bot in bots)
    copy = tmp_path / "copy.npz"
    copy.write_bytes(SHIPPED_WEIGHTS.read_bytes())
    first = make("ppo", weights=copy)
    assert make("ppo", weights=copy).policy is first.policy
    os.utime(copy, ns=(1, 1))  # (the file changed: read again)
    assert make("ppo", weights=copy).policy is not first.policy
    tables = [play_table(GameConfig(num_players=8), s, None, [as_seat("ppo")] * 8)
              for s in range(4)]
    assert len({id(d.__self__.nets) for t in tables for d in t.deciders}) == 1


def test_seeds_are_secret_unless_the_server_allows_a_choice():
    """The probe dealt a watch game with a person's seed and saw every hand: a server draws
    each game's seed from secrets now, a request naming one is refused (403) unless the
    server was started with --allow-seeds, and no answer shows a seed."""
    with TestClient(create_app()) as c:
        assert c.get("/api/bots").json()["seeds"] is False
        r = c.post("/api/games", json={"players": 3, "seat": 0, "seed": 7})
        assert r.status_code == 403 and "--allow-seeds" in r.json()["error"]
        first = new_game(c, players=3, seat=None)
        second = new_game(c, players=3, seat=None)
        views = [c.get(f"/api/games/{g}/view", params={"seat": "table"}).json()
                 for g in (first, second)]
        assert views[0]["table"] != views[1]["table"]  # (two secret deals)
        for g in (first, second):
            status = c.get(f"/api/games/{g}").text
            assert "seed" not in status.lower()
    with TestClient(create_app(Settings(allow_seeds=True))) as c:
        assert c.get("/api/bots").json()["seeds"] is True
        same = [c.get(f"/api/games/{new_game(c, players=3, seat=None, seed=7)}/view",
                      params={"seat": "table"}).json()["table"] for _ in range(2)]
        assert same[0] == same[1]


def test_several_people_at_one_table_each_with_a_token(client):
    """``"people": [seats]`` seats a person in each (issue 51, item 1, its API): the answer
    holds each person's token and join link; a request sees and acts for its token's seat
    only, never another's; without a token it sees no seat; the game runs to its end with two
    people and a bot."""
    r = client.post("/api/games", json={"players": 3, "people": [0, 2], "bots": ["honest"],
                                        "seed": 4})
    assert r.status_code == 201, r.text
    created = r.json()
    game_id, people = created["id"], {p["seat"]: p for p in created["people"]}
    assert sorted(people) == [0, 2] and created["game"]["people"] == [0, 2]
    assert all(len(p["token"]) >= 32 and p["join"] == f"/#game={game_id}&token={p['token']}"
               for p in people.values())
    auth = {p: {"Authorization": f"Bearer {people[p]['token']}"} for p in people}
    view = client.get(f"/api/games/{game_id}/view", headers=auth[2]).json()
    assert view["seat"] == 2 and view["game"]["human"] == 2
    assert client.get(f"/api/games/{game_id}/view", params={"seat": 0},
                      headers=auth[2]).status_code == 403
    for headers, status in (({}, 403), ({"Authorization": "Bearer nope"}, 403),
                            ({"Authorization": "Basic abc"}, 400)):
        assert client.get(f"/api/games/{game_id}/view", params={"seat": 0},
                          headers=headers).status_code == status
    assert client.get(f"/api/games/{game_id}/legal").status_code == 403
    moves = 0
    while True:
        status = client.get(f"/api/games/{game_id}").json()["game"]
        if status["over"]:
            break
        mover = status["to_move"]
        if mover in people:
            other = 2 if mover == 0 else 0
            legal = client.get(f"/api/games/{game_id}/legal", headers=auth[mover]).json()
            assert legal["seat"] == mover and legal["actions"]
            wrong = client.post(f"/api/games/{game_id}/act", headers=auth[other],
                                json={"action": legal["actions"][0]["id"]})
            assert wrong.status_code == 409
            r = client.post(f"/api/games/{game_id}/act", headers=auth[mover],
                            json={"action": legal["actions"][-1]["id"]})
        else:
            assert client.post(f"/api/games/{game_id}/step", headers=auth[0]).status_code == 200
            r = None
        moves += 1
        if r is not None:
            assert r.status_code == 200, r.text
    assert moves > 20 and client.get(f"/api/games/{game_id}/view",
                                     params={"seat": "table"}).status_code == 200
    for bad, why in (({"people": [0, 0]}, "different seats"), ({"people": []}, "one or more"),
                     ({"people": [0], "seat": 0}, "not both"), ({"people": [5]}, "people item")):
        r = client.post("/api/games", json={"players": 3, **bad})
        assert r.status_code == 400 and why in r.json()["error"], (bad, r.text)


def test_a_language_model_sits_beside_a_person_in_a_served_game():
    """A server started with --bot llm:MODEL@URL offers the model's seat; a game seats it
    beside a person and its moves come through the same step (the test server's model)."""
    from borders_sim.llm.local_server import LocalServer

    with LocalServer() as model:
        spec = f"llm:first@{model.url}"
        with TestClient(create_app(Settings(bots=(spec,)))) as c:
            assert spec in c.get("/api/bots").json()["bots"]
            game_id = new_game(c, players=3, seat=0, bots=[spec, "honest"])
            steps = 0
            while steps < 200:
                status = c.get(f"/api/games/{game_id}").json()["game"]
                if status["over"]:
                    break
                if status["your_turn"]:
                    legal = c.get(f"/api/games/{game_id}/legal").json()["actions"]
                    c.post(f"/api/games/{game_id}/act", json={"action": legal[0]["id"]})
                else:
                    assert c.post(f"/api/games/{game_id}/step").status_code == 200
                steps += 1
        assert model.requests and status["seats"][1]["name"] == spec


def test_an_overdue_persons_turn_is_taken_by_the_declared_stand_in_and_marked():
    """``--seat-timeout`` / ``--stand-in`` (issue 51, item 1): a person's turn that waits past
    the timeout is overdue; a step then takes it with the stand-in bot, seeded as a bot in that
    seat, and the game's status marks the move; within the timeout the step is refused."""
    import time

    settings = Settings(allow_seeds=True, seat_timeout=0.3, stand_in="strict")
    with TestClient(create_app(settings)) as c:
        created = c.post("/api/games", json={"players": 3, "people": [0, 1], "bots": ["honest"],
                                             "seed": 12}).json()
        game_id, seed = created["id"], 12
        local = Game(GameConfig(num_players=3), seed=seed)
        stand_in = make_spec("strict", bot_seed(seed, local.current_player))
        honest = make_spec("honest", bot_seed(seed, 2))
        while local.current_player == 2:  # (the bot's moves first, if it opens the game)
            assert c.post(f"/api/games/{game_id}/step").status_code == 200
            local.step(honest.act(observe(local, 2), local.legal_mask()))
        status = c.get(f"/api/games/{game_id}").json()["game"]
        assert status["seat_timeout"] == 0.3 and not status["overdue"]
        refused = c.post(f"/api/games/{game_id}/step")
        assert refused.status_code == 409 and "after 0.3 s" in refused.json()["error"]
        time.sleep(0.35)
        assert c.get(f"/api/games/{game_id}").json()["game"]["overdue"]
        seat = local.current_player
        moved = c.post(f"/api/games/{game_id}/step").json()
        assert moved["stand_in"] == "strict"
        want = stand_in.act(observe(local, seat), local.legal_mask())
        assert moved["move"] == seen_action(seat, want, -1, local.config.gold_menu)
        assert moved["game"]["stood_in"] == [{"move": moved["game"]["moves"] - 1, "seat": seat,
                                             "bot": "strict"}]
        local.step(want)
        assert c.get(f"/api/games/{game_id}").json()["game"]["moves"] == \
            moved["game"]["moves"]
    with pytest.raises(ValueError, match="stand-in bot 'nobody'"):
        create_app(Settings(seat_timeout=5, stand_in="nobody"))
    status = TestClient(create_app(Settings())).post(
        "/api/games", json={"players": 3, "seat": 0}).json()["game"]
    assert status["seat_timeout"] is None and status["overdue"] is False


def test_a_study_records_each_finished_game_with_people_and_exports_it(tmp_path, capsys):
    """``serve --study DIR`` (issue 51, item 4): the API says the consent line; a finished game
    with people is written as a trace that replays, its seats' kinds and each decision's time
    in it and nothing of the people's tokens; ``borders-sim study DIR --out OUT`` exports it as
    demonstration shards that load, with a data card."""
    from borders_sim.agents.demos import load_shard
    from borders_sim.arena.records import replay
    from borders_sim.serve.study import CONSENT, Study

    study = tmp_path / "study"
    with TestClient(create_app(Settings(study=study, seat_timeout=30))) as c:
        assert c.get("/api/bots").json()["study"] == CONSENT
        created = c.post("/api/games", json={"players": 3, "people": [0, 2],
                                             "bots": ["honest"]}).json()
        game_id = created["id"]
        auth = {p["seat"]: {"Authorization": f"Bearer {p['token']}"} for p in created["people"]}
        while not (status := c.get(f"/api/games/{game_id}").json()["game"])["over"]:
            mover = status["to_move"]
            if mover in auth:
                legal = c.get(f"/api/games/{game_id}/legal", headers=auth[mover]).json()
                c.post(f"/api/games/{game_id}/act", headers=auth[mover],
                       json={"action": legal["actions"][-1]["id"]})
            else:
                assert c.post(f"/api/games/{game_id}/step").status_code == 200
    record, = sorted(study.glob("game-*.jsonl"))
    text = record.read_text()
    assert all(p["token"] not in text for p in created["people"])
    trace = read_trace(record)
    replay(trace, echo=lambda _line: None)
    assert trace.header["seats"] == [{"kind": "person"}, {"kind": "bot", "spec": "honest"},
                                     {"kind": "person"}]
    assert trace.header["lineup"] == ["person", "honest", "person"]
    assert trace.header["study"]["seat_timeout"] == 30 and trace.header["study"]["ended"]
    lines = [json.loads(line) for line in text.splitlines()[1:-1]]
    assert len(lines) == status["moves"] and all(line["seconds"] >= 0 for line in lines)

    out = tmp_path / "out"
    assert cli.main(["study", str(study), "--out", str(out)]) == 0
    assert "1 games" in capsys.readouterr().out
    card = json.loads((out / "data_card.json").read_text())
    assert card["games"] == 1 and card["seats_by_kind"] == {"bot": 1, "person": 2}
    assert card["decisions"] == len(lines) and card["bots"] == {"honest": 1}
    shard = load_shard(out / "shard-000000.npz")
    assert len(shard["action"]) == len(lines) and shard["meta"]["bots"] == ["person", "honest"]
    people = shard["bot"] == 0
    assert set(shard["seat"][people]) == {0, 2} and "Data card" in (out / "DATA_CARD.md").read_text()
    assert cli.main(["study", str(study), "--out", str(out)]) == 1  # (shards there already)
    assert "already holds 1 shard" in capsys.readouterr().err
    watched = play_table(GameConfig(num_players=3), 5, None,
                         [as_seat("honest"), as_seat("strict"), as_seat("honest")])
    assert Study(study).write(watched) is None  # (a game without a person is no study's)
