"""The trainer's defaults from the machine (borders_sim.train.machine): numba's and torch's
threads set together from the cores and the device, the games side by side from the device,
the values a command gives kept, and the trainer running on the values of its config."""

from __future__ import annotations

import os
import subprocess
import sys

import numba
import pytest

from borders_sim.train import TrainConfig
from borders_sim.train.machine import (CPU_NUM_ENVS, CUDA_NUM_ENVS, SMALL_MACHINE_CORES,
                                       default_num_envs, default_threads,
                                       default_torch_threads, max_threads, usable_cores)


@pytest.mark.parametrize("cores", [1, 2, 3, 4, 5, 8, 16, 64, 128])
@pytest.mark.parametrize("device", ["cpu", "cuda", "cuda:1"])
def test_the_thread_defaults_never_oversubscribe_the_cores(cores, device):
    threads = default_threads(device, cores)
    torch_threads = default_torch_threads(device, cores)
    assert 1 <= threads <= min(cores, max_threads()) and torch_threads >= 1
    if cores > SMALL_MACHINE_CORES or device != "cpu":  # cores to share: the sum fits
        assert threads + torch_threads <= max(cores, 2)
    else:  # the measured small-machine setting: every core for the env, one torch thread
        assert torch_threads == 1 and threads == min(cores, max_threads())
    if device != "cpu":
        assert torch_threads == 1


def test_the_games_side_by_side_follow_the_device():
    assert default_num_envs("cpu") == CPU_NUM_ENVS == 128
    assert default_num_envs("cuda") == default_num_envs("cuda:0") == CUDA_NUM_ENVS
    assert CUDA_NUM_ENVS > CPU_NUM_ENVS


def test_a_config_fills_what_it_was_not_given_and_keeps_what_it_was():
    c = TrainConfig()
    assert c.num_envs == CPU_NUM_ENVS
    assert c.threads == default_threads("cpu") and c.torch_threads == default_torch_threads("cpu")
    gpu = TrainConfig(device="cuda")  # made without a GPU: only the numbers are filled
    assert gpu.num_envs == CUDA_NUM_ENVS and gpu.torch_threads == 1
    given = TrainConfig(device="cuda", num_envs=64, threads=1, torch_threads=3)
    assert (given.num_envs, given.threads, given.torch_threads) == (64, 1, 3)
    assert 1 <= usable_cores() <= (os.cpu_count() or 1)


def test_threads_beyond_numbas_maximum_are_refused_naming_the_setting():
    with pytest.raises(ValueError, match="threads must be .* NUMBA_NUM_THREADS"):
        TrainConfig(threads=numba.config.NUMBA_NUM_THREADS + 1).check()
    with pytest.raises(ValueError, match="threads"):
        TrainConfig(threads=0).check()


def test_the_command_line_gives_its_values_and_the_help_names_the_defaults(capsys):
    from borders_sim.cli import main
    with pytest.raises(SystemExit):
        main(["train", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"default: {CPU_NUM_ENVS} on the CPU, {CUDA_NUM_ENVS} with --device cuda" in text
    assert f"{default_threads('cpu')} here on the CPU" in text
    assert f"{default_torch_threads('cpu')} here on the CPU" in text
    with pytest.raises(SystemExit):
        main(["train", "--out", "x", "--threads", str(max_threads() + 1)])


@pytest.mark.parametrize("threads", [1, 2])
def test_the_trainer_runs_on_the_threads_of_its_config(tmp_path, threads):
    """A fresh process with two numba threads allowed: a run collects on ``threads`` numba
    threads and updates on one torch thread. With two, the env's parallel kernels launch
    numba's OpenMP threading layer, which resets OpenMP's thread count for the whole process
    (torch's included): the update must still run on ``torch_threads``."""
    code = ("import torch, numba; from pathlib import Path; "
            "from borders_sim.train import TrainConfig; "
            "from borders_sim.train.trainer import Trainer; "
            "t = Trainer(TrainConfig(opponents=('honest',), num_envs=8, steps=4, hidden=(8, 8), "
            f"snapshots=0, max_updates=2, threads={threads}, torch_threads=1), "
            f"Path({str(tmp_path)!r})); "
            "t.step(); print(numba.get_num_threads(), torch.get_num_threads())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "NUMBA_NUM_THREADS": "2"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-2:] == [str(threads), "1"]
