"""The learner's actions during a rollout, sampled by the compiled network instead of torch.

Acting needs, per decision, a sample of the masked policy, its log-probability and the value
estimate: a forward pass of the policy-value network. In torch that is a dense product over the
1870 inputs and all 513 logits for a batch of ``num_envs`` rows, which costs about as much as
learning from the sample. :func:`sample_chunk` runs the network's one compiled forward pass and
draw (:mod:`borders_sim.policies.network`, the same code every ``ppo`` player runs) at
temperature 1, plus the value head on the same trunk, on all threads without the GIL. The
weights are the trainer's, exported after every update; the log-probabilities agree with
torch's to float rounding, which PPO's ratio absorbs.

Each game slot samples from its own generator (xorshift128+ words seeded from the run's seed
and the slot), so the actions do not depend on the thread count.

With the update on a GPU (``device="cuda"``), :class:`DeviceActor` acts there instead: one
batched forward pass of the torch network over all games, and the same draw as the compiled
one. Each slot with a choice takes one uniform number from its own generator
(:func:`draw_uniforms`, on the CPU: the generators and the rule are this module's one
sampler), and the pick is the first legal id whose cumulative softmax weight exceeds it, as
:func:`~borders_sim.policies.network.choose` walks them. So both actors, given the same
weights and generators, pick the same actions to float rounding (float32 on the device,
float64 in the kernel) and leave the generators in the same state; the test runs the
device path on the CPU build of torch.
"""

from __future__ import annotations

import copy

import numpy as np
import torch

from ..batch.chunks import run_chunks
from .._compile.jit import kernel
from ..policies.network import UNIT, NetStack, choose, hidden_layer, legal_logits, stack_nets
from ..rules.actions import NUM_ACTIONS
from ..batch.seeds import slot_generators
from ..rules.rng import next_below
from .model import PolicyValueNet


@kernel(nogil=True)
def sample_chunk(lo, hi, nets, value_w, value_b, obs, masks, rngs, action, logp, value):
    """For rows ``lo .. hi - 1``: a draw of network 0 of ``nets`` at its temperature over the
    legal ids of ``masks[i]`` (uint8) into ``action[i]``, its log-probability into ``logp[i]``
    and the value head (``value_w`` float32[H1], ``value_b``) into ``value[i]``. A chunk kernel
    (:mod:`borders_sim.batch.chunks`)."""
    ids = np.empty(NUM_ACTIONS, dtype=np.int64)
    logits = np.empty(NUM_ACTIONS, dtype=np.float64)
    weights = np.empty(NUM_ACTIONS, dtype=np.float64)
    temp = nets.temp[0]
    for i in range(lo, hi):
        h1 = hidden_layer(nets, 0, obs[i])
        v = np.float64(value_b)
        for u in range(h1.shape[0]):
            v += value_w[u] * h1[u]
        value[i] = v
        k = legal_logits(nets, 0, h1, masks[i], ids, logits)
        pick, lp = choose(logits, k, temp, rngs[i], weights)
        action[i] = ids[pick]
        logp[i] = lp


class CompiledActor:
    """Samples the learner's actions for ``num_envs`` game slots with the compiled network
    (module docstring); :meth:`load` takes the current weights, :meth:`act` one batch."""

    def __init__(self, num_envs: int, seed: int) -> None:
        self.rngs = slot_generators(seed, num_envs)
        self.action = np.zeros(num_envs, dtype=np.int64)
        self.logp = np.zeros(num_envs, dtype=np.float64)
        self.value = np.zeros(num_envs, dtype=np.float64)
        self.nets: NetStack | None = None

    def load(self, model: PolicyValueNet) -> None:
        """Act with ``model``'s current weights from now on."""
        self.nets = stack_nets([model.policy()], [1.0])
        self.value_w = model.v.weight.detach().cpu().numpy()[0].astype(np.float32)
        self.value_b = float(model.v.bias.detach().cpu().numpy()[0])

    def act(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                np.ndarray]:
        """Actions, log-probabilities and values of the pending decisions (the actor's own
        buffers, overwritten by the next call)."""
        run_chunks(sample_chunk, obs.shape[0], self.nets, self.value_w, self.value_b, obs,
                   masks.view(np.uint8), self.rngs, self.action, self.logp, self.value)
        return self.action, self.logp, self.value

    def state(self) -> np.ndarray:
        """The generators' words (a checkpoint keeps them)."""
        return self.rngs.copy()

    def restore(self, rngs: np.ndarray) -> None:
        self.rngs[...] = rngs


@kernel(nogil=True)
def draw_uniforms(rngs, counts, out):
    """For each slot ``i`` with ``counts[i] >= 2`` legal ids, ``out[i]``: one uniform number in
    [0, 1) from generator ``rngs[i]``, the draw :func:`~borders_sim.policies.network.choose`
    takes; 0 (and no draw) for a slot with one legal id."""
    for i in range(counts.shape[0]):
        out[i] = next_below(rngs[i], UNIT) / UNIT if counts[i] >= 2 else 0.0


class DeviceActor:
    """:class:`CompiledActor`'s interface for a network on a GPU: the forward pass of all
    game slots batched on the network's device, the draw from the slots' generators (module
    docstring)."""

    def __init__(self, num_envs: int, seed: int) -> None:
        self.rngs = slot_generators(seed, num_envs)
        self.uniforms = np.zeros(num_envs, dtype=np.float64)
        self.model: PolicyValueNet | None = None

    def load(self, model: PolicyValueNet) -> None:
        """Act with ``model``'s current weights from now on (a copy on its device: an update
        running beside the actor, the trainer's ``overlap``, does not change them)."""
        self.model = copy.deepcopy(model).requires_grad_(False)

    @torch.no_grad()
    def act(self, obs: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                np.ndarray]:
        """Actions, log-probabilities and values of the pending decisions (new arrays)."""
        device = self.model.inv_scale.device
        counts = masks.sum(axis=1)
        draw_uniforms(self.rngs, counts, self.uniforms)
        mask = torch.from_numpy(masks).to(device, non_blocking=True)
        logits, value = self.model.forward_inputs(self.model.inputs(obs), mask)
        logp_all = torch.log_softmax(logits.double(), dim=-1)
        weights = torch.exp(logp_all) * mask  # the softmax over the legal ids
        cumulative = torch.cumsum(weights, dim=-1)
        target = torch.from_numpy(self.uniforms).to(device) * cumulative[:, -1]
        # the first id whose cumulative weight exceeds the target is a legal one (the sum
        # only grows at legal ids); rounding past the last: the last legal id
        pick = (cumulative <= target[:, None]).sum(dim=-1)
        last = NUM_ACTIONS - 1 - torch.argmax(mask.flip(-1).to(torch.int8), dim=-1)
        pick = torch.minimum(pick, last)
        only = torch.from_numpy(counts == 1).to(device)
        logp = torch.where(only, torch.zeros_like(target),
                           logp_all.gather(1, pick[:, None]).squeeze(1))
        return (pick.cpu().numpy().astype(np.int64), logp.cpu().numpy(),
                value.double().cpu().numpy())

    def state(self) -> np.ndarray:
        """The generators' words (a checkpoint keeps them)."""
        return self.rngs.copy()

    def restore(self, rngs: np.ndarray) -> None:
        self.rngs[...] = rngs
