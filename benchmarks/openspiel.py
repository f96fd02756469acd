"""What the OpenSpiel adapter (``borders_sim.openspiel``) costs, beside ``borders_sim.Game``
and OpenSpiel's ``sheriff``, in one run.

Usage::

    python benchmarks/openspiel.py                     # 3, 5, 8 players, 1 s runs, 5 pairs
    python benchmarks/openspiel.py --players 4 --seconds 0.5 --pairs 3
    python benchmarks/openspiel.py --write-docs        # the openspiel-costs section of
                                                       # docs/env-openspiel.md

Measured:

* random play (a uniformly random legal action, ``random.Random``) through three Python loops:
  ``borders_sim.Game`` (``legal_actions``, ``step``), and the loop a user writes over any
  pyspiel game (``legal_actions``, ``apply_action``; every chance node sampled from its
  ``chance_outcomes()``, the deal's included) on the adapter and on pyspiel ``sheriff``, in
  decisions/s.
  Each player count runs ``--pairs`` rounds of the three back to back (the machine's speed
  drifts); a ratio is the median of the rounds' ratios;
* per call, in a mid-game state: ``clone``, ``observation_tensor``, ``observation_string``,
  ``resample_from_infostate``, ``serialize`` and one rollout to the end of the game, by
  :class:`~borders_sim.openspiel.CompiledRolloutEvaluator` (random play in one kernel call) and
  by OpenSpiel's ``RandomRolloutEvaluator`` (random play through the Python game, what the
  bots' ``rollout=openspiel`` uses) (the median of 5 timings of a loop);
* IS-MCTS: seconds per decision of OpenSpiel's ``ISMCTSBot`` (``use_observation_string=True``)
  with the compiled random rollout evaluator, at ``--sims`` simulations.

It prints the two tables and the sentence that compares them (the ``openspiel-costs`` section
of ``docs/env-openspiel.md``, with the machine, the date and the load); ``--write-docs`` writes
that section (``--quick`` never does).

Needs OpenSpiel (``pip install ".[bench]"`` in the source checkout, or ``pip install open_spiel``).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import platform
import random
import statistics
import sys
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import borders_sim.openspiel as bo
from borders_sim import Game, GameConfig
from borders_sim.envs import observe_text
from borders_sim.report import markdown_tables
from borders_sim.openspiel import CompiledRolloutEvaluator
from rollouts import openspiel_python_loop
from freshness import measured_at
from harness import add_shared, load, machine_line, run

#: The command that writes the ``openspiel-costs`` section of docs/env-openspiel.md.
DOCS_COMMAND = "python benchmarks/openspiel.py --write-docs"


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


def spiel_loop(game, seconds: float, seed: int) -> float:
    """Decisions/s of random games of a pyspiel game, the loop a user writes: each chance node
    sampled from its ``chance_outcomes()`` (the adapter's deal among them), each decision a
    uniformly random legal action (:func:`rollouts.openspiel_python_loop`, one run)."""
    return openspiel_python_loop(game, 1, seconds, seed)[1]


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
    for a in bo.deal_actions(1):
        state.apply_action(a)
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


def run_line(started: str, loads: list[float], minutes: float, stamp: str) -> str:
    """The run's date, machine, load, versions and length, as the section states them."""
    import numba
    return (f"{started}; {machine_line(loads[0], loads[-1])}; Python "
            f"{platform.python_version()}, numba {numba.__version__}, "
            f"open_spiel {importlib.metadata.version('open_spiel')}; {stamp}; {minutes:.1f} min")


def span(values: list[float], fmt: str) -> str:
    """``lo-hi`` of ``values`` in ``fmt`` (one figure when they print the same)."""
    lo, hi = format(min(values), fmt), format(max(values), fmt)
    return lo if lo == hi else f"{lo}-{hi}"


def costs_text(header: str, pairs: int, seconds: float, sims: int, loops: list[dict],
               calls: list[dict]) -> str:
    """The ``openspiel-costs`` section: the random-play table (``loops``: per player count
    ``players``, ``game``, ``adapter``, ``sheriff`` decisions/s, the ratios ``vs_game``,
    ``vs_sheriff`` and ``extra`` microseconds per decision), the per-call table (``calls``: per
    player count microseconds of ``clone``, ``tensor``, ``string``, ``resample``,
    ``serialize``, ``rollout`` (compiled), ``rollout_openspiel``, and ``ismcts`` seconds per
    decision) and the sentence that compares them, every figure from this run."""
    random_play = markdown_tables(
        ["players", "Game", "adapter", "sheriff", "adapter / Game", "adapter / sheriff",
         "extra µs"],
        [[str(r["players"]), f"{r['game']:,.0f}", f"{r['adapter']:,.0f}",
          f"{r['sheriff']:,.0f}", f"{r['vs_game']:.2f}x", f"{r['vs_sheriff']:.2f}x",
          f"{r['extra']:.1f}"] for r in loops])
    per_call = markdown_tables(
        ["players", "clone", "observation_tensor", "observation_string", "resample", "serialize"],
        [[str(c["players"]), *(f"{c[k]:,.0f}" for k in ("clone", "tensor", "string", "resample",
                                                       "serialize"))] for c in calls])
    search = markdown_tables(
        ["players", "compiled rollout, µs", "OpenSpiel rollout, µs", "IS-MCTS, s/decision"],
        [[str(c["players"]), f"{c['rollout']:,.0f}", f"{c['rollout_openspiel']:,.0f}",
          f"{c['ismcts']:.2f}"] for c in calls])
    faster = [c["rollout_openspiel"] / c["rollout"] for c in calls]
    return (
        f"**Costs**: one run of `{DOCS_COMMAND}`, {header}. Random play through three Python "
        f"loops, decisions/s (the median of {pairs} back-to-back rounds of {seconds:g} s runs): "
        f"`borders_sim.Game`, and the loop a user writes over a pyspiel game (every chance "
        f"node sampled from its `chance_outcomes()`, the deal included) on the adapter "
        f"(`python_borders`) and on pyspiel's C++ `sheriff`; a ratio is the median of the "
        f"rounds' ratios, extra µs the adapter's time per decision over `Game`'s:\n\n"
        f"{random_play}\n\n"
        f"Per call in a mid-game state, microseconds (the observation string uncached, "
        f"`resample_from_infostate` for the player to move):\n\n{per_call}\n\n"
        f"Search from that state: one rollout, a random game to its end, by "
        f"`CompiledRolloutEvaluator` (one kernel call) and by OpenSpiel's Python "
        f"`RandomRolloutEvaluator` stepping this Python adapter (`rollout=openspiel`; "
        f"OpenSpiel's C++ evaluator cannot run a Python game), and IS-MCTS's "
        f"seconds per decision at {sims} simulations with compiled random rollouts:\n\n"
        f"{search}\n\n"
        f"From this run: the adapter adds {span([r['extra'] for r in loops], '.1f')} µs per "
        f"decision over `borders_sim.Game`, so random play through it runs at "
        f"{span([r['vs_game'] for r in loops], '.2f')}x of `Game`'s decisions/s and "
        f"{span([r['vs_sheriff'] for r in loops], '.2f')}x of `sheriff`'s; a compiled rollout "
        f"is {span(faster, '.0f')}x as fast as OpenSpiel's Python evaluator on the adapter (a "
        f"comparison of two ways to roll out this game, not of the two libraries' engines).")


def measure(args: argparse.Namespace) -> dict:
    """The loops' decisions/s and the calls' microseconds at each player count."""
    counts = [int(x) for x in args.players.split(",")]
    started, t0 = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), time.perf_counter()
    stamp = measured_at("openspiel-costs")
    loads = [load()]
    sheriff = pyspiel.load_game("sheriff")
    Game(GameConfig(), 0)  # compile or load the kernels before timing
    loops, calls = [], []
    for n in counts:
        config = GameConfig(num_players=n)
        game = pyspiel.load_game(bo.GAME_NAME, {"players": n})
        rounds = []
        for k in range(args.pairs):
            rounds.append((game_loop(config, args.seconds, k), spiel_loop(game, args.seconds, k),
                           spiel_loop(sheriff, args.seconds, k)))
        loops.append({"players": n, **{key: statistics.median(r[i] for r in rounds)
                                       for i, key in enumerate(("game", "adapter", "sheriff"))},
                      "vs_game": statistics.median(r[1] / r[0] for r in rounds),
                      "vs_sheriff": statistics.median(r[1] / r[2] for r in rounds),
                      "extra": statistics.median(1e6 / r[1] - 1e6 / r[0] for r in rounds)})
        state = mid_game(game)
        p = state.current_player()
        sampler = pyspiel.UniformProbabilitySampler(0, 0.0, 1.0)
        compiled = CompiledRolloutEvaluator("random", 1, 0)
        compiled.evaluate(state)  # compile or load its kernel
        python = mcts.RandomRolloutEvaluator(1, np.random.RandomState(0))
        calls.append({
            "players": n, "clone": per_call(state.clone, 200),
            "tensor": per_call(lambda: state.observation_tensor(p), 200),
            "string": per_call(lambda: observe_text(state.game, p), 50),
            "resample": per_call(lambda: state.resample_from_infostate(p, sampler), 20),
            "serialize": per_call(state.serialize, 20),
            "rollout": per_call(lambda: compiled.evaluate(state), 20),
            "rollout_openspiel": per_call(lambda: python.evaluate(state), 4),
            "ismcts": ismcts_seconds(game, args.sims, 5)})
        print(f"{n} players done", file=sys.stderr, flush=True)
    loads.append(load())
    return {"header": run_line(started, loads, (time.perf_counter() - t0) / 60, stamp),
            "loops": loops, "calls": calls}


def render(figures: dict, args: argparse.Namespace) -> str:
    return costs_text(figures["header"], args.pairs, args.seconds, args.sims, figures["loops"],
                      figures["calls"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", default="3,5,8", help="player counts (default 3,5,8)")
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per run")
    parser.add_argument("--pairs", type=int, default=5, help="rounds of back-to-back runs")
    parser.add_argument("--sims", type=int, default=50, help="IS-MCTS simulations")
    add_shared(parser, quick=dict(players="3", seconds=0.2, pairs=1, sims=5),
               docs="write the openspiel-costs section of docs/env-openspiel.md", json=True)
    run(parser, measure, render, argv, section="openspiel-costs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
