"""Tournaments: seat-rotated games between bots, on all cores, with results per bot.

:func:`run_tournament` plays ``games`` games of a *lineup* of ``n`` bot names (any names of
:data:`borders_sim.agents.REGISTRY`, repeats allowed) and returns :class:`Results`.

* **Seats rotate.** Game ``g`` puts lineup entry ``(p + g) % n`` in seat ``p``, so every block
  of ``n`` consecutive games puts each entry in each seat once (:meth:`Tournament.seat_names`).
* **Seeds.** Game ``g`` is dealt from seed ``S + g``; the bot in seat ``p`` is
  ``make(name, bot_seed(S + g, p))`` (:func:`borders_sim.agents.play.bot_seed`). A game is
  therefore fixed by ``(config, S + g, lineup, g)``, whatever runs it.
* **Two execution paths, one result.** When every bot has a compiled policy
  (:data:`~borders_sim.agents.COMPILED_BOTS`), chunks of games run in one compiled call each
  (:func:`~borders_sim.agents.play.run_bot_games`, ``prange`` over games, all numba threads);
  otherwise (a Python-only bot such as ``ismcts``, or game records wanted) each game is a
  Python loop over :class:`~borders_sim.Game` with ``bot.act(observe(game, seat),
  game.legal_mask())``, chunks spread over worker processes. The compiled twins take the same
  actions as the Python bots, so both paths give identical games (tested).
* **Backends.** ``"local"``: this machine (numba threads, or a pool of processes);
  ``"ray"``: chunks of games as Ray tasks (:mod:`borders_sim.arena.ray_backend`). Chunks are put back
  in game order before anything is computed, so the backend and the chunk size change nothing.
* **Interrupts.** A ``KeyboardInterrupt`` during the run stops it; the results cover the games
  of the chunks finished in order up to then (``config["interrupted"]`` is true).

The statistics are in :mod:`borders_sim.arena.stats` (win shares, Wilson interval, behaviour
metrics) and :mod:`borders_sim.arena.ratings` (openskill Plackett-Luce over finishing orders).
"""

from __future__ import annotations

import csv
import json
import multiprocessing
import os
import signal
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numba
import numpy as np

from .. import __version__
from .._compile.notice import compile_notice
from ..agents import COMPILED_BOTS, REGISTRY, make
from ..agents.play import bot_seed, run_bot_games
from ..game.views import observe
from ..game.game import Game, IllegalActionError
from .ratings import rate_games
from ..rules import state as st
from ..rules.config import GameConfig
from ..rules.limits import max_game_length
from ..rules.rollout import final_scores, make_batch
from .stats import BEHAVIOUR, finishing_ranks, summarize

INT64_MAX = 2**63 - 1  # game seeds are int64 in the kernels
BACKENDS = ("local", "ray")
PATHS = ("auto", "compiled", "python")
COMPILED_CHUNK = 256  # games per compiled call (~1.5 MB of states)
PYTHON_CHUNK_MAX = 16  # at most this many games per Python task


# --- the tournament ----------------------------------------------------------------------------
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
        return self.config.num_players

    @property
    def compiled(self) -> bool:
        """Every bot of the lineup has a compiled policy."""
        return all(name in COMPILED_BOTS for name in self.lineup)

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
        ValueError: an empty name or a name not in :data:`~borders_sim.agents.REGISTRY`.
    """
    names = tuple(item.strip() for item in text.split(","))
    if any(not name for name in names):
        raise ValueError(f"empty bot name in {text!r}; give names separated by commas")
    unknown = [name for name in names if name not in REGISTRY]
    if unknown:
        raise ValueError(f"unknown bot name(s) {', '.join(map(repr, unknown))}; known bots: "
                         f"{', '.join(sorted(REGISTRY))}")
    return names


def default_lineup(players: int) -> tuple[str, ...]:
    """The compiled bots in their registry order, repeated to fill ``players`` seats."""
    return tuple(COMPILED_BOTS[p % len(COMPILED_BOTS)] for p in range(players))


def tournament(players: int, bots: Sequence[str] | str, games: int, seed: int = 0,
               config: GameConfig | None = None) -> Tournament:
    """A checked :class:`Tournament`.

    Args:
        players: 3 to 8.
        bots: ``players`` bot names (a sequence or a comma-separated string), repeats allowed.
        games: at least 1.
        seed: game ``g`` is dealt from ``seed + g``; ``0 <= seed`` and
            ``seed + games - 1 <= 2**63 - 1``.
        config: the rules (default: the rulebook); its ``num_players`` must be ``players``.

    Raises:
        ValueError: naming the first problem found.
    """
    if isinstance(players, bool) or not isinstance(players, (int, np.integer)) \
            or not st.MIN_PLAYERS <= players <= st.MAX_PLAYERS:
        raise ValueError(f"players must be an int from {st.MIN_PLAYERS} to {st.MAX_PLAYERS}, "
                         f"got {players!r}")
    lineup = parse_lineup(bots) if isinstance(bots, str) else parse_lineup(",".join(bots))
    if len(lineup) != players:
        raise ValueError(f"the lineup has {len(lineup)} bot(s) ({','.join(lineup)}) but there "
                         f"are {players} players; give one bot name per seat")
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise ValueError(f"games must be an int of at least 1, got {games!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be an int from 0 to 2**63-1, got {seed!r}")
    if seed + games - 1 > INT64_MAX:
        raise ValueError(f"seed {seed} with {games} games: the last game's seed must be at "
                         f"most 2**63-1 = {INT64_MAX}")
    if config is None:
        config = GameConfig(num_players=int(players))
    elif config.num_players != players:
        raise ValueError(f"config.num_players is {config.num_players}, not {players}")
    return Tournament(lineup, int(games), int(seed), config)


# --- playing a chunk of games ------------------------------------------------------------------
def _entry_kinds(t: Tournament, start: int, count: int) -> np.ndarray:
    kinds = np.zeros((count, st.MAX_PLAYERS), dtype=np.int64)
    for i in range(count):
        kinds[i, : t.players] = [COMPILED_BOTS.index(nm) for nm in t.seat_names(start + i)]
    return kinds


_bots_prepared = False  # the bot kernels have run once in this process


def play_compiled(t: Tournament, start: int, count: int) -> dict:
    """Games ``start .. start + count - 1`` of ``t`` in one compiled call (every bot of the
    lineup must be compiled); returns the chunk arrays (see :func:`play_chunk`)."""
    global _bots_prepared
    states, _ = make_batch(t.config, t.seed + start, count)
    kinds = _entry_kinds(t, start, count)
    seeds = np.arange(t.seed + start, t.seed + start + count, dtype=np.int64)
    cap = max_game_length(t.config)
    if _bots_prepared:
        run_bot_games(states, kinds, seeds, cap)
    else:
        with compile_notice("the bot kernels"):
            run_bot_games(states, kinds, seeds, cap)
        _bots_prepared = True
    unfinished = np.flatnonzero(states["phase"] != st.PH_GAME_OVER)
    if unfinished.size:
        raise RuntimeError(f"game {start + int(unfinished[0])} did not end within "
                           f"max_game_length = {cap} decisions (P-0.4): an engine bug")
    sc, win = final_scores(states)
    n = t.players
    return {"scores": sc[:, :n].copy(), "winners": win[:, :n].astype(np.int8),
            "hist": states["hist"][:, :n].astype(np.int64),
            "steps": states["steps"].astype(np.int64), "rounds": states["round"].astype(np.int64)}


def play_python_game(t: Tournament, g: int, record: bool = False
                     ) -> tuple[Game, list[tuple[int, int]]]:
    """Game ``g`` of ``t`` through the Python loop; returns the finished game and, with
    ``record``, its decisions as ``(seat, action id)`` pairs.

    Raises:
        RuntimeError: a bot chose an illegal action, or the game did not end within the
            proven bound on decisions (both bugs).
    """
    game = Game(t.config, seed=t.seed + g)
    names = t.seat_names(g)
    bots = [make(nm, s) for nm, s in zip(names, t.bot_seeds(g))]
    cap = max_game_length(t.config)
    actions: list[tuple[int, int]] = []
    steps = 0
    while not game.is_terminal:
        if steps == cap:
            raise RuntimeError(f"game {g} did not end within max_game_length = {cap} decisions "
                               "(P-0.4): an engine bug")
        p = game.current_player
        a = bots[p].act(observe(game, p), game.legal_mask())
        try:
            game.step(a)
        except IllegalActionError as err:
            raise RuntimeError(f"bot {names[p]!r} in seat p{p} of game {g} chose an illegal "
                               f"action: {err}") from None
        if record:
            actions.append((p, int(a)))
        steps += 1
    return game, actions


def play_python(t: Tournament, start: int, count: int, record: bool = False) -> dict:
    """Games ``start .. start + count - 1`` of ``t`` through the Python loop (any bots);
    returns the chunk arrays (see :func:`play_chunk`)."""
    n = t.players
    out = {"scores": np.zeros((count, n), dtype=np.int64),
           "winners": np.zeros((count, n), dtype=np.int8),
           "hist": np.zeros((count, n, st.NUM_HIST), dtype=np.int64),
           "steps": np.zeros(count, dtype=np.int64), "rounds": np.zeros(count, dtype=np.int64)}
    if record:
        out["actions"] = []
    for i in range(count):
        game, actions = play_python_game(t, start + i, record)
        out["scores"][i] = game.scores()
        out["winners"][i, game.winners()] = 1
        out["hist"][i] = game.state[0]["hist"][:n]
        out["steps"][i] = game.state[0]["steps"]
        out["rounds"][i] = game.round
        if record:
            out["actions"].append(actions)
    return out


def play_chunk(t: Tournament, start: int, count: int, path: str, record: bool = False) -> dict:
    """Play games ``start .. start + count - 1`` of ``t`` on ``path`` (``"compiled"`` or
    ``"python"``). Returns ``scores`` int64[count, n], ``winners`` int8[count, n] (1 = won),
    ``hist`` int64[count, n, NUM_HIST] (the final history counters), ``steps`` and ``rounds``
    int64[count], and with ``record`` ``actions``: per game the ``(seat, action id)`` list."""
    if path == "compiled":
        if record:
            raise ValueError("game records come from the Python path")
        return play_compiled(t, start, count)
    return play_python(t, start, count, record)


# --- results -----------------------------------------------------------------------------------
@dataclass
class Results:
    """The games of a tournament (in game order) and their statistics per bot.

    ``bots`` holds one dict per bot name (order of first appearance in the lineup) with the
    keys of :func:`borders_sim.arena.stats.summarize` plus ``rating_mu`` and ``rating_sigma``
    (:func:`borders_sim.arena.ratings.rate_games`). :meth:`to_dict` is the JSON document of
    ``borders-sim tournament --json``.
    """

    tournament: Tournament
    path: str
    backend: str
    entry: np.ndarray  # int64[G, n]: bot index (into names) of each seat
    scores: np.ndarray  # int64[G, n]
    winners: np.ndarray  # int8[G, n]
    steps: np.ndarray  # int64[G]
    rounds: np.ndarray  # int64[G]
    hist_totals: np.ndarray  # int64[len(names), NUM_HIST]
    interrupted: bool = False
    records_written: int = 0  # game traces written (with record_dir), in any game order
    names: list[str] = field(init=False)
    bots: list[dict] = field(init=False)

    def __post_init__(self) -> None:
        self.names = list(dict.fromkeys(self.tournament.lineup))
        rows = summarize(self.names, self.entry, self.scores, self.winners, self.hist_totals)
        mu, sigma = rate_games(len(self.names), self.entry,
                               finishing_ranks(self.scores, self.winners))
        self.bots = []
        for row, m, s in zip(rows, mu, sigma):
            behaviour, history = row.pop("behaviour"), row.pop("history")
            row.update(rating_mu=m, rating_sigma=s, behaviour=behaviour, history=history)
            self.bots.append(row)

    @property
    def games_played(self) -> int:
        return int(self.entry.shape[0])

    def config_dict(self) -> dict:
        t = self.tournament
        played = self.games_played
        return {
            "players": t.players, "bots": list(t.lineup), "games": t.games,
            "games_played": played, "seed": t.seed, "interrupted": self.interrupted,
            "seat_rotation": "game g puts bots[(p + g) % players] in seat p",
            "seeds": "game g is dealt from seed + g; the bot in seat p is seeded "
                     "bot_seed(seed + g, p)",
            "path": self.path, "backend": self.backend,
            "game_config": t.config.to_dict(),
            "decisions_per_game": float(self.steps.mean()) if played else None,
            "rounds_per_game": float(self.rounds.mean()) if played else None,
            "win_rate_ci95": "Wilson score interval on the per-game mean win share (games as "
                             "units; a shared win counts 1/k for each of the k winners)",
            "rating": "openskill PlackettLuce over finishing orders (winners first, then by "
                      "score), games rated in order; mu=25, sigma=25/3 at the start",
            "borders_sim": __version__,
        }

    def to_dict(self) -> dict:
        """``{"config": ..., "bots": [...]}``, JSON-ready."""
        return {"config": self.config_dict(), "bots": self.bots}

    def write_json(self, path: str | os.PathLike) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")

    def csv_rows(self) -> tuple[list[str], list[list]]:
        """Header and one flat row per bot (the CI as two columns, behaviour metrics and
        history counters as columns of their own)."""
        header = ["name", "seats", "games", "wins", "win_rate", "win_rate_ci95_lo",
                  "win_rate_ci95_hi", "mean_score", "sd_score", "rating_mu", "rating_sigma"]
        header += list(BEHAVIOUR) + [f"history_{key}" for key, _ in st.HISTORY_COUNTERS]
        rows = []
        for b in self.bots:
            row = [b[k] for k in header[:5]] + list(b["win_rate_ci95"])
            row += [b[k] for k in header[7:11]]
            row += [b["behaviour"][k] for k in BEHAVIOUR]
            row += [b["history"][key] for key, _ in st.HISTORY_COUNTERS]
            rows.append(row)
        return header, rows

    def write_csv(self, path: str | os.PathLike) -> None:
        header, rows = self.csv_rows()
        with open(path, "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(header)
            writer.writerows(["" if v is None else v for v in row] for row in rows)


def results_from_chunks(t: Tournament, chunks: list[dict], path: str, backend: str,
                        interrupted: bool = False) -> Results:
    """:class:`Results` of the games in ``chunks`` (consecutive, from game 0)."""
    n = t.players
    names = list(dict.fromkeys(t.lineup))
    played = sum(len(c["steps"]) for c in chunks)
    entry = np.array([[names.index(nm) for nm in t.seat_names(g)] for g in range(played)],
                     dtype=np.int64).reshape(played, n)
    hist_totals = np.zeros((len(names), st.NUM_HIST), dtype=np.int64)
    start = 0
    for c in chunks:
        k = len(c["steps"])
        np.add.at(hist_totals, entry[start:start + k].ravel(), c["hist"].reshape(k * n, -1))
        start += k

    def cat(key: str, shape: tuple, dtype) -> np.ndarray:
        return np.concatenate([c[key] for c in chunks]) if chunks else np.zeros(shape, dtype)

    return Results(t, path, backend, entry, cat("scores", (0, n), np.int64),
                   cat("winners", (0, n), np.int8), cat("steps", (0,), np.int64),
                   cat("rounds", (0,), np.int64), hist_totals, interrupted)


# --- running -----------------------------------------------------------------------------------
def _chunks(games: int, size: int) -> list[tuple[int, int]]:
    return [(lo, min(size, games - lo)) for lo in range(0, games, size)]


def _worker_init() -> None:
    """Pool workers leave Ctrl-C to the parent and run numba on one thread each."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    numba.set_num_threads(1)


def _local_chunks(t: Tournament, spans: list[tuple[int, int]], path: str, record: bool,
                  workers: int) -> Iterator[tuple[int, dict]]:
    """Chunks on this machine: compiled chunks in this process (numba's threads), Python
    chunks in a pool of ``workers`` spawned processes (in this process for one worker).
    A worker that dies breaks the pool with an error instead of a hang; an interrupt stops
    the workers at once."""
    if path == "compiled" or workers == 1:
        for i, (start, count) in enumerate(spans):
            yield i, play_chunk(t, start, count, path, record)
        return
    # spawn, not fork: a forked child of a process whose numba thread pool is running may hang
    pool = ProcessPoolExecutor(min(workers, len(spans)), initializer=_worker_init,
                               mp_context=multiprocessing.get_context("spawn"))
    futures = {pool.submit(play_chunk, t, start, count, path, record): i
               for i, (start, count) in enumerate(spans)}
    try:
        for future in as_completed(futures):
            try:
                chunk = future.result()
            except BrokenProcessPool:
                raise RuntimeError("a worker process of the tournament died (out of memory, "
                                   "killed, or a script without an `if __name__ == "
                                   "'__main__':` guard around run_tournament)") from None
            yield futures[future], chunk
    finally:
        for future in futures:
            future.cancel()
        # the executor has no public way to stop running tasks; end its processes directly
        for process in list(getattr(pool, "_processes", {}).values()):
            process.terminate()
        pool.shutdown(wait=True, cancel_futures=True)


def run_tournament(players: int, bots: Sequence[str] | str, games: int, seed: int = 0, *,
                   config: GameConfig | None = None, backend: str = "local",
                   threads: int | None = None, ray_address: str | None = None,
                   path: str = "auto", chunk_size: int | None = None,
                   record_dir: str | os.PathLike | None = None,
                   progress: Callable[[int], None] | None = None) -> Results:
    """Play a tournament and return its :class:`Results` (see the module docstring).

    Args:
        players, bots, games, seed, config: as :func:`tournament`.
        backend: ``"local"`` or ``"ray"``.
        threads: local: numba threads (compiled path) or worker processes (Python path),
            default all cores; ray: CPUs of the local cluster started when no
            ``ray_address`` is given (default all cores).
        ray_address: address of a running Ray cluster (``"host:port"``, ``"auto"`` or
            ``"ray://host:port"``); only with ``backend="ray"``.
        path: ``"auto"`` (compiled when every bot is compiled and no records are wanted),
            ``"compiled"`` or ``"python"``.
        chunk_size: games per chunk (a compiled call or a task); results do not depend on it.
        record_dir: write each game as a JSON-lines trace ``game-NNNNNN.jsonl`` into this
            directory (created if missing; :mod:`borders_sim.arena.records`); forces the Python
            path, which yields the decisions.
        progress: called with the number of games of each finished chunk.

    Raises:
        ValueError: a bad argument (the message names it).
        RuntimeError: a bot chose an illegal action or a game did not end (bugs), or Ray
            could not start or reach its cluster.
    """
    t = tournament(players, bots, games, seed, config)
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if ray_address is not None and backend != "ray":
        raise ValueError("ray_address needs backend='ray'")
    if path not in PATHS:
        raise ValueError(f"path must be one of {PATHS}, got {path!r}")
    if path == "compiled" and not t.compiled:
        python_only = sorted({nm for nm in t.lineup if nm not in COMPILED_BOTS})
        raise ValueError(f"the compiled path needs compiled bots; {python_only} are Python-only")
    if path == "compiled" and record_dir is not None:
        raise ValueError("game records come from the Python path; use path='auto' or 'python'")
    if path == "auto":
        path = "compiled" if t.compiled and record_dir is None else "python"
    cores = os.cpu_count() or 1
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int)
                                or threads < 1):
        raise ValueError(f"threads must be a positive int, got {threads!r}")
    workers = threads or cores
    if chunk_size is None:
        per_worker = -(-t.games // (4 * workers))
        chunk_size = COMPILED_CHUNK if path == "compiled" and backend == "local" else \
            max(1, min(COMPILED_CHUNK if path == "compiled" else PYTHON_CHUNK_MAX, per_worker))
    elif isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a positive int, got {chunk_size!r}")
    record = record_dir is not None
    if record:
        from .records import prepare_dir
        record_dir = prepare_dir(record_dir)
    spans = _chunks(t.games, chunk_size)

    saved_threads = numba.get_num_threads()
    if backend == "local" and path == "compiled" and threads is not None:
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    if backend == "ray":
        from .ray_backend import ray_chunks
        source = ray_chunks(t, spans, path, record, ray_address, threads)
    else:
        source = _local_chunks(t, spans, path, record, workers)
    done: dict[int, dict] = {}
    interrupted = False
    written = 0
    try:
        for i, chunk in source:
            if record:
                from .records import write_game
                start = spans[i][0]
                for k, actions in enumerate(chunk.pop("actions")):
                    write_game(record_dir, t, start + k, actions, chunk["scores"][k],
                               chunk["winners"][k])
                    written += 1
            done[i] = chunk
            if progress is not None:
                progress(spans[i][1])
    except KeyboardInterrupt:
        interrupted = True
    finally:
        source.close()
        numba.set_num_threads(saved_threads)
    ordered = []
    while len(ordered) in done:
        ordered.append(done[len(ordered)])
    results = results_from_chunks(t, ordered, path, backend, interrupted)
    results.records_written = written
    return results
