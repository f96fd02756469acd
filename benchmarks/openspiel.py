"""What the OpenSpiel adapter (``borders_sim.openspiel``) costs, beside ``borders_sim.Game``
and OpenSpiel's ``sheriff``, in one run.

Usage::

    python benchmarks/openspiel.py                     # 3, 5, 8 players, 1 s runs, 5 pairs
    python benchmarks/openspiel.py --players 4 --seconds 0.5 --pairs 3

Measured:

* random play (a uniformly random legal action, ``random.Random``) through three Python loops:
  ``borders_sim.Game`` (``legal_actions``, ``step``), the pyspiel adapter (``legal_actions``,
  ``apply_action``; the deal's chance node sampled as one uniform outcome, as a sampling
  caller does) and pyspiel ``sheriff`` (the loop of ``benchmarks/rollouts.py``), in decisions/s.
  Each player count runs ``--pairs`` rounds of the three back to back (the machine's speed
  drifts); a ratio is the median of the rounds' ratios;
* per call, in a mid-game state: ``clone``, ``observation_tensor``, ``observation_string``,
  ``resample_from_infostate`` and ``serialize`` (the median of 5 timings of a loop);
* IS-MCTS: seconds per decision of OpenSpiel's ``ISMCTSBot`` (``use_observation_string=True``)
  with the compiled random rollout evaluator, at ``--sims`` simulations.

Needs OpenSpiel (``pip install ".[bench]"`` in the source checkout, or ``pip install open_spiel``).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts

import borders_sim.openspiel as bo
from borders_sim import Game, GameConfig
from borders_sim.envs import observe_text
from borders_sim.openspiel import CompiledRolloutEvaluator
from quick import add_quick, parse_quick  # noqa: E402


def game_loop(config: GameConfig, seconds: float, seed: int) -> float:
    """Decisions/s of random games through ``borders_sim.Game``."""
    rng, steps, g = random.Random(seed), 0, seed
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        game = Game(config, seed=g)
        while not game.is_terminal:
            game.step(rng.choice(game.legal_actions()))
            steps += 1
        g += 1
    return steps / (time.perf_counter() - t0)


def adapter_loop(game, seconds: float, seed: int) -> float:
    """Decisions/s of random games through the pyspiel adapter."""
    rng, steps = random.Random(seed), 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        state = game.new_initial_state()
        state.apply_action(rng.randrange(bo.DEALS))
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
    return steps / (time.perf_counter() - t0)


def sheriff_loop(game, seconds: float, seed: int) -> float:
    """Decisions/s of random games of pyspiel ``sheriff`` (chance sampled by probability)."""
    rng, steps = random.Random(seed), 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes())
                state.apply_action(rng.choices(actions, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
                steps += 1
    return steps / (time.perf_counter() - t0)


def per_call(fn, calls: int) -> float:
    """Median microseconds per call of ``fn`` over 5 loops of ``calls`` calls."""
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        times.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(times)


def mid_game(game, steps: int = 150):
    state = game.new_initial_state()
    state.apply_action(1)
    rng = random.Random(1)
    for _ in range(steps):
        state.apply_action(rng.choice(state.legal_actions()))
    return state


def ismcts_seconds(game, sims: int, decisions: int) -> float:
    """Median seconds per decision of OpenSpiel's IS-MCTS over ``decisions`` decisions."""
    bot = ismcts.ISMCTSBot(game, CompiledRolloutEvaluator("random", 1, 0), 2.0, sims,
                           random_state=np.random.RandomState(0), use_observation_string=True)
    state, rng, times = mid_game(game, 20), random.Random(2), []
    while len(times) < decisions and not state.is_terminal():
        if len(state.legal_actions()) > 1:
            t0 = time.perf_counter()
            bot.step(state)
            times.append(time.perf_counter() - t0)
        state.apply_action(rng.choice(state.legal_actions()))
    return statistics.median(times)


def table(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", default="3,5,8", help="player counts (default 3,5,8)")
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per run")
    parser.add_argument("--pairs", type=int, default=5, help="rounds of back-to-back runs")
    parser.add_argument("--sims", type=int, default=50, help="IS-MCTS simulations")
    add_quick(parser, players="3", seconds=0.2, pairs=1, sims=5)
    args = parse_quick(parser)
    counts = [int(x) for x in args.players.split(",")]
    sheriff = pyspiel.load_game("sheriff")
    Game(GameConfig(), 0)  # compile or load the kernels before timing
    loops, calls = [], []
    for n in counts:
        config = GameConfig(num_players=n)
        game = pyspiel.load_game(bo.GAME_NAME, {"players": n})
        rounds = []
        for k in range(args.pairs):
            rounds.append((game_loop(config, args.seconds, k), adapter_loop(game, args.seconds, k),
                           sheriff_loop(sheriff, args.seconds, k)))
        ours, adapter, peer = (statistics.median(r[i] for r in rounds) for i in range(3))
        vs_game = statistics.median(r[1] / r[0] for r in rounds)
        vs_sheriff = statistics.median(r[1] / r[2] for r in rounds)
        extra = statistics.median(1e6 / r[1] - 1e6 / r[0] for r in rounds)
        loops.append([str(n), f"{ours:,.0f}", f"{adapter:,.0f}", f"{peer:,.0f}",
                      f"{vs_game:.2f}x", f"{vs_sheriff:.2f}x", f"{extra:.1f}"])
        state = mid_game(game)
        p = state.current_player()
        sampler = pyspiel.UniformProbabilitySampler(0, 0.0, 1.0)
        calls.append([str(n), f"{per_call(state.clone, 200):.0f}",
                      f"{per_call(lambda: state.observation_tensor(p), 200):.0f}",
                      f"{per_call(lambda: observe_text(state.game, p), 50):.0f}",
                      f"{per_call(lambda: state.resample_from_infostate(p, sampler), 20):.0f}",
                      f"{per_call(state.serialize, 20):.0f}",
                      f"{ismcts_seconds(game, args.sims, 5):.2f}"])
    print(f"Random play, decisions/s (median of {args.pairs} back-to-back rounds of "
          f"{args.seconds:g} s runs)\n")
    print(table(["players", "borders_sim.Game", "pyspiel adapter", "pyspiel sheriff",
                 "adapter / Game", "adapter / sheriff", "adapter's extra us/step"], loops))
    print("\nPer call in a mid-game state, microseconds; IS-MCTS seconds per decision at "
          f"{args.sims} simulations\n")
    print(table(["players", "clone", "observation_tensor", "observation_string (uncached)",
                 "resample_from_infostate", "serialize", "IS-MCTS s/decision"], calls))


if __name__ == "__main__":
    main()
