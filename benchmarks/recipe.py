"""The recipe of the shipped policy (``docs/training.md``), read from the policy file itself.

    python benchmarks/recipe.py                  # print the table
    python benchmarks/recipe.py --write-docs   # also put it in docs/training.md (section "recipe")

A policy file's ``meta`` records the run that made it, and a run started with ``--init`` keeps
its starting file's ``meta`` under ``init``: the shipped file
(:data:`~borders_sim.policies.network.SHIPPED_WEIGHTS`) holds every stage of its recipe. This
script walks that chain from the first stage to the last and prints, per stage, its seed,
start, opponents, updates, learner steps and training minutes, and the command that made it:
each stage is the run of a zoo member (:mod:`borders_sim.policies.zoo`, matched by seed,
updates and learner steps), whose entry holds the command. The zoo members a stage plays
against (``ppo-zoo/NAME`` opponents) are runs of their own, listed before it: a checkout has
their files, a recipe from nothing makes them first.

Nothing here is typed by hand: the minutes are the ``seconds`` the trainer recorded (its updates
and, for a stage that imitates a bot first, the imitation), so a stage's wall clock, which adds
compiling and start-up, is a little longer. ``tests/test_readme_tables.py`` regenerates the
section and compares it with the one in ``docs/training.md``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


from borders_sim.report import markdown_table
from borders_sim.policies.network import SHIPPED_WEIGHTS, policy_meta
from borders_sim.policies.zoo import PREFIX, ZOO, zoo_path
from harness import add_shared, run

IDENTITY = ("seed", "updates", "learner_steps")


def stages(meta: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The runs of a policy file's recipe as (zoo member, meta), first stage first: its
    ``init`` chain, and for a run that predates the trainer recording its ``--init`` file's
    meta, the zoo member its command starts from (``--init runs/NAME/policy.npz``)."""
    chain = []
    while isinstance(meta, dict):
        name = zoo_member(meta)
        chain.append((name, meta))
        meta = meta.get("init")
        if meta is None:
            words = ZOO[name].command.split()
            if "--init" in words:
                start = Path(words[words.index("--init") + 1]).parent.name
                meta = policy_meta(zoo_path(start))
    return chain[::-1]


def zoo_member(meta: dict[str, Any]) -> str:
    """The zoo member that stores the run of ``meta``; ``SystemExit`` naming the run if none
    does (a stage without its command in the zoo cannot be reproduced from the docs)."""
    for name in ZOO:
        if all(policy_meta(zoo_path(name)).get(k) == meta.get(k) for k in IDENTITY):
            return name
    raise SystemExit("no zoo member holds the run with " + ", ".join(
        f"{k} {meta.get(k)}" for k in IDENTITY) + ": add it to borders_sim/policies/zoo.py")


def minutes(meta: dict[str, Any]) -> float:
    """The training minutes a run recorded: its updates, and its imitation if it had one."""
    imitated = meta.get("imitated") or {}
    return (meta["seconds"] + imitated.get("seconds", 0.0)) / 60


def start_of(meta: dict[str, Any], previous: str | None) -> str:
    if previous is not None:
        return f"stage {previous}"
    if meta.get("imitated"):
        return f"BC {meta['imitated']['teacher']}"
    return "fresh"


def opponents(meta: dict[str, Any]) -> str:
    """A run's ``--opponents`` for the narrow table: the names, or for a pool with zoo
    members the others' names and how many zoo members (the commands below name them)."""
    zoo = [o for o in meta["opponents"] if o.startswith(PREFIX)]
    others = [o for o in meta["opponents"] if not o.startswith(PREFIX)]
    return ",".join(others) + (f" + {len(zoo)} zoo" if zoo else "")


def read(weights: Path = SHIPPED_WEIGHTS) -> dict:
    """The recipe of the policy file ``weights``: its stages, ``[zoo member, meta]`` first
    stage first, and the zoo runs they play against that are no stage (the same pairs)."""
    found = stages(policy_meta(weights))
    names = [name for name, _ in found]
    needed = sorted({o[len(PREFIX):] for _, meta in found for o in meta["opponents"]
                     if o.startswith(PREFIX)} - set(names))
    return {"stages": [[name, meta] for name, meta in found],
            "zoo": [[name, policy_meta(zoo_path(name))] for name in needed]}


def measure(args: argparse.Namespace) -> dict:
    """The shipped policy's recipe (:func:`read`)."""
    return read()


def recipe_text(weights: Path = SHIPPED_WEIGHTS) -> str:
    """The section of the policy file ``weights`` (:func:`render` of :func:`read`)."""
    return render(read(weights))


def render(figures: dict, args: argparse.Namespace | None = None) -> str:
    """The section: the stages' table, the zoo runs they play against, the total, the commands."""
    names, runs = zip(*figures["stages"])
    needed = [name for name, _ in figures["zoo"]]
    rows, previous = [], None
    for k, (name, meta) in enumerate(zip(names, runs), 1):
        rows.append([str(k), name, str(meta["seed"]), start_of(meta, previous),
                     opponents(meta), f"{meta['updates']:,}",
                     f"{meta['learner_steps'] / 1e6:.2f}M", f"{minutes(meta):.1f}"])
        previous = str(k)
    for name, meta in figures["zoo"]:
        rows.append(["-", name, str(meta["seed"]), start_of(meta, None),
                     opponents(meta), f"{meta['updates']:,}",
                     f"{meta['learner_steps'] / 1e6:.2f}M", f"{minutes(meta):.1f}"])
    stage_minutes = sum(minutes(meta) for meta in runs)
    all_minutes = stage_minutes + sum(minutes(meta) for _, meta in figures["zoo"])
    table = markdown_table(["stage", "run", "seed", "start", "opponents", "updates",
                            "steps", "min"], rows)
    lines = [
        f"**The recipe of the shipped policy**, read from its file's `meta` ({len(runs)} "
        f"stages; each stage is the run of a zoo member, which a stage after it starts from "
        f"with `--init`; opponents: its `--opponents`, with the number of zoo members in "
        f"it (its command names them); a row without a stage: a zoo run that a stage plays "
        f"against; BC: behaviour cloning first; min: the training minutes "
        f"the run recorded):",
        "", table, "",
        f"{stage_minutes:.1f} minutes of training in the stages, {all_minutes:.1f} with the "
        f"zoo runs they play against made too (a 2-core machine, one torch thread, as the "
        f"table's runs recorded). The commands, in order "
        f"(`python -m borders_sim.policies.zoo` lists every zoo run's; a stage's `runs/NAME` "
        f"is the directory the next stage's `--init` reads):", ""]
    for name in [*needed, *names]:
        lines.append(f"- `{name}`: `{ZOO[name].command}`")
    lines += ["", "Made by `python benchmarks/recipe.py --write-docs`."]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    # the recipe reads one file: --quick reads it as it is
    add_shared(parser, docs="replace the recipe section of docs/training.md", json=True)
    run(parser, measure, render, argv, section="recipe")
    return 0


if __name__ == "__main__":
    sys.exit(main())
