"""``borders-sim mcp``: one seat of a BORDERS table as a Model Context Protocol server over
stdio (:mod:`borders_sim.llm.mcp_table`), so any MCP-capable agent can play against bots. Needs
the ``mcp`` extra; without it the command says so in one line."""

from __future__ import annotations

import argparse
import sys

from ..install_hints import install_hint
from ..rules import state as st
from ..user_code import on_path_from_here
from .common import int_in


def add_parser(sub: argparse._SubParsersAction) -> None:
    mcp = sub.add_parser(
        "mcp", help="one seat against bots for any MCP agent (a Model Context Protocol "
                    "server over stdio)",
        description="Serve one seat of a BORDERS game over the Model Context Protocol (stdio): "
                    "the tools new_game, view, legal_actions, act and talk play that seat "
                    "against bots, seeing only what the seat may know. Point an MCP client "
                    "at the command 'borders-sim mcp'. Needs the mcp extra: "
                    f"{install_hint('mcp')}.")
    mcp.add_argument("--players", type=int_in(st.MIN_PLAYERS, st.MAX_PLAYERS), default=4,
                     metavar="N", help="players of the first game, 3..8 (default: 4)")
    mcp.add_argument("--bots", default="honest,bluffer,strict", metavar="a,b,...",
                     help="the bots of the other seats, in order, cycled (default: "
                          "honest,bluffer,strict; any spec of 'tournament --bots')")
    mcp.add_argument("--seat", type=int_in(0, st.MAX_PLAYERS - 1), default=0, metavar="P",
                     help="the agent's seat (default: 0)")
    mcp.add_argument("--seed", type=int_in(0, 2**64 - 1), default=None, metavar="S",
                     help="the first game's seed (default: a random one, said in new_game's "
                          "reply)")
    mcp.set_defaults(run=run)


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    try:
        from ..llm.mcp_table import SeatTable, mcp_server
        import mcp  # noqa: F401  (only whether it is installed)
    except ImportError as err:
        print(f"{parser.prog}: error: needs {err.name}: {install_hint('mcp')}", file=sys.stderr)
        return 1
    on_path_from_here()  # (--bots MODULE:NAME from the current directory)
    try:
        table = SeatTable(args.players, args.bots, args.seat, args.seed)
    except ValueError as err:
        print(f"{parser.prog}: error: {err}", file=sys.stderr)
        return 2
    mcp_server(table).run("stdio")
    return 0
