"""The one way whole-game kernels run a batch: chunks of it on threads, each chunk one compiled
call that runs without the GIL.

A *chunk kernel* is a ``@kernel(nogil=True)`` function ``kernel(lo, hi, *args)`` that plays
items ``lo .. hi - 1`` of a batch (games, or rollouts of a search) and writes its results into
arrays of ``args``; items own their state and their generators, so a result never depends on
how the batch is cut. :func:`run_chunks` cuts ``range(n)`` into :data:`CHUNKS_PER_THREAD`
chunks per thread (items differ in length, so a thread done early takes the next chunk) and
runs them on a thread pool of ``numba.get_num_threads()`` threads (``numba.set_num_threads``
sets it); with one thread, or one item, it calls the kernel once in the calling thread.

A ``prange`` loop would do the same, but numba compiles a parallel kernel for several times as
long as a plain one (10 s against 3 s for the random-play kernel on a fresh install), and every
whole-game kernel would pay that. The one ``prange`` kernel is
:class:`~borders_sim.envs.VectorEnv`'s step, where each item is a single decision and a hand-off to
the pool would cost more than the work (:mod:`borders_sim.envs.vector`).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numba
import numpy as np

#: Chunks per thread in :func:`run_chunks`.
CHUNKS_PER_THREAD = 4

_pool: ThreadPoolExecutor | None = None
_pool_pid = 0  # the process that made _pool (a forked child has none of its threads)
_pool_lock = threading.Lock()


def _threads() -> ThreadPoolExecutor:
    """The pool of :func:`run_chunks`, made on first use in each process."""
    global _pool, _pool_pid
    with _pool_lock:
        if _pool is None or _pool_pid != os.getpid():
            _pool = ThreadPoolExecutor(numba.config.NUMBA_NUM_THREADS,
                                       thread_name_prefix="borders_sim")
            _pool_pid = os.getpid()
        return _pool


def run_chunks(kernel: Callable, n: int, *args: Any,
               chunks_per_thread: int = CHUNKS_PER_THREAD) -> None:
    """Call the chunk kernel ``kernel(lo, hi, *args)`` over ``range(n)``, cut into chunks of
    consecutive items run on ``numba.get_num_threads()`` threads (module docstring); returns
    when every chunk is done, re-raising the first error of a chunk."""
    threads = min(numba.get_num_threads(), n)
    if threads <= 1:
        if n > 0:
            kernel(0, n, *args)
        return
    cuts = np.linspace(0, n, min(n, threads * chunks_per_thread) + 1).astype(np.int64)
    # at most `threads` chunks run at once, whatever the pool's size
    running = threading.Semaphore(threads)

    def play(lo: int, hi: int) -> None:
        with running:
            kernel(lo, hi, *args)

    pool = _threads()
    for done in [pool.submit(play, int(lo), int(hi)) for lo, hi in zip(cuts[:-1], cuts[1:])]:
        done.result()
