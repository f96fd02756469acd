"""How the compiled parts scale with threads and batch size, in one run and one table.

Usage::

    python benchmarks/scaling.py                  # 1, 2, 4, ... every usable core
    python benchmarks/scaling.py --device cuda    # the trainer's update on a GPU
    python benchmarks/scaling.py --quick          # one batch size, short measurements
    python benchmarks/scaling.py --write-docs     # the scaling section of docs/speed.md

Per thread count (numba's threads: 1, 2, 4, ... and every usable core) and batch size
(games side by side), each measured after a warm-up:

* **rollouts**: decisions/s of uniformly random 4-player games in the batch kernel
  (:func:`borders_sim.batch.rollouts.play_batch`, as ``benchmarks/rollouts.py`` times it);
* **env**: learner steps/s of the compiled training env
  (:class:`~borders_sim.envs.training.TrainingEnv`, 4 players, opponents drawn from honest,
  bluffer, collector and random), the learner's random legal actions timed apart;
* **trainer**: learner steps/s of ``borders-sim train``'s trainer end to end (collection and
  update, the recipe's network and rollout length; ``--trainer-batches`` sizes, fewer than the
  others on a CPU where an update of 4,096 games takes minutes), torch's threads as
  :mod:`borders_sim.train.machine` sets them for ``--device``.

Each figure comes with its speed-up over one thread at the same batch size and that speed-up
per thread (the efficiency per core: 1.00 is perfect scaling).
"""

from __future__ import annotations

import argparse
import sys
import time


import numba
import torch

from borders_sim import GameConfig
from borders_sim.batch.rollouts import make_batch
from borders_sim.report import markdown_table, si
from borders_sim.cli.simulate import DEFAULT_MAX_STEPS
from borders_sim.train import TrainConfig
from borders_sim.train.machine import default_torch_threads, max_threads, usable_cores  # noqa: E501
from freshness import measured_at
from rollouts import time_kernel
from train import POOL, env_rate, trainer_rate
from harness import add_shared, load, machine_line, run


def thread_counts(cores: int) -> list[int]:
    """1, 2, 4, ... below ``cores``, then ``cores`` itself (at most numba's maximum)."""
    top = min(cores, max_threads())
    counts, t = [], 1
    while t < top:
        counts.append(t)
        t *= 2
    return counts + [top]


def ints(text: str) -> list[int]:
    """A comma-separated list of positive ints."""
    try:
        values = [int(v) for v in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected numbers separated by commas, got {text!r}")
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"expected positive numbers, got {text!r}")
    return values


def rollout_rate(games: int, seconds: float) -> float:
    """Decisions/s of ``games`` random 4-player games in the batch kernel (the median of
    repeats filling about ``seconds``), on numba's current thread count."""
    template, seeds = make_batch(GameConfig(num_players=4), 0, games)
    time_kernel(template, seeds, numba.get_num_threads(), 1, DEFAULT_MAX_STEPS)  # warm-up
    took, decisions, _ = time_kernel(template, seeds, numba.get_num_threads(), 1,
                                     DEFAULT_MAX_STEPS)
    repeat = max(1, min(9, int(seconds / max(took, 1e-6))))
    took, decisions, _ = time_kernel(template, seeds, numba.get_num_threads(), repeat,
                                     DEFAULT_MAX_STEPS)
    return decisions / took


def learner_rate(games: int, threads: int, device: str, updates: int) -> float:
    """The trainer's learner steps/s with ``games`` side by side on ``threads`` numba threads."""
    config = TrainConfig(players=4, opponents=POOL, num_envs=games, threads=threads,
                         torch_threads=default_torch_threads(device), device=device,
                         eval_every=0, checkpoint_every=10**9, snapshots=0)
    return trainer_rate(updates, config)["steps_per_s"]


def cell(rate: float, base: float | None, threads: int) -> str:
    """A figure, its speed-up over one thread and that speed-up per thread, in one cell."""
    if not rate:
        return "-"
    if base is None:
        return si(rate)
    return f"{si(rate)} {rate / base:.2f}x {rate / base / threads:.2f}"


def settle(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The thread counts and the trainer's batches, from the machine and ``--device``."""
    cores = usable_cores()
    args.threads = (thread_counts(min(2, cores)) if args.quick
                    else args.threads or thread_counts(cores))
    if max(args.threads) > max_threads():
        parser.error(f"argument --threads: at most {max_threads()} here (numba's maximum; "
                     f"set NUMBA_NUM_THREADS before starting to allow more)")
    args.trainer_batches = args.trainer_batches or (
        [128, 1024, 4096] if args.device.startswith("cuda") else [128, 1024])


def measure(args: argparse.Namespace) -> dict:
    """Each figure at each batch and thread count: ``[kind, games, threads, rate]`` rows."""
    start = load()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    stamp = measured_at("scaling")
    gpu = (f", {torch.cuda.get_device_name(0)}" if args.device.startswith("cuda")
           and torch.cuda.is_available() else "")
    t0 = time.perf_counter()
    rates: list[list] = []
    for batch in sorted(set(args.batches) | set(args.trainer_batches)):
        for t in args.threads:
            numba.set_num_threads(t)
            found = {}
            if batch in args.batches:
                found["rollouts"] = rollout_rate(batch, args.seconds)
                found["env"] = env_rate(4, batch, args.seconds)
            if batch in args.trainer_batches:
                found["trainer"] = learner_rate(batch, t, args.device, args.updates)
            rates += [[kind, batch, t, rate] for kind, rate in found.items()]
            print(f"{batch} games, {t} threads: " + ", ".join(
                f"{k} {si(rate)}/s" for k, rate in found.items()), file=sys.stderr, flush=True)
    return {"rates": rates, "load": start, "started": started, "stamp": stamp, "gpu": gpu,
            "minutes": (time.perf_counter() - t0) / 60}


def render(figures: dict, args: argparse.Namespace) -> str:
    rates = {(kind, batch, t): rate for kind, batch, t, rate in figures["rates"]}
    threads = args.threads
    rows = []
    for batch in sorted(set(args.batches) | set(args.trainer_batches)):
        for t in threads:
            row = [str(t), f"{batch:,}"]
            for kind in ("rollouts", "env", "trainer"):
                base = rates.get((kind, batch, threads[0])) if threads[0] == 1 else None
                row.append(cell(rates.get((kind, batch, t), 0.0), base, t))
            rows.append(row)
    head = ["threads", "games", "rollouts, decisions/s", "env, steps/s",
            "trainer, learner steps/s"]
    command = "python benchmarks/scaling.py" + (f" --device {args.device}"
                                                if args.device != "cpu" else "")
    return (f"**Scaling** (`{command} --write-docs`, {figures['started']}, {figures['stamp']}; "
            f"{machine_line(figures['load'])}{figures['gpu']}; numba {numba.__version__} up to "
            f"{max_threads()} threads, torch {torch.__version__} with "
            f"{default_torch_threads(args.device)} thread(s) for the update on "
            f"{args.device}; {figures['minutes']:.1f} min). Random 4-player "
            f"rollouts, the training env against compiled heuristics and random, and the "
            f"trainer end to end. Each cell: the figure, its speed-up over one thread at the "
            f"same number of games, and that speed-up per thread (1.00: perfect scaling):\n\n"
            f"{markdown_table(head, rows)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=ints, default=None,
                        help="numba thread counts (default: 1, 2, 4, ... every usable core)")
    parser.add_argument("--batches", type=ints, default=[128, 512, 1024, 4096],
                        help="games side by side for rollouts and the env "
                             "(default: 128,512,1024,4096)")
    parser.add_argument("--trainer-batches", type=ints, default=None,
                        help="games side by side for the trainer (default: 128,1024 on the "
                             "CPU, 128,1024,4096 with --device cuda)")
    parser.add_argument("--device", default="cpu", help="the trainer's update: cpu or cuda")
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="seconds per rollout and env figure (default: 3)")
    parser.add_argument("--updates", type=int, default=2,
                        help="timed trainer updates per figure, after a warm-up one (default: 2)")
    add_shared(parser, quick=dict(batches=[128], trainer_batches=[128], seconds=0.3,
                                  updates=1),
               docs="replace the scaling section of docs/speed.md", json=True)
    run(parser, measure, render, argv, section="scaling", check=settle)
    return 0


if __name__ == "__main__":
    sys.exit(main())
