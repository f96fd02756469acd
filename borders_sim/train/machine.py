"""The trainer's defaults that come from the machine: threads and games side by side.

A run alternates two phases: collection (the compiled env and the compiled acting network, on
numba's threads, :mod:`borders_sim.batch.chunks`) and the update (torch, on torch's threads or
a GPU). The two pools never work at once, but an OpenMP pool keeps its threads spinning a
while after its work, so the defaults keep their sum within the usable cores where there are
cores to share:

======================  ==========================  ==========================  ==============
machine                 ``threads`` (numba)         ``torch_threads``           ``num_envs``
======================  ==========================  ==========================  ==============
CPU, up to 4 cores      every usable core           1                           128
CPU, more cores         the cores torch leaves      half the cores              128
``cuda``                every usable core but one   1 (the GPU does the work)   1024
======================  ==========================  ==========================  ==============

On this project's 2-core machine one torch thread beside the env's two is the fastest setting
measured (two torch threads ran the update 6x slower), which is the first row. A GPU run
defaults to many more games: its update costs about the same for a larger batch, and the
issue's measurement on an H200 gave 36.4k learner steps/s at 1,024 games against 6.2k at 128.
The rows for more cores are the rule, not a measurement here: ``benchmarks/scaling.py``
measures threads and batch sizes on the machine at hand. A command that gives the values
(the recipe's do) runs the same way everywhere; the values a run used are in its files.
"""

from __future__ import annotations

import os

import numba

#: Games side by side by default on the CPU and with a GPU (module docstring).
CPU_NUM_ENVS, CUDA_NUM_ENVS = 128, 1024
#: Up to this many usable cores, the update takes one torch thread (module docstring).
SMALL_MACHINE_CORES = 4


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS and Windows have no affinity call
        return max(1, os.cpu_count() or 1)


def is_gpu(device: str) -> bool:
    """Whether ``device`` names a GPU (``cuda``, ``cuda:1``)."""
    return str(device).startswith("cuda")


def max_threads() -> int:
    """The most threads numba may run here (``NUMBA_NUM_THREADS``, fixed at its start)."""
    return numba.config.NUMBA_NUM_THREADS


def default_torch_threads(device: str, cores: int | None = None) -> int:
    """torch's threads for the update on ``device`` with ``cores`` usable cores (default:
    :func:`usable_cores`): the table of the module docstring."""
    cores = usable_cores() if cores is None else cores
    if is_gpu(device) or cores <= SMALL_MACHINE_CORES:
        return 1
    return cores // 2


def default_threads(device: str, cores: int | None = None) -> int:
    """numba's threads for the env and acting (module docstring's table), at most numba's own
    maximum (``NUMBA_NUM_THREADS``)."""
    cores = usable_cores() if cores is None else cores
    if is_gpu(device):
        threads = max(1, cores - 1)
    elif cores <= SMALL_MACHINE_CORES:
        threads = cores
    else:
        threads = cores - default_torch_threads(device, cores)
    return max(1, min(threads, max_threads()))


def default_num_envs(device: str) -> int:
    """Games side by side by default: :data:`CUDA_NUM_ENVS` on a GPU, else
    :data:`CPU_NUM_ENVS`."""
    return CUDA_NUM_ENVS if is_gpu(device) else CPU_NUM_ENVS
