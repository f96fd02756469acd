"""The local backend: chunks of games on this machine, compiled chunks in this process
(numba's threads), Python chunks in a pool of spawned worker processes, and the games of seats
that wait on the network (a language model's) in threads of this process, as many in flight as
the tournament's ``concurrency``."""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool

import numba

from .schedule import Tournament


def spawnable() -> bool:
    """Whether spawned worker processes can start here: each re-imports the main module from
    its file, which code piped to ``python -`` (``__file__`` ``<stdin>``) does not have (a
    notebook's and ``python -c``'s main module has no file, and needs none)."""
    script = getattr(sys.modules.get("__main__"), "__file__", None)
    return script is None or os.path.isfile(script)


def worker_init() -> None:
    """Pool workers leave Ctrl-C to the parent and run numba on one thread each."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    numba.set_num_threads(1)


def local_chunks(play: Callable[..., dict], t: Tournament, spans: list[tuple[int, int]],
                 path: str, record: bool, workers: int) -> Iterator[tuple[int, dict]]:
    """The chunks ``spans`` (``(first game, count)``) of ``t``, each played by
    ``play(t, start, count, path, record)``: compiled chunks in this process (numba's threads),
    Python chunks in a pool of ``workers`` spawned processes (in this process for one worker);
    yields ``(chunk index, chunk)`` as they finish.
    A worker that dies breaks the pool with an error instead of a hang; an interrupt stops
    the workers at once."""
    if path == "compiled" or workers == 1:
        for i, (start, count) in enumerate(spans):
            yield i, play(t, start, count, path, record)
        return
    # spawn, not fork: a forked child of a process whose numba thread pool is running may hang
    pool = ProcessPoolExecutor(min(workers, len(spans)), initializer=worker_init,
                               mp_context=multiprocessing.get_context("spawn"))
    futures = {pool.submit(play, t, start, count, path, record): i
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



def thread_chunks(play: Callable[..., dict], t: Tournament, spans: list[tuple[int, int]],
                  record: bool, threads: int) -> Iterator[tuple[int, dict]]:
    """The Python chunks ``spans`` of ``t`` in ``threads`` threads of this process, yielded as
    they finish: while one game waits for a reply (a language model's seat), the others go on,
    so up to ``threads`` requests are in flight. One thread plays the chunks in order, in this
    thread. An interrupt cancels the chunks not started."""
    if threads == 1:
        for i, (start, count) in enumerate(spans):
            yield i, play(t, start, count, "python", record)
        return
    pool = ThreadPoolExecutor(min(threads, len(spans)), thread_name_prefix="borders-game")
    futures = {pool.submit(play, t, start, count, "python", record): i
               for i, (start, count) in enumerate(spans)}
    try:
        for future in as_completed(futures):
            yield futures[future], future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
