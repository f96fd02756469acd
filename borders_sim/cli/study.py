"""``borders-sim study DIR --out OUT``: a study's records (``serve --study DIR``) as
demonstration shards with a data card (:mod:`borders_sim.arena.study`)."""

from __future__ import annotations

import argparse

from ..arena.study import export_study
from ..rules.rewards import REWARD_MODES
from .common import fail


def add_parser(sub: argparse._SubParsersAction) -> None:
    study = sub.add_parser(
        "study", help="export a study's records (serve --study DIR) as demonstrations",
        description="Replay every game a study recorded (borders-sim serve --study DIR) and "
                    "write every seat's decisions as demonstration shards (the format of "
                    "borders-sim demos: observation, legal mask, action, final reward; the "
                    "bot column names each seat's kind: person, a bot's spec, llm:MODEL@URL) "
                    "with a data card (data_card.json, DATA_CARD.md: games, seats by kind, "
                    "dates, decision times) into OUT.")
    study.add_argument("directory", metavar="DIR", help="the study's directory")
    study.add_argument("--out", required=True, metavar="OUT",
                       help="the directory to write the shards and the data card into")
    study.add_argument("--overwrite", action="store_true",
                       help="replace the shards OUT holds already")
    study.add_argument("--reward", choices=REWARD_MODES, default="win",
                       help="the reward mode of the shards' final rewards (default: win)")
    study.set_defaults(run=run)


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    try:
        card = export_study(args.directory, args.out, args.overwrite, args.reward)
    except ValueError as err:
        return fail(parser, str(err))
    kinds = ", ".join(f"{k} {v}" for k, v in card["decisions_by_kind"].items())
    print(f"{card['games']} games, {card['decisions']} decisions ({kinds}) written to "
          f"{args.out}: {', '.join(card['shards'])}, data_card.json, DATA_CARD.md")
    return 0
