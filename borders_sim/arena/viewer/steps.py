"""The steps of a recorded game, one by one: the position after each decision, and what the log
beside the picture says of it (who did what, as each seat saw it, and the rule it follows).

:func:`walk` replays a trace (:func:`~borders_sim.arena.records.replay`, which checks every
decision and the final scores) and shows each position to a callback: the deal first, then
the position after each decision. :func:`rule_of` names the rule a decision follows, the id of
``docs/RULINGS.md`` that the action table cites for its kind and phase
(:data:`~borders_sim.rules.actions.RANGES`: ``"announce (P-4)"``, ``"market (P-2), raid discard
(R-21)"``).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ...game.drawing import seen_action
from ...game.game import Game
from ...rules import actions as act
from ..records import Trace, replay

#: ``label (rule id)`` in the phase column of the action table.
_CITED = re.compile(r"([a-z' ]+) \((.+?)\)(?:, |$)")
_KIND_OF = tuple(name for name, size, _phase, _meaning in act.RANGES for _ in range(size))
_RULES = {name: _CITED.findall(phase) for name, _size, phase, _meaning in act.RANGES}

#: ``visit(game, last, entry)``: the position ``game`` after the decision ``last``
#: (``(seat, action id)``; ``None``: the deal) and its :func:`log_entry`.
Visit = Callable[[Game, "tuple[int, int] | None", list], None]


def rule_of(action: int, phase: str) -> str:
    """The rule id (``docs/RULINGS.md``) that decision ``action`` follows when taken in the
    phase named ``phase``: of the ids the action table cites for its kind, the one cited for
    that phase, else the first (``rob`` in the market is the action window's P-1)."""
    cited = _RULES[_KIND_OF[action]]
    return next((rule for label, rule in cited if label == phase), cited[0][1])


def log_entry(game: Game, last: tuple[int, int] | None, phase: str | None, round_: int) -> list:
    """The log line of the decision ``last`` (``(seat, action id)``, ``None`` for the deal),
    taken in round ``round_`` and the phase named ``phase`` of ``game``: ``[seat, text, text
    the other seats saw, rule id, round, phase]``. The second text is ``None`` where every seat
    saw the first (:func:`~borders_sim.game.drawing.seen_action`: the card packed is the
    packer's secret); seat, rule id and phase are ``None`` for the deal. :func:`walk` adds a
    seventh entry, the table talk the decision carried, where it carried some."""
    if last is None:
        return [None, "the deal", None, None, round_, None]
    seat, action = last
    menu = game.config.gold_menu
    text = seen_action(seat, action, None, menu)["action"]
    hidden = seen_action(seat, action, (seat + 1) % game.num_players, menu)["action"]
    return [seat, text, hidden if hidden != text else None, rule_of(action, phase), round_,
            phase]


def walk(trace: Trace, visit: Visit) -> Game:
    """Replay ``trace``, calling ``visit`` with the deal and then after each decision; returns
    the finished game.

    Raises:
        TraceError: the trace does not replay (:func:`~borders_sim.arena.records.replay`).
    """
    deal = Game(trace.config, seed=trace.header["seed"])
    round_ = [deal.round]  # the round of the position before the next decision
    visit(deal, None, log_entry(deal, None, None, deal.round))

    def step(game: Game, seat: int, action: int, phase: str) -> None:
        entry = log_entry(game, (seat, action), phase, round_[0])
        talk = trace.talk.get(decisions[0])
        visit(game, (seat, action), entry + [talk] if talk is not None else entry)
        round_[0] = game.round
        decisions[0] += 1

    decisions = [0]  # the index of the next decision (its table talk, if any, is shown)

    return replay(trace, echo=lambda _line: None, on_step=step)
