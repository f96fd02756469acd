"""The trainer's two built-in algorithms side by side, for ``docs/own-algorithm.md``: the time of
one gradient step of each, and each trained by the same command for the same budget.

Usage::

    python benchmarks/algorithms.py                    # both tables (about 5 minutes here)
    python benchmarks/algorithms.py --write-docs       # ... into docs/own-algorithm.md
    python benchmarks/algorithms.py --quick            # every part once, no figure meant

* **A gradient step.** One rollout of ``--rows`` decisions (32 games x 64 steps: the size of a
  PPO minibatch at the defaults) collected by the trainer against the heuristics, then
  ``update()`` of PPO (1 epoch, 1 minibatch: one gradient step) and of A2C (one step over the
  rollout, written against the public API only: :mod:`borders_sim.train.a2c`) on it, each
  ``--repeats`` times alternately from the same weights; the median milliseconds of each and
  their ratio. Both include the per-update preparation (GAE, the sparse rows, the phase groups).
* **Trained.** ``borders-sim train --algorithm NAME`` with the same options for each
  (``--steps 8 --max-updates 480``: short rollouts, as A2C is usually run; 4 players against
  honest, bluffer and collector), then the trainer's own
  evaluation (:func:`borders_sim.train.evaluate`: the policy, sampled, against 3 copies of each
  heuristic, ``--games`` seat-rotated games each on seeds the training never deals).

One torch thread throughout. Every figure in the page's tables comes from this script's run.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

import torch

from borders_sim import cli
from borders_sim.report import markdown_table
from borders_sim.train import A2C, PPO, A2CSettings, PPOSettings, TrainConfig, evaluate  # noqa: E501
from borders_sim.train.trainer import EVAL_BOTS, Trainer
from freshness import measured_at
from harness import add_shared, run

OPPONENTS = "honest,bluffer,collector"


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--algorithms", default="ppo,a2c", help="algorithms (default: ppo,a2c)")
    parser.add_argument("--rows", type=int, nargs=2, default=[32, 64], metavar=("ENVS", "STEPS"),
                        help="the timed rollout: games x steps (default: 32 64)")
    parser.add_argument("--repeats", type=int, default=15, help="timed steps of each (15)")
    parser.add_argument("--steps", default="8",
                        help="each run's --steps: 128 games x 8 steps an update (8)")
    parser.add_argument("--max-updates", default="480",
                        help="updates of each run (480: 491,520 decisions)")
    parser.add_argument("--games", type=int, default=200, help="evaluation games a bot (200)")
    parser.add_argument("--seed", default="1", help="the runs' seed (1)")
    parser.add_argument("--out", default=str(ROOT / "runs" / "algorithms"),
                        help="directory of the runs (one per algorithm)")
    add_shared(parser, quick=dict(rows=[4, 8], repeats=2, max_updates="2", games=4,
                                  out=str(ROOT / "runs" / "algorithms-quick")),
               docs="replace the tables of docs/own-algorithm.md", json=True)
    return parser


def step_times(envs: int, steps: int, repeats: int) -> dict[str, float]:
    """Median milliseconds of one ``update()`` of each rule on one real rollout (module
    docstring)."""
    config = TrainConfig(opponents=tuple(OPPONENTS.split(",")), num_envs=envs, steps=steps,
                         snapshots=0, eval_every=0, max_updates=10**6)
    trainer = Trainer(config, Path("/tmp/borders-bench-algorithms"))
    learner = trainer.main
    learner.collect()
    with torch.no_grad():
        _, last_value = learner.model(torch.from_numpy(learner.obs),
                                      torch.from_numpy(learner.infos["action_mask"]))
    start = copy.deepcopy(learner.model.state_dict())
    rules = {"ppo": PPO(learner.model, PPOSettings(epochs=1, minibatches=1), config, 0),
             "a2c": A2C(learner.model, A2CSettings(), config, 0)}
    times: dict[str, list[float]] = {name: [] for name in rules}
    for _ in range(repeats + 1):  # (the first of each warms up)
        for name, rule in rules.items():
            learner.model.load_state_dict(start)
            rule.reset()
            t0 = time.perf_counter()
            rule.update(learner.rollout, last_value, 0)
            times[name].append(time.perf_counter() - t0)
    return {name: 1000 * statistics.median(t[1:]) for name, t in times.items()}


def train_command(name: str, args: argparse.Namespace) -> list[str]:
    """The ``borders-sim train`` arguments of the run of ``name`` (the same for each but the
    algorithm)."""
    return ["train", "--algorithm", name, "--players", "4", "--opponents", OPPONENTS,
            "--steps", args.steps, "--max-updates", args.max_updates, "--seed", args.seed,
            "--eval-every", "0",
            "--no-progress", "--overwrite", "--out", str(Path(args.out) / name)]


def trained(name: str, args: argparse.Namespace) -> list[str]:
    """One row of the trained table: the run of ``name`` and its evaluation."""
    t0 = time.perf_counter()
    code = cli.main(train_command(name, args))
    if code != 0:
        raise SystemExit(f"borders-sim train --algorithm {name} failed ({code})")
    minutes = (time.perf_counter() - t0) / 60
    policy = Path(args.out) / name / "policy.npz"
    rates = evaluate(policy, 4, args.games, deviators=())["against"]
    return [name, args.max_updates, f"{minutes:.1f}",
            *(f"{rates[bot]['win_rate']:.1%} [{rates[bot]['win_rate_ci95'][0]:.0%}, "
              f"{rates[bot]['win_rate_ci95'][1]:.0%}]" for bot in EVAL_BOTS)]


def measure(args: argparse.Namespace) -> dict:
    """Each rule's milliseconds a gradient step, then each algorithm's run and evaluation."""
    torch.set_num_threads(1)
    stamp = measured_at("algorithm-speed")
    print("timing a gradient step of each rule ...", file=sys.stderr, flush=True)
    ms = step_times(*args.rows, args.repeats)
    rows = []
    for name in args.algorithms.split(","):
        print(f"training with {name} ...", file=sys.stderr, flush=True)
        rows.append(trained(name, args))
    return {"ms": ms, "stamp": stamp, "trained": rows}


def render(figures: dict, args: argparse.Namespace) -> dict[str, str]:
    """The two sections: the speed table (``algorithm-speed``), the trained table
    (``algorithm-figures``)."""
    ms, (envs, steps) = figures["ms"], args.rows
    speed = markdown_table(
        ["algorithm", "ms / gradient step", "vs ppo"],
        [[name, f"{ms[name]:.1f}", f"{ms[name] / ms['ppo']:.2f}x"] for name in ms])
    speed += (f"\n\nOne gradient step on {envs * steps:,} decisions ({envs} games x {steps} "
              f"steps against {OPPONENTS}), median of {args.repeats}, one torch thread: "
              f"`python benchmarks/algorithms.py --write-docs`, {figures['stamp']}.")
    table = markdown_table(["algorithm", "updates", "minutes",
                            *(f"vs 3 {bot}" for bot in EVAL_BOTS)], figures["trained"])
    shown = " ".join(train_command("NAME", args)).replace(str(ROOT) + "/", "")
    table += (f"\n\nEach: `borders-sim {shown}` (NAME the algorithm; 128 games x {args.steps} steps an "
              f"update: PPO makes 8 gradient steps of it, A2C one), then `borders_sim.train.evaluate(DIR/policy.npz, 4, {args.games})`: "
              f"the policy's win rate, sampled, against 3 copies of each heuristic "
              f"({args.games} seat-rotated games each, 95% interval; a fair share is 25%). "
              f"Made by `python benchmarks/algorithms.py --write-docs`.")
    return {"algorithm-speed": speed, "algorithm-figures": table}


def main(argv: list[str] | None = None) -> int:
    run(parser(), measure, render, argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
