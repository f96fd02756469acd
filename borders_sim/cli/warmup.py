"""Compile every kernel of borders_sim ahead of time (``borders-sim warmup``).

The kernels are cached numba functions (``@kernel``, :mod:`borders_sim._compile.jit`): the first use
of each in a fresh install compiles it and numba keeps the result in its on-disk cache (see
:mod:`borders_sim._compile.cache` for where); an installed package built with its kernels
(:mod:`borders_sim.cli.build_kernels`) loads them from the package instead and compiles nothing.
:func:`warm_up` runs each part of the package once through its public API, with the argument
types real callers pass, so that every kernel is compiled and cached before the first real use:
for Docker images (run it in the image build, as the user that will run the image, so the cache
directory is writable by that user), for cluster nodes (before the workers start), and for the
wheel's own build.

With ``jobs`` above 1 (default ``BORDERS_SIM_COMPILE_JOBS``, else the idle cores:
:func:`borders_sim._compile.parallel.default_jobs`), the steps run in worker processes, each taking the
next step when it finishes one, all compiling into the cache they share; a kernel that several
steps need is compiled once, by the first to reach it, and loaded by the others.

Each step reports, through the ``report`` callback, what it prepares, how long it took and
whether numba compiled (``numba:compile`` events, :mod:`numba.core.event`) or only loaded its
cache. The steps: first the compile units every family shares
(:mod:`borders_sim._compile.units`: the engine's phase dispatch, the bots' policies, the
observation, the scoring; in the order of its ``NAMES``, each registered by the module that
owns it, which this module imports), so that the processes start on independent work, then

1. the rules kernels of :class:`~borders_sim.Game` (new game, step, legal mask, scores);
2. :class:`~borders_sim.envs.VectorEnv` (reset and step);
3. the compiled bots (:data:`~borders_sim.agents.COMPILED_BOTS`) inside the whole-game bot
   kernel :func:`~borders_sim.batch.games.run_bot_games` and one decision of each from Python;
4. the whole-game kernels of :mod:`borders_sim.batch.rollouts` (random play in batches);
5. the training env (:class:`~borders_sim.envs.training.TrainingEnv`, reset and step);
6. the search bot's rollout batch (:class:`~borders_sim.agents.ISMCTSBot`, one decision);
7. the PettingZoo AEC env ``borders_v0`` (raw and wrapped, a whole game through ``raw_env``
   so the reward kernels run too);
8. the observation kernel (:func:`borders_sim.envs.observe`);
9. the belief sampler (:func:`~borders_sim.game.belief.world_states`,
   :func:`~borders_sim.game.belief.sample_consistent_state`);
10. the demonstration recorder (:func:`~borders_sim.agents.demos.record_demos`, one game).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np
from numba.core import event

from .._compile import cache
from .._compile.notice import quiet
from .._compile.parallel import Workers, alone, default_jobs, unit_task
from .._compile.units import NAMES, compile_unit
from ..game.game import Game
from ..rules.config import GameConfig
from ..rules.state import MAX_PLAYERS, MIN_PLAYERS

# The modules that own the compile units: importing them registers every unit of NAMES.
from ..policies import dispatch  # noqa: F401
from ..rules import engine, observation, setup  # noqa: F401


@dataclass
class StepResult:
    """One step of :func:`warm_up`: its name, wall seconds, and how many compilations numba
    did in it (0: everything loaded from the cache or was loaded already); ``worker``: whether
    a worker process ran it."""

    name: str
    seconds: float
    compiled: int
    worker: bool = False

    @property
    def how(self) -> str:
        return (f"compiled {self.compiled} function(s)" if self.compiled else
                "nothing to compile (loaded from the cache or by an earlier step)")


class _CompileCounter(event.Listener):
    def __init__(self) -> None:
        self.count = 0

    def on_start(self, ev: event.Event) -> None:
        self.count += 1

    def on_end(self, ev: event.Event) -> None:
        pass


def _a_position(n: int = 4, moves: int = 60) -> Game:
    """A game some way in (past the first market), played by a fixed random policy."""
    game = Game(GameConfig(num_players=n), seed=11)
    rng = np.random.default_rng(11)
    for _ in range(moves):
        legal = game.legal_actions()
        game.step(int(legal[rng.integers(len(legal))]))
    return game


def _game() -> None:
    game = Game(GameConfig(num_players=MIN_PLAYERS), seed=0)
    game.step(game.legal_actions()[0])
    game.legal_mask()
    game.scores()
    game.winners()
    Game.from_dict(game.to_dict())


def _rollouts() -> None:
    from ..batch.rollouts import final_scores, make_batch, play_batch
    states, seeds = make_batch(GameConfig(num_players=MIN_PLAYERS), 0, 1)
    play_batch(states, seeds, 10**6)
    final_scores(states)


def _bots() -> None:
    from ..agents import COMPILED_BOTS, make
    from ..batch.games import run_bot_games
    from ..game.views import observe
    from ..batch.rollouts import make_batch
    game = _a_position(moves=5)
    obs, mask = observe(game, game.current_player), game.legal_mask()
    for kind, name in enumerate(COMPILED_BOTS):
        states, _ = make_batch(GameConfig(num_players=MIN_PLAYERS), 0, 1)
        run_bot_games(states, np.full((1, MAX_PLAYERS), kind), np.zeros(1, dtype=np.uint64), 10**6)
        make(name, seed=0).act(obs, mask)


def _observation() -> None:
    from ..game.views import observe
    game = _a_position(moves=5)
    observe(game, game.current_player)


def _training_env() -> None:
    from ..envs.training import TrainingEnv
    env = TrainingEnv(2, num_players=MIN_PLAYERS, opponents=("honest",))
    _obs, infos = env.reset(seed=0)
    env.step(infos["action_mask"].argmax(axis=1))


def _demos() -> None:
    from ..agents.demos import record_demos
    with tempfile.TemporaryDirectory() as out:
        record_demos(out, ["random"] * MIN_PLAYERS, 1)


def _vector_env() -> None:
    from ..envs import VectorEnv
    env = VectorEnv(2, num_players=MIN_PLAYERS, seed=0)
    out = env.reset()
    env.step(out.action_mask.argmax(axis=1))


def _aec_env() -> None:
    from ..envs import borders_v0
    n = MIN_PLAYERS
    for env in (borders_v0.raw_env(num_players=n), borders_v0.env(num_players=n)):
        env.reset(seed=0)
        for agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))


def _belief() -> None:
    from ..game.views import observe
    from ..game.belief import sample_consistent_state, world_states
    game = _a_position()
    sample_consistent_state(game, game.current_player, seed=0)
    world_states(observe(game, game.current_player), [0, 1])


def _ismcts() -> None:
    from ..agents import ISMCTSBot
    from ..game.views import observe
    game = _a_position()
    bot = ISMCTSBot(seed=0, simulations=2, worlds=1)
    bot.act(observe(game, game.current_player), game.legal_mask())


#: (what, function) in order: the compile units first, then the families on top of them (the
#: longest first, for the parallel warm-up); later steps reuse what earlier ones compiled.
STEPS: tuple[tuple[str, Callable[[], None]], ...] = tuple(
    (f"compile unit: {name}", partial(compile_unit, name)) for name in NAMES) + (
    ("rules kernels (Game: step, legal mask, scores)", _game),
    ("VectorEnv (reset, step)", _vector_env),
    ("compiled bots (play_bot_games, each bot's policy)", _bots),
    ("whole-game kernels (random_games)", _rollouts),
    ("training env (TrainingEnv: reset, step)", _training_env),
    ("ISMCTS rollout batch (one decision)", _ismcts),
    ("AEC env borders_v0 (raw and wrapped, one whole game)", _aec_env),
    ("observation kernel (observe)", _observation),
    ("belief sampler (world_states, sample_consistent_state)", _belief),
    ("demonstration recorder (record_demos, one game)", _demos),
)


def _task(i: int) -> str:
    """Step ``i`` of :data:`STEPS` as a task of :class:`~borders_sim._compile.parallel.Workers`."""
    run = STEPS[i][1]
    if isinstance(run, partial):
        return unit_task(run.args[0])
    return f"call:{__name__}:{run.__name__}"


def warm_up(report: Callable[[str], None] | None = None,
            jobs: int | None = None) -> list[StepResult]:
    """Run every step of :data:`STEPS` once, so numba compiles (or loads) every kernel.

    Args:
        report: called with one line of progress before and after each step (e.g. ``print``);
            None: silent.
        jobs: processes to compile in (default :func:`~borders_sim._compile.parallel
            .default_jobs`); with more than one (and a cache the processes can share), the
            steps run in worker processes and this process loads nothing.

    Returns:
        one :class:`StepResult` per step.
    """
    say = report or (lambda line: None)
    jobs = default_jobs() if jobs is None else jobs
    parallel = jobs > 1 and cache.location != cache.NOWHERE
    say(f"numba cache: {cache.location}" + (f"; {jobs} processes" if parallel else ""))
    total = time.perf_counter()
    results = _in_workers(jobs, say) if parallel else _here(say)
    compiled = sum(r.compiled for r in results)
    say(f"all kernels ready in {time.perf_counter() - total:.1f} s ({compiled} compilation(s))")
    return results


def _line(i: int, result: StepResult) -> str:
    where = " in a worker" if result.worker else ""
    return f"[{i}/{len(STEPS)}] {result.name}: {result.seconds:.1f} s{where}, {result.how}"


def _here(say: Callable[[str], None]) -> list[StepResult]:
    """The steps one after the other in this process, without helper processes."""
    results = []
    with quiet(), alone():  # this function reports the compilation itself
        for i, (what, run) in enumerate(STEPS, 1):
            say(f"[{i}/{len(STEPS)}] {what} ...")
            counter = _CompileCounter()
            t0 = time.perf_counter()
            with event.install_listener("numba:compile", counter):
                run()
            results.append(StepResult(what, time.perf_counter() - t0, counter.count))
            say(_line(i, results[-1]))
    return results


def _in_workers(jobs: int, say: Callable[[str], None]) -> list[StepResult]:
    """The steps on ``jobs`` worker processes; a step that fails in a worker runs again here,
    so that its error is raised with its traceback."""
    tasks = [_task(i) for i in range(len(STEPS))]
    index = {task: i for i, task in enumerate(tasks)}
    for i, (what, _run) in enumerate(STEPS, 1):
        say(f"[{i}/{len(STEPS)}] {what} ...")

    def done(r: dict) -> None:
        i = index[r["task"]]
        if r["error"] is None:
            say(_line(i + 1, StepResult(STEPS[i][0], r["seconds"], r["compiled"], True)))

    out = Workers(jobs).run(tasks, done)
    results = [StepResult(STEPS[i][0], r["seconds"], r["compiled"], True)
               for i, r in enumerate(out)]
    failed = [i for i, r in enumerate(out) if r["error"] is not None]
    if failed:
        with quiet(), alone():
            for i in failed:
                say(f"[{i + 1}/{len(STEPS)}] {STEPS[i][0]}: failed in a worker "
                    f"({out[i]['error']}); again in this process ...")
                counter = _CompileCounter()
                t0 = time.perf_counter()
                with event.install_listener("numba:compile", counter):
                    STEPS[i][1]()
                results[i] = StepResult(STEPS[i][0], time.perf_counter() - t0, counter.count)
                say(_line(i + 1, results[i]))
    return results


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "warmup", help="compile every kernel ahead of time (Docker images, clusters)",
        description="Compile (or load from numba's cache) every kernel of borders_sim: the "
                    "units the families share, the Game, VectorEnv, the compiled bots, "
                    "whole-game rollouts, the training env, the ISMCTS rollouts, the AEC env, "
                    "the observation, the belief sampler and the demonstration recorder; one "
                    "progress line per part on stderr, in --jobs parallel processes. Run it as the user that will use the cache (numba only "
                    "uses a cache directory it can write).")
    p.add_argument("--jobs", type=_jobs, default=None,
                   help="processes to compile in (default: BORDERS_SIM_COMPILE_JOBS, else the idle "
                        "cores: the usable cores minus the last minute's load average)")
    p.set_defaults(run=run)


def _jobs(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be a number of processes (1 or more), got "
                                         f"{text!r}")
    return n


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    warm_up(lambda line: print(f"borders-sim warmup: {line}", file=sys.stderr, flush=True),
            jobs=args.jobs)
    return 0
