"""Training throughput: borders_sim's trainer beside sb3-contrib's MaskablePPO, in one run.

Usage::

    python benchmarks/train.py                 # every figure (about 8 minutes)
    python benchmarks/train.py --quick         # short runs (about 2 minutes)
    python benchmarks/train.py --json out.json
    python benchmarks/train.py --write-docs    # the Throughput section of docs/training.md

Measured, one torch thread throughout (on 2 cores two torch threads beside the env ran 6x
slower), each trainer figure after one warm-up update:

* the training env (:class:`borders_sim.envs.training.TrainingEnv`) with its opponents compiled
  (drawn from honest, bluffer, collector and random), the learner's random legal actions chosen
  by a small compiled helper timed apart: learner steps/s at 3, 4, 5 and 8 players;
* the trainer (:mod:`borders_sim.train`, the shipped recipe's network and rollout shape,
  against the heuristics and random): learner steps/s, and the split of its time between the
  env, inference (acting) and the PPO update; and the same trainer with the update's first
  layer dense (the product over all 1870 inputs, as before :mod:`borders_sim.train.sparse`),
  swapped in for this row only; and the trainer with ``--overlap`` (collection in a second
  thread beside the update);
* your own loop: ``examples/ppo_loop.py`` (masked PPO in one file on
  :class:`~borders_sim.envs.TrainingEnv`, built on the trainer's public layers,
  :mod:`borders_sim.train.layers`) at the trainer's settings and opponents: learner steps/s
  (its decisions, not the autoreset steps it drops) after one warm-up update, and its share of
  the trainer's;
* sb3-contrib's ``MaskablePPO`` at the trainer's settings (:func:`matched_kwargs`): the
  compiled env through :class:`borders_sim.envs.sb3.SB3VecEnv` with the trainer's games,
  steps per update, epochs and minibatches, opponents and network (a shared 256x256 trunk,
  linear policy and value heads), the same gradient work per learner step; and, as context,
  at its defaults (``MlpPolicy``, ``n_steps=2048``, 10 epochs of 64-sample minibatches) on
  :class:`~borders_sim.envs.SingleSeatEnv` against random opponents (the Python env) and on
  ``SB3VecEnv``;
* the ratio of the trainer to MaskablePPO at matched settings (the headline), and to its
  defaults, all from this run.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import sys
import time
from dataclasses import replace
from pathlib import Path


import numpy as np
import torch
from numba import njit

from borders_sim.report import markdown_table, si
from freshness import measured_at
from borders_sim.envs import SingleSeatEnv
from borders_sim.envs.sb3 import SB3VecEnv
from borders_sim.envs.training import TrainingEnv
from borders_sim.train import TrainConfig
from borders_sim.train.model import PolicyValueNet
from borders_sim.train.trainer import Trainer
from harness import add_shared, load, machine_line, run

POOL = ("honest", "bluffer", "collector", "random")
#: The trainer's time split's parts, as the docs' sentence names them.
WHAT = {"update": "the PPO update", "inference": "acting (the network's inference)",
        "env": "the env"}


@njit(cache=True)
def random_actions(masks, state, out):
    """A uniformly random legal action per row of ``masks`` (xorshift in ``state``)."""
    for i in range(masks.shape[0]):
        count = 0
        for a in range(masks.shape[1]):
            count += masks[i, a]
        x = state[0]
        x ^= x << np.uint64(13)
        x ^= x >> np.uint64(7)
        x ^= x << np.uint64(17)
        state[0] = x
        k = x % np.uint64(count)
        for a in range(masks.shape[1]):
            if masks[i, a]:
                if k == 0:
                    out[i] = a
                    break
                k -= 1


def env_rate(players: int, num_envs: int, seconds: float) -> float:
    """Learner steps/s of the training env with compiled opponents, random learner actions."""
    env = TrainingEnv(num_envs, num_players=players, opponents=POOL, seed=0,
                      autoreset_mode="same_step", mixed=0.0, dense=False, scale_obs=False)
    obs, infos = env.reset()
    actions = np.zeros(num_envs, dtype=np.int64)
    state = np.array([88172645463325252], dtype=np.uint64)
    masks = infos["action_mask"]
    random_actions(masks, state, actions)
    env.step(actions)
    steps, start = 0, time.perf_counter()
    picking = 0.0
    while time.perf_counter() - start < seconds:
        t = time.perf_counter()
        random_actions(masks, state, actions)
        picking += time.perf_counter() - t
        env.step(actions)
        steps += num_envs
    return steps / (time.perf_counter() - start - picking)


def trainer_rate(updates: int, config: TrainConfig) -> dict:
    """The trainer's learner steps/s over ``updates`` updates after one warm-up update."""
    trainer = Trainer(config, Path("/tmp/borders-bench-train"))
    trainer.step()
    before = dict(trainer.main.clock.parts)
    steps0, t0 = trainer.learner_steps, time.perf_counter()
    for _ in range(updates):
        trainer.step()
    seconds = time.perf_counter() - t0
    split = {k: trainer.main.clock.parts[k] - before[k] for k in before}
    return {"steps_per_s": (trainer.learner_steps - steps0) / seconds,
            "split": {k: v / seconds for k, v in split.items()}}


def own_loop_rate(updates: int, opponents: tuple[str, ...]) -> float:
    """Learner steps/s of ``examples/ppo_loop.py``'s loop over ``updates`` updates after one
    warm-up update, at its defaults (the trainer's settings) against ``opponents``."""
    path = Path(__file__).resolve().parents[1] / "examples" / "ppo_loop.py"
    spec = importlib.util.spec_from_file_location("ppo_loop", path)
    loop = importlib.util.module_from_spec(spec)
    sys.modules["ppo_loop"] = loop  # (its dataclass looks its module up)
    spec.loader.exec_module(loop)
    _, timeline = loop.train(loop.Args(updates=updates + 1, opponents=",".join(opponents)))
    decisions, seconds = map(sum, zip(*timeline[1:]))
    return decisions / seconds


def dense_inputs(self: PolicyValueNet, obs: np.ndarray) -> torch.Tensor:
    """The update's input as a dense tensor (:meth:`PolicyValueNet.trunk` then runs
    the dense first layer): the ablation row."""
    return torch.from_numpy(np.asarray(obs, dtype=np.float32))


def maskable_rate(env, timesteps: int, **kwargs) -> float:
    """Learner steps/s of sb3-contrib's MaskablePPO (defaults unless given) on ``env``."""
    from sb3_contrib import MaskablePPO
    model = MaskablePPO("MlpPolicy", env, seed=0, **kwargs)
    model.learn(kwargs.get("n_steps", 2048) * getattr(env, "num_envs", 1))  # warm-up
    t0 = time.perf_counter()
    model.learn(timesteps, reset_num_timesteps=False)
    return timesteps / (time.perf_counter() - t0)


def matched_kwargs(config: TrainConfig) -> dict:
    """``MaskablePPO`` arguments doing the trainer's gradient work per learner step: its
    rollout (``config.steps`` per env), epochs and minibatches (``batch_size`` = the rollout
    over ``config.algorithm_settings().minibatches``), and its network, a shared trunk of ``config.hidden``
    (tanh, as the trainer's) under linear policy and value heads."""
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

    h0, h1 = config.hidden

    class Trunk(BaseFeaturesExtractor):
        """The trainer's trunk: two tanh layers shared by the policy and the value."""

        def __init__(self, observation_space):
            super().__init__(observation_space, h1)
            self.net = torch.nn.Sequential(
                torch.nn.Linear(observation_space.shape[0], h0), torch.nn.Tanh(),
                torch.nn.Linear(h0, h1), torch.nn.Tanh())

        def forward(self, obs):
            return self.net(obs)

    ppo = config.algorithm_settings()
    return {"n_steps": config.steps, "n_epochs": ppo.epochs,
            "batch_size": config.num_envs * config.steps // ppo.minibatches,
            "policy_kwargs": {"features_extractor_class": Trunk, "net_arch": [],
                              "share_features_extractor": True}}


def throughput_text(rows: list[list[str]], config: TrainConfig) -> str:
    """The table of ``main``'s rows (measure, learner steps/s, time split) and a line saying
    what its short measure names stand for."""
    ppo = config.algorithm_settings()
    return "\n".join([
        markdown_table(["measure", "learner steps/s", "time split"], rows), "",
        f"training env: compiled opponents, the learner's random legal actions; trainer: masked "
        f"PPO, {config.num_envs} envs x {config.steps} steps, {config.hidden[0]}x"
        f"{config.hidden[1]} MLP, {ppo.epochs} epochs of {ppo.minibatches} "
        f"minibatches; the number after SB3VecEnv: its games; MaskablePPO matched: sb3-contrib's on the same compiled env through "
        f"SB3VecEnv with those settings and network (the same gradient work per step); "
        f"MaskablePPO defaults: its own settings (10 epochs of 64-sample minibatches), on "
        f"SingleSeatEnv against random opponents and on SB3VecEnv."])


#: The trainer's rows: the key of its figures and its label.
TRAINERS = (("trainer", "sparse first layer"), ("trainer_dense", "dense first layer"),
            ("trainer_overlap", "sparse, --overlap"))
#: The trainer's settings every row runs at.
CONFIG = TrainConfig(opponents=POOL, eval_every=0, checkpoint_every=10**9, snapshots=0)


def measure(args: argparse.Namespace) -> dict:
    """Every row's learner steps/s (the trainer's with its time split), and the ratios."""
    out = {"load": load(), "stamp": measured_at("train-throughput")}
    torch.set_num_threads(1)
    seconds = 1.0 if args.quick else 3.0
    for n in (3, 4, 5, 8):
        print(f"timing the training env, {n} players ...", file=sys.stderr, flush=True)
        out[f"env_{n}p"] = env_rate(n, 256, seconds)
    for key, label in TRAINERS:
        print(f"timing the trainer, {label} ...", file=sys.stderr, flush=True)
        sparse_inputs = PolicyValueNet.inputs
        if key == "trainer_dense":
            PolicyValueNet.inputs = dense_inputs
        try:
            out[key] = trainer_rate(2 if args.quick else 6,
                                    replace(CONFIG, overlap=key == "trainer_overlap"))
        finally:
            PolicyValueNet.inputs = sparse_inputs
    print("timing your own loop and MaskablePPO ...", file=sys.stderr, flush=True)
    out["own_loop"] = own_loop_rate(2 if args.quick else 6, POOL)
    steps = 2048 if args.quick else 4096
    out["maskable_single"] = maskable_rate(SingleSeatEnv(num_players=4), steps)
    out["maskable_compiled"] = maskable_rate(
        SB3VecEnv(16, num_players=4, opponents=POOL, seed=0), steps * 4, n_steps=128)
    rollout = CONFIG.num_envs * CONFIG.steps
    out["maskable_matched"] = maskable_rate(
        SB3VecEnv(CONFIG.num_envs, num_players=4, opponents=POOL, seed=0),
        rollout * (1 if args.quick else 3), **matched_kwargs(CONFIG))
    trainer = out["trainer"]["steps_per_s"]
    out["ratio_trainer_to_maskable_matched"] = trainer / out["maskable_matched"]
    out["ratio_trainer_to_maskable"] = trainer / out["maskable_single"]
    return out


def render(out: dict, args: argparse.Namespace) -> str:
    rows = [[f"training env, {n} players", si(out[f"env_{n}p"]), "-"] for n in (3, 4, 5, 8)]
    for key, label in TRAINERS:
        split = ", ".join(f"{k} {v:.0%}" for k, v in out[key]["split"].items())
        rows.append([f"trainer, {label}", si(out[key]["steps_per_s"]), split])
    rows += [["your own loop, examples/ppo_loop.py", si(out["own_loop"]), "-"],
             ["MaskablePPO defaults, SingleSeatEnv", si(out["maskable_single"]), "-"],
             ["MaskablePPO defaults, SB3VecEnv, 16", si(out["maskable_compiled"]), "-"],
             [f"MaskablePPO matched, SB3VecEnv, {CONFIG.num_envs}", si(out["maskable_matched"]),
              "-"]]
    tr = out["trainer"]
    own_share = out["own_loop"] / tr["steps_per_s"]
    sparse_gain = tr["steps_per_s"] / out["trainer_dense"]["steps_per_s"]
    return "\n".join([
        f"**Throughput** ({datetime.date.today()}, {out['stamp']}; "
        f"{machine_line(out['load'])}, one torch thread; every figure from this run):", "",
        throughput_text(rows, CONFIG), "",
        f"trainer / MaskablePPO at matched settings (same env, batch, epochs, minibatches "
        f"and network): **{out['ratio_trainer_to_maskable_matched']:.1f}x**; against "
        f"MaskablePPO's defaults, which do more gradient work per step: "
        f"{out['ratio_trainer_to_maskable']:.1f}x on SingleSeatEnv, "
        f"{tr['steps_per_s'] / out['maskable_compiled']:.1f}x on SB3VecEnv; the "
        f"sparse first layer / the dense one: {sparse_gain:.2f}x; collection beside the "
        f"update (`--overlap`, whose parts overlap in time, so its split sums past 100%) / "
        f"without: {out['trainer_overlap']['steps_per_s'] / tr['steps_per_s']:.2f}x; your own "
        f"loop (`examples/ppo_loop.py`, on the trainer's layers, at its settings and opponents) "
        f"/ the trainer: {own_share:.0%} (all from this run). The "
        f"trainer's time (sparse first layer): "
        + ", ".join(f"{WHAT.get(k, k)} {v:.0%}" for k, v in
                    sorted(tr["split"].items(), key=lambda kv: -kv[1]))
        + f"; {si(tr['steps_per_s'])} learner steps/s at this network. Made by "
        "`python benchmarks/train.py --write-docs`."])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_shared(parser, docs="put the table in the train-throughput section of docs/training.md",
               json=True)  # --quick: short runs
    run(parser, measure, render, argv, section="train-throughput")
    return 0


if __name__ == "__main__":
    sys.exit(main())
