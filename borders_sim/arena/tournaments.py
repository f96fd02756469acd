"""Tournaments: seat-rotated games between bots, on all cores, with results per bot.

:func:`run_tournament` plays ``games`` games of a *lineup* of ``n`` seats (names and specs of
the library's bots, your own bots as ``MODULE:NAME``, bot classes or factories ``(seed) -> bot``:
:class:`~borders_sim.agents.seats.Seat`; repeats allowed) and returns :class:`~.results.Results`.
What it plays is a :class:`~.schedule.Tournament` (seats rotate, game ``g`` is dealt from seed
``S + g``), checked once by :func:`~.schedule.tournament`; :func:`play_tournament` plays a
checked one (the command line builds its own, to report it before the games start). How a
chunk of games is played is :mod:`.paths`.

* **Two execution paths, one result.** When every bot has a compiled policy
  (:data:`~borders_sim.agents.COMPILED_BOTS`), chunks of games run in one compiled call each;
  otherwise (a Python-only bot such as ``ismcts`` or your own, or game records wanted) each
  game is a Python loop over :class:`~borders_sim.Game`, chunks spread over worker processes
  (in this process when a seat cannot be pickled to one: a lambda, a class defined in a
  function). The compiled twins take the same actions as the Python bots, so both paths give
  identical games (tested). A lineup with a seat that waits on the network (a language
  model's, ``llm:MODEL@URL``) plays its games in threads of this process, ``concurrency`` of
  them at once (16 by default), so that many requests are in flight.
* **Backends.** ``"local"``: this machine (:mod:`.local`); ``"ray"``: chunks of games as Ray
  tasks (:mod:`.ray_backend`). A backend is handed the function that plays a chunk. Chunks
  are put back in game order before anything is computed, so the backend and the chunk size
  change nothing.
* **Interrupts.** A ``KeyboardInterrupt`` during the run stops it; the results cover the games
  of the chunks finished in order up to then (``config["interrupted"]`` is true).

The statistics are in :mod:`.stats` (win shares, Wilson interval, behaviour metrics) and
:mod:`.ratings` (openskill Plackett-Luce over finishing orders).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import numba

from ..agents import Bot, Seat
from ..checks import ArgumentTypeError, as_choice, as_int
from ..rules.config import GameConfig
from .local import local_chunks, spawnable, thread_chunks
from .paths import COMPILED_CHUNK, PYTHON_CHUNK_MAX, play_chunk
from .ray_backend import ray_chunks
from .records import prepare_dir, write_game, write_transcript
from .results import Results, results_from_chunks
from .schedule import Tournament, tournament

BACKENDS = ("local", "ray")
PATHS = ("auto", "compiled", "python")
#: Games played at once by default when a seat waits on the network (a language model's), and
#: the most allowed (``concurrency``).
DEFAULT_CONCURRENCY, MAX_CONCURRENCY = 16, 1024


def _chunks(games: int, size: int) -> list[tuple[int, int]]:
    return [(lo, min(size, games - lo)) for lo in range(0, games, size)]


def run_tournament(players: int, bots: Sequence[str | Seat | Callable[..., Bot]] | str,
                   games: int, seed: int = 0, *, config: GameConfig | None = None,
                   **how: Any) -> Results:
    """Play the tournament ``tournament(players, bots, games, seed, config)`` (checked there)
    with :func:`play_tournament` (``how``: its keyword arguments) and return its
    :class:`Results` (see the module docstring)."""
    return play_tournament(tournament(players, bots, games, seed, config), **how)


def play_tournament(t: Tournament, *, backend: str = "local", threads: int | None = None,
                    ray_address: str | None = None, path: str = "auto",
                    chunk_size: int | None = None,
                    record_dir: str | os.PathLike | None = None,
                    progress: Callable[[int], None] | None = None,
                    concurrency: int = DEFAULT_CONCURRENCY) -> Results:
    """Play the checked tournament ``t`` (:func:`~.schedule.tournament`) and return its
    :class:`Results` (see the module docstring).

    Args:
        t: what to play.
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
        concurrency: with a seat that waits on the network (a language model's:
            :attr:`~borders_sim.agents.Seat.waits`), local: the games played at once, in
            threads of this process, so up to that many requests are in flight (each game
            goes on when its reply arrives); 1 plays one decision at a time, in game order.
            Results do not depend on it (each game's deal and seeds are its own).

    Raises:
        ValueError: a bad argument (the message names it).
        RuntimeError: a bot chose an illegal action or a game did not end (bugs), or Ray
            could not start or reach its cluster.
    """
    if not isinstance(t, Tournament):
        raise ArgumentTypeError(f"t must be a Tournament (arena.tournament(...)), got "
                                f"{type(t).__name__}")
    backend = as_choice(backend, "backend", BACKENDS)
    if ray_address is not None and backend != "ray":
        raise ValueError("ray_address needs backend='ray'")
    path = as_choice(path, "path", PATHS)
    if path == "compiled" and not t.compiled:
        python_only = sorted({seat.name for seat in t.seats if not seat.compiled})
        raise ValueError(f"the compiled path needs compiled bots; {python_only} are Python-only")
    if path == "compiled" and record_dir is not None:
        raise ValueError("game records come from the Python path; use path='auto' or 'python'")
    if path == "auto":
        path = "compiled" if t.compiled and record_dir is None else "python"
    cores = os.cpu_count() or 1
    if threads is not None:
        threads = as_int(threads, "threads", lo=1)
    workers = threads or cores
    concurrency = as_int(concurrency, "concurrency", lo=1, hi=MAX_CONCURRENCY)
    waiting = backend == "local" and path == "python" and any(s.waits for s in t.seats)
    if backend == "local" and path == "python" and not (
            spawnable() and all(s.picklable for s in t.seats)):
        workers = 1  # no worker process can start, or a seat cannot travel to one: this one
    if waiting and chunk_size is None:
        chunk_size = 1  # (a game a thread)
    if chunk_size is None:
        per_worker = -(-t.games // (4 * workers))
        chunk_size = COMPILED_CHUNK if path == "compiled" and backend == "local" else \
            max(1, min(COMPILED_CHUNK if path == "compiled" else PYTHON_CHUNK_MAX, per_worker))
    else:
        chunk_size = as_int(chunk_size, "chunk_size", lo=1)
    record = record_dir is not None
    if record:
        record_dir = prepare_dir(record_dir)
    spans = _chunks(t.games, chunk_size)

    saved_threads = numba.get_num_threads()
    if backend == "local" and path == "compiled" and threads is not None:
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    if backend == "ray":
        source = ray_chunks(play_chunk, t, spans, path, record, ray_address, threads)
    elif waiting:
        source = thread_chunks(play_chunk, t, spans, record, concurrency)
    else:
        source = local_chunks(play_chunk, t, spans, path, record, workers)
    done: dict[int, dict] = {}
    interrupted = False
    written = 0
    try:
        for i, chunk in source:
            if record:
                start = spans[i][0]
                transcripts = chunk.pop("transcripts")
                for k, actions in enumerate(chunk.pop("actions")):
                    write_game(record_dir, t, start + k, actions, chunk["scores"][k],
                               chunk["winners"][k])
                    if transcripts[k]:
                        write_transcript(record_dir, start + k, transcripts[k])
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
