"""Paired speed of two source trees of borders_sim: is a change within a few percent of before?

Usage::

    git worktree add /tmp/before HEAD~3        # the tree to compare against
    python benchmarks/compare.py /tmp/before   # against this checkout
    python benchmarks/compare.py /tmp/before . --pairs 7 --seconds 2

Each probe runs in a new process per tree (``PYTHONPATH`` set to that tree, one numba thread
unless the probe says otherwise), and the trees alternate, back to back, ``--pairs`` times: the
machine's speed drifts within minutes, so only a pair's own ratio is trusted, and the table
shows the median of the pairs' ratios (``after / before``, above 1: faster) with the lowest and
highest. Kernels are compiled (or loaded from each tree's cache) before the first pair.

Probes (5 players, the rulebook; rates are decisions per second unless said):

* ``rollouts``: whole games of uniformly random play in one compiled call;
* ``bots``: whole games of honest, bluffer, collector, strict and the shipped ppo in one
  compiled call;
* ``vector 1t`` / ``vector 2t``: :class:`~borders_sim.envs.VectorEnv` with 1024 games, random
  legal actions picked by a small compiled helper, on one thread and on two;
* ``training``: :class:`~borders_sim.envs.training.TrainingEnv` with 256 games against
  honest, bluffer and the shipped ppo, random learner actions;
* ``search``: the ``ismcts`` bot's decisions of 256 rollouts each, in one position (rollouts
  per second, not decisions).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

from borders_sim.report import markdown_table
from harness import add_shared, run

PROBES = ("rollouts", "bots", "vector 1t", "vector 2t", "training", "search")

CHILD = r'''
import json, sys, time
import numba
import numpy as np
from numba import njit

probe, seconds = sys.argv[1], float(sys.argv[2])
numba.set_num_threads(2 if probe.endswith("2t") else 1)

@njit(cache=False)
def pick(masks, state, out):
    for i in range(masks.shape[0]):
        state[0] = state[0] * 6364136223846793005 + 1442695040888963407
        legal = np.flatnonzero(masks[i])
        out[i] = legal[(state[0] >> 33) % legal.shape[0]]

def timed(run):
    run()  # compile or load, and warm up
    done, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        done += run()
    return done / (time.perf_counter() - start)

from borders_sim import GameConfig
config = GameConfig(num_players=5)
state = np.ones(1, dtype=np.uint64)
if probe == "rollouts":
    try:
        from borders_sim.batch.rollouts import make_batch, play_batch
    except ImportError:
        from borders_sim.rules.rollout import make_batch, play_batch
    def run():
        states, seeds = make_batch(config, 0, 256)
        return int(play_batch(states, seeds, 10**6).sum())
elif probe == "bots":
    from borders_sim.agents.lineup import compiled_kinds
    try:
        from borders_sim.batch.games import run_bot_games
        from borders_sim.batch.rollouts import make_batch
    except ImportError:
        from borders_sim.agents.play import run_bot_games
        from borders_sim.rules.rollout import make_batch
    lineup = ["honest", "bluffer", "collector", "strict", "ppo"]
    by_name, nets = compiled_kinds(lineup)
    kinds = np.zeros((64, 8), dtype=np.int64)
    kinds[:, :5] = [by_name[name] for name in lineup]
    def run():
        states, _ = make_batch(config, 0, 64)
        return int(run_bot_games(states, kinds, np.arange(64), 10**6, nets).sum())
elif probe.startswith("vector"):
    from borders_sim.envs import VectorEnv
    env = VectorEnv(1024, num_players=5, seed=0)
    ts = env.reset()
    actions = np.zeros(1024, dtype=np.int64)
    def run():
        global ts
        for _ in range(20):
            pick(ts.action_mask, state, actions)
            ts = env.step(actions)
        return 20 * 1024
elif probe == "training":
    from borders_sim.envs.training import TrainingEnv
    env = TrainingEnv(256, num_players=5, opponents=("honest", "bluffer", "ppo"), seed=0)
    obs, info = env.reset()
    actions = np.zeros(256, dtype=np.int64)
    def run():
        global info
        for _ in range(20):
            pick(info["action_mask"], state, actions)
            _o, _r, _t, _u, info = env.step(actions)
        return 20 * 256
elif probe == "search":
    from borders_sim import Game
    from borders_sim.agents import make
    from borders_sim.envs import observe
    game = Game(config, 3)
    for _ in range(12):
        game.step(game.legal_actions()[-1])
    bot = make("ismcts", 0, simulations=256)
    def run():
        p = game.current_player
        bot.act(observe(game, p), game.legal_mask())
        return 256
print(json.dumps(timed(run)))
'''


def rate(tree: Path, probe: str, seconds: float) -> float:
    """Decisions per second of ``probe`` in a new process importing ``tree``'s borders_sim."""
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONSAFEPATH": "1",
           "BORDERS_SIM_QUIET": "1"}
    done = subprocess.run([sys.executable, "-c", CHILD, probe, str(seconds)], env=env,
                          capture_output=True, text=True, timeout=1800)
    if done.returncode != 0:
        raise SystemExit(f"{probe} in {tree}: {done.stderr.strip()[-2000:]}")
    return float(done.stdout.split()[-1])


def settle(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The tree to compare against (``--quick``: this checkout against itself), the probes
    checked."""
    if args.before is None:
        if not args.quick:
            parser.error("the tree to compare against is missing (or --quick: this checkout "
                         "against itself)")
        args.before = args.after
    args.probes = [p.strip() for p in args.probes.split(",")]
    unknown = sorted(set(args.probes) - set(PROBES))
    if unknown:
        parser.error(f"unknown probe(s) {unknown}; the probes are {', '.join(PROBES)}")


def measure(args: argparse.Namespace) -> dict:
    """Each probe's pairs of rates, ``[before, after]``, run back to back."""
    trees = [args.before.resolve(), args.after.resolve()]
    print(f"before: {trees[0]}\nafter:  {trees[1]}\n{args.pairs} pairs of "
          f"{args.seconds:g} s runs per probe", file=sys.stderr)
    for probe in args.probes:  # compile or load each tree's kernels first
        for tree in trees:
            rate(tree, probe, 0.1)
    pairs = {}
    for probe in args.probes:
        print(f"timing {probe} ...", file=sys.stderr, flush=True)
        pairs[probe] = [[rate(tree, probe, args.seconds) for tree in trees]
                        for _ in range(args.pairs)]
    return {"before": str(trees[0]), "after": str(trees[1]), "pairs": pairs}


def render(figures: dict, args: argparse.Namespace) -> str:
    rows = []
    for probe, pairs in figures["pairs"].items():
        ratios = sorted(b / a for a, b in pairs)
        rows.append([probe, f"{statistics.median(a for a, _ in pairs):,.0f}",
                     f"{statistics.median(b for _, b in pairs):,.0f}",
                     f"{statistics.median(ratios):.3f} [{ratios[0]:.3f}, {ratios[-1]:.3f}]"])
    return markdown_table(["probe", "before (decisions/s)", "after",
                           "after / before: median [min, max]"], rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path, nargs="?", default=None,
                        help="the source tree to compare against (--quick: this checkout)")
    parser.add_argument("after", type=Path, nargs="?", default=Path(__file__).parents[1],
                        help="the source tree measured against it (default: this checkout)")
    parser.add_argument("--pairs", type=int, default=5, help="pairs of runs per probe")
    parser.add_argument("--seconds", type=float, default=1.5, help="timed seconds per run")
    parser.add_argument("--probes", default=",".join(PROBES),
                        help=f"comma-separated, of: {', '.join(PROBES)}")
    add_shared(parser, quick=dict(pairs=1, seconds=0.2, probes="rollouts"), json=True)
    run(parser, measure, render, argv, check=settle)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
