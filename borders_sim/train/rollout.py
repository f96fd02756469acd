"""A learner's rollout and its advantages: what every update rule starts from.

:class:`Rollout` holds ``steps`` rows of ``num_envs`` learner decisions as a
:class:`~.learner.Learner` collected them with its compiled actor: the observations, the legal
masks, the actions taken, their log-probabilities and the values under the network that chose
them, and the rewards and game ends of the env steps that applied them. Every decision of the
training env is the learner's (its opponents play inside the compiled call), so advantages are
computed per game slot: a game that ends cuts its slot's returns there (the env deals the next
game in the same step).

:func:`advantages` is generalised advantage estimation (Schulman et al., 2016) over it, a pure
function; :func:`normalized` the batch-wide normalisation PPO and A2C apply to them.
"""

from __future__ import annotations

import numpy as np
import torch

from ..rules.actions import NUM_ACTIONS
from ..rules.observation import OBS_SIZE


class Rollout:
    """``steps`` rows of ``num_envs`` learner decisions, filled by :meth:`put` and
    :meth:`result`; each field is a CPU tensor ``[steps, num_envs, ...]``: ``obs`` (float32,
    ``OBS_SIZE``), ``mask`` (bool, ``NUM_ACTIONS``: the legal actions), ``action`` (int64),
    ``logp`` (float32: the action's log-probability when taken), ``value`` (float32: the
    network's value then), ``reward`` (float32) and ``done`` (bool: the game ended at that
    step)."""

    def __init__(self, steps: int, num_envs: int) -> None:
        self.steps, self.num_envs = steps, num_envs
        self.obs = torch.zeros((steps, num_envs, OBS_SIZE), dtype=torch.float32)
        self.mask = torch.zeros((steps, num_envs, NUM_ACTIONS), dtype=torch.bool)
        self.action = torch.zeros((steps, num_envs), dtype=torch.int64)
        self.logp = torch.zeros((steps, num_envs), dtype=torch.float32)
        self.value = torch.zeros((steps, num_envs), dtype=torch.float32)
        self.reward = torch.zeros((steps, num_envs), dtype=torch.float32)
        self.done = torch.zeros((steps, num_envs), dtype=torch.bool)

    def put(self, t: int, obs: np.ndarray, mask: np.ndarray, action: torch.Tensor,
            logp: torch.Tensor, value: torch.Tensor) -> None:
        """The decisions of step ``t`` (the env's buffers are copied)."""
        self.obs[t].copy_(torch.from_numpy(obs))
        self.mask[t].copy_(torch.from_numpy(mask))
        self.action[t] = action
        self.logp[t] = logp
        self.value[t] = value

    def result(self, t: int, reward: np.ndarray, done: np.ndarray) -> None:
        """The rewards and game ends of the env step that applied step ``t``'s actions."""
        self.reward[t] = torch.from_numpy(reward.astype(np.float32))
        self.done[t] = torch.from_numpy(done)


def advantages(rollout: Rollout, last_value: torch.Tensor, gamma: float, lam: float
               ) -> tuple[torch.Tensor, torch.Tensor]:
    """GAE advantages and returns of ``rollout``, each ``[steps, num_envs]``: ``last_value``
    (``[num_envs]``) is the value of the decisions pending after its last step, ``gamma`` the
    discount and ``lam`` GAE's lambda (1: the discounted return minus the value; 0: the one-step
    TD error). A game's end cuts its slot's bootstrap."""
    adv = torch.zeros_like(rollout.reward)
    gae = torch.zeros(rollout.num_envs)
    next_value = last_value
    for t in reversed(range(rollout.steps)):
        live = (~rollout.done[t]).float()
        delta = rollout.reward[t] + gamma * next_value * live - rollout.value[t]
        gae = delta + gamma * lam * live * gae
        adv[t] = gae
        next_value = rollout.value[t]
    return adv, adv + rollout.value


def normalized(adv: torch.Tensor) -> torch.Tensor:
    """``adv`` centred and scaled over the whole batch (unchanged for fewer than 2 samples;
    never normalise over a minibatch: one of a single sample has no spread)."""
    if adv.numel() < 2:
        return adv
    return (adv - adv.mean()) / torch.sqrt(adv.var() + 1e-8)
