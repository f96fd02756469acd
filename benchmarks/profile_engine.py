"""Where the time of random whole-game play goes: per phase and per kernel.

Usage::

    python benchmarks/profile_engine.py                # 5 players, 400 games
    python benchmarks/profile_engine.py --players 8 --games 200

Two parts, both on one thread:

1. **Census.** The random-play loop of :func:`borders_sim.batch.rollouts.play_random`, with
   :func:`~borders_sim.rules.engine.advance` written out so that it can count, per phase: the
   decisions a player takes, the forced moves the engine applies itself (``skip_forced``,
   P-0.3), the seeks that move on without a decision, and the legal actions per decision.
2. **Costs.** States sampled at the decisions of each phase (random games through
   :class:`borders_sim.Game`) are fed to each kernel in turn: ``legal_mask``, ``count_legal``
   over the phase's span, the random choice (``next_below`` + ``kth_legal``), the action
   (``_apply``), the ``advance`` to the next decision, and ``step`` (the last two together).
   Each figure is the best of 5 passes over the samples, in ns per call.

The weighted column, ``share * (step + choose)``, adds up to a model of the ns per decision of
the whole-game kernel, printed beside the kernel's measured rate (the model leaves out cache
effects and the per-game setup). The figures are noisy on a shared machine; compare phases
within one run, not runs.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import numba
import numpy as np
from numba import njit

from borders_sim import Game, GameConfig
from borders_sim.report import markdown_table
from borders_sim.rules import engine as E
from borders_sim.rules.actions import PHASE_HI, PHASE_LO
from borders_sim.rules.limits import max_game_length
from borders_sim.rules.piles import next_below
from borders_sim.batch.rollouts import make_batch, play_batch
from borders_sim.rules.state import CFG_SKIP_FORCED, PH_GAME_OVER, PHASE_NAMES
from harness import add_shared, run

NUM_PHASES = len(PHASE_NAMES)


@njit
def census(states, seeds, decisions, forced, seeks, legal):
    """Random play as ``random_games`` plays it, counting per phase (see the module doc)."""
    for i in range(states.shape[0]):
        s = states[i]
        rng = np.empty(2, dtype=np.uint64)
        rng[0] = np.uint64(seeds[i]) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(1)
        rng[1] = np.uint64(seeds[i]) ^ np.uint64(0xD1B54A32D192ED03)
        mask = np.zeros(E.MASK_SIZE, dtype=np.uint8)
        words = mask.view(np.uint64)
        while True:
            count = 0
            while True:  # advance, written out
                ph = s.phase
                if not E._seek(s):
                    seeks[ph] += 1
                    continue
                if s.phase == PH_GAME_OVER:
                    break
                E.legal_mask(s, mask)
                lo = PHASE_LO[s.phase]
                hi = PHASE_HI[s.phase]
                count = E.count_legal(mask, lo, hi)
                if count != 1 or s.cfg[CFG_SKIP_FORCED] == 0:
                    break
                forced[s.phase] += 1
                E._apply(s, E.last_legal(mask, lo, hi))
            if s.phase == PH_GAME_OVER:
                break
            ph = s.phase
            decisions[ph] += 1
            legal[ph] += count
            E._apply(s, E.kth_legal(words, next_below(rng, count), PHASE_LO[ph]))
            s.steps += 1


@njit
def time_legal_mask(samples, reps, mask):
    for _ in range(reps):
        for i in range(samples.shape[0]):
            E.legal_mask(samples[i], mask)


@njit
def time_count(samples, reps, mask, lo, hi):
    total = 0
    for _ in range(reps):
        for i in range(samples.shape[0]):
            E.legal_mask(samples[i], mask)
            total += E.count_legal(mask, lo, hi)
    return total


@njit
def time_choose(samples, reps, mask, lo, count):
    rng = np.ones(2, dtype=np.uint64)
    words = mask.view(np.uint64)
    E.legal_mask(samples[0], mask)
    total = 0
    for _ in range(reps):
        for i in range(samples.shape[0]):
            total += E.kth_legal(words, next_below(rng, count), lo)
    return total


@njit
def time_apply(work, actions):
    for i in range(work.shape[0]):
        E._apply(work[i], actions[i])


@njit
def time_advance(work, mask):
    for i in range(work.shape[0]):
        E.advance(work[i], mask)


@njit
def time_step(work, actions, mask):
    for i in range(work.shape[0]):
        E.step(work[i], actions[i], mask)


def best_ns(calls: int, timed, repeat: int = 5) -> float:
    """Best of ``repeat`` timings of ``timed()``, in ns per call."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        timed()
        best = min(best, time.perf_counter() - t0)
    return best / calls * 1e9


def sample_states(config: GameConfig, per_phase: int, games: int = 60, seed: int = 1000):
    """Up to ``per_phase`` states (and the random action then taken) at decisions of each
    phase, from ``games`` random games through :class:`Game`."""
    rng = random.Random(seed)
    states = {ph: [] for ph in range(NUM_PHASES)}
    actions = {ph: [] for ph in range(NUM_PHASES)}
    for game_seed in range(seed, seed + games):
        game = Game(config, seed=game_seed)
        while not game.is_terminal:
            ph = int(game.state[0]["phase"])
            a = rng.choice(game.legal_actions())
            if len(states[ph]) < per_phase:
                states[ph].append(game.state.copy())
                actions[ph].append(a)
            game.step(a)
    return states, actions


def measure(args: argparse.Namespace) -> dict:
    """The census of random games, then each phase's kernels timed on sampled states, then
    whole games on one thread: the table's rows and the totals."""
    numba.set_num_threads(1)
    config = GameConfig(num_players=args.players)

    states, seeds = make_batch(config, 0, args.games)
    counts = {k: np.zeros(NUM_PHASES, dtype=np.int64)
              for k in ("decisions", "forced", "seeks", "legal")}
    census(states, seeds, counts["decisions"], counts["forced"], counts["seeks"],
           counts["legal"])
    dec = counts["decisions"]
    total = int(dec.sum())
    g = args.games
    samples, actions = sample_states(config, args.samples)
    mask = E.new_mask()
    rows, model = [], 0.0
    for ph in range(NUM_PHASES):
        if not samples[ph] or dec[ph] == 0:
            continue
        s = np.concatenate(samples[ph])
        a = np.array(actions[ph], dtype=np.int64)
        k = len(s)
        reps = max(1, 200_000 // k)
        lo, hi = int(PHASE_LO[ph]), int(PHASE_HI[ph])
        width = max(1, round(counts["legal"][ph] / dec[ph]))
        for f, extra in ((time_legal_mask, (mask,)), (time_count, (mask, lo, hi)),
                         (time_choose, (mask, lo, width))):
            f(s[:1], 1, *extra)  # compile
        t_mask = best_ns(k * reps, lambda: time_legal_mask(s, reps, mask))
        t_count = best_ns(k * reps, lambda: time_count(s, reps, mask, lo, hi)) - t_mask
        t_choose = best_ns(k * reps, lambda: time_choose(s, reps, mask, lo, width))
        work = s.copy()
        time_apply(work[:1], a[:1])
        time_advance(work[:1], mask)
        time_step(s.copy()[:1], a[:1], mask)
        t_apply = t_advance = t_step = float("inf")
        for _ in range(5):
            work = s.copy()
            t0 = time.perf_counter()
            time_apply(work, a)
            t1 = time.perf_counter()
            time_advance(work, mask)
            t2 = time.perf_counter()
            t_apply, t_advance = min(t_apply, t1 - t0), min(t_advance, t2 - t1)
            work = s.copy()
            t0 = time.perf_counter()
            time_step(work, a, mask)
            t_step = min(t_step, time.perf_counter() - t0)
        t_apply, t_advance, t_step = (x / k * 1e9 for x in (t_apply, t_advance, t_step))
        share = dec[ph] / total
        model += share * (t_step + t_choose)
        rows.append([PHASE_NAMES[ph], f"{share:.1%}", f"{counts['forced'][ph] / g:.1f}",
                     f"{counts['legal'][ph] / dec[ph]:.1f}", str(hi - lo), f"{t_mask:.0f}",
                     f"{max(t_count, 0):.0f}", f"{t_choose:.0f}", f"{t_apply:.0f}",
                     f"{t_advance:.0f}", f"{t_step:.0f}",
                     f"{share * (t_step + t_choose):.0f}"])
    template, seeds = make_batch(config, 0, 1000)
    cap = max_game_length(config)
    play_batch(template[:2].copy(), seeds[:2], cap)
    best = 0.0
    for _ in range(3):
        work = template.copy()
        t0 = time.perf_counter()
        out = play_batch(work, seeds, cap)
        best = max(best, out.sum() / (time.perf_counter() - t0))
    return {"games": g, "decisions": total, "forced": int(counts["forced"].sum()),
            "seeks": int(counts["seeks"].sum()), "rows": rows, "model_ns": model,
            "random_games": best}


def render(figures: dict, args: argparse.Namespace) -> str:
    g, total, model, best = (figures["games"], figures["decisions"], figures["model_ns"],
                             figures["random_games"])
    return "\n".join([
        f"# borders_sim engine profile: {args.players} players, random play", "",
        f"- census of {g} games: {total / g:.0f} decisions, {figures['forced'] / g:.0f} forced "
        f"moves and {figures['seeks'] / g:.0f} seeks that move on per game", "",
        markdown_table(["phase", "decisions", "forced/game", "legal/decision", "span",
                        "legal_mask ns", "count ns", "choose ns", "apply ns", "advance ns",
                        "step ns", "weighted ns/decision"], figures["rows"]), "",
        f"- model: {model:.0f} ns per decision ({1e3 / model:.2f} M decisions/s); "
        f"random_games on 1 thread: {best / 1e6:.2f} M decisions/s ({1e9 / best:.0f} ns)"])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=5, choices=range(3, 9))
    parser.add_argument("--games", type=int, default=400, help="games of the census")
    parser.add_argument("--samples", type=int, default=2000, help="sampled states per phase")
    add_shared(parser, quick=dict(games=20, samples=50), json=True)
    run(parser, measure, render, argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
