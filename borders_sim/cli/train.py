"""``borders-sim train``: train a policy with masked PPO against a league (:mod:`borders_sim.train`).

Needs PyTorch: ``pip install torch==2.13.0`` (a CPU build) then ``pip install
"borders-sim[rl]"``. The output directory gets ``policy.npz`` (play it with ``make("ppo",
weights=DIR)`` or ``--bots ppo@DIR`` in a tournament), ``checkpoints/``, ``curve.csv`` and
``curve.json``, and with ``--plot`` ``curve.png``.
"""

from __future__ import annotations

import argparse
from dataclasses import fields

from .. import __version__
from ..agents.network import parse_net_spec
from ..agents.policies import COMPILED_BOTS
from ..rules import state as st
from ..rules.rewards import REWARD_MODES
from .common import fail, float_in, int_in, seed_arg


def _opponents(text: str) -> tuple[str, ...]:
    """An argparse type: comma-separated league members."""
    names = tuple(item.strip() for item in text.split(","))
    for name in names:
        if name in COMPILED_BOTS or name == "league":
            continue
        try:
            parse_net_spec(name)
        except ValueError as err:
            raise argparse.ArgumentTypeError(
                f"opponents are {', '.join(COMPILED_BOTS)}, ppo[:argmax|:temp=T][@PATH] (frozen "
                f"copies of the shipped policy or a policy file, sampled unless :argmax) or "
                f"league; got {name!r} ({err})") from None
    return names


_minutes = float_in(0, 10080, "a number of minutes above 0 (at most a week)", above=True)
_chance = float_in(0, 1, "a probability from 0 to 1")
_weight = float_in(0, 1000, "a number from 0 to 1000")


def add_parser(sub: argparse._SubParsersAction) -> None:
    # the defaults of the settings (torch is imported by run)
    from ..train.config import PPOSettings, TrainConfig
    d = {f.name: f.default for f in fields(TrainConfig) if f.name != "ppo"}
    tr = sub.add_parser(
        "train", help="train a policy with masked PPO against a league of opponents",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
        description="Train one seat of a BORDERS game with masked PPO in PyTorch. The "
                    "opponents play inside the compiled training env; each game draws one "
                    "member of the pool for all opponent seats (or, with --mixed, one per "
                    "seat), the members the learner beats "
                    "least most often. 'league' is honest, bluffer, collector, strict and "
                    "random plus self-play (frozen snapshots of the learner). The defaults are "
                    "the recipe of the shipped policy. Needs torch (pip install torch==2.13.0, "
                    "then pip install 'borders-sim[rl]').",
        epilog="example: borders-sim train --players 4 --opponents league --minutes 30 "
               "--seed 1 --out runs/ppo --plot")
    tr.add_argument("--players", type=int_in(st.MIN_PLAYERS, st.MAX_PLAYERS),
                    default=d["players"], metavar="N", help="players per game")
    tr.add_argument("--opponents", type=_opponents, default=d["opponents"],
                    metavar="NAME[,NAME...]",
                    help="the pool: bot names, ppo, ppo@PATH, league")
    tr.add_argument("--minutes", type=_minutes, default=d["minutes"], metavar="M",
                    help="wall-clock budget, evaluations and checkpoints included")
    tr.add_argument("--seed", type=seed_arg(), default=d["seed"], metavar="S",
                    help="seeds the games, the league, the network and the samples")
    tr.add_argument("--out", required=True, metavar="DIR",
                    help="output directory (policy.npz, checkpoints/, curve.csv, curve.json)")
    tr.add_argument("--max-updates", type=int_in(1, 10**9), default=None, metavar="U",
                    help="stop after U updates (and anneal the learning rate over them)")
    tr.add_argument("--num-envs", type=int_in(1, 1 << 14), default=d["num_envs"], metavar="E",
                    help="games played side by side")
    tr.add_argument("--steps", type=int_in(1, 1 << 12), default=d["steps"], metavar="T",
                    help="learner decisions per game per update (the rollout length)")
    tr.add_argument("--epochs", type=int_in(1, 100), default=2, metavar="K",
                    help="passes over each rollout")
    tr.add_argument("--minibatches", type=int_in(1, 1 << 12), default=4, metavar="B",
                    help="minibatches per pass")
    tr.add_argument("--lr", type=float, default=d["lr"], help="Adam learning rate")
    tr.add_argument("--hidden", type=int_in(1, 4096), nargs=2, default=list(d["hidden"]),
                    metavar=("H0", "H1"), help="sizes of the two hidden layers")
    tr.add_argument("--reward", choices=REWARD_MODES, default=d["reward"],
                    help="the learner's terminal reward")
    tr.add_argument("--sparse", action="store_true",
                    help="only the terminal reward (default: spread over the game by "
                         "potential-based shaping, same sum)")
    tr.add_argument("--mixed", type=_chance, default=d["mixed"], metavar="P",
                    help="chance that a game seats a member drawn per opponent seat (a mixed "
                         "table) instead of one member in every opponent seat")
    tr.add_argument("--snapshots", type=int_in(0, 64), default=d["snapshots"], metavar="K",
                    help="self-play slots of 'league'")
    tr.add_argument("--snapshot-every", type=int_in(1, 10**6), default=d["snapshot_every"],
                    metavar="U", help="updates between self-play snapshots")
    tr.add_argument("--exploiter-every", type=int_in(0, 10**6), default=d["exploiter_every"],
                    metavar="K", help="train a main exploiter beside the run, against copies of "
                                      "the current policy; every K updates it joins the pool and "
                                      "starts again (0: none)")
    tr.add_argument("--exploiter-slots", type=int_in(1, 64), default=d["exploiter_slots"],
                    metavar="N", help="pool slots for the main exploiter's policies")
    tr.add_argument("--checkpoint-every", type=int_in(1, 10**6),
                    default=d["checkpoint_every"], metavar="U", help="updates between checkpoints")
    tr.add_argument("--eval-every", type=int_in(0, 10**6), default=d["eval_every"],
                    metavar="U", help="updates between evaluations against the heuristics "
                                      "(0: none)")
    tr.add_argument("--eval-games", type=int_in(1, 10**6), default=d["eval_games"],
                    metavar="G", help="games per heuristic in an evaluation")
    tr.add_argument("--init", metavar="PATH", default=None,
                    help="start from this policy file instead of a random network")
    tr.add_argument("--imitate", choices=COMPILED_BOTS, default=d["imitate"], metavar="BOT",
                    help="first learn a compiled bot's choices from demonstrations (behaviour "
                         "cloning), then train by PPO from there")
    tr.add_argument("--imitate-games", type=int_in(1, 10**6), default=d["imitate_games"],
                    metavar="G", help="games of demonstrations for --imitate")
    tr.add_argument("--imitate-epochs", type=int_in(1, 100), default=d["imitate_epochs"],
                    metavar="K", help="passes over the demonstrations")
    tr.add_argument("--anchor", type=_weight, default=PPOSettings.anchor_coef, metavar="C",
                    help="weight of a KL penalty toward the policy the run starts from (the "
                         "imitated bot or --init; 0: none), so PPO improves on it without "
                         "forgetting it")
    tr.add_argument("--anchor-every", type=int_in(0, 10**9), default=PPOSettings.anchor_every,
                    metavar="K", help="move the anchor to the current policy every K updates "
                                      "(a magnet, as in magnetic mirror descent; 0: the anchor "
                                      "stays where the run started)")
    tr.add_argument("--resume", action="store_true",
                    help="continue from the newest checkpoint in --out")
    tr.add_argument("--torch-threads", type=int_in(1, 256), default=d["torch_threads"],
                    metavar="T", help="torch threads (1 is fastest beside the env on 2 cores)")
    tr.add_argument("--device", default=d["device"], metavar="DEV",
                    help="where the update runs: cpu, or cuda (a GPU; the env and the acting "
                         "network stay on the CPU)")
    tr.add_argument("--plot", action="store_true", help="also draw curve.png (matplotlib)")
    tr.add_argument("--no-progress", action="store_true", help="no progress bar")
    tr.set_defaults(run=run)


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    try:
        import torch  # noqa: F401  (only whether it is installed)
    except ImportError:
        return fail(parser, "training needs PyTorch: pip install torch==2.13.0 (a CPU build), "
                            "then pip install 'borders-sim[rl]'")
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            return fail(parser, "--plot needs matplotlib: pip install 'borders-sim[plot]'")
    from ..train.config import PPOSettings, TrainConfig
    from ..train.trainer import train

    config = TrainConfig(
        players=args.players, opponents=args.opponents, minutes=args.minutes, seed=args.seed,
        max_updates=args.max_updates, num_envs=args.num_envs, steps=args.steps,
        hidden=tuple(args.hidden), lr=args.lr, reward=args.reward, dense=not args.sparse,
        mixed=args.mixed, snapshots=args.snapshots, snapshot_every=args.snapshot_every,
        exploiter_every=args.exploiter_every, exploiter_slots=args.exploiter_slots,
        checkpoint_every=args.checkpoint_every, eval_every=args.eval_every,
        eval_games=args.eval_games, torch_threads=args.torch_threads, device=args.device,
        init=args.init,
        imitate=args.imitate, imitate_games=args.imitate_games,
        imitate_epochs=args.imitate_epochs,
        ppo=PPOSettings(epochs=args.epochs, minibatches=args.minibatches,
                        anchor_coef=args.anchor, anchor_every=args.anchor_every))
    print(f"borders-sim {__version__} train: {args.players} players against "
          f"{','.join(args.opponents)}, {args.minutes:g} min, seed {args.seed}, into {args.out}",
          flush=True)
    try:
        train(config, args.out, resume=args.resume, progress=not args.no_progress,
              plot=args.plot)
    except (ValueError, OSError) as err:
        return fail(parser, str(err))
    except KeyboardInterrupt:
        print("interrupted: the last checkpoint is in --out; --resume continues from it")
        return 130
    return 0
