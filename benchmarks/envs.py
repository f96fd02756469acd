"""Speed of borders_sim's environments beside PettingZoo's classic card games, in one run.

Usage::

    python benchmarks/envs.py                  # 3..8 players, 2 s per figure, median of 3
    python benchmarks/envs.py --quick          # 4 players, shorter runs
    python benchmarks/envs.py --players 4,8 --seconds 3 --repeat 5 --vector-envs 2048

Measured (every figure the median of ``--repeat`` timed runs of about ``--seconds`` each):

* the PettingZoo AEC env ``borders_v0``, ``raw_env`` and the wrapped ``env()``, and PettingZoo's
  ``texas_holdem_v4`` and ``leduc_holdem_v4`` (raw and wrapped, when ``pettingzoo[classic]`` is
  installed: the ``bench`` extra) through the *same* loop: ``agent_iter``, ``last()``, a
  uniformly random legal action from the mask (``random.random``, cheap for every env alike),
  ``step``; steps/s;
* :func:`borders_sim.envs.observe` from Python: calls/s;
* :class:`borders_sim.envs.VectorEnv` with ``--vector-envs`` games: env steps/s with
  observations and masks written, on one numba thread and on all (``--repeat`` pairs of runs,
  one thread then all, back to back); the random legal actions are chosen by a small compiled
  helper, timed apart and excluded.

Ratios against the peers are of figures measured in this same run (the machine may be busy).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time


import numba
import numpy as np
from numba import njit, prange

from borders_sim import Game, GameConfig
from borders_sim.cli.common import player_counts
from borders_sim.report import markdown_table, si
from borders_sim.envs import VectorEnv, borders_v0, observe
from harness import add_shared, run


def aec_rate(env, seconds: float) -> float:
    """Steps/s of a PettingZoo AEC env in the standard loop with random legal actions."""
    rng = random.Random(0)
    env.reset(seed=0)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                action = None
            else:
                legal = obs["action_mask"].nonzero()[0]
                action = int(legal[int(rng.random() * len(legal))])
            env.step(action)
            steps += 1
        env.reset()
    return steps / (time.perf_counter() - start)


def observe_rate(n: int, seconds: float) -> float:
    game = Game(GameConfig(num_players=n), seed=1)
    rng = random.Random(1)
    for _ in range(150):
        game.step(rng.choice(game.legal_actions()))
    calls = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        for p in range(n):
            observe(game, p)
        calls += n
    return calls / (time.perf_counter() - start)


@njit(cache=True, parallel=True)
def _random_legal(masks, words, out):
    """A uniformly random legal action per row of ``masks`` (bool[N, A])."""
    for i in prange(masks.shape[0]):
        w = words[i, 0] * np.uint64(6364136223846793005) + np.uint64(1442695040888963407)
        words[i, 0] = w
        count = 0
        for a in range(masks.shape[1]):
            count += masks[i, a]
        k = np.int64((w >> np.uint64(33)) % np.uint64(count))
        for a in range(masks.shape[1]):
            if masks[i, a]:
                if k == 0:
                    out[i] = a
                    break
                k -= 1


def vector_rate(n: int, num_envs: int, threads: int, seconds: float,
                **options: bool) -> tuple[float, float]:
    """(env steps/s of VectorEnv.step alone, the share of time choosing actions); ``options``:
    VectorEnv's ``all_views`` and ``credit``."""
    numba.set_num_threads(threads)
    env = VectorEnv(num_envs, num_players=n, seed=0, **options)
    out = env.reset()
    words = np.arange(1, num_envs + 1, dtype=np.uint64).reshape(-1, 1)
    actions = np.zeros(num_envs, dtype=np.int64)
    _random_legal(out.action_mask, words, actions)
    env.step(actions)  # warm-up (compilation or cache load)
    stepping = choosing = 0.0
    calls = 0
    while stepping + choosing < seconds:
        t0 = time.perf_counter()
        _random_legal(out.action_mask, words, actions)
        t1 = time.perf_counter()
        out = env.step(actions)
        t2 = time.perf_counter()
        choosing += t1 - t0
        stepping += t2 - t1
        calls += 1
    return calls * num_envs / stepping, choosing / (choosing + stepping)


def vector_rates(n: int, num_envs: int, threads: int, seconds: float,
                 repeat: int, **options: bool) -> tuple[float, float, float]:
    """(VectorEnv steps/s on one thread, on ``threads`` threads, the share of the one-thread
    loop spent choosing actions): medians of ``repeat`` back-to-back pairs of runs, so both
    figures see the same machine (a shared host's speed drifts within minutes). Leaves numba
    on ``threads`` threads."""
    ones, alls, shares = [], [], []
    for _ in range(repeat):
        rate, share = vector_rate(n, num_envs, 1, seconds, **options)
        ones.append(rate)
        shares.append(share)
        alls.append(vector_rate(n, num_envs, threads, seconds, **options)[0])
    numba.set_num_threads(threads)
    return statistics.median(ones), statistics.median(alls), statistics.median(shares)


def median(f, repeat: int) -> float:
    return statistics.median(f() for _ in range(repeat))


def peers(seconds: float, repeat: int) -> dict[str, tuple[float, float]]:
    """Raw and wrapped steps/s of PettingZoo's classic poker envs, if installed."""
    out = {}
    try:
        from pettingzoo.classic import leduc_holdem_v4, texas_holdem_v4
    except ImportError as err:  # the bench extra is not installed
        print(f"(PettingZoo classic peers skipped: {err})", file=sys.stderr)
        return out
    for name, module in (("texas_holdem_v4", texas_holdem_v4), ("leduc_holdem_v4", leduc_holdem_v4)):
        out[name] = (median(lambda: aec_rate(module.raw_env(), seconds), repeat),
                     median(lambda: aec_rate(module.env(), seconds), repeat))
    return out


def parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", default=None, type=player_counts,
                        help="'all' (3..8) or a list such as 4,8 (default: all; --quick: 4)")
    parser.add_argument("--seconds", type=float, default=None,
                        help="length of one timed run (default 2; --quick 0.5)")
    parser.add_argument("--repeat", type=int, default=None,
                        help="timed runs per figure, the median is reported (default 3; --quick 1)")
    parser.add_argument("--vector-envs", type=int, default=1024,
                        help="games stepped together by VectorEnv (default 1024)")
    add_shared(parser, json=True)  # --quick: one player count, short runs
    return parser


def settle(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The defaults that depend on ``--quick``, and the bounds checked."""
    if args.players is None:
        args.players = (4,) if args.quick else tuple(range(3, 9))
    if args.seconds is None:
        args.seconds = 0.5 if args.quick else 2.0
    if args.repeat is None:
        args.repeat = 1 if args.quick else 3
    if not (0 < args.seconds <= 600 and 1 <= args.repeat <= 100
            and 1 <= args.vector_envs <= 1 << 16):
        parser.error("--seconds must be in (0, 600], --repeat 1..100, --vector-envs 1..65536")


def measure(args: argparse.Namespace) -> dict:
    """Each player count's rates (AEC raw and wrapped, observe, VectorEnv on 1 thread and
    all), and the peers' in the same loop."""
    secs, rep, cores = args.seconds, args.repeat, numba.config.NUMBA_NUM_THREADS
    print(f"borders_sim environments: {secs:g} s per run, median of {rep}; numba "
          f"{numba.__version__}, {cores} threads; VectorEnv with {args.vector_envs} games",
          file=sys.stderr)
    for n in args.players:  # compile (or load) every kernel before any clock starts
        aec_rate(borders_v0.raw_env(num_players=n), 0.05)
        vector_rate(n, 8, 1, 0.05)
    peer = peers(secs, rep)
    rows = []
    for n in args.players:
        raw = median(lambda: aec_rate(borders_v0.raw_env(num_players=n), secs), rep)
        wrapped = median(lambda: aec_rate(borders_v0.env(num_players=n), secs), rep)
        obs = median(lambda: observe_rate(n, secs), rep)
        v1, vn, share1 = vector_rates(n, args.vector_envs, cores, secs, rep)
        rows.append({"players": n, "raw": raw, "wrapped": wrapped, "observe": obs,
                     "vector_1": v1, "vector_all": vn})
        print(f"  {n} players done (action choice took {share1:.0%} of the 1-thread "
              "VectorEnv loop, excluded)", file=sys.stderr)
    return {"threads": cores, "rows": rows, "peers": peer}


def render(figures: dict, args: argparse.Namespace) -> str:
    peer, cores = figures["peers"], figures["threads"]
    texas = peer.get("texas_holdem_v4")
    rows = [[str(r["players"]), si(r["raw"]), si(r["wrapped"]),
             f"{r['raw'] / texas[0]:.1f}x" if texas else "-",
             f"{r['wrapped'] / texas[1]:.1f}x" if texas else "-",
             si(r["observe"]), si(r["vector_1"]), si(r["vector_all"]),
             f"{r['vector_all'] / r['vector_1']:.2f}x"] for r in figures["rows"]]
    text = markdown_table(
        ["players", "AEC raw steps/s", "AEC wrapped steps/s", "raw / texas raw",
         "wrapped / texas wrapped", "observe() calls/s", "VectorEnv 1 thread steps/s",
         f"VectorEnv {cores} threads steps/s", "scaling"], rows)
    if peer:
        text += "\n\n" + markdown_table(["peer (same loop)", "raw steps/s", "wrapped steps/s"],
                                        [[name, si(r), si(w)] for name, (r, w) in peer.items()])
    return text


def main(argv=None) -> int:
    run(parser(), measure, render, argv, check=settle)
    return 0


if __name__ == "__main__":
    sys.exit(main())
