"""What a tournament plays: :class:`Tournament`, its lineup, seats and seeds, checked by
:func:`tournament`.

* **Seats rotate.** Game ``g`` puts lineup entry ``(p + g) % n`` in seat ``p``, so every block
  of ``n`` consecutive games puts each entry in each seat once (:meth:`Tournament.seat_names`).
* **Seeds.** Game ``g`` is dealt from seed ``S + g``; the bot in seat ``p`` is
  ``make(name, bot_seed(S + g, p))`` (:func:`borders_sim.batch.seeds.bot_seed`). A game is
  therefore fixed by ``(config, S + g, lineup, g)``, whatever runs it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..agents import REGISTRY
from ..agents.lineup import check_spec, compiled_kinds, known
from ..batch.seeds import bot_seed
from ..policies.registry import roster
from ..rules import state as st
from ..args import ArgumentTypeError, as_int, as_seed
from ..rules.config import GameConfig


@dataclass(frozen=True)
class Tournament:
    """What to play: ``games`` games of ``lineup`` under ``config``, game ``g`` from seed
    ``seed + g`` (see the module docstring). Build it with :func:`tournament`, which checks
    every field."""

    lineup: tuple[str, ...]
    games: int
    seed: int
    config: GameConfig

    @property
    def players(self) -> int:
        """The number of seats of every game (``config.num_players``)."""
        return self.config.num_players

    @property
    def compiled(self) -> bool:
        """Every bot of the lineup has a compiled policy (:func:`~borders_sim.agents.lineup.
        compiled_kinds`)."""
        return compiled_kinds(self.lineup) is not None

    def seat_names(self, g: int) -> list[str]:
        """The bot in each seat of game ``g``: lineup entry ``(p + g) % n`` in seat ``p``."""
        n = len(self.lineup)
        return [self.lineup[(p + g) % n] for p in range(n)]

    def bot_seeds(self, g: int) -> list[int]:
        """Seeds of the bots of game ``g``, by seat."""
        return [bot_seed(self.seed + g, p) for p in range(self.players)]


def parse_lineup(text: str) -> tuple[str, ...]:
    """``"a,b,c"`` -> ``("a", "b", "c")``; spaces around names are dropped.

    Raises:
        ValueError: an empty name, or a bot spec that :func:`~borders_sim.agents.lineup.
            check_spec` refuses (an unknown name, a ``ppo`` spec whose file is no policy, an
            OpenSpiel bot with bad options or without OpenSpiel installed).
    """
    names = tuple(item.strip() for item in text.split(","))
    if any(not name for name in names):
        raise ValueError(f"empty bot name in {text!r}; give names separated by commas")
    unknown = [name for name in names if not known(name)]
    if unknown:
        raise ValueError(f"unknown bot name(s) {', '.join(map(repr, unknown))}; known bots: "
                         f"{', '.join(sorted(REGISTRY))} (ppo[:argmax|:temp=T][@PATH] plays "
                         "the shipped policy or a policy file, sampled unless :argmax; "
                         "OpenSpiel bots take options: openspiel-ismcts:sims=50)")
    for name in dict.fromkeys(names):  # each name once, in lineup order
        check_spec(name)
    return names


def default_lineup(players: int) -> tuple[str, ...]:
    """The compiled bots whose entry joins the default lineups
    (:func:`~borders_sim.policies.registry.roster`), in kind order, repeated to fill
    ``players`` seats."""
    bots = roster("lineup")
    return tuple(bots[p % len(bots)] for p in range(players))


def tournament(players: int, bots: Sequence[str] | str, games: int, seed: int = 0,
               config: GameConfig | None = None) -> Tournament:
    """A checked :class:`Tournament`.

    Args:
        players: 3 to 8.
        bots: ``players`` bot names (a sequence or a comma-separated string), repeats allowed.
        games: at least 1.
        seed: game ``g`` is dealt from ``seed + g``: a run of ``games`` seeds, ``0 <= seed`` and
            ``seed + games - 1 <= 2**64 - 1`` (:mod:`borders_sim.args`).
        config: the rules (default: the rulebook); its ``num_players`` must be ``players``.

    Raises:
        ValueError: naming the first problem found.
    """
    players = as_int(players, "players", st.MIN_PLAYERS, st.MAX_PLAYERS)
    lineup = parse_lineup(bots) if isinstance(bots, str) else parse_lineup(",".join(bots))
    if len(lineup) != players:
        raise ValueError(f"the lineup has {len(lineup)} bot(s) ({','.join(lineup)}) but there "
                         f"are {players} players; give one bot name per seat")
    games = as_int(games, "games", lo=1)
    seed = as_seed(seed, span=games)
    if config is None:
        config = GameConfig(num_players=players)
    elif not isinstance(config, GameConfig):
        raise ArgumentTypeError(f"config must be a GameConfig or None, got "
                                f"{type(config).__name__}")
    elif config.num_players != players:
        raise ValueError(f"config.num_players is {config.num_players}, not {players}")
    return Tournament(lineup, games, seed, config)

