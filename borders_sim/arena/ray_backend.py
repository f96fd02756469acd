"""The Ray backend of :func:`borders_sim.arena.tournaments.run_tournament`: chunks of games as Ray
tasks (one CPU each), on a local cluster started for the run or on a running cluster.

Each task calls the function that plays a chunk (:func:`~borders_sim.arena.paths.play_chunk`, as
the local backend does), with
numba on one thread (the cluster's CPUs are used by running tasks side by side), and the
driver puts the chunks back in game order, so the results equal the local backend's exactly.

* No address: ``ray.init(num_cpus=threads)`` starts a local cluster for the run (all cores
  by default) and shuts it down afterwards. Its workers import ``borders_sim`` from the same
  place as this process.
* ``address`` (``"host:port"`` of a head started with ``ray start --head``, ``"auto"``, or a
  Ray client ``"ray://host:port"``): the run connects to that cluster; ``borders-sim`` (with
  the same version) must be installed on every node. Before Ray is asked (which would retry
  for minutes), :func:`check_address` checks the address's form and that something there
  speaks Ray's protocol, gRPC: it opens a TCP connection and sends the HTTP/2 greeting that a
  gRPC client sends first, and a gRPC server (a Ray head, a Ray client server) answers with
  its own within :data:`CONNECT_TIMEOUT` seconds; an address that refuses the connection, stays
  silent or answers otherwise is refused in one line. (With ``RAY_USE_TLS`` set the cluster
  speaks TLS first, so only the connection is checked.)

Ray is an optional dependency, the extra ``distributed``: ``pip install ".[distributed]"`` in the
source checkout (:func:`~borders_sim.install_hints.install_hint`).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import numba

from ..checks import as_host_port, as_str
from ..install_hints import needs
from .schedule import Tournament

#: Seconds to wait for a cluster address to accept a connection and answer the greeting.
CONNECT_TIMEOUT = 5.0
#: What a gRPC client sends first on a connection (RFC 9113, 3.4): the HTTP/2 connection
#: preface and an empty SETTINGS frame.
GRPC_HELLO = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
#: The header of a gRPC server's first frame, its SETTINGS, byte by byte (None: any byte): a
#: length of 3 bytes (a few settings: under 65536), the type 4, flags, the stream 0.
_SETTINGS_HEADER = (0, None, None, 4, None, 0, 0, 0, 0)


def import_ray():
    """The ``ray`` module, or a RuntimeError saying how to install it."""
    try:
        import ray
    except ImportError:
        raise RuntimeError(needs("the Ray backend", "distributed", "Ray")) from None
    return ray


def check_address(address: str) -> None:
    """Refuse a Ray address (``host:port`` or ``ray://host:port``; ``"auto"`` is left to Ray)
    of the wrong form, or where nothing answers as a Ray cluster does within
    :data:`CONNECT_TIMEOUT` seconds (module docstring).

    Raises:
        ValueError: not ``host:port``, ``ray://host:port`` or ``auto`` (the host at most 253
            characters, the port 1 to 65535).
        RuntimeError: the address is unreachable, or what answers there is not Ray.
    """
    text = as_str(address, "the Ray address", "host:port, ray://host:port or auto")
    if text == "auto":
        return
    host, port = as_host_port(text.removeprefix("ray://"), "the Ray address")
    try:
        connection = socket.create_connection((host, port), timeout=CONNECT_TIMEOUT)
    except OSError as err:
        raise RuntimeError(f"cannot reach the Ray cluster at {text!r}: "
                           f"{_reason(err)}") from None
    with connection:
        if os.environ.get("RAY_USE_TLS", "0").lower() in ("1", "true"):
            return
        try:
            connection.sendall(GRPC_HELLO)
            grpc = _answers_grpc(connection)
        except OSError as err:
            raise RuntimeError(f"no Ray cluster answers at {text!r}: connected, then "
                               f"{_reason(err)} (is it the address of 'ray start --head'?)"
                               ) from None
    if not grpc:
        raise RuntimeError(f"no Ray cluster answers at {text!r}: what answers there does not "
                           "speak gRPC, Ray's protocol (is it the address of 'ray start "
                           "--head'?)")


def _reason(err: OSError) -> str:
    """Why a connection failed, in a few words."""
    if isinstance(err, socket.timeout):
        return f"no answer within {CONNECT_TIMEOUT:g} s"
    return err.strerror or type(err).__name__


def _answers_grpc(connection: socket.socket) -> bool:
    """Whether the first bytes ``connection`` receives are the header of a gRPC server's first
    frame; it reads only until they cannot be (or the connection closes)."""
    data = b""
    while len(data) < len(_SETTINGS_HEADER):
        chunk = connection.recv(len(_SETTINGS_HEADER) - len(data))
        if not chunk:
            return False
        data += chunk
        if any(want is not None and got != want for got, want in zip(data, _SETTINGS_HEADER)):
            return False
    return True


def _import_from(root: str) -> Callable[[], None]:
    """A Ray worker set-up hook importing ``borders_sim`` from ``root``. A closure, so that Ray
    ships it by value (a module function would be imported by name, from the wrong place)."""
    def hook() -> None:
        import sys
        sys.path.insert(0, root)
        try:
            import borders_sim  # noqa: F401  (kept in sys.modules: later imports find it)
        finally:
            sys.path.remove(root)
    return hook


def local_cluster_kwargs(num_cpus: int | None = None) -> dict:
    """``ray.init`` arguments of a local cluster with ``num_cpus`` CPUs (default all cores)
    whose workers import this very ``borders_sim`` (a source checkout included).

    Ray puts the driver's working directory first on every worker's ``sys.path`` (after any
    set-up hook has run), so a driver run inside a source checkout with the package installed
    elsewhere would have workers import the checkout (and compile its kernels) while the
    driver uses the install. The workers' set-up hook imports this package first; the
    ``PYTHONPATH`` also names its directory, for the processes the workers start."""
    root = str(Path(__file__).resolve().parents[2])
    pythonpath = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
    return {"num_cpus": num_cpus or os.cpu_count() or 1,
            "runtime_env": {"env_vars": {"PYTHONPATH": pythonpath},
                            "worker_process_setup_hook": _import_from(root)}}


def start_ray(address: str | None, num_cpus: int | None) -> bool:
    """Start Ray in this process (a local cluster of ``num_cpus`` CPUs, or a connection to
    ``address``) unless it is already initialized; returns whether it was started here (the
    caller then shuts it down).

    Raises:
        ValueError: a malformed address (:func:`check_address`).
        RuntimeError: Ray is missing, no Ray cluster answers at the address, or Ray fails to
            start.
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
        ValueError: a malformed address (:func:`check_address`).
        RuntimeError: Ray is missing, no Ray cluster answers at the address, or Ray fails to
            start.
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


@contextmanager
def ray_session(backend: str, address: str | None, threads: int | None) -> Iterator[None]:
    """With the Ray backend, one cluster for every tournament played inside (started here
    unless Ray is already initialized, and stopped afterwards): the deviator matrix's cells, a
    population's seatings; nothing otherwise."""
    if backend != "ray":
        yield
        return
    started = start_ray(address, threads)
    try:
        yield
    finally:
        if started:
            import_ray().shutdown()
