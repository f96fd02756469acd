"""The compiled bots, one entry each, and the lists each one joins.

A compiled bot is a name and a policy kernel of a player's observation and legal mask (the
signature is :mod:`.dispatch`'s). Its :class:`CompiledBotEntry` in :data:`BOTS` says both and
which lists it joins; everything else is derived from that table:

* its *kind*, the number a seat table and the pinned games record it by, is its position here
  (``random`` 0, ``honest`` 1, ``bluffer`` 2, ``collector`` 3, ``strict`` 4; the policy networks
  follow, :data:`~.dispatch.BOT_NET`), so a new bot is added at the end and none is ever moved;
* the names :data:`~.dispatch.COMPILED_BOTS` and the dispatch :func:`~.dispatch.act_kernel`,
  so the Python bot of :func:`borders_sim.agents.make` and every seat table and lineup;
* the lists, by the entry's flags (:func:`roster`): the members of ``--opponents league``
  (:data:`borders_sim.train.league.LEAGUE_BOTS`), the trainer's evaluation opponents and single
  deviators (:data:`borders_sim.train.trainer.EVAL_BOTS` and ``DEVIATOR_BOTS``, the latter
  also the rows and columns of ``borders-sim exploit``) and the bots the default lineups cycle
  through (:func:`borders_sim.arena.default_lineup`).

**Adding a bot** is its kernel in a module of its own beside :mod:`.strict` and one entry at
the end of :data:`BOTS`; then pin its games (``python -m tests.pinned_games``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .._compile.jit import kernel
from ..rules.engine import kth_legal
from ..rules.rng import next_below
from .bluffer import bluffer_policy
from .collector import collector_policy
from .honest import honest_policy
from .strict import strict_policy

#: The flags of :class:`CompiledBotEntry` that name a list (:func:`roster`).
ROLES = ("league", "deviator", "evaluation", "lineup")
_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")


@dataclass(frozen=True)
class CompiledBotEntry:
    """One compiled bot: its name, its policy and the lists it joins.

    Attributes:
        name: the bot's name (lower-case letters, digits and ``_``), unique in :data:`BOTS`.
        policy: its kernel ``(obs, mask, words, count, rng) -> action``
            (:mod:`.dispatch`).
        league: a member of ``--opponents league``.
        deviator: a single deviator of the trainer's evaluations and a row and column of
            ``borders-sim exploit``'s matrix.
        evaluation: an opponent of the trainer's evaluations (``n - 1`` copies of it).
        lineup: one of the bots the default lineups cycle through.
        baseline: a reference rather than a strategy (uniform random play): listed after the
            others in the league, the deviators and the evaluation opponents.
    """

    name: str
    policy: Callable[..., int]
    league: bool = True
    deviator: bool = True
    evaluation: bool = True
    lineup: bool = True
    baseline: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME.match(self.name):
            raise ValueError(f"a compiled bot's name is lower-case letters, digits and _, "
                             f"starting with a letter; got {self.name!r}")


@kernel
def random_policy(obs, mask, words, count, rng):
    """Uniform over the legal actions."""
    return kth_legal(words, next_below(rng, count), 0)


#: Every compiled bot, in kind order (module docstring): add a bot at the end.
BOTS: tuple[CompiledBotEntry, ...] = (
    CompiledBotEntry("random", random_policy, evaluation=False, baseline=True),
    CompiledBotEntry("honest", honest_policy),
    CompiledBotEntry("bluffer", bluffer_policy),
    CompiledBotEntry("collector", collector_policy),
    CompiledBotEntry("strict", strict_policy),
)


def roster(role: str) -> tuple[str, ...]:
    """The names of the bots of :data:`BOTS` whose flag ``role`` (one of :data:`ROLES`) is set:
    the lineup in kind order, the other lists with the strategies in kind order and then the
    baselines (so a table of them reads the strategies first)."""
    if role not in ROLES:
        raise ValueError(f"role must be one of {ROLES}, got {role!r}")
    members = [entry for entry in BOTS if getattr(entry, role)]
    if role != "lineup":
        members.sort(key=lambda entry: entry.baseline)  # stable: kind order otherwise
    return tuple(entry.name for entry in members)
