"""RLlib's sampling on BORDERS, per env runner, beside the library's own trainer, in one run.

Usage::

    python benchmarks/rllib.py                # every row (about 3 minutes on 2 cores)
    python benchmarks/rllib.py --quick        # shorter measurements
    python benchmarks/rllib.py --json out.json
    python benchmarks/rllib.py --write-docs   # the throughput section of docs/env-rllib.md

Needs the ``rllib`` extra (Ray RLlib 2.60 and torch). Measured in this process, one torch
thread throughout, each figure after a warm-up, with RLlib's default network (two hidden
layers of 256, the trainer's size) and 4-player games against honest, bluffer and collector
(random opponents for the multi-agent route, where every seat learns):

* env steps/s of one env runner, sampling only (``runner.sample()``, exploring), per route of
  :func:`borders_sim.envs.rllib.ppo_config`: ``multi_agent`` (RLlib's ``MultiAgentEnvRunner``,
  one game per env copy) and ``single_seat`` (RLlib's ``SingleAgentEnvRunner``) with 1 and 8
  env copies, ``training`` (the compiled env, 64 and 256 games per call) with RLlib's own
  ``SingleAgentEnvRunner`` and with :class:`~borders_sim.envs.rllib.TrainingEnvRunner`;
* PPO iterations end to end (sampling and the update) on the ``training`` route with the fast
  runner at the cluster recipe's settings: 256 games and :func:`~borders_sim.envs.rllib.ppo_config`'s
  own batch and epochs (``STEPS_PER_GAME`` steps of each game, ``NUM_EPOCHS`` epochs of
  ``MINIBATCHES`` minibatches): env steps/s;
* the compiled env alone with uniformly random legal learner actions (the ceiling of any
  runner), and the library's trainer (:mod:`borders_sim.train`, 128 games x 64 steps, the
  same network size): learner steps/s end to end, and of its collection alone (its env and
  inference time).
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path


import numpy as np
import torch

from borders_sim.report import markdown_table, si
from freshness import measured_at
from harness import add_shared, load, machine_line, run

POOL = ["honest", "bluffer", "collector"]


def runner_rate(rl, route: str, num_envs: int, seconds: float, fast: bool = True) -> float:
    """Env steps/s of one local env runner of ``route`` sampling ``num_envs`` env copies."""
    from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner
    from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner
    env_config = {"num_players": 4}
    if route != "multi_agent":
        env_config["opponents"] = POOL
    config = rl.ppo_config(route, env_config, num_envs_per_env_runner=num_envs, seed=0,
                           fast_runner=fast)
    cls = (MultiAgentEnvRunner if route == "multi_agent"
           else config.env_runner_cls or SingleAgentEnvRunner)
    runner = cls(config=config)
    fragment = num_envs * max(8, 512 // num_envs)
    runner.sample(num_timesteps=fragment)  # warm-up
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        episodes = runner.sample(num_timesteps=fragment)
        steps += sum(len(e) for e in episodes)
    rate = steps / (time.perf_counter() - start)
    runner.stop()
    return rate


def ppo_rate(rl, num_envs: int, iterations: int) -> float:
    """Env steps/s of whole PPO iterations (sample and update) on the fast training route at
    ``ppo_config``'s own batch and epochs for ``num_envs`` games."""
    config = rl.ppo_config("training", {"num_players": 4, "opponents": POOL},
                           num_envs_per_env_runner=num_envs, seed=0)
    algo = config.build_algo()
    algo.train()  # warm-up
    steps, start = 0, time.perf_counter()
    for _ in range(iterations):
        steps += algo.train()["env_runners"]["num_env_steps_sampled"]
    rate = steps / (time.perf_counter() - start)
    algo.stop()
    return rate


def env_rate(num_envs: int, seconds: float) -> float:
    """Learner steps/s of the compiled env with uniformly random legal learner actions (the
    draw timed apart)."""
    from borders_sim.envs import TrainingEnv
    env = TrainingEnv(num_envs, num_players=4, opponents=POOL, seed=0,
                      autoreset_mode="same_step", mixed=0.0, dense=False, scale_obs=False)
    _, infos = env.reset()
    rng = np.random.default_rng(0)
    steps, start, picking = 0, time.perf_counter(), 0.0
    while time.perf_counter() - start < seconds:
        t = time.perf_counter()
        actions = np.argmax(rng.random((num_envs, infos["action_mask"].shape[1]))
                            * infos["action_mask"], axis=1)
        picking += time.perf_counter() - t
        _, _, _, _, infos = env.step(actions)
        steps += num_envs
    return steps / (time.perf_counter() - start - picking)


def trainer_rates(updates: int) -> tuple[float, float]:
    """The library trainer's learner steps/s, end to end and of its collection (env and
    inference), over ``updates`` updates after a warm-up one."""
    from borders_sim.train import TrainConfig
    from borders_sim.train.trainer import Trainer
    config = TrainConfig(opponents=tuple(POOL), players=4, eval_every=0,
                         checkpoint_every=10**9, snapshots=0)
    trainer = Trainer(config, Path("/tmp/borders-bench-rllib"))
    trainer.step()
    before = dict(trainer.main.clock.parts)
    steps0, start = trainer.learner_steps, time.perf_counter()
    for _ in range(updates):
        trainer.step()
    seconds = time.perf_counter() - start
    steps = trainer.learner_steps - steps0
    parts = {k: trainer.main.clock.parts[k] - before.get(k, 0.0) for k in before}
    collecting = parts.get("env", 0.0) + parts.get("inference", 0.0)
    return steps / seconds, steps / max(collecting, 1e-9)


def run_line() -> str:
    """The run's date, machine and load, as the tables of docs/env-rllib.md state them."""
    return (f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {machine_line(load())}; "
            f"Python {platform.python_version()}, torch {torch.__version__}; "
            f"{measured_at('rllib-throughput')}")


def summary(rates: dict[tuple[str, str], float]) -> str:
    """The sentence under the table: the one ratio of this run whose two sides do the same work
    (the same env, games and network, sampling only), read from ``rates``. The other rows differ
    in games per runner, clocks or work (one-game routes with 8 envs, the library trainer's 128
    games and its own update), so they are figures, not ratios."""
    fast = [rates[("training, TrainingEnvRunner", f"{n} games")]
            / rates[("training, RLlib's runner", f"{n} games")] for n in (64, 256)]
    return (f"From this run: on the same env, games and network, `TrainingEnvRunner` samples "
            f"{min(fast):.1f} to {max(fast):.1f} times as fast as RLlib's own runner (it skips "
            f"RLlib's connector pipelines and per-episode callbacks). The other rows differ in "
            f"games per runner or in the work timed (the library trainer's rows time its own "
            f"collection and update at 128 games), so they are shown as figures, not compared.")


def measure(args: argparse.Namespace) -> dict:
    """Every row's env steps/s, with the run's line and Ray's version."""
    torch.set_num_threads(1)
    import ray
    import borders_sim.envs.rllib as rl
    seconds = 2.0 if args.quick else 5.0
    header = run_line()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    rows: list[dict] = []

    def row(route: str, how: str, rate: float) -> None:
        rows.append({"route": route, "envs": how, "steps_per_s": rate})
        print(f"{route}, {how}: {si(rate)} steps/s", file=sys.stderr, flush=True)

    for route in ("multi_agent", "single_seat"):
        for n in (1, 8):
            row(f"{route}, RLlib's runner", f"{n} env{'s' if n > 1 else ''}",
                runner_rate(rl, route, n, seconds))
    for n in (64, 256):
        row("training, RLlib's runner", f"{n} games", runner_rate(rl, "training", n, seconds,
                                                                 fast=False))
        row("training, TrainingEnvRunner", f"{n} games", runner_rate(rl, "training", n, seconds))
    row("training, TrainingEnvRunner: PPO, sample + update", "256 games",
        ppo_rate(rl, 256, 1 if args.quick else 2))
    ray.shutdown()
    row("the compiled env alone, random legal actions", "256 games", env_rate(256, seconds))
    whole, collecting = trainer_rates(1 if args.quick else 2)
    row("library trainer (borders-sim train): collection", "128 games", collecting)
    row("library trainer: collection + update", "128 games", whole)
    return {"machine": header, "ray": ray.__version__, "rows": rows}


def render(figures: dict, args: argparse.Namespace) -> str:
    rows = [(r["route"], r["envs"], r["steps_per_s"]) for r in figures["rows"]]
    table = markdown_table(["route (one runner, one torch thread)", "envs", "env steps/s"],
                           [[r, h, si(v)] for r, h, v in rows])
    return (f"**Throughput**: one run of `python benchmarks/rllib.py --write-docs`, "
            f"{figures['machine']}; Ray {figures['ray']}, RLlib's default 256x256 network (the "
            f"trainer's size). Env steps/s of one env runner, sampling only unless the row says, "
            f"4 players; opponents honest, bluffer and collector (every seat learns in "
            f"`multi_agent`):\n\n{table}\n\n{summary({(r, h): v for r, h, v in rows})}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_shared(parser, docs="replace the rllib-throughput section of docs/env-rllib.md",
               json=True)  # --quick: shorter measurements
    run(parser, measure, render, argv, section="rllib-throughput")
    return 0


if __name__ == "__main__":
    sys.exit(main())
