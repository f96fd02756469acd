"""``ppo``: the learned bot, a masked policy network trained with PPO (:mod:`borders_sim.train`).

The network and its file are :mod:`borders_sim.policies.network`'s: the bot reads a player's
observation vector and legal mask only, like every bot, and plays through the same compiled kernel
(:func:`~borders_sim.policies.network.net_act`) as a ``ppo`` seat inside the whole-game kernels,
so both paths take the same actions. It needs no torch.

**Sampled by default.** ``make("ppo")`` draws its action from the policy's softmax over the
legal actions at temperature :data:`~borders_sim.policies.network.SAMPLE_TEMPERATURE` (1: the
policy as trained), with the bot's own generator (seeded by ``make("ppo", seed)``, so it is
reproducible for its seed). A bluffing game needs a mixed policy: a player who always declares,
bribes or opens the same way in the same position is read and exploited by one opponent who learns
that way (the ``strict`` bot took 99% of the games from three copies of the greedy policy,
``docs/exploitability.md``). ``make("ppo", sample=False)`` (spec ``ppo:argmax``) plays the most
likely legal action; ``temperature=T`` (spec ``ppo:temp=T``) another temperature.

``make("ppo")`` plays the shipped policy (:data:`~borders_sim.policies.network.SHIPPED_WEIGHTS`);
``make("ppo", weights=PATH)`` (spec ``ppo@PATH``) any policy file, or the ``policy.npz`` of a
``borders-sim train`` output directory.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import numpy as np

from ..rules.actions import NUM_ACTIONS
from ..checks import as_bool
from ..rules.engine import MASK_SIZE
from ..rules.observation import OBS_SIZE
from ..rules.rng import seed_words
from .base import Bot
from ..policies.network import (SAMPLE_TEMPERATURE, SHIPPED_WEIGHTS, NetStack, Policy,
                                as_temperature, load_policy, net_act, shipped_policy,
                                stack_nets)


class PPOBot(Bot):
    """The ``ppo`` bot (module docstring).

    Args:
        seed: seeds the bot's generator (the draws of a sampled bot).
        weights: a policy file or a ``borders-sim train`` output directory (default: the
            shipped policy, :data:`~borders_sim.policies.network.SHIPPED_WEIGHTS`), or a
            :class:`~borders_sim.policies.network.Policy` in memory.
        sample: draw from the policy (default) instead of playing its most likely legal
            action.
        temperature: the temperature of the draws (default
            :data:`~borders_sim.policies.network.SAMPLE_TEMPERATURE`; ignored with
            ``sample=False``).

    Example::

        from borders_sim.agents import make
        bot = make("ppo", seed=1)                   # sampled at temperature 1
        greedy = make("ppo", sample=False)          # its most likely legal action
        cool = make("ppo", seed=1, temperature=0.5)
    """

    name = "ppo"

    def __init__(self, seed: int = 0, weights: str | os.PathLike | Policy | None = None,
                 sample: bool = True, temperature: float = SAMPLE_TEMPERATURE) -> None:
        self.temperature = (as_temperature(temperature) if as_bool(sample, "sample") else 0.0)
        if isinstance(weights, Policy):
            self.weights, self.policy = "a policy in memory", weights
            self.nets = stack_nets([self.policy], [self.temperature])
        else:
            self.weights = str(SHIPPED_WEIGHTS if weights is None else weights)
            self.policy, self.nets = _file_nets(self.weights, self.temperature)
        self.rng = seed_words(seed)
        self._mask = np.zeros(MASK_SIZE, dtype=np.uint8)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        obs = np.asarray(observation, dtype=np.float32)
        mask = np.asarray(action_mask)
        if obs.shape != (OBS_SIZE,) or mask.shape != (NUM_ACTIONS,):
            raise ValueError(f"ppo bot: expected an observation of shape ({OBS_SIZE},) and a "
                             f"mask of shape ({NUM_ACTIONS},), got {obs.shape} and {mask.shape}")
        self._mask[:NUM_ACTIONS] = mask != 0
        count = int(self._mask.sum())
        if count == 0:
            raise ValueError("ppo bot: the action mask allows no action")
        return int(net_act(self.nets, 0, obs, self._mask, count, self.rng))

    def __repr__(self) -> str:
        return f"PPOBot(weights={self.weights!r}, temperature={self.temperature})"


def _file_nets(path: str, temperature: float) -> tuple[Policy, NetStack]:
    """The policy of the file ``path`` (or of a run directory's ``policy.npz``) and its
    network stack at ``temperature``, read once and shared by every bot of that file (a
    server's games, a tournament's seats), until the file changes."""
    file = Path(path)
    file = file / "policy.npz" if file.is_dir() else file
    try:
        found = file.stat()
    except OSError:  # (load_policy says why, in its words)
        policy = shipped_policy() if Path(path) == SHIPPED_WEIGHTS else load_policy(path)
        return policy, stack_nets([policy], [temperature])
    return _read_nets(str(file.resolve()), found.st_size, found.st_mtime_ns, temperature)


@functools.lru_cache(maxsize=32)
def _read_nets(path: str, size: int, mtime_ns: int, temperature: float
               ) -> tuple[Policy, NetStack]:
    """:func:`_file_nets` of the file as it is now (its size and time are the cache's key)."""
    policy = _read_policy(path, size, mtime_ns)
    return policy, stack_nets([policy], [temperature])


@functools.lru_cache(maxsize=16)
def _read_policy(path: str, _size: int, _mtime_ns: int) -> Policy:
    """The policy of the file as it is now, read once for every temperature."""
    return load_policy(path)
