"""The zoo: learned reference opponents that are not the shipped ``ppo``, seated as
``ppo-zoo/NAME`` (options as ``ppo``'s: ``ppo-zoo/NAME:argmax``, ``ppo-zoo/NAME:temp=T``).

A population evaluation (:mod:`borders_sim.arena.population`) needs learned players besides
the heuristics: players that learned to exploit the heuristics in minutes, as a user's first
run does, and earlier shipped policies. :data:`ZOO` names each member with the command that
made it; its file, ``zoo/NAME.npz`` beside this module, is that run's ``policy.npz`` with its
weights stored as float16 (half the bytes; the network computes in float32 as for any policy
file, and its ``meta`` records the run's settings). ``python -m borders_sim.policies.zoo``
lists the members.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NamedTuple

#: Where the members' files are.
ZOO_DIR = Path(__file__).resolve().parent / "zoo"
#: The prefix of a zoo member's spec.
PREFIX = "ppo-zoo/"


class Member(NamedTuple):
    """A zoo member: what it is and the command that made it (its seed in the command)."""

    about: str
    command: str


_NOTEBOOK = ("borders-sim train --players 4 --opponents honest,bluffer,collector --minutes 3 "
             "--num-envs 64 --steps 64 --eval-every 0 --seed {seed} --out runs/zoo-{name}")
_LEAGUE = ("borders-sim train --players 4 --minutes 4 --eval-every 0 --seed {seed} "
           "--out runs/zoo-{name}")

#: Every member, by name.
ZOO: dict[str, Member] = {
    **{f"notebook-s{seed}": Member(
        "the notebook's recipe (examples/quickstart.ipynb): 3 minutes of masked PPO against "
        "honest, bluffer and collector, 64 games side by side",
        _NOTEBOOK.format(seed=seed, name=f"notebook-s{seed}")) for seed in (1, 2, 3)},
    **{f"notebook-s{seed}": Member(
        "the notebook's recipe bounded by updates instead of the clock (480 updates, what 3 "
        "minutes give on this 2-core machine when it is quiet), so a busy machine makes the "
        "same policy", _NOTEBOOK.replace("--minutes 3", "--minutes 10 --max-updates 480")
        .format(seed=seed, name=f"notebook-s{seed}")) for seed in (4, 5)},
    **{f"league-s{seed}": Member(
        "the trainer's defaults (a league of the heuristics, random and self-play) for 4 "
        "minutes", _LEAGUE.format(seed=seed, name=f"league-s{seed}")) for seed in (1, 2)},
    "e2": Member(
        "the policy shipped as ppo from 2026-12-03 (stage 1 of the recipe in docs/training.md: "
        "behaviour cloning of honest, then 85 minutes against the league with a KL "
        "pull toward the clone)",
        "borders-sim train --players 4 --opponents league --mixed 0.5 --imitate honest "
        "--imitate-epochs 12 --anchor 0.05 --minutes 85 --seed 3 --eval-every 300 "
        "--eval-games 200 --out runs/e2"),
    "e6": Member(
        "the policy shipped as ppo on 2026-12-04, before e10 (stage 2 of the recipe: 70 "
        "minutes more from e2 with a main exploiter)",
        "borders-sim train --players 4 --opponents league --init runs/e2/policy.npz --anchor "
        "0.05 --exploiter-every 40 --minutes 70 --seed 5 --eval-every 0 --out runs/e6"),
    "e9": Member(
        "stage 3 of the recipe: e6 trained 500 more updates at mixed tables against the league "
        "and two short-run learners of this zoo (notebook-s1, league-s1), with a KL pull of "
        "0.05 toward e6",
        "borders-sim train --players 4 --opponents league,ppo-zoo/notebook-s1,ppo-zoo/league-s1 "
        "--init runs/e6/policy.npz --anchor 0.05 --mixed 0.75 --max-updates 500 --minutes 75 "
        "--seed 21 --eval-every 0 --checkpoint-every 100 --out runs/e9"),
    "e10": Member(
        "the policy shipped as ppo on 2026-12-05, before e12 (stage 4 of the recipe: e9 "
        "trained 500 more updates the same way, the KL pull toward e9)",
        "borders-sim train --players 4 --opponents league,ppo-zoo/notebook-s1,ppo-zoo/league-s1 "
        "--init runs/e9/policy.npz --anchor 0.05 --mixed 0.75 --max-updates 500 --minutes 60 "
        "--seed 22 --eval-every 0 --checkpoint-every 100 --out runs/e10"),
    "e11": Member(
        "stage 5 of the recipe: e10 trained 300 more updates at mixed tables against the league "
        "and three short-run learners, notebook-s2 (the notebook policy e10 lost its table to) "
        "among them, with a KL pull of 0.05 toward e10",
        "borders-sim train --players 4 --opponents league,ppo-zoo/notebook-s1,"
        "ppo-zoo/notebook-s2,ppo-zoo/league-s1 --init runs/e10/policy.npz --anchor 0.05 "
        "--mixed 0.75 --max-updates 300 --minutes 60 --seed 23 --eval-every 0 "
        "--checkpoint-every 100 --out runs/e11"),
    "e12": Member(
        "the policy shipped as ppo since 2026-12-05 (stage 6 of the recipe: e11 trained 300 "
        "more updates at mixed tables against the league, four short-run learners and the two "
        "stages before it, e10 and e11, with a KL pull of 0.05 toward e11; notebook-s4 and -s5 "
        "held out); while it is the shipped file, the population evaluation seats it as ppo "
        "and leaves this copy out",
        "borders-sim train --players 4 --opponents league,ppo-zoo/notebook-s1,"
        "ppo-zoo/notebook-s2,ppo-zoo/notebook-s3,ppo-zoo/league-s1,ppo-zoo/e10,ppo-zoo/e11 "
        "--init runs/e11/policy.npz --anchor 0.05 --mixed 0.75 --max-updates 300 --minutes 60 "
        "--seed 29 --eval-every 0 --checkpoint-every 100 --out runs/e12"),
}


def is_zoo_spec(spec: str) -> bool:
    """Whether ``spec`` names a zoo member (``ppo-zoo/NAME[:OPTION]``), known or not."""
    return isinstance(spec, str) and spec.startswith(PREFIX)


def zoo_path(name: str) -> Path:
    """The file of zoo member ``name``.

    Raises:
        ValueError: no member of that name (the message lists them), or its file is missing
            from this install.
    """
    if name not in ZOO:
        raise ValueError(f"no zoo member {name!r}; the zoo: "
                         f"{', '.join(PREFIX + n for n in ZOO)}")
    path = ZOO_DIR / f"{name}.npz"
    if not path.is_file():
        raise ValueError(f"zoo member {name!r}: its file {path} is missing from this install")
    return path


def main() -> int:
    """Print every member, its file and the command that made it."""
    for name, member in ZOO.items():
        where = ZOO_DIR / f"{name}.npz"
        print(f"{PREFIX}{name}{'' if where.is_file() else ' (file missing)'}\n"
              f"  {member.about}\n  made by: {member.command}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
