"""Strength and speed of the ``ismcts`` search bot against a lineup of other bots.

Usage::

    python benchmarks/ismcts.py                                  # 40 games, 1 ismcts vs 3 random
    python benchmarks/ismcts.py --opponents honest,bluffer,collector --games 60
    python benchmarks/ismcts.py --opponents collector --games 40 --simulations 320

Plays ``--games`` games of ``len(opponents) + 1`` players: game ``g`` is dealt from seed
``--seed + g`` and ``ismcts`` sits at seat ``g mod players`` (seat-rotated), the opponents in
the other seats in the given order (one name repeats for every opponent seat). Each bot is
made with :func:`borders_sim.agents.make` (``ismcts`` with the options below) and seeded from
the game's seed and its seat. It prints, for ``ismcts`` and for every opponent name, the win
rate (a shared victory counts ``1/k`` for each of the ``k`` winners) with a 95% Wilson
interval, the mean score, and for ``ismcts`` the fair share ``1 / players`` it must beat,
seconds per game and per search decision (decisions with one legal action are answered at
once and not counted). The first game includes numba's compilation or cache load of the
search kernel; it is timed apart.
"""

from __future__ import annotations

import argparse
import math
import sys
import time

import numpy as np

from borders_sim import Game, GameConfig
from borders_sim.agents import REGISTRY, ISMCTSBot, make
from borders_sim.batch.seeds import bot_seed
from borders_sim.envs import observe
from borders_sim.report import markdown_table
from harness import add_shared, run


def wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def play_game(config: GameConfig, seed: int, names: list[str], search: dict) -> dict:
    """One game; ``names[p]`` plays seat ``p``. Returns scores, winners and search timings."""
    bots = [ISMCTSBot(seed=bot_seed(seed, p), **search) if name == "ismcts"
            else make(name, bot_seed(seed, p)) for p, name in enumerate(names)]
    game = Game(config, seed=seed)
    search_time, search_decisions = 0.0, 0
    while not game.is_terminal:
        p = game.current_player
        mask = game.legal_mask()
        start = time.perf_counter()
        action = bots[p].act(observe(game, p), mask)
        if names[p] == "ismcts" and mask.sum() > 1:
            search_time += time.perf_counter() - start
            search_decisions += 1
        game.step(action)
    return {"scores": game.scores(), "winners": game.winners(), "search_time": search_time,
            "search_decisions": search_decisions}


def measure(args: argparse.Namespace) -> dict:
    """The games, ``ismcts`` rotating over the seats: each bot's seats, wins and scores, the
    games' seconds and the search's.

    Raises:
        SystemExit: an unknown opponent or a player count outside 3..8.
    """
    opponents = [name.strip() for name in args.opponents.split(",") if name.strip()]
    if len(opponents) == 1:
        opponents *= args.players - 1
    unknown = sorted(set(opponents) - set(REGISTRY))
    if unknown:
        raise SystemExit(f"unknown bot(s) {unknown}; known bots: {sorted(REGISTRY)}")
    n = len(opponents) + 1
    if not 3 <= n <= 8:
        raise SystemExit(f"{n} players: the game takes 3 to 8")
    search = {k: v for k, v in (("simulations", args.simulations),
                                ("time_limit", args.time_limit), ("worlds", args.worlds),
                                ("rollout", args.rollout), ("reward", args.reward))
              if v is not None}
    config = GameConfig(num_players=n)
    print(f"{args.games} games, {n} players: ismcts {search or '(defaults)'} "
          f"{ISMCTSBot(**search)!r} vs {', '.join(opponents)}", file=sys.stderr, flush=True)
    wins: dict[str, float] = {}
    seats: dict[str, int] = {}
    scores: dict[str, list[int]] = {}
    times, search_time, search_decisions = [], 0.0, 0
    for g in range(args.games):
        me = g % n
        names = opponents[:me] + ["ismcts"] + opponents[me:]
        start = time.perf_counter()
        result = play_game(config, args.seed + g, names, search)
        times.append(time.perf_counter() - start)
        if g > 0 or args.games == 1:
            search_time += result["search_time"]
            search_decisions += result["search_decisions"]
        share = 1.0 / len(result["winners"])
        for p, name in enumerate(names):
            seats[name] = seats.get(name, 0) + 1
            wins[name] = wins.get(name, 0.0) + (share if p in result["winners"] else 0.0)
            scores.setdefault(name, []).append(int(result["scores"][p]))
        print(f"game {g + 1:3d}/{args.games}: ismcts at seat {me}, scores {result['scores']}, "
              f"winners {result['winners']}, {times[-1]:.1f}s, ismcts "
              f"{wins['ismcts']:.1f}/{g + 1}", file=sys.stderr, flush=True)
    return {"players": n, "bots": ["ismcts"] + sorted(set(opponents)), "seats": seats,
            "wins": wins, "scores": scores, "times": times, "search_time": search_time,
            "search_decisions": search_decisions}


def render(figures: dict, args: argparse.Namespace) -> str:
    wins, seats, n = figures["wins"], figures["seats"], figures["players"]
    rows = []
    for name in figures["bots"]:
        lo, hi = wilson(wins[name], seats[name])
        rows.append([name, str(seats[name]), f"{wins[name]:.1f}",
                     f"{wins[name] / seats[name]:.3f}", f"[{lo:.3f}, {hi:.3f}]",
                     f"{np.mean(figures['scores'][name]):.1f}"])
    lo, _ = wilson(wins["ismcts"], seats["ismcts"])
    verdict = "beats" if lo > 1 / n else "does not significantly beat"
    times = figures["times"]
    warm = times[1:] if len(times) > 1 else times
    decisions = figures["search_decisions"]
    return "\n".join([
        markdown_table(["bot", "seats", "wins", "win rate", "95% CI", "mean score"], rows), "",
        f"ismcts {verdict} the fair share 1/{n} = {1 / n:.3f} (95% CI lower bound {lo:.3f})",
        f"seconds per game: mean {np.mean(warm):.1f}, max {np.max(warm):.1f} (first game, "
        f"with compilation: {times[0]:.1f}); per search decision: "
        f"{figures['search_time'] / max(decisions, 1) * 1e3:.0f} ms over "
        f"{decisions / max(len(warm), 1):.0f} decisions a game"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--opponents", default="random",
                        help="comma-separated bot names for the other seats; one name fills "
                             "every opponent seat (default: random)")
    parser.add_argument("--players", type=int, default=4,
                        help="player count when --opponents is one name (default 4)")
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--simulations", type=int, default=None,
                        help="rollouts per decision (default: the bot's)")
    parser.add_argument("--time-limit", type=float, default=None,
                        help="seconds per decision (default: none)")
    parser.add_argument("--worlds", type=int, default=None)
    parser.add_argument("--rollout", default=None, help="compiled rollout bot")
    parser.add_argument("--reward", default=None, choices=("win", "score", "margin"))
    add_shared(parser, quick=dict(games=2, simulations=16), json=True)
    run(parser, measure, render, argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
