"""``borders-sim train``: train a policy with masked PPO (or ``--algorithm``) against a league
(:mod:`borders_sim.train`).

``--algorithm`` picks the update rule: ``ppo`` (the default), ``a2c`` or the user's own as
``MODULE:FACTORY`` (imported from the current directory too; :mod:`borders_sim.train.algorithm`),
its settings ``--algorithm-arg KEY=VALUE`` (repeatable, typed by its settings dataclass; PPO's
``--epochs``, ``--minibatches``, ``--anchor`` and ``--anchor-every`` set the settings of those
names of another algorithm too, where it has them). The main exploiter uses the same unless
``--exploiter-algorithm`` names another.

Needs PyTorch: ``pip install torch==2.13.0`` (the CPU build), then ``pip install ".[rl]"`` in the
source checkout. The output directory gets ``policy.npz`` (play it with ``make("ppo",
weights=DIR)`` or ``--bots ppo@DIR`` in a tournament), ``checkpoints/``, ``curve.csv`` and
``curve.json``, and with ``--plot`` ``curve.png``.

The directory is the run's own (:mod:`borders_sim.train.trainer`): a directory holding another
run is refused unless ``--resume`` (continue it from its newest checkpoint) or ``--overwrite``
(delete that run's files first); ``DIR/.lock`` refuses a second live run on it. ``--resume``
takes the run's settings again: those that shape the run must be the checkpoint's (a
difference is refused naming the setting and both values); only ``--minutes``,
``--checkpoint-every``, ``--eval-every``, ``--eval-games``, ``--threads``, ``--torch-threads``,
``--device``, ``--plot`` and ``--no-progress`` may change. ``--max-updates`` is the learning
rate's horizon, so it must match too, and so must the algorithm and its settings.
"""

from __future__ import annotations

import argparse
from dataclasses import fields
from pathlib import Path

from .. import __version__
from ..policies.network import MAX_HIDDEN
from ..policies.dispatch import COMPILED_BOTS
from ..rules import state as st
from ..install_hints import install_hint, needs
from ..rules.rewards import REWARD_MODES
from ..train.config import (DEFAULT_EVALUATIONS, EVAL_GAMES, MAX_MINUTES, SHORT_EVAL_GAMES,
                            SHORT_MINUTES)
from ..train.league import LEAGUE_BOTS, check_member
from ..user_code import on_path_from_here
from .common import fail, float_in, int_in, seed_arg


def _opponents(text: str) -> tuple[str, ...]:
    """An argparse type: comma-separated league members (:func:`~borders_sim.train.league.
    check_member`), or ``league``."""
    names = tuple(item.strip() for item in text.split(","))
    for name in names:
        if name != "league":
            try:
                check_member(name)
            except ValueError as err:
                raise argparse.ArgumentTypeError(f"{err} (or league: the league bots and "
                                                 f"self-play)") from None
    return names


def _run_dir(text: str) -> Path:
    """An argparse type: a run directory's name (an empty one would train into the working
    directory)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"must name a directory, got {text!r}")
    return Path(text)


class _Defaults(argparse.ArgumentDefaultsHelpFormatter):
    """Shows each option's default, except where there is none to show: a required option, a
    flag, a default of None (the help says what happens without it) or a help that says it."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.required or action.default is None or action.default is False or \
                "default:" in (action.help or ""):
            return action.help
        return super()._get_help_string(action)


_minutes = float_in(0, MAX_MINUTES, "a number of minutes above 0 (at most a week)", above=True)
_chance = float_in(0, 1, "a probability from 0 to 1")
_weight = float_in(0, 1000, "a number from 0 to 1000")
_rate = float_in(0, 1, "a learning rate above 0, at most 1", above=True)


def add_parser(sub: argparse._SubParsersAction) -> None:
    # the defaults of the settings (torch is imported by run)
    from ..train.config import PPOSettings, TrainConfig
    from ..train.algorithm import ALGORITHMS
    from ..train.machine import (CPU_NUM_ENVS, CUDA_NUM_ENVS, default_threads,
                                 default_torch_threads, max_threads)
    d = {f.name: f.default for f in fields(TrainConfig) if f.name != "ppo"}
    tr = sub.add_parser(
        "train", help="train a policy with masked PPO (or --algorithm) against a league of "
                      "opponents",
        formatter_class=_Defaults,
        description="Train one seat of a BORDERS game with masked PPO (or --algorithm: a2c, "
                    "or your own as MODULE:FACTORY) in PyTorch. The "
                    "opponents play inside the compiled training env; each game draws one "
                    "member of the pool for all opponent seats (or, with --mixed, one per "
                    "seat), the members the learner beats "
                    f"least most often. 'league' is {', '.join(LEAGUE_BOTS[:-1])} and "
                    f"{LEAGUE_BOTS[-1]} plus self-play (frozen snapshots of the learner). "
                    "The defaults (below) are one run of 30 minutes against the league: no "
                    "imitation, no anchor, no exploiter. They are not the shipped policy's "
                    "recipe, which is "
                    "a chain of runs, each started from the last one's policy "
                    "(docs/training.md: every stage's command, seed and wall time, read from "
                    "the shipped file). Needs PyTorch: "
                    f"{install_hint('rl', alone=())}.",
        epilog="example: borders-sim train --players 4 --opponents league --minutes 30 "
               "--seed 1 --out runs/ppo --plot")
    tr.add_argument("--players", type=int_in(st.MIN_PLAYERS, st.MAX_PLAYERS),
                    default=d["players"], metavar="N", help="players per game")
    tr.add_argument("--opponents", type=_opponents, default=",".join(d["opponents"]),
                    metavar="NAME[,NAME...]",
                    help="the pool: compiled bot names, ppo, ppo@PATH, ppo-zoo/NAME, league "
                         "(they play inside the compiled training env; train against a Python "
                         "bot with SingleSeatEnv)")
    tr.add_argument("--minutes", type=_minutes, default=d["minutes"], metavar="M",
                    help="wall-clock budget, evaluations and checkpoints included")
    tr.add_argument("--seed", type=seed_arg(), default=d["seed"], metavar="S",
                    help="seeds the games, the league, the network and the samples")
    tr.add_argument("--out", type=_run_dir, required=True, metavar="DIR",
                    help="the run's directory (policy.npz, checkpoints/, curve.csv, curve.json; "
                         "required): refused if it holds another run, unless --resume or "
                         "--overwrite")
    tr.add_argument("--max-updates", type=int_in(1, 10**9), default=d["max_updates"],
                    metavar="U", help="stop after U updates and anneal the learning rate over "
                                      "them (default: no cap, --minutes ends the run, the rate "
                                      "stays)")
    tr.add_argument("--num-envs", type=int_in(1, 1 << 14), default=d["num_envs"], metavar="E",
                    help=f"games played side by side (default: {CPU_NUM_ENVS} on the CPU, "
                         f"{CUDA_NUM_ENVS} with --device cuda)")
    tr.add_argument("--steps", type=int_in(1, 1 << 12), default=d["steps"], metavar="T",
                    help="learner decisions per game per update (the rollout length)")
    tr.add_argument("--algorithm", default=d["algorithm"], metavar="NAME",
                    help=f"the update rule: {', '.join(ALGORITHMS)}, or MODULE:FACTORY (your own: "
                         "factory(model, settings, config, seed) with a Settings dataclass, "
                         "imported from the current directory too)")
    tr.add_argument("--algorithm-arg", action="append", metavar="KEY=VALUE",
                    help="a setting of the algorithm (a field of its Settings dataclass, typed "
                         "by it), repeatable (default: its defaults; PPO's start from the "
                         "options below)")
    tr.add_argument("--exploiter-algorithm", default=None, metavar="NAME",
                    help="the main exploiter's update rule (default: --algorithm's, with its "
                         "settings)")
    tr.add_argument("--exploiter-algorithm-arg", action="append", metavar="KEY=VALUE",
                    help="a setting of --exploiter-algorithm, repeatable")
    tr.add_argument("--epochs", type=int_in(1, 100), default=PPOSettings.epochs, metavar="K",
                    help="passes over each rollout")
    tr.add_argument("--minibatches", type=int_in(1, 1 << 12), default=PPOSettings.minibatches,
                    metavar="B", help="minibatches per pass")
    tr.add_argument("--lr", type=_rate, default=d["lr"], metavar="LR",
                    help="Adam learning rate")
    tr.add_argument("--hidden", type=int_in(1, MAX_HIDDEN), nargs=2, default=list(d["hidden"]),
                    metavar=("H0", "H1"), help="sizes of the two hidden layers (default: "
                                               f"{d['hidden'][0]} {d['hidden'][1]})")
    tr.add_argument("--reward", choices=REWARD_MODES, default=d["reward"],
                    help="the learner's terminal reward")
    tr.add_argument("--sparse", action="store_true",
                    help="only the terminal reward (default: spread over the game by "
                         "potential-based shaping, same sum)")
    tr.add_argument("--mixed", type=_chance, default=d["mixed"], metavar="P",
                    help="chance that a game seats a member drawn per opponent seat (a mixed "
                         "table) instead of one member in every opponent seat")
    tr.add_argument("--deviator", type=_chance, default=d["deviator"], metavar="P",
                    help="chance that a game, once a self-play snapshot exists, seats one "
                         "member drawn from the pool in one opponent seat and the newest "
                         "snapshot in the others (the learner as one of the copies a deviator "
                         "faces, the lineup of borders-sim exploit)")
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
                                      f"(0: none; default: {DEFAULT_EVALUATIONS} a run, after "
                                      "the update that completes each quarter of the budget, "
                                      "--minutes or --max-updates, whichever ends the run)")
    tr.add_argument("--eval-games", type=int_in(1, 10**6), default=d["eval_games"],
                    metavar="G", help=f"games per heuristic in an evaluation (default: "
                                      f"{EVAL_GAMES}, or {SHORT_EVAL_GAMES} for a budget under "
                                      f"{SHORT_MINUTES} minutes)")
    tr.add_argument("--init", metavar="PATH", default=d["init"],
                    help="start from this policy file (default: a random network)")
    tr.add_argument("--imitate", choices=COMPILED_BOTS, default=d["imitate"], metavar="BOT",
                    help="first learn a compiled bot's choices from demonstrations (behaviour "
                         "cloning), then train by PPO from there (default: none)")
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
    again = tr.add_mutually_exclusive_group()
    again.add_argument("--resume", action="store_true",
                       help="continue the run in --out from its newest checkpoint (the highest "
                            "update-N.pt), exactly as it would have gone on. Give the run's "
                            "settings again: those that shape it must be the checkpoint's (a "
                            "difference is refused, named); only --minutes, --checkpoint-every, "
                            "--eval-every, --eval-games, --threads, --torch-threads, --device, "
                            "--plot and --no-progress may change (--max-updates is the "
                            "learning rate's horizon: it must match)")
    again.add_argument("--overwrite", action="store_true",
                       help="delete the files of the run in --out first (policy.npz, "
                            "latest.npz, curve.*, checkpoints/update-*; nothing else)")
    tr.add_argument("--threads", type=int_in(1, max_threads()), default=d["threads"],
                    metavar="N", help=f"numba threads of the env and acting (default from the "
                                      f"cores and --device: {default_threads('cpu')} here on "
                                      f"the CPU, {default_threads('cuda')} with cuda)")
    tr.add_argument("--torch-threads", type=int_in(1, 256), default=d["torch_threads"],
                    metavar="T", help=f"torch threads of the update (default from the cores "
                                      f"and --device: {default_torch_threads('cpu')} here on "
                                      f"the CPU, 1 with cuda; 1 is fastest beside the env on "
                                      f"2 cores)")
    tr.add_argument("--overlap", action="store_true",
                    help="collect the next rollout in a second thread while the update runs "
                         "(the env and acting beside torch, at one update of policy lag)")
    tr.add_argument("--device", default=d["device"], metavar="DEV",
                    help="where the update runs: cpu, or cuda (a GPU; the env and the acting "
                         "network stay on the CPU)")
    tr.add_argument("--plot", action="store_true",
                    help=f"also draw curve.png (needs matplotlib: {install_hint('plot')})")
    tr.add_argument("--no-progress", action="store_true", help="no progress bar")
    tr.set_defaults(run=run)


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    try:
        import torch  # noqa: F401  (only whether it is installed)
    except ImportError:
        return fail(parser, needs("training", "rl", "PyTorch", alone=()))
    if args.plot:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            return fail(parser, needs("--plot", "plot", "matplotlib"))
    from ..train.algorithm import parse_pairs
    from ..train.config import PPOSettings, TrainConfig
    from ..train.trainer import train

    on_path_from_here()  # (MODULE:FACTORY from the current directory)
    try:
        algorithm_args = parse_pairs(args.algorithm_arg or [], "--algorithm-arg")
        exploiter_args = parse_pairs(args.exploiter_algorithm_arg or [],
                                     "--exploiter-algorithm-arg")
    except ValueError as err:
        return fail(parser, str(err))
    ppo = PPOSettings(epochs=args.epochs, minibatches=args.minibatches,
                      anchor_coef=args.anchor, anchor_every=args.anchor_every)
    if args.algorithm != "ppo":  # PPO's options, given, are the settings of those names
        for name, value in vars(ppo).items():
            if value != getattr(PPOSettings, name) and name in ("epochs", "minibatches",
                                                                 "anchor_coef", "anchor_every"):
                algorithm_args.setdefault(name, value)
        ppo = PPOSettings()
    config = TrainConfig(
        players=args.players, opponents=args.opponents, minutes=args.minutes, seed=args.seed,
        max_updates=args.max_updates, num_envs=args.num_envs, steps=args.steps,
        hidden=tuple(args.hidden), lr=args.lr, reward=args.reward, dense=not args.sparse,
        mixed=args.mixed, deviator=args.deviator, snapshots=args.snapshots,
        snapshot_every=args.snapshot_every, exploiter_every=args.exploiter_every,
        exploiter_slots=args.exploiter_slots, checkpoint_every=args.checkpoint_every,
        eval_every=args.eval_every, eval_games=args.eval_games, overlap=args.overlap,
        threads=args.threads,
        torch_threads=args.torch_threads,
        device=args.device, init=args.init,
        imitate=args.imitate, imitate_games=args.imitate_games,
        imitate_epochs=args.imitate_epochs, algorithm=args.algorithm,
        algorithm_args=algorithm_args, exploiter_algorithm=args.exploiter_algorithm,
        exploiter_algorithm_args=exploiter_args, ppo=ppo)
    print(f"borders-sim {__version__} train: {args.algorithm}, {args.players} players against "
          f"{','.join(args.opponents)}, {args.minutes:g} min, seed {args.seed}, into {args.out}",
          flush=True)
    try:
        train(config, args.out, resume=args.resume, overwrite=args.overwrite,
              progress=not args.no_progress, plot=args.plot)
    except (ValueError, OSError) as err:
        return fail(parser, str(err))
    except KeyboardInterrupt:
        print(interrupted(args.out))
        return 130
    return 0


def interrupted(out: Path) -> str:
    """The line ``train`` prints when interrupted: where the run can go on from, if anywhere."""
    from ..train.rundir import checkpoint_number, latest_checkpoint

    found = latest_checkpoint(out)
    if found is None:
        return (f"interrupted before the first checkpoint: nothing to resume; --overwrite "
                f"starts the run in {out} again")
    return (f"interrupted: the newest checkpoint is {found} (update "
            f"{checkpoint_number(found)}); --resume with the same settings continues from it")
