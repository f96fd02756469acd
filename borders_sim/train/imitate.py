"""Behaviour cloning, the optional first stage of a run: the network learns a compiled bot's
choices before PPO improves on them.

:func:`clone` records demonstrations at kernel speed (:func:`borders_sim.agents.demos.
record_demos`: seat-rotated games of the teacher against the other heuristics, every decision of
the teacher's seats) and trains the policy head and trunk on them with the masked
cross-entropy of the teacher's action, in shuffled minibatches. The value head is left to PPO.
The data never touches the disk for long: the shards go to a temporary directory and are read
back as int16 observations (exact: every entry is a small count), converted per minibatch.

Why: the heuristics' decisions hold a coherent game (pack goods of one type, announce it, price
the fines), which PPO from a random network finds late or not at all against inspectors who
punish every lie (``strict``); starting from ``honest`` it begins truthful and learns where
lying pays. The final policy is trained by RL from there, and must beat the teacher.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass

import numpy as np
import torch

from ..agents.demos import load_shard, record_demos
from .model import PolicyValueNet, take

#: The teacher's opponents in the demonstration games (seats rotate, so the teacher meets
#: each of them in every seat).
SPARRING = ("honest", "bluffer", "collector", "strict")


@dataclass
class CloneStats:
    """What :func:`clone` did: decisions learnt from, passes, and the accuracy on them (the
    share of decisions whose highest legal logit is the teacher's action) at the end."""

    decisions: int
    epochs: int
    accuracy: float


def demonstrations(teacher: str, players: int, games: int, seed: int) -> tuple[np.ndarray,
                                                                              np.ndarray,
                                                                              np.ndarray]:
    """The teacher's decisions in ``games`` games: observations (int16), masks (bool) and
    actions, from a lineup of the teacher and the sparring bots (seats rotating)."""
    lineup = [teacher] + [b for b in SPARRING if b != teacher][:players - 1]
    lineup += [teacher] * (players - len(lineup))
    obs, masks, actions = [], [], []
    with tempfile.TemporaryDirectory(prefix="borders-demos-") as folder:
        for path in record_demos(folder, lineup, games, seed=seed):
            shard = load_shard(path)
            mine = shard["bot"] == shard["meta"]["bots"].index(teacher)
            obs.append(shard["obs"][mine].astype(np.int16))
            masks.append(shard["mask"][mine])
            actions.append(shard["action"][mine].astype(np.int64))
    return np.concatenate(obs), np.concatenate(masks), np.concatenate(actions)


def clone(model: PolicyValueNet, optimizer: torch.optim.Optimizer, teacher: str, players: int,
          games: int, epochs: int, seed: int, batch: int = 2048) -> CloneStats:
    """Train ``model`` to choose as ``teacher`` does (module docstring)."""
    obs, masks, actions = demonstrations(teacher, players, games, seed)
    n = len(actions)
    generator = torch.Generator().manual_seed(seed)
    device = model.inv_scale.device
    inputs = model.inputs(obs)
    masks_t = torch.from_numpy(masks).to(device)
    actions_t = torch.from_numpy(actions).to(device)
    for _ in range(epochs):
        order = torch.randperm(n, generator=generator)
        for lo in range(0, n, batch):
            rows = order[lo:lo + batch]
            idx = rows.to(device)
            logits, _ = model.forward_inputs(take(inputs, rows), masks_t[idx])
            loss = torch.nn.functional.cross_entropy(logits, actions_t[idx])
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            optimizer.step()
    hits = 0
    with torch.no_grad():
        for lo in range(0, n, batch):
            rows = torch.arange(lo, min(lo + batch, n))
            logits, _ = model.forward_inputs(take(inputs, rows), masks_t[rows.to(device)])
            hits += int((logits.argmax(dim=1) == actions_t[rows.to(device)]).sum())
    return CloneStats(n, epochs, hits / max(n, 1))
