"""The strength at mixed tables (``docs/bots.md``): the population evaluation of the shipped ``ppo``, the
zoo and the heuristics, and ``ppo`` against each learned zoo member at the same tables.

    python benchmarks/population.py                    # print the tables
    python benchmarks/population.py --write-docs     # also put them in docs/bots.md
    python benchmarks/population.py --games 400        # a quicker look

1. **The population**: every game seats 4 different members drawn from ``ppo``, the zoo's
   learned members (:mod:`borders_sim.policies.zoo`; the member that stores the shipped policy
   is ``ppo`` there, so its copy is left out) and the heuristics, seats rotating
   (``borders-sim tournament --pool``).
2. **Mixed tables, one zoo member at a time**: for each learned zoo member ``X``, ``--games``
   games of tables {``ppo``, ``X``, two heuristics drawn from honest, bluffer, collector and
   strict}: ``ppo``'s win share, ``X``'s, and the difference with its 95% interval paired by
   game (the bar of the robust-agent issue: the interval above 0 for every ``X``).
3. **The notebook's table**: each zoo member of the notebook's recipe ``X`` in the lineup the
   notebook plays, ``X, ppo, honest, bluffer`` (``--notebook-games`` games, seats rotating):
   both win rates, and whether ``ppo`` wins the most.

The games are dealt from :data:`~borders_sim.arena.population.POPULATION_SEED` on, a range no
training run deals; the population takes ``--population-games``.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time


from borders_sim.arena import run_tournament
from borders_sim.arena.population import POPULATION_SEED, Population, population
from borders_sim.report import markdown_table, markdown_tables, percent
from borders_sim.arena.population_tables import population_text
from borders_sim.policies.network import SHIPPED_WEIGHTS, policy_meta
from borders_sim.policies.zoo import PREFIX, ZOO, zoo_path
from harness import add_shared, run, stamp

HEURISTICS = ("honest", "bluffer", "collector", "strict")


def learned_zoo() -> list[str]:
    """The zoo's members as specs, without one that stores the shipped policy (the same run:
    seed, updates and learner steps in both files' meta)."""
    shipped = policy_meta(SHIPPED_WEIGHTS)
    keys = ("seed", "updates", "learner_steps")
    return [PREFIX + name for name in ZOO
            if any(policy_meta(zoo_path(name)).get(k) != shipped.get(k) for k in keys)]


#: The columns of part 2's and part 3's tables.
MIXED = ["X", "games", "ppo win rate [95% CI]", "X win rate [95% CI]",
         "ppo - X, points [95% CI]", "ppo ahead of X"]
NOTEBOOK = ["X", "games", "X win rate [95% CI]", "ppo win rate [95% CI]", "ppo wins most"]


def mixed_rows(policy: str, members: list[str], games: int, backend: str) -> list[list[str]]:
    """The rows of part 2, for ``policy`` (``ppo`` or another spec)."""
    rows = []
    for x in members:
        result = population((policy, x, *HEURISTICS), 4, games, POPULATION_SEED,
                            focus=(policy, x), backend=backend)
        ppo, other, pair = result.member(policy), result.member(x), result.pair(policy, x)
        lo, hi = pair.difference_ci95
        rows.append([x, str(pair.games), interval(ppo), interval(other),
                     f"{100 * pair.difference:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]"
                     + (" yes" if lo > 0 else ""), percent(pair.ahead)])
    return rows


def notebook_rows(policy: str, members: list[str], games: int, backend: str
                  ) -> list[list[str]]:
    """The rows of part 3: each notebook-recipe member ``X`` in the notebook's own lineup,
    ``X, policy, honest, bluffer``, seats rotating."""
    rows = []
    for x in members:
        result = run_tournament(4, (x, policy, "honest", "bluffer"), games, POPULATION_SEED,
                                backend=backend)
        by_name = {b["name"]: b for b in result.bots}
        best = max(result.bots, key=lambda b: b["win_rate"])["name"]
        rows.append([x, str(result.games_played), interval(by_name[x]),
                     interval(by_name[policy]), "yes" if best == policy else "no"])
    return rows


def interval(member: dict) -> str:
    lo, hi = member["win_rate_ci95"]
    return f"{percent(member['win_rate'])} [{percent(lo)}, {percent(hi)}]"


def measure(args: argparse.Namespace) -> dict:
    """The whole population's games, the mixed tables and the notebook's table."""
    start = time.perf_counter()
    zoo = learned_zoo()
    pool = (args.policy, *zoo, *HEURISTICS)
    print(f"population of {len(pool)}: {', '.join(pool)}", file=sys.stderr, flush=True)
    whole = population(pool, 4, args.population_games, POPULATION_SEED, backend=args.backend)
    print("mixed tables, one zoo member at a time ...", file=sys.stderr, flush=True)
    pairs = mixed_rows(args.policy, zoo, args.games, args.backend)
    print("the notebook's table ...", file=sys.stderr, flush=True)
    notebook = notebook_rows(args.policy, [x for x in zoo if "/notebook-" in x],
                             args.notebook_games, args.backend)
    return {"population": whole.to_dict(), "mixed": pairs, "notebook": notebook,
            "minutes": (time.perf_counter() - start) / 60, "stamp": stamp(zoo=True)}


def render(figures: dict, args: argparse.Namespace) -> str:
    whole = Population.from_dict(figures["population"])
    command = shlex.join(["python", "benchmarks/population.py", "--games", str(args.games),
                          "--notebook-games", str(args.notebook_games),
                          "--population-games", str(args.population_games), "--backend",
                          args.backend, "--write-docs"])
    return (f"**The population** ({args.population_games} games, 4 players, tables of "
            f"different members drawn from {len(whole.pool)}, seats rotating):\n\n"
            f"{population_text(whole)}\n\n**Mixed tables, one zoo member at a time** "
            f"({args.games} games each of tables {{ppo, X, two of {', '.join(HEURISTICS)}}}; "
            f"'yes': ppo wins more than X, the interval above 0):\n\n"
            f"{markdown_tables(MIXED, figures['mixed'])}\n\n"
            f"**The notebook's table** ({args.notebook_games} games each of the lineup "
            f"X, ppo, honest, bluffer, seats rotating, X a policy of the notebook's recipe):"
            f"\n\n{markdown_table(NOTEBOOK, figures['notebook'])}\n\n"
            f"Made by `{command}` ({figures['minutes']:.1f} min, "
            f"{args.backend} backend), seeds from {POPULATION_SEED}; {figures['stamp']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python benchmarks/population.py",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000,
                        help="games of each zoo member's mixed tables (default: 1000)")
    parser.add_argument("--notebook-games", type=int, default=4200,
                        help="games of each notebook table (default: 4200)")
    parser.add_argument("--population-games", type=int, default=4200,
                        help="games of the whole population (default: 4200)")
    parser.add_argument("--backend", choices=("local", "ray"), default="local")
    parser.add_argument("--policy", default="ppo", metavar="SPEC",
                        help="the policy in ppo's place, e.g. ppo@runs/x (default: ppo; the "
                             "tables of docs/bots.md are ppo's)")
    add_shared(parser, quick=dict(games=20, notebook_games=20, population_games=40),
               docs="put the tables in docs/bots.md's population section", json=True)
    run(parser, measure, render, argv, section="population", check=shipped_only)
    return 0


def shipped_only(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.write_docs and args.policy != "ppo":
        parser.error("--write-docs writes the shipped ppo's tables: leave --policy out")


if __name__ == "__main__":
    sys.exit(main())
