"""The one Python game loop: the seats' players choose in turn until a seat without one must
decide, or the game ends.

A seat's player is a *decider*, ``(observation, action_mask) -> action id``: a bot's ``act``
(the :class:`~borders_sim.agents.Bot` protocol, which sees what one player sees), a policy of
:class:`~borders_sim.envs.SingleSeatEnv`, a person at a terminal, the decisions of a saved game.
``None`` in a seat marks a decision the caller takes itself (a learner's turn).
:func:`play_turns` is the loop of a tournament's Python path (:mod:`borders_sim.arena.paths`),
the single-seat env, the terminal game and a replay (:mod:`borders_sim.arena.records`); each
keeps only what is its own (recording, a person's input, a learner's turn, a replay's checks)
in its decider and its ``on_step`` callback. (OpenSpiel's ``evaluate_bots`` is the same loop.)

Every choice is checked before it is applied: an id that is not an int of the action space, or
not legal now, raises :class:`IllegalChoice` naming the seat, the choice, the phase and the
legal actions, and the game stays at that decision.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..checks import is_int, shown
from ..rules.actions import NUM_ACTIONS, IllegalActionError
from .game import Game
from .views import observe

#: ``(observation, action_mask) -> action id``: a seat's player; ``observation`` is that seat's
#: float32[OBS_SIZE] view (:func:`~borders_sim.game.views.observe`), ``action_mask``
#: bool[NUM_ACTIONS].
Decider = Callable[[np.ndarray, np.ndarray], int]


class GameTooLong(RuntimeError):
    """A game went on past the cap on its decisions (``max_game_length``, P-0.4: an engine
    bug)."""


class IllegalChoice(IllegalActionError):
    """A seat's player chose something that is not a legal action id now (the game did not
    change); ``seat`` and ``choice`` say who and what."""

    def __init__(self, message: str, seat: int, choice: object) -> None:
        super().__init__(message)
        self.seat = seat
        self.choice = choice


def play_turns(game: Game, seats: Sequence[Decider | None],
               on_step: Callable[[int, int], None] | None = None,
               max_steps: int | None = None) -> int | None:
    """While ``game`` is not over and the seat to move has a player in ``seats`` (one entry per
    seat), that player chooses from the seat's observation and legal mask and the choice is
    applied; ``on_step(seat, action)`` is called after each. Returns the seat to move when its
    entry is ``None`` (the caller's decision), or ``None`` once the game is over.

    Raises:
        IllegalChoice: a player chose a non-int, an id outside the action space or an illegal
            one (nothing applied; the message names the seat, the choice and the legal ids).
        GameTooLong: more than ``max_steps`` decisions were taken in this call (a game ends
            within ``max_game_length`` decisions, P-0.4: an engine bug).
        Exception: whatever a player raised, unchanged.
    """
    steps = 0
    while not game.is_terminal:
        p = game.current_player
        decide = seats[p]
        if decide is None:
            return p
        if max_steps is not None and steps == max_steps:
            raise GameTooLong(f"the game did not end within max_game_length = {max_steps} "
                              "decisions (P-0.4): an engine bug")
        mask = game.legal_mask().astype(np.bool_)
        a = decide(observe(game, p), mask)
        if isinstance(a, np.ndarray) and a.shape == ():
            a = a.item()
        if not is_int(a) or not 0 <= a < NUM_ACTIONS or not mask[a]:
            legal = [f"{b} {game.action_to_string(int(b))!r}" for b in np.flatnonzero(mask)]
            raise IllegalChoice(f"seat p{p} returned {shown(a)}, which is not a legal action "
                                f"in phase {game.phase!r}; legal: {legal}", p, a)
        game.step(int(a))
        steps += 1
        if on_step is not None:
            on_step(p, int(a))
    return None
