"""``borders-sim train``: train a policy with masked PPO (or ``--algorithm``) against a league
(:mod:`borders_sim.train`).

``--algorithm`` picks the update rule: ``ppo`` (the default), ``a2c`` or the user's own as
``MODULE:FACTORY`` (imported from the current directory too; :mod:`borders_sim.train.algorithm`),
its settings ``--algorithm-arg KEY=VALUE`` (repeatable, typed by its settings dataclass). The
options of PPO's settings (``--epochs``, ``--gamma``, ``--anchor``, ...) set the settings of
those names of another algorithm too; one it lacks is refused, never dropped
(:func:`config_of`). The main exploiter uses the same unless ``--exploiter-algorithm`` names
another. Every option of a setting is generated from its declaration, the field of
:class:`~borders_sim.train.config.TrainConfig` or :class:`~borders_sim.train.ppo.PPOSettings`
(:mod:`borders_sim.cli.flags`): its help, bounds and default are written there once.

Needs PyTorch: ``pip install torch==2.13.0`` (the CPU build), then ``pip install ".[rl]"`` in the
source checkout. The output directory gets ``policy.npz`` (play it with ``make("ppo",
weights=DIR)`` or ``--bots ppo@DIR`` in a tournament), ``checkpoints/``, ``curve.csv`` and
``curve.json``, and with ``--plot`` ``curve.png``.

The directory is the run's own (:mod:`borders_sim.train.trainer`): a directory holding another
run is refused unless ``--resume`` (continue it from its newest checkpoint) or ``--overwrite``
(delete that run's files first); ``DIR/.lock`` refuses a second live run on it. ``--resume``
takes the run's settings again: those that shape the run must be the checkpoint's (a
difference is refused naming the setting and both values); only the options of
:data:`~borders_sim.train.config.RESUMABLE`, ``--plot`` and ``--no-progress`` may change (the
``--resume`` help lists them). ``--max-updates`` is the learning rate's horizon, so it must
match too, and so must the algorithm and its settings.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from .. import __version__
from ..install_hints import install_hint, needs
from ..train.league import LEAGUE_BOTS
from ..user_code import on_path_from_here
from .common import fail
from .flags import add_settings, given_settings

if TYPE_CHECKING:
    from ..train.config import TrainConfig


def _run_dir(text: str) -> Path:
    """An argparse type: a run directory's name (an empty one would train into the working
    directory)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"must name a directory, got {text!r}")
    return Path(text)


def add_parser(sub: argparse._SubParsersAction) -> None:
    # the settings' declarations (torch is imported by run)
    from ..train.config import RESUMABLE, TrainConfig, option_of
    from ..train.ppo import PPOSettings
    tr = sub.add_parser(
        "train", help="train a policy with masked PPO (or --algorithm) against a league of "
                      "opponents",
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
                    "the shipped file). Every setting below is a field of "
                    "borders_sim.train.TrainConfig (or PPOSettings, beside PPO), declared there once. "
                    f"Needs PyTorch: {install_hint('rl', alone=())}.",
        epilog="example: borders-sim train --players 4 --opponents league --minutes 30 "
               "--seed 1 --out runs/ppo --plot")
    tr.add_argument("--out", type=_run_dir, required=True, metavar="DIR",
                    help="the run's directory (policy.npz, checkpoints/, curve.csv, curve.json; "
                         "required): refused if it holds another run, unless --resume or "
                         "--overwrite")
    config = add_settings(tr.add_argument_group("the run (TrainConfig)"), TrainConfig)
    rule = add_settings(tr.add_argument_group(
        "the update rule (PPOSettings; with another --algorithm, its settings of these names)"),
        PPOSettings, given_only=True)
    tr.set_defaults(config_names=config, rule_names=rule)
    changeable = sorted(map(option_of, RESUMABLE))
    again = tr.add_mutually_exclusive_group()
    again.add_argument("--resume", action="store_true",
                       help="continue the run in --out from its newest checkpoint (the highest "
                            "update-N.pt), exactly as it would have gone on. Give the run's "
                            "settings again: those that shape it must be the checkpoint's (a "
                            "difference is refused, named); only "
                            f"{', '.join(changeable)}, --plot and --no-progress may change "
                            "(--max-updates is the learning rate's horizon: it must match)")
    again.add_argument("--overwrite", action="store_true",
                       help="delete the files of the run in --out first (policy.npz, "
                            "latest.npz, curve.*, checkpoints/update-*; nothing else)")
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
    from ..train.trainer import train

    on_path_from_here()  # (MODULE:FACTORY from the current directory)
    try:
        config = config_of(args)
    except ValueError as err:
        return fail(parser, str(err))
    print(f"borders-sim {__version__} train: {config.algorithm}, {config.players} players "
          f"against {','.join(config.opponents)}, {config.minutes:g} min, seed {config.seed}, "
          f"into {args.out}", flush=True)
    try:
        train(config, args.out, resume=args.resume, overwrite=args.overwrite,
              progress=not args.no_progress, plot=args.plot)
    except (ValueError, OSError) as err:
        return fail(parser, str(err))
    except KeyboardInterrupt:
        print(interrupted(args.out))
        return 130
    return 0


def config_of(args: argparse.Namespace) -> TrainConfig:
    """The run's :class:`~borders_sim.train.config.TrainConfig` from the parsed options: every
    setting as given or by default; the update rule's options (given only) are PPO's settings,
    or with another ``--algorithm`` its settings of those names, never dropped.

    Raises:
        ValueError: a rule's option the algorithm has no setting of, an option that
            ``--algorithm-arg`` gives another value, or a ``KEY=VALUE`` without ``=``.
    """
    from ..train.algorithm import parse_pairs, setting_names
    from ..train.config import TrainConfig
    from ..train.ppo import PPOSettings, rule_option

    values = given_settings(args, args.config_names)
    values["algorithm_args"] = parse_pairs(values["algorithm_args"] or [], "--algorithm-arg")
    values["exploiter_algorithm_args"] = parse_pairs(values["exploiter_algorithm_args"] or [],
                                                     "--exploiter-algorithm-arg")
    rule = given_settings(args, args.rule_names)
    if values["algorithm"] == "ppo":
        return TrainConfig(**values, settings=PPOSettings(**rule) if rule else None)
    names = setting_names(values["algorithm"])
    for name, value in rule.items():
        option = rule_option(name)
        if name not in names:
            raise ValueError(f"{option}: algorithm {values['algorithm']} has no setting "
                             f"{name!r} (its settings: {', '.join(names) or 'none'})")
        other = values["algorithm_args"].setdefault(name, value)
        if other is not value and str(other) != str(value):
            raise ValueError(f"{option} {value} and --algorithm-arg {name}={other} set the same "
                             f"setting: give one")
    return TrainConfig(**values)


def interrupted(out: Path) -> str:
    """The line ``train`` prints when interrupted: where the run can go on from, if anywhere."""
    from ..train.rundir import checkpoint_number, latest_checkpoint

    found = latest_checkpoint(out)
    if found is None:
        return (f"interrupted before the first checkpoint: nothing to resume; --overwrite "
                f"starts the run in {out} again")
    return (f"interrupted: the newest checkpoint is {found} (update "
            f"{checkpoint_number(found)}); --resume with the same settings continues from it")
