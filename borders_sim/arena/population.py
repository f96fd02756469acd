"""The population evaluation: tables drawn from a pool of players, and who wins at them.

A one-against-copies test (:mod:`.deviators`) asks whether a player can be exploited; it does
not ask whether it wins the tables people sit down at, mixed tables of different players, some
weak, where the winner is whoever exploits the weak best. :func:`population` plays those:

* **Tables.** The games come in blocks of ``players`` games; each block seats a table of
  different members drawn at random from ``pool`` (every member of ``focus`` at every table,
  the other seats drawn from the rest), in a random seat order, and plays one whole seat
  rotation of it, so within a block every member sits in every seat once. Blocks that drew the
  same seating are played as one tournament (:func:`~.run.run_tournament`, either backend).
* **Seeds.** The draw comes from ``seed``; the games are dealt from ``seed, seed + 1, ...,
  seed + games - 1`` (:data:`POPULATION_SEED` by default, a range no training run, evaluation
  or deviator matrix deals), so a population is a function of its arguments.
* **Per member**: its games and win share with the 95% Wilson interval (a shared win counting
  ``1/k``, games as the units, :mod:`.stats`), mean score, behaviour rates, an openskill
  Plackett-Luce rating over every game's finishing order in game order (:mod:`.ratings`) and
  its α-Rank mass (:mod:`.alpharank`) in the pairwise meta-game below.
* **Per pair** ``(a, b)``, over the games where both sat: ``a``'s win share there, the
  difference of the two win shares with a 95% interval (paired by game: each game gives
  ``a``'s share minus ``b``'s, and the interval is the normal one on their mean), and the
  chance that ``a`` finished ahead of ``b`` (ties counting half): who beats whom at the same
  table. The last is the meta-game α-Rank ranks (a pair that never shared a table counts as
  even there, and is reported as such).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..agents import Bot, Seat, as_seat
from ..checks import as_float, as_int, as_seed
from ..rules import state as st
from .alpharank import ALPHA, POPULATION_SIZE, alpharank
from .ratings import rate_games
from .ray_backend import ray_session
from .tournaments import run_tournament
from .schedule import parse_seats
from .stats import Z95, behaviour, finishing_ranks, wilson_interval, win_shares

#: The first deal of a population evaluation by default: game ``j`` is dealt from
#: ``POPULATION_SEED + j``, apart from the trainer's evaluations (``10**15``), the deviator
#: matrix (``2 * 10**15``) and the demonstrations (``3 * 10**15``).
POPULATION_SEED = 4 * 10**15


@dataclass(frozen=True)
class Pair:
    """Member ``a`` against member ``b`` over the ``games`` games where both sat: ``a``'s win
    share there, the difference of the two shares (``a``'s minus ``b``'s) with its 95%
    interval, and the chance that ``a`` finished ahead of ``b`` (ties half)."""

    a: str
    b: str
    games: int
    win_rate: float | None
    difference: float | None
    difference_ci95: tuple[float | None, float | None]
    ahead: float | None


@dataclass
class Population:
    """The results of :func:`population` (module docstring): ``members`` one dict per pool
    member (pool order), ``pairs`` every ordered pair of members, ``tables`` each seating
    played with its games."""

    pool: tuple[str, ...]
    focus: tuple[str, ...]
    players: int
    games: int
    seed: int
    alpha: float
    members: list[dict] = field(default_factory=list)
    pairs: list[Pair] = field(default_factory=list)
    tables: list[tuple[tuple[str, ...], int]] = field(default_factory=list)
    seconds: float = 0.0

    def pair(self, a: str, b: str) -> Pair:
        """The :class:`Pair` of ``a`` against ``b``."""
        for p in self.pairs:
            if p.a == a and p.b == b:
                return p
        raise KeyError(f"no pair {a!r}, {b!r} in this population")

    def member(self, name: str) -> dict:
        """The row of member ``name``."""
        for row in self.members:
            if row["name"] == name:
                return row
        raise KeyError(f"{name!r} is not a member of this population")

    def to_dict(self) -> dict:
        """JSON-ready: the settings, one record per member, per pair and per seating."""
        return {"config": {"pool": list(self.pool), "focus": list(self.focus),
                           "players": self.players, "games": self.games, "seed": self.seed,
                           "tables": "blocks of `players` games, each a table of different "
                                     "members drawn from the pool (focus members at every "
                                     "table) in a random seat order, seats rotating",
                           "seeds": "game j is dealt from seed + j",
                           "win_rate_ci95": "Wilson on the per-game share, games as units",
                           "difference_ci95": "normal interval on the per-game difference of "
                                              "the two members' win shares, paired by game",
                           "ahead": "chance of finishing ahead at a shared table, ties half",
                           "alpharank": f"alpha {self.alpha}, population {POPULATION_SIZE}, "
                                        "over the pairwise 'ahead' meta-game",
                           "alpha": self.alpha, "seconds": self.seconds},
                "members": self.members,
                "pairs": [{**p.__dict__, "difference_ci95": list(p.difference_ci95)}
                          for p in self.pairs],
                "tables": [{"seating": list(seating), "games": n}
                           for seating, n in self.tables]}


    @classmethod
    def from_dict(cls, data: dict) -> Population:
        """The population of :meth:`to_dict`'s ``data`` (a ``--json`` file read back)."""
        c = data["config"]
        return cls(tuple(c["pool"]), tuple(c["focus"]), c["players"], c["games"], c["seed"],
                   c["alpha"], list(data["members"]),
                   [Pair(**{**p, "difference_ci95": tuple(p["difference_ci95"])})
                    for p in data["pairs"]],
                   [(tuple(t["seating"]), t["games"]) for t in data["tables"]], c["seconds"])


def draw_tables(pool: Sequence[str], focus: Sequence[str], players: int, blocks: int,
                rng: np.random.Generator) -> list[tuple[str, ...]]:
    """The seating of each of ``blocks`` blocks: every ``focus`` member and ``players -
    len(focus)`` others drawn without repeats from the rest of ``pool``, in a random order."""
    rest = [name for name in pool if name not in focus]
    seatings = []
    for _ in range(blocks):
        drawn = [rest[k] for k in rng.choice(len(rest), players - len(focus), replace=False)]
        seating = list(focus) + drawn
        seatings.append(tuple(seating[k] for k in rng.permutation(players)))
    return seatings


def check_pool(pool: Sequence[str | Seat | Callable[..., Bot]] | str,
               focus: Sequence[str | Seat | Callable[..., Bot]] | str | None,
               players: int) -> tuple[tuple[Seat, ...], tuple[str, ...]]:
    """The pool as seats (:func:`~borders_sim.agents.seats.as_seat`, a text read by
    :func:`~borders_sim.arena.schedule.parse_seats`) and the focus as their names, checked.

    Raises:
        ValueError: a bad member, a repeated member, a focus member not in the pool, more focus
            members than seats, or fewer members than a table needs.
    """
    seats = parse_seats(pool) if isinstance(pool, str) else tuple(as_seat(m) for m in pool)
    pool = tuple(seat.name for seat in seats)
    if len(set(pool)) != len(pool):
        raise ValueError(f"a member is listed twice in the pool {','.join(pool)}")
    if focus is None or focus == "" or focus == ():
        focus = ()
    elif isinstance(focus, str):
        focus = tuple(name.strip() for name in focus.split(","))
    else:
        focus = tuple(m.strip() if isinstance(m, str) else as_seat(m).name for m in focus)
    missing = [name for name in focus if name not in pool]
    if missing:
        raise ValueError(f"focus member(s) {', '.join(missing)} are not in the pool "
                         f"{','.join(pool)}")
    if len(set(focus)) != len(focus):
        raise ValueError(f"a focus member is listed twice: {','.join(focus)}")
    if len(focus) > players:
        raise ValueError(f"{len(focus)} focus members do not fit at a table of {players}")
    if len(pool) < players:
        raise ValueError(f"a pool of {len(pool)} cannot seat a table of {players} different "
                         "members; give at least as many members as players")
    if len(focus) == players and len(pool) > players:
        raise ValueError(f"the {players} focus members fill every seat, so the rest of the "
                         "pool never plays; leave them out or focus on fewer")
    return seats, focus


def population(pool: Sequence[str | Seat | Callable[..., Bot]] | str, players: int = 4,
               games: int = 1000, seed: int = POPULATION_SEED, *,
               focus: Sequence[str | Seat | Callable[..., Bot]] | str | None = None,
               alpha: float = ALPHA, backend: str = "local", threads: int | None = None,
               ray_address: str | None = None,
               progress: Callable[[int], None] | None = None) -> Population:
    """Play the population evaluation of ``pool`` (module docstring).

    Args:
        pool: the members, each at most once and at least ``players`` of them: a
            comma-separated text or a sequence of seats (the library's names and specs,
            ``honest``, ``ppo@PATH``, ``ppo-zoo/NAME``, ``ismcts``...; your own bots,
            ``MODULE:NAME``, a bot class or a factory: :func:`~borders_sim.agents.seats.as_seat`).
        players: 3 to 8, the seats of every table.
        games: the games in all (blocks of ``players``; the last block may be short).
        seed: the draw's seed and the first deal (game ``j`` from ``seed + j``).
        focus: members seated at every table (their names, or the pool's entries; None).
        alpha: α-Rank's selection strength.
        backend, threads, ray_address: as :func:`~borders_sim.arena.tournaments.run_tournament`
            (``"ray"``: one cluster for every seating).
        progress: called with the games of every finished chunk.

    Raises:
        ValueError: a bad argument, named.

    Example:
        >>> from borders_sim.arena.population import population
        >>> result = population("honest,bluffer,collector,strict,random", games=40)
        >>> sorted(m["name"] for m in result.members)[:2]
        ['bluffer', 'collector']
    """
    players = as_int(players, "players", st.MIN_PLAYERS, st.MAX_PLAYERS)
    seats, focus = check_pool(pool, focus, players)
    pool = tuple(seat.name for seat in seats)
    seat_of = dict(zip(pool, seats))
    games = as_int(games, "games", lo=1)
    seed = as_seed(seed, span=games)
    alpha = as_float(alpha, "alpha", finite=True, above=0)  # before the games, not after
    result = Population(pool, focus, players, games, seed, alpha)
    blocks = -(-games // players)
    seatings = draw_tables(pool, focus, players, blocks, np.random.default_rng(seed))
    sizes = [min(players, games - b * players) for b in range(blocks)]
    plan: dict[tuple[str, ...], int] = {}
    for seating, size in zip(seatings, sizes):
        plan[seating] = plan.get(seating, 0) + size
    start = time.perf_counter()
    index = {name: k for k, name in enumerate(pool)}
    entries, scores, winners, hist = [], [], [], np.zeros((len(pool), st.NUM_HIST), np.int64)
    first = seed
    with ray_session(backend, ray_address, threads):
        for seating, n in plan.items():
            res = run_tournament(players, [seat_of[name] for name in seating], n, first,
                                 backend=backend, threads=threads, ray_address=ray_address,
                                 progress=progress)
            first += n
            to_pool = np.array([index[name] for name in res.names], dtype=np.int64)
            entries.append(to_pool[res.entry])
            scores.append(res.scores)
            winners.append(res.winners)
            np.add.at(hist, to_pool, res.hist_totals)
            result.tables.append((seating, n))
    result.seconds = time.perf_counter() - start
    summarize_population(result, np.concatenate(entries), np.concatenate(scores),
                         np.concatenate(winners), hist)
    return result


def summarize_population(result: Population, entry: np.ndarray, scores: np.ndarray,
                         winners: np.ndarray, hist: np.ndarray) -> None:
    """Fill ``result``'s members and pairs from every game's seats (pool indices), scores,
    winners and the members' summed history counters."""
    pool = result.pool
    shares = win_shares(winners)
    ranks = finishing_ranks(scores, winners)
    mu, sigma = rate_games(len(pool), entry, ranks)
    num = len(pool)
    # per game and member: its share, its place, whether it sat (each member at most once)
    sat = np.zeros((len(entry), num), dtype=bool)
    share = np.zeros((len(entry), num))
    place = np.zeros((len(entry), num), dtype=np.int64)
    rows = np.arange(len(entry))[:, None]
    sat[rows, entry] = True
    share[rows, entry] = shares
    place[rows, entry] = ranks
    ahead = np.full((num, num), 0.5)
    for a in range(num):
        for b in range(num):
            if a == b:
                continue
            both = sat[:, a] & sat[:, b]
            n = int(both.sum())
            if n == 0:
                result.pairs.append(Pair(pool[a], pool[b], 0, None, None, (None, None), None))
                continue
            diff = share[both, a] - share[both, b]
            mean = float(diff.mean())
            half = Z95 * float(diff.std(ddof=1)) / math.sqrt(n) if n > 1 else math.inf
            first_ahead = place[both, a] < place[both, b]
            level = place[both, a] == place[both, b]
            ahead[a, b] = float(first_ahead.mean() + 0.5 * level.mean())
            result.pairs.append(Pair(pool[a], pool[b], n, float(share[both, a].mean()), mean,
                                     (max(-1.0, mean - half), min(1.0, mean + half)),
                                     float(ahead[a, b])))
    mass = alpharank(ahead, result.alpha)
    for k, name in enumerate(pool):
        games = int(sat[:, k].sum())
        row: dict = {"name": name, "focus": name in result.focus, "games": games}
        if games:
            rate = float(share[sat[:, k], k].mean())
            row.update(wins=float(share[sat[:, k], k].sum()), win_rate=rate,
                       win_rate_ci95=list(wilson_interval(min(1.0, rate), games)),
                       mean_score=float(scores[entry == k].mean()))
        else:
            row.update(wins=0.0, win_rate=None, win_rate_ci95=[None, None], mean_score=None)
        row.update(rating_mu=mu[k], rating_sigma=sigma[k], alpharank=float(mass[k]),
                   behaviour=behaviour(hist[k], games))
        result.members.append(row)
