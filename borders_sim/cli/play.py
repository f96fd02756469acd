"""``borders-sim play``: one game in the terminal against bots (:mod:`.terminal`)."""

from __future__ import annotations

import argparse
import sys

from ..agents import REGISTRY
from ..arena import default_lineup
from ..rules import state as st
from ..rules.config import GameConfig
from .common import DEFAULT_PLAYERS, PLAYER_COUNTS, int_in, seed_arg
from .terminal import GameAbandoned, play_human
from .tournament import seats_arg


def add_parser(sub: argparse._SubParsersAction) -> None:
    known = ", ".join(REGISTRY)
    play = sub.add_parser(
        "play", help="play a game in the terminal against bots",
        description="Play one game in the terminal: you see your view of the table and your "
                    "legal actions with their ids, and answer with an id or an action string; "
                    "the bots' moves are printed as they happen.")
    play.add_argument("--seat", type=int_in(0, st.MAX_PLAYERS - 1), default=0, metavar="P",
                      help="your seat, from 0 (default: 0)")
    play.add_argument("--bots", type=seats_arg, default=None, metavar="a,b,...",
                      help=f"the other seats' bots in seat order; bots: {known}, specs such as "
                           "ppo:argmax, or your own MODULE:NAME (default: the compiled bots)")
    play.add_argument("--players", type=int_in(st.MIN_PLAYERS, st.MAX_PLAYERS), default=None,
                      metavar="N", help="number of players (default: one more than --bots, "
                                        f"else {DEFAULT_PLAYERS})")
    play.add_argument("--seed", type=seed_arg(), default=0, metavar="S",
                      help="the deal's seed (default: 0)")
    play.add_argument("--no-action-cards", action="store_true",
                      help="play without the 22 action cards")
    play.set_defaults(run=run)


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.bots is not None:
        bots = args.bots
        players = args.players if args.players is not None else len(bots) + 1
        if len(bots) != players - 1:
            parser.error(f"--bots lists {len(bots)} bot(s), but {players} players need "
                         f"{players - 1} besides you")
    else:
        players = args.players if args.players is not None else DEFAULT_PLAYERS
        bots = default_lineup(players - 1)
    if players not in PLAYER_COUNTS:
        parser.error(f"{len(bots)} bots and you make {players} players; games have "
                     f"{PLAYER_COUNTS[0]} to {PLAYER_COUNTS[-1]}")
    if not 0 <= args.seat < players:
        parser.error(f"argument --seat: must be from 0 to {players - 1} with {players} players, "
                     f"got {args.seat}")
    config = GameConfig(num_players=players, action_cards=not args.no_action_cards)
    try:
        play_human(args.seat, bots, args.seed, config)
    except GameAbandoned as why:
        print(f"game abandoned: {why}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ngame abandoned", file=sys.stderr)
        return 130
    return 0

