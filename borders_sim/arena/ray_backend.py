"""The Ray backend of :func:`borders_sim.arena.run.run_tournament`: chunks of games as Ray
tasks (one CPU each), on a local cluster started for the run or on a running cluster.

Each task calls the function that plays a chunk (:func:`~borders_sim.arena.play.play_chunk`, as
the local backend does), with
numba on one thread (the cluster's CPUs are used by running tasks side by side), and the
driver puts the chunks back in game order, so the results equal the local backend's exactly.

* No address: ``ray.init(num_cpus=threads)`` starts a local cluster for the run (all cores
  by default) and shuts it down afterwards. Its workers import ``borders_sim`` from the same
  place as this process.
* ``address`` (``"host:port"`` of a head started with ``ray start --head``, ``"auto"``, or a
  Ray client ``"ray://host:port"``): the run connects to that cluster; ``borders-sim`` (with
  the same version) must be installed on every node. A ``host:port`` that does not accept a
  TCP connection within a few seconds is refused before Ray is asked (Ray itself would retry
  for a long time).

Ray is an optional dependency: ``pip install "borders-sim[distributed]"``.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import numba

from .schedule import Tournament

CONNECT_TIMEOUT = 5.0  # seconds to wait for a TCP connection to a cluster address


def import_ray():
    """The ``ray`` module, or a RuntimeError saying how to install it."""
    try:
        import ray
    except ImportError:
        raise RuntimeError("the Ray backend needs Ray: pip install 'borders-sim[distributed]' "
                           "(or pip install ray)") from None
    return ray


def check_address(address: str) -> None:
    """Refuse a ``host:port`` address that does not accept a TCP connection (``"auto"`` and
    ``ray://`` addresses are left to Ray).

    Raises:
        RuntimeError: the address is malformed or unreachable.
    """
    if address == "auto":
        return
    hostport = address[len("ray://"):] if address.startswith("ray://") else address
    host, sep, port = hostport.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise RuntimeError(f"Ray address {address!r} is not host:port, ray://host:port or auto")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT):
            pass
    except OSError as err:
        reason = err.strerror or type(err).__name__
        raise RuntimeError(f"cannot reach the Ray cluster at {address!r}: {reason}") from None


def local_cluster_kwargs(num_cpus: int | None = None) -> dict:
    """``ray.init`` arguments of a local cluster with ``num_cpus`` CPUs (default all cores)
    whose workers import this very ``borders_sim`` (a source checkout included)."""
    root = str(Path(__file__).resolve().parents[1])
    pythonpath = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
    return {"num_cpus": num_cpus or os.cpu_count() or 1,
            "runtime_env": {"env_vars": {"PYTHONPATH": pythonpath}}}


def start_ray(address: str | None, num_cpus: int | None) -> bool:
    """Start Ray in this process (a local cluster of ``num_cpus`` CPUs, or a connection to
    ``address``) unless it is already initialized; returns whether it was started here (the
    caller then shuts it down).

    Raises:
        RuntimeError: Ray is missing, the address unreachable, or Ray fails to start.
    """
    ray = import_ray()
    if ray.is_initialized():
        return False
    if address is not None:
        check_address(address)
        kwargs: dict = {"address": address}
    else:
        kwargs = local_cluster_kwargs(num_cpus)
    try:
        ray.init(include_dashboard=False, logging_level="ERROR", log_to_driver=False, **kwargs)
    except Exception as err:  # Ray raises many kinds; report them in one line
        first = str(err).strip().splitlines()[0] if str(err).strip() else ""
        raise RuntimeError(f"Ray failed to start or connect: {type(err).__name__}: "
                           f"{first}") from None
    return True


def _task(play: Callable[..., dict], t: Tournament, start: int, count: int, path: str,
          record: bool) -> dict:
    numba.set_num_threads(1)
    return play(t, start, count, path, record)


def ray_chunks(play: Callable[..., dict], t: Tournament, spans: list[tuple[int, int]],
               path: str, record: bool, address: str | None,
               num_cpus: int | None) -> Iterator[tuple[int, dict]]:
    """Run the chunks ``spans`` (``(first game, count)``) of ``t`` as Ray tasks, each
    ``play(t, start, count, path, record)``; yields ``(chunk index, chunk)`` as they finish. Starts (and afterwards stops) Ray in this process, unless Ray is
    already initialized (then its cluster is used as it is).

    Raises:
        RuntimeError: Ray is missing, the address unreachable, or Ray fails to start.
    """
    ray = import_ray()
    started = start_ray(address, num_cpus)
    refs: dict = {}
    try:
        task = ray.remote(num_cpus=1)(_task)
        refs = {task.remote(play, t, start, count, path, record): i
                for i, (start, count) in enumerate(spans)}
        while refs:
            ready, _ = ray.wait(list(refs), num_returns=1)
            i = refs.pop(ready[0])
            try:
                chunk = ray.get(ready[0])
            except ray.exceptions.RayTaskError as err:
                cause = getattr(err, "cause", None) or err
                raise RuntimeError(f"a Ray task failed: {cause}") from None
            yield i, chunk
    finally:
        for ref in refs:
            ray.cancel(ref, force=True)
        if started:
            ray.shutdown()
