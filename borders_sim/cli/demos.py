"""``borders-sim demos``: demonstration data from compiled bots, as ``.npz`` shards
(:mod:`borders_sim.agents.demos`), for behaviour cloning and offline RL."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


from .. import __version__
from ..agents.demos import record_demos, shard_decisions
from ..rules import state as st
from ..rules.rewards import REWARD_MODES
from ..train.lock import owned
from .progress import progress_bar
from .common import fail, int_in, seed_arg
from .tournament import lineup_arg


def _seats(text: str) -> list[int]:
    try:
        seats = [int(item) for item in text.split(",")]
    except ValueError:
        seats = []
    if not seats or any(not 0 <= p < st.MAX_PLAYERS for p in seats):
        raise argparse.ArgumentTypeError(f"seats are a comma-separated list of seat numbers "
                                         f"0..7, got {text!r}")
    return seats


def add_parser(sub: argparse._SubParsersAction) -> None:
    demo = sub.add_parser(
        "demos", help="record the decisions of compiled bots as .npz shards (offline data)",
        description="Play seat-rotated games between compiled bots inside the whole-game "
                    "kernel (game g dealt from seed S+g, as a tournament) and write every "
                    "decision of the chosen seats: observation, legal mask, action, the seat's "
                    "final reward and the game id, as compressed .npz shards in DIR (a DIR "
                    "holding shards already is refused unless --overwrite; DIR/.lock refuses a "
                    "second live run on DIR).")
    demo.add_argument("--bots", type=lineup_arg, required=True, metavar="a,b,...",
                      help="one compiled bot (or ppo spec) per seat; the player count follows")
    demo.add_argument("--games", type=int_in(1, 10**9), required=True, metavar="G",
                      help="games to play")
    demo.add_argument("--seats", type=_seats, default=None, metavar="P[,P...]",
                      help="seats whose decisions are recorded (default: all)")
    demo.add_argument("--seed", type=seed_arg(), default=0, metavar="S",
                      help="game g is dealt from seed S+g (default: 0)")
    demo.add_argument("--reward", choices=REWARD_MODES, default="win",
                      help="the final reward written beside each decision (default: win)")
    demo.add_argument("--shard-games", type=int_in(1, 10**6), default=256, metavar="K",
                      help="games per shard (default: 256)")
    demo.add_argument("--out", required=True, metavar="DIR", help="directory of the shards")
    demo.add_argument("--overwrite", action="store_true",
                      help="remove the shards an earlier run left in DIR first (default: refuse "
                           "such a DIR, so that two data sets never mix)")
    demo.add_argument("--no-progress", action="store_true", help="no progress bar")
    demo.set_defaults(run=run)


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    print(f"borders-sim {__version__} demos: {args.games} games of {','.join(args.bots)}, seed "
          f"{args.seed}, into {args.out}", file=sys.stderr)
    t0 = time.perf_counter()
    say = lambda text: print(f"borders-sim demos: {text}", file=sys.stderr)  # noqa: E731
    try:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        with owned(out, say), progress_bar(total=args.games, unit="game", desc="demos",
                                   disable=args.no_progress, file=sys.stderr,
                                   leave=False) as bar:
            paths = record_demos(out, args.bots, args.games, args.seed, args.seats,
                                 args.reward, shard_games=args.shard_games, progress=bar.update,
                                 overwrite=args.overwrite)
        decisions = sum(shard_decisions(path) for path in paths)
    except (ValueError, OSError) as err:
        return fail(parser, str(err))
    print(f"{decisions:,} decisions of {args.games} games in {len(paths)} shard(s) written to "
          f"{args.out} in {time.perf_counter() - t0:.1f} s")
    return 0
