"""A language model at a seat (issue 57, items 1 to 3 and 9): ``llm:MODEL@URL`` and
``make("llm", ...)`` play through an OpenAI-compatible server on 127.0.0.1 (the library's
:mod:`borders_sim.llm.local_server`, whose "model" is scripted by its name). No model, no
network: every test here is the harness, its prompt, its retries, its marked fallback, and a
backend's refusal ending the run in one line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from borders_sim import Game, GameConfig, cli
from borders_sim.agents import make
from borders_sim.arena import run_tournament
from borders_sim.arena.records import read_trace, replay
from borders_sim.game.views import observe
from borders_sim.llm import BackendError, bot_factory, legal_list, parse_spec
from borders_sim.llm.local_server import LocalServer
from borders_sim.llm.rules_text import SHIPPED, rules_summary, summary_of

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def server():
    with LocalServer() as running:
        yield running


def _decision(seed: int = 3, skip: int = 5) -> tuple[Game, np.ndarray, np.ndarray]:
    game = Game(GameConfig(num_players=4), seed=seed)
    for _ in range(skip):
        game.step(game.legal_actions()[0])
    p = game.current_player
    return game, observe(game, p), game.legal_mask().astype(bool)


def test_the_spec_names_a_model_and_an_endpoint():
    assert parse_spec("llm:qwen3-4b@http://127.0.0.1:8000/v1") == \
        ("qwen3-4b", "http://127.0.0.1:8000/v1")
    assert parse_spec("llm:qwen3:4b@http://localhost:11434/v1") == \
        ("qwen3:4b", "http://localhost:11434/v1")
    assert parse_spec("llm:org/model-7b@https://api.example.com/v1")[0] == "org/model-7b"
    for bad in ("llm:", "llm:m", "llm:m@", "llm:m@ftp://x", "llm:@http://x", "llm:m@http://a b",
                "llm:m@127.0.0.1:8000"):
        with pytest.raises(ValueError, match="llm:MODEL@URL"):
            parse_spec(bad)
    with pytest.raises(ValueError, match="needs model and base_url"):
        bot_factory("llm")
    with pytest.raises(ValueError, match="retries"):
        make("llm", model="m", base_url="http://127.0.0.1:9/v1", retries=-1)
    with pytest.raises(ValueError, match="unknown bot"):
        make("llm", model="m", base_url="http://127.0.0.1:9/v1", fallback="nosuch")


def test_the_prompt_gives_the_rules_the_view_and_the_legal_list_last(server):
    game, obs, mask = _decision()
    bot = make("llm", model="first", base_url=server.url)
    action = bot.act(obs, mask)
    legal = [int(a) for a in np.flatnonzero(mask)]
    assert action == legal[0]
    system, user = bot.last_messages[0]["content"], bot.last_messages[1]["content"]
    assert rules_summary() in system and '{"action": <id>}' in system
    pairs = [(a, game.action_to_string(a)) for a in legal]
    assert user.endswith(legal_list(pairs))  # the JSON array of {"id", "action"}, last
    assert f"you are p{game.current_player}" in user
    assert "Your legal actions (id: action)" not in user  # (listed once, as JSON)
    sent = server.requests[-1]["body"]
    assert sent["model"] == "first" and sent["messages"] == bot.last_messages[:2]
    none = make("llm", model="first", base_url=server.url, legal="none", view="json")
    text, _ = none.user_message(obs, legal)
    assert '"id"' not in text.rpartition("}")[2] and json.loads(text.rpartition("\n\n")[0])


def test_the_rules_given_are_generated_from_the_rulings():
    rulings = (ROOT / "docs" / "RULINGS.md").read_text(encoding="utf-8")
    assert SHIPPED.read_text(encoding="utf-8") == summary_of(rulings), \
        "borders_sim/llm/rules.md is stale: python -m borders_sim.llm.rules_text docs/RULINGS.md"
    assert "[T]" not in rules_summary() and "→R-" not in rules_summary()
    with pytest.raises(ValueError, match="no section 1.2"):
        summary_of("# nothing")


def test_a_failed_reply_is_asked_again_with_its_reason_then_a_marked_fallback_plays(server):
    game, obs, mask = _decision()
    retried = make("llm", model="bad-2", base_url=server.url, retries=2)
    action = retried.act(obs, mask)
    assert mask[action] and retried.last_note == {"tries": 3}
    assert retried.stats.legal_first == 0 and retried.stats.retries == 2
    reasons = [m["content"] for m in retried.last_messages if m["role"] == "user"][1:]
    assert len(reasons) == 2 and all(r.startswith("Your reply could not be used: ")
                                     for r in reasons)
    junk = make("llm", model="junk", base_url=server.url, retries=1, fallback="honest", seed=5)
    action = junk.act(obs, mask)
    assert action == make("honest", seed=5).act(obs, mask)  # the fallback's own choice
    assert junk.last_note["fallback"] == "honest" and junk.last_note["tries"] == 2
    assert junk.stats.fallbacks == 1 and junk.last_note["failure"]


def test_a_tournament_records_each_decisions_tries_and_marks_fallbacks(server, tmp_path):
    results = run_tournament(3, [f"llm:random@{server.url}", "honest", "bluffer"], games=3,
                             seed=4, record_dir=tmp_path / "ok")
    assert results.games_played == 3
    for path in sorted((tmp_path / "ok").glob("game-??????.jsonl")):
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        llm_seat = lines[0]["lineup"].index(f"llm:random@{server.url}")
        mine = [x for x in lines if x["type"] == "action" and x["seat"] == llm_seat]
        assert mine and all(x["tries"] == 1 and "fallback" not in x for x in mine)
        replay(read_trace(path), echo=lambda _: None)  # (the notes do not disturb a replay)
    run_tournament(3, [f"llm:junk@{server.url}", "honest", "bluffer"], games=1, seed=4,
                   record_dir=tmp_path / "junk")
    lines = (tmp_path / "junk" / "game-000000.jsonl").read_text().splitlines()
    marked = [json.loads(x) for x in lines if '"fallback"' in x]
    assert marked and all(x["fallback"] == "random" and x["tries"] == 3 for x in marked)
    assert len(marked) == sum(json.loads(x).get("seat") == 0 for x in lines[1:-1])


def test_the_key_comes_from_the_environment_and_goes_nowhere_else(server, monkeypatch,
                                                                  tmp_path):
    _, obs, mask = _decision()
    monkeypatch.delenv("BORDERS_LLM_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-XYZZY1")
    make("llm", model="first", base_url=server.url).act(obs, mask)
    assert server.requests[-1]["headers"]["Authorization"] == "Bearer sk-openai-XYZZY1"
    monkeypatch.setenv("BORDERS_LLM_API_KEY", "sk-borders-XYZZY2")
    run_tournament(3, [f"llm:first@{server.url}", "honest", "honest"], games=1,
                   record_dir=tmp_path / "rec")
    assert server.requests[-1]["headers"]["Authorization"] == "Bearer sk-borders-XYZZY2"
    for written in (tmp_path / "rec").iterdir():  # (the trace and the transcript)
        assert "XYZZY" not in written.read_text()
    monkeypatch.delenv("BORDERS_LLM_API_KEY")
    monkeypatch.delenv("OPENAI_API_KEY")
    make("llm", model="first", base_url=server.url).act(obs, mask)
    assert "Authorization" not in server.requests[-1]["headers"]


@pytest.mark.parametrize("model, status", [("status-401", 401), ("status-403", 403),
                                           ("status-404", 404), ("status-429", 429),
                                           ("status-500", 500)])
def test_a_backends_refusal_ends_the_run_never_a_fallback(server, model, status):
    _, obs, mask = _decision()
    bot = make("llm", model=model, base_url=server.url, backoff=0.001)
    with pytest.raises(BackendError) as err:
        bot.act(obs, mask)
    assert err.value.status == status and str(err.value).endswith(f"status {status}")
    assert server.url in str(err.value) and "\n" not in str(err.value)
    assert bot.stats.fallbacks == 0


def test_transport_errors_and_busy_answers_are_retried_with_backoff():
    _, obs, mask = _decision()
    with LocalServer() as fresh:  # (its first 2 requests answer 503)
        bot = make("llm", model="flaky-2", base_url=fresh.url, backoff=0.001)
        assert mask[bot.act(obs, mask)]
        assert len(fresh.requests) == 3 and bot.stats.requests == 1
    with pytest.raises(BackendError, match=r"cannot reach http://127\.0\.0\.1:9/v1/chat/"
                                           r"completions \(ConnectError after 3 tries\)"):
        make("llm", model="m", base_url="http://127.0.0.1:9/v1", http_retries=2,
             backoff=0.001).act(obs, mask)


def test_the_token_ceiling_ends_the_run(server):
    _, obs, mask = _decision()
    bot = make("llm", model="first", base_url=server.url, max_total_tokens=100)
    with pytest.raises(BackendError, match="over the ceiling of 100"):
        bot.act(obs, mask)


def test_the_command_line_ends_a_refused_run_with_the_status_in_its_last_line(server, capsys):
    code = cli.main(["tournament", "--players", "3", "--games", "1", "--bots",
                     f"llm:status-401@{server.url},honest,honest"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and err[-1].endswith("status 401") and server.url in err[-1]
    assert "Traceback" not in "\n".join(err)
    code = cli.main(["tournament", "--players", "3", "--games", "3", "--bots",
                     f"llm:random@{server.url},honest,honest"])
    out = capsys.readouterr().out
    assert code == 0 and "| language model | decisions | legal at 1st reply |" in \
        " ".join(out.split(" ")).replace("  ", "")
    assert f"llm:random: llm:random@{server.url}" in out  # (named short, its spec below)


def test_a_tournament_sums_each_model_seats_figures(server):
    results = run_tournament(3, [f"llm:bad-1@{server.url}", "honest", f"llm:first@{server.url}"],
                             games=3, seed=2)
    figures = {b["name"].partition("@")[0]: b.get("figures") for b in results.bots}
    bad, first = figures["llm:bad-1"], figures["llm:first"]
    assert figures["honest"] is None
    decisions = results.steps.sum()
    assert 0 < bad["decisions"] and 0 < first["decisions"] < decisions
    assert bad["legal_first_pct"] == 0 and bad["retries"] == bad["decisions"]
    assert bad["requests"] == 2 * bad["decisions"] and bad["fallbacks"] == 0
    assert first["legal_first_pct"] == 100 and first["requests"] == first["decisions"]
    assert first["prompt_tokens"] > 0 and first["mean_seconds"] > 0


@pytest.mark.parametrize("option, value", [("timeout", 0), ("http_retries", -1),
                                           ("backoff", -1.0), ("temperature", 3.0),
                                           ("max_tokens", 0), ("max_total_tokens", "many"),
                                           ("legal", "some"), ("view", "html")])
def test_a_bad_option_is_refused_at_the_door_naming_it(option, value):
    with pytest.raises(ValueError, match=option):
        make("llm", model="m", base_url="http://127.0.0.1:9/v1", **{option: value})


def test_many_games_wait_at_once_and_the_results_do_not_depend_on_it():
    """``concurrency`` games in flight (threads), each going on when its reply arrives; 1 plays
    one decision at a time; the games are the same either way."""
    lineup = ["llm:slow-5@{url}", "honest", "llm:random@{url}"]
    played = {}
    for concurrency in (1, 6):
        with LocalServer() as fresh:
            bots = [b.format(url=fresh.url) for b in lineup]
            results = run_tournament(3, bots, games=6, seed=9, concurrency=concurrency)
            played[concurrency] = (results.scores.tolist(), fresh.max_in_flight)
    assert played[1][0] == played[6][0]
    assert played[1][1] == 1 and played[6][1] > 1
    with pytest.raises(ValueError, match="concurrency"):
        run_tournament(3, ["honest"] * 3, games=1, concurrency=0)


def test_table_talk_reaches_the_other_models_and_shows_in_records_and_replays(server, tmp_path):
    from borders_sim.agents.seats import as_seat, with_options

    talker = with_options(as_seat(f"llm:talk@{server.url}"), talk=True)
    listener = as_seat(f"llm:first@{server.url}")
    run_tournament(3, [talker, "honest", listener], games=1, seed=1, record_dir=tmp_path,
                   concurrency=1)
    trace = read_trace(tmp_path / "game-000000.jsonl")
    said = set(trace.talk.values())
    assert said == {"Nothing to see in my crate."}
    heard = [m["content"] for r in server.requests if r["body"]["model"] == "first"
             for m in r["body"]["messages"] if m["role"] == "user"]
    shown = [text for text in heard if "Table talk since your last decision" in text]
    assert shown and all('p0: "Nothing to see in my crate."' in text for text in shown)
    lines: list[str] = []
    replay(trace, echo=lines.append)
    assert lines.count('  p0 says: "Nothing to see in my crate."') == len(trace.talk)
    quiet = run_tournament(3, [f"llm:talk@{server.url}", "honest", "honest"], games=1,
                           record_dir=tmp_path / "quiet")
    assert quiet.games_played == 1 and not read_trace(tmp_path / "quiet" /
                                                      "game-000000.jsonl").talk
    with pytest.raises(ValueError, match="only a spec's bot takes options"):
        with_options(as_seat(lambda seed: None), talk=True)


def test_the_replay_page_shows_the_talk(server, tmp_path):
    from tests.browser import browser
    from tests.test_replay_browser import wait_ready

    from borders_sim.agents.seats import as_seat, with_options

    talker = with_options(as_seat(f"llm:talk@{server.url}"), talk=True)
    run_tournament(3, [talker, "honest", "honest"], games=1, seed=3, record_dir=tmp_path)
    page = tmp_path / "game.html"
    assert cli.main(["replay", str(tmp_path / "game-000000.jsonl"), "--html", str(page)]) == 0
    with browser() as driver:
        driver.get(page.as_uri())
        wait_ready(driver)
        texts = driver.execute_script(
            "return Array.from(document.querySelectorAll('#log li')).map(li => li.textContent)")
    assert any(text.endswith('says "Nothing to see in my crate."') for text in texts)


def test_a_recorded_tournament_replays_without_any_endpoint_bit_for_bit(tmp_path, capsys):
    with LocalServer() as fresh:
        lineup = f"llm:random@{fresh.url},honest,llm:bad-1@{fresh.url}"
        args = ["tournament", "--players", "3", "--games", "3", "--seed", "5", "--llm-talk",
                "--bots", lineup, "--no-progress"]
        assert cli.main([*args, "--record", str(tmp_path / "first"),
                         "--json", str(tmp_path / "first.json")]) == 0
        recorded = len(fresh.requests)
    first = capsys.readouterr().out
    files = sorted(p.name for p in (tmp_path / "first").iterdir())
    assert files == [f"game-00000{g}{kind}" for g in range(3) for kind in (".jsonl", ".llm.jsonl")]
    header = json.loads((tmp_path / "first" / "game-000000.llm.jsonl").read_text().splitlines()[0])
    assert header["format"] == "borders-sim-llm-transcript" and set(header["seats"]) == {"0", "2"}
    lines = (tmp_path / "first" / "game-000001.llm.jsonl").read_text().splitlines()
    assert sum(1 for _ in (tmp_path / "first").glob("*.llm.jsonl")) == 3 and recorded > 3
    # the server is gone: the replay reaches no endpoint
    assert cli.main([*args, "--llm-replay", str(tmp_path / "first"), "--record",
                     str(tmp_path / "again"), "--json", str(tmp_path / "again.json")]) == 0
    again = capsys.readouterr().out
    for name in files:
        assert (tmp_path / "first" / name).read_bytes() == (tmp_path / "again" / name).read_bytes()
    assert json.loads((tmp_path / "first.json").read_text())["bots"] == \
        json.loads((tmp_path / "again.json").read_text())["bots"]
    assert first.split("\n\n")[:2] == again.split("\n\n")[:2]  # the tables, figures included
    # another tournament is not the recorded one; nor is an edited transcript
    code = cli.main([*args[:6], "6", *args[7:], "--llm-replay", str(tmp_path / "first")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and "replay the recorded tournament" in err[-1]
    first_request = json.loads(lines[1])
    first_request["messages"][0]["content"] += " "
    lines[1] = json.dumps(first_request)
    (tmp_path / "first" / "game-000001.llm.jsonl").write_text("\n".join(lines) + "\n")
    code = cli.main([*args, "--llm-replay", str(tmp_path / "first")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 1 and "the request differs from the recorded one" in err[-1]
    assert cli.main([*args, "--llm-replay", str(tmp_path / "nothing")]) == 1
    assert "no such directory" in capsys.readouterr().err


def test_the_prompt_lists_the_other_seats_decisions_since_the_last_as_this_seat_saw_them():
    with LocalServer() as fresh:
        run_tournament(3, [f"llm:first@{fresh.url}", "honest", "bluffer"], games=1, seed=2,
                       concurrency=1)
        users = [m["content"] for r in fresh.requests for m in r["body"]["messages"]
                 if m["role"] == "user"]
    marker = "What the other seats did since your last decision:\n"
    listed = [line.strip() for text in users if marker in text
              for line in text.split(marker)[1].split("\n\n")[0].splitlines()]
    assert listed and all(line.startswith(("p1: ", "p2: ")) for line in listed)
    packs = [line for line in listed if ": pack " in line]
    assert packs and all(line.endswith(": pack a card") for line in packs)  # (never the card)


def test_a_structured_request_constrains_the_action_to_the_legal_ids(server):
    _, obs, mask = _decision()
    for talk in (False, True):
        bot = make("llm", model="first", base_url=server.url, structured=True, talk=talk)
        bot.act(obs, mask)
        form = server.requests[-1]["body"]["response_format"]
        schema = form["json_schema"]["schema"]
        assert form["type"] == "json_schema" and form["json_schema"]["strict"] is not talk
        assert schema["properties"]["action"]["enum"] == [int(a) for a in np.flatnonzero(mask)]
        assert schema["required"] == ["action"] and ("talk" in schema["properties"]) is talk
    make("llm", model="first", base_url=server.url).act(obs, mask)
    assert "response_format" not in server.requests[-1]["body"]


def test_a_tool_call_reply_goes_through_the_same_parse(server, tmp_path, capsys):
    """``tools=True`` (``--llm-tools``): the request offers the function tool ``act`` whose
    arguments are the reply object (its action one of the legal ids) and asks for its call; the
    call's arguments are parsed as a reply is, a bad call asked again, and a recorded run
    replays."""
    game, obs, mask = _decision()
    legal = [int(a) for a in np.flatnonzero(mask)]
    bot = make("llm", model="last", base_url=server.url, tools=True)
    assert bot.act(obs, mask) == legal[-1]
    body = server.requests[-1]["body"]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "act"}}
    tool, = body["tools"]
    assert tool["function"]["name"] == "act" and "response_format" not in body
    assert tool["function"]["parameters"]["properties"]["action"]["enum"] == legal
    assert bot.transcript["requests"][-1]["reply"] == json.dumps({"action": legal[-1]})
    _, obs2, mask2 = _decision(seed=17)  # (a prompt the server has not answered yet)
    retried = make("llm", model="bad-2", base_url=server.url, retries=2, tools=True)
    assert mask2[retried.act(obs2, mask2)] and retried.stats.retries == 2
    with pytest.raises(ValueError, match="choose one"):
        make("llm", model="m", base_url=server.url, tools=True, structured=True)

    lineup = f"llm:random@{server.url},honest,bluffer"
    args = ["tournament", "--players", "3", "--bots", lineup, "--games", "2", "--seed", "9",
            "--llm-tools", "--no-progress", "--json"]
    assert cli.main(args + [str(tmp_path / "a.json"), "--record", str(tmp_path / "rec")]) == 0
    assert cli.main(args + [str(tmp_path / "b.json"), "--llm-replay", str(tmp_path / "rec")]) == 0
    a, b = (json.loads((tmp_path / f"{x}.json").read_text())["bots"] for x in "ab")
    assert [r["wins"] for r in a] == [r["wins"] for r in b]
    assert a[0]["figures"]["legal_first_pct"] == 100
