"""``borders-sim mcp`` (issue 57, item 8): one seat for any MCP agent, driven here through the
``mcp`` SDK's own client over stdio, as an agent would: it lists the tools, reads its view and
legal actions, plays a whole game to its end, is refused an illegal action with the parse's
reason, and deals a new game. The table itself (:class:`SeatTable`) is tested without MCP."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest

from borders_sim.llm.mcp_table import SeatTable
from borders_sim.game.views import observe_text


def test_the_table_plays_one_seat_against_bots_to_the_end():
    table = SeatTable(3, "honest,bluffer", seat=1, seed=4)
    assert table.view() == observe_text(table.game, 1)
    assert table.lineup == ["honest", "you", "bluffer"]
    said = table.talk("I carry only coffee.")
    assert said == 'p1 says: "I carry only coffee."' and table.talked[0]["seat"] == 1
    decisions, out = 0, ""
    while (legal := json.loads(table.legal_actions())):
        out = table.act(legal[-1]["action"] if decisions % 2 else legal[0]["id"])
        decisions += 1
    assert table.game.is_terminal and "the game is over: scores" in out
    with pytest.raises(ValueError, match="the game is over"):
        table.act(0)


def test_the_table_refuses_what_is_not_a_legal_action_and_plays_nothing():
    table = SeatTable(4, "honest", seat=0, seed=2)
    steps = int(table.game.state[0]["steps"])
    legal = json.loads(table.legal_actions())
    illegal = next(a for a in range(600) if a not in {x["id"] for x in legal})
    for bad, why in [(illegal, f"action {illegal} is not legal now"),
                     ("DISCARD FISH", "is not the text of a legal action"),
                     (True, "must be an action id")]:
        with pytest.raises(ValueError, match="not played: ") as err:
            table.act(bad)
        assert why.split()[0] in str(err.value)
    assert int(table.game.state[0]["steps"]) == steps
    for bad in [dict(players=2), dict(seat=4), dict(bots=""), dict(bots="nosuch"),
                dict(seed=-1)]:
        with pytest.raises(ValueError):
            table.new_game(**{"players": 4, **bad})
    with pytest.raises(ValueError, match="talk must be"):
        table.talk("x" * 281)


def _play_through_mcp(args: list[str]) -> dict:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    async def session() -> dict:
        server = StdioServerParameters(command=sys.executable,
                                       args=["-m", "borders_sim.cli", "mcp", *args])
        async with Client(server) as client:
            tools = sorted(tool.name for tool in (await client.list_tools()).tools)
            view = (await client.call_tool("view", {})).content[0].text
            refused = await client.call_tool("act", {"action": 100000})
            decisions, last = 0, ""
            while True:
                legal = json.loads((await client.call_tool("legal_actions", {}))
                                   .content[0].text)
                if not legal:
                    break
                last = (await client.call_tool("act", {"action": legal[0]["id"]})).content[0].text
                decisions += 1
            fresh = (await client.call_tool("new_game", {"players": 5, "seat": 2,
                                                         "seed": 7})).content[0].text
        return {"tools": tools, "view": view, "refused": refused, "decisions": decisions,
                "last": last, "fresh": fresh}

    return asyncio.run(session())


def test_an_mcp_client_plays_a_whole_game_over_stdio():
    out = _play_through_mcp(["--players", "3", "--bots", "honest,strict", "--seed", "3"])
    assert out["tools"] == ["act", "legal_actions", "new_game", "talk", "view"]
    assert out["view"].startswith("BORDERS, 3 players; you are p0.")
    assert out["refused"].is_error and "not played: action 100000 is not legal now" in \
        out["refused"].content[0].text
    assert out["decisions"] > 10 and "the game is over: scores" in out["last"]
    assert out["fresh"].startswith("new game: 5 players, seed 7; you are p2")
