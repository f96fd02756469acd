"""What a tournament plays: :class:`Tournament`, its seats, their rotation and seeds, checked by
:func:`tournament`.

* **Seats.** A lineup is a tuple of :class:`~borders_sim.agents.seats.Seat`, made once from
  what the caller hands in (names and specs, ``MODULE:NAME``, bot classes, factories:
  :func:`~borders_sim.agents.seats.as_seat`; a comma-separated text: :func:`parse_seats`).

* **Seats rotate.** Game ``g`` puts lineup entry ``(p + g) % n`` in seat ``p``, so every block
  of ``n`` consecutive games puts each entry in each seat once (:meth:`Tournament.seat_names`).
* **Seeds.** Game ``g`` is dealt from seed ``S + g``; the bot in seat ``p`` is
  ``seat.make(bot_seed(S + g, p))`` (:func:`borders_sim.batch.seeds.bot_seed`). A game is
  therefore fixed by ``(config, S + g, lineup, g)``, whatever runs it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..agents import REGISTRY, Bot
from ..agents.lineup import check_spec, compiled_kinds, known
from ..agents.seats import Seat, as_seat, installed_bots
from ..batch.seeds import bot_seed
from ..policies.network import NetStack
from ..policies.registry import roster
from ..rules import state as st
from ..checks import ArgumentTypeError, as_int, as_seed
from ..rules.config import GameConfig
from ..user_code import NAMED


@dataclass(frozen=True)
class Tournament:
    """What to play: ``games`` games of ``seats`` under ``config``, game ``g`` from seed
    ``seed + g`` (see the module docstring). Build it with :func:`tournament`, which checks
    every field."""

    seats: tuple[Seat, ...]
    games: int
    seed: int
    config: GameConfig

    @property
    def lineup(self) -> tuple[str, ...]:
        """The seats' names, in lineup order."""
        return tuple(seat.name for seat in self.seats)

    @property
    def players(self) -> int:
        """The number of seats of every game (``config.num_players``)."""
        return self.config.num_players

    @property
    def compiled(self) -> bool:
        """Every bot of the lineup has a compiled policy, and together they play inside the
        kernels (:func:`compiled_seats`)."""
        return compiled_seats(self.seats) is not None

    def seats_at(self, g: int) -> list[Seat]:
        """The seat in each place of game ``g``: lineup entry ``(p + g) % n`` in place ``p``."""
        n = len(self.seats)
        return [self.seats[(p + g) % n] for p in range(n)]

    def seat_names(self, g: int) -> list[str]:
        """The name of the bot in each seat of game ``g`` (:meth:`seats_at`)."""
        return [seat.name for seat in self.seats_at(g)]

    def bot_seeds(self, g: int) -> list[int]:
        """Seeds of the bots of game ``g``, by seat."""
        return [bot_seed(self.seed + g, p) for p in range(self.players)]


def compiled_seats(seats: Sequence[Seat]) -> tuple[dict[str, int], NetStack] | None:
    """:func:`~borders_sim.agents.lineup.compiled_kinds` of the seats' specs and networks: the
    kind of each seat, by its name, and the networks of the ``ppo`` specs and network seats;
    or None when a seat is a user's bot or has no compiled twin: whether, and how, the seats
    play together inside the kernels."""
    if any(seat.spec is None and seat.net is None for seat in seats):
        return None
    found = compiled_kinds([seat.spec if seat.net is None else seat.net for seat in seats])
    if found is None:
        return None
    kinds, nets = found
    return {seat.name: kinds[seat.spec if seat.net is None else id(seat.net)]
            for seat in seats}, nets


def parse_lineup(text: str) -> tuple[str, ...]:
    """``"a,b,c"`` -> ``("a", "b", "c")``; spaces around names are dropped.

    Raises:
        ValueError: an empty name, or a bot spec that :func:`~borders_sim.agents.lineup.
            check_spec` refuses (an unknown name, a ``ppo`` spec whose file is no policy, an
            OpenSpiel bot with bad options or without OpenSpiel installed).
    """
    names = _names(text, user_bots=False)
    for name in dict.fromkeys(names):  # each name once, in lineup order
        check_spec(name)
    return names


def _names(text: str, user_bots: bool) -> tuple[str, ...]:
    """The comma-separated names of ``text``, spaces around them dropped, each a name or spec
    the library knows or (``user_bots``) shaped ``MODULE:NAME``.

    Raises:
        ValueError: an empty name, or one of neither kind (naming the known bots).
    """
    names = tuple(item.strip() for item in text.split(","))
    if any(not name for name in names):
        raise ValueError(f"empty bot name in {text!r}; give names separated by commas")
    installed = installed_bots() if user_bots else {}
    unknown = [name for name in names if not known(name) and name not in installed
               and not (user_bots and NAMED.fullmatch(name))]
    if unknown:
        raise ValueError(f"unknown bot name(s) {', '.join(map(repr, unknown))}; known bots: "
                         f"{', '.join(sorted(REGISTRY))}"
                         + (f", installed: {', '.join(sorted(installed))}" if installed else "")
                         + " (ppo[:argmax|:temp=T][@PATH] plays "
                         "the shipped policy or a policy file, sampled unless :argmax; "
                         "OpenSpiel bots take options: openspiel-ismcts:sims=50"
                         + ("; your own bot: MODULE:NAME, a bot class or a factory (seed) -> "
                            "bot)" if user_bots else ")"))
    return names


def parse_seats(text: str) -> tuple[Seat, ...]:
    """``"a,b,c"`` -> the seats of a lineup: :func:`parse_lineup`'s names and specs, and users'
    bots ``MODULE:NAME`` (:func:`~borders_sim.agents.seats.as_seat`), each made once.

    Raises:
        ValueError: an empty or unknown name, a spec :func:`parse_lineup` refuses, a
            ``MODULE:NAME`` that does not import.
    """
    names = _names(text, user_bots=True)
    made = {name: as_seat(name) for name in dict.fromkeys(names)}
    return tuple(made[name] for name in names)


def default_lineup(players: int) -> tuple[str, ...]:
    """The compiled bots whose entry joins the default lineups
    (:func:`~borders_sim.policies.registry.roster`), in kind order, repeated to fill
    ``players`` seats."""
    bots = roster("lineup")
    return tuple(bots[p % len(bots)] for p in range(players))


def tournament(players: int, bots: Sequence[str | Seat | Callable[..., Bot]] | str, games: int,
               seed: int = 0, config: GameConfig | None = None) -> Tournament:
    """A checked :class:`Tournament`.

    Args:
        players: 3 to 8.
        bots: ``players`` seats, repeats allowed: a comma-separated text (:func:`parse_seats`)
            or a sequence of names, specs, ``MODULE:NAME``, bot classes, factories
            ``(seed) -> bot`` and :class:`~borders_sim.agents.seats.Seat`
            (:func:`~borders_sim.agents.seats.as_seat`); two different seats may not share a
            name.
        games: at least 1.
        seed: game ``g`` is dealt from ``seed + g``: a run of ``games`` seeds, ``0 <= seed`` and
            ``seed + games - 1 <= 2**64 - 1`` (:mod:`borders_sim.checks`).
        config: the rules (default: the rulebook); its ``num_players`` must be ``players``.

    Raises:
        ValueError: naming the first problem found.
    """
    players = as_int(players, "players", st.MIN_PLAYERS, st.MAX_PLAYERS)
    if isinstance(bots, str):
        seats = parse_seats(bots)
    elif isinstance(bots, Sequence):
        seats = tuple(as_seat(bot) for bot in bots)
    else:
        raise ArgumentTypeError(f"bots must be a comma-separated text or a sequence of seats, "
                                f"got {type(bots).__name__}")
    names = [seat.name for seat in seats]
    if len(seats) != players:
        raise ValueError(f"the lineup has {len(seats)} bot(s) ({','.join(names)}) but there "
                         f"are {players} players; give one bot per seat")
    shared = sorted({a.name for a in seats for b in seats if a.name == b.name and a != b})
    if shared:
        raise ValueError(f"two different seats are both named {shared[0]!r}: name them apart "
                         f"(Seat(NAME, factory=...))")
    games = as_int(games, "games", lo=1)
    seed = as_seed(seed, span=games)
    if config is None:
        config = GameConfig(num_players=players)
    elif not isinstance(config, GameConfig):
        raise ArgumentTypeError(f"config must be a GameConfig or None, got "
                                f"{type(config).__name__}")
    elif config.num_players != players:
        raise ValueError(f"config.num_players is {config.num_players}, not {players}")
    return Tournament(seats, games, seed, config)

