"""A game in the terminal: one human seat against bots (``borders-sim play``).

The human sees its own view (:func:`~borders_sim.envs.observe_text`: the table, its cards and
knowledge, the border check in progress and its legal actions with their ids) and answers with
an action id or an action string (``announce coffee``). The bots' decisions are printed as
they happen, and the final scores at the end. ``input`` and ``output`` are parameters, so a
test can feed a whole game of scripted answers.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence

from ..agents import Bot, Seat
from ..agents import as_seat as seat_value  # (args.as_seat checks a seat number)
from ..batch.seeds import bot_seed
from ..game.turns import play_turns
from ..game.views import observe_text
from ..game.game import Game
from ..checks import as_seat, as_seed
from ..rules.config import GameConfig

QUIT = ("q", "quit", "exit")


class GameAbandoned(Exception):
    """The human quit, or the input ended, before the game did."""


def parse_answer(game: Game, text: str) -> int | str:
    """The legal action id meant by ``text`` (an id or an action string), or an explanation
    (a ``str``) of why it is not one."""
    text = text.strip()
    legal = game.legal_actions()
    if text.isdigit():  # (an id has at most 3 digits; more may be too many for int())
        a = int(text) if len(text) <= 3 else None
        typed = text if len(text) <= 12 else f"{text[:12]}... ({len(text)} digits)"
        return a if a in legal else f"{typed} is not one of the legal ids {legal}"
    try:
        a = game.string_to_action(text)
    except ValueError as err:
        return f"not an action id or action string: {err}"
    return a if a in legal else f"{text!r} is not legal now"


def play_human(seat: int, bots: Sequence[str | Seat | Callable[..., Bot]], seed: int = 0,
               config: GameConfig | None = None, input: Callable[[str], str] | None = None,
               output: Callable[[str], None] | None = None) -> list[int]:
    """Play one game with the human in ``seat`` and ``bots`` (one per other seat, in seat
    order: names, specs, ``MODULE:NAME``, bot classes, factories or seats,
    :func:`borders_sim.agents.as_seat`); returns the final scores. Bot ``p`` is
    ``seat.make(bot_seed(seed, p))`` as in a tournament game dealt from ``seed``. ``input``
    and ``output`` default to the built-in ``input`` and ``print`` (looked up at the call).

    Raises:
        ValueError: a bad seat, seed (0 to ``2**64 - 1``, :mod:`borders_sim.checks`), bot
            name or count.
        GameAbandoned: the human typed ``q`` / ``quit`` or the input ended (EOF).
    """
    input = input or builtins.input
    output = output or builtins.print
    players = len(bots) + 1
    if config is None:
        config = GameConfig(num_players=players)
    if config.num_players != players:
        raise ValueError(f"{len(bots)} bot(s) and one human make {players} players, but the "
                         f"config has {config.num_players}")
    seat = as_seat(seat, players)
    seed = as_seed(seed)
    others = [seat_value(bot) for bot in bots]
    seats: list[Seat | None] = others[:seat] + [None] + others[seat:]
    names = ["you" if s is None else s.name for s in seats]
    game = Game(config, seed=seed)
    output(f"BORDERS with {players} players, seed {seed}: "
           + ", ".join(f"p{p} {nm}" for p, nm in enumerate(names))
           + f". Answer with an action id or string; {QUIT[0]!r} quits.")
    output(f"--- round {game.round} ---")
    shown_round = [game.round]

    def after(p: int, a: int) -> None:
        """Say the decision, and the new round where it begins one."""
        output(f"p{p} ({names[p]}): {game.action_to_string(a)}")
        if not game.is_terminal and game.round != shown_round[0]:
            shown_round[0] = game.round
            output(f"--- round {game.round} ---")

    deciders = [None if s is None else s.make(bot_seed(seed, p)).act
                for p, s in enumerate(seats)]
    while play_turns(game, deciders, on_step=after) is not None:  # the human's turn
        output("")
        output(observe_text(game, seat))
        while True:
            try:
                answer = input("your action> ")
            except EOFError:
                raise GameAbandoned("the input ended before the game did") from None
            if answer.strip().lower() in QUIT:
                raise GameAbandoned("you quit the game")
            choice = parse_answer(game, answer)
            if isinstance(choice, int):
                break
            output(choice)
        game.step(choice)
        after(seat, choice)
    scores, winners = game.scores(), game.winners()
    output("--- game over ---")
    for p in range(players):
        mark = "  winner" if p in winners else ""
        output(f"p{p} {names[p]:>10}: {scores[p]}{mark}")
    return scores
