"""One learner and its games: what the trainer's main agent and its main exploiter each are
(:mod:`.trainer`).

A :class:`Learner` holds the policy-value network (:mod:`.model`), its update rule (an
:class:`~.algorithm.Algorithm`: :class:`~.ppo.PPO`, :class:`~.a2c.A2C` or the user's, with its
optimizer and generators), the compiled training env of its opponents
(:class:`~borders_sim.envs.training.TrainingEnv`), the rollout storage (:mod:`.rollout`) and
the actor that draws its actions (:mod:`.acting`: the compiled network, or on a GPU the
torch network batched there). With ``overlap``, :meth:`Learner.overlapped` learns from the
rollout collected before while a second thread collects the next one into a second storage:
the env and acting (numba's kernels, without the GIL) run beside the update (torch's), at the
price of one update of policy lag. :meth:`Learner.collect` plays one
rollout and :meth:`Learner.learn` makes one update from it; :meth:`Learner.state` and
:meth:`Learner.restore` are what a checkpoint keeps of it, so a resumed run continues exactly.
A state holds tensors and plain values only (numpy arrays become tensors, :func:`to_tensor`),
so torch's weights-only loader reads it back without running anything from the file.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Sequence
from typing import Any

import numba
import numpy as np
import torch

from ..policies.network import NetPlayer, Policy
from ..envs.training import TrainingEnv
from .acting import CompiledActor, DeviceActor
from .config import TrainConfig
from .model import PolicyValueNet
from .algorithm import Algorithm
from .rollout import Rollout

#: The tensors of a :class:`~.rollout.Rollout` (a checkpoint of an ``overlap`` run keeps them).
ROLLOUT_FIELDS = ("obs", "mask", "action", "logp", "value", "reward", "done")


def to_tensor(a: np.ndarray) -> torch.Tensor:
    """A copy of ``a`` as a tensor, of its dtype; a record array (a structured dtype, which
    torch has not) as its bytes (uint8). :func:`to_array` turns it back."""
    a = np.array(a, order="C")  # a copy (np.ascontiguousarray would make a 0-d array 1-d)
    if a.dtype.fields is not None:
        return torch.from_numpy(np.frombuffer(a.tobytes(), dtype=np.uint8).copy())
    return torch.from_numpy(a)


def to_array(t: torch.Tensor, like: np.ndarray, name: str) -> np.ndarray:
    """The array :func:`to_tensor` made ``t`` from; ``like`` is an array of the dtype and shape
    it must have.

    Raises:
        ValueError: ``t`` is not a tensor of that dtype and shape (``name`` in the message).
    """
    if not isinstance(t, torch.Tensor):
        raise ValueError(f"{name} is a {type(t).__name__}, not a tensor")
    a = t.cpu().numpy()
    if like.dtype.fields is not None:
        if a.dtype != np.uint8 or a.size != like.nbytes:
            raise ValueError(f"{name} holds {a.size} bytes of {a.dtype}, this run's "
                             f"{like.nbytes} bytes of records")
        return a.view(like.dtype).reshape(like.shape).copy()
    if a.dtype != like.dtype or a.shape != like.shape:
        raise ValueError(f"{name} is {a.dtype} of shape {a.shape}, this run's {like.dtype} of "
                         f"shape {like.shape}")
    return a


class Clock:
    """Seconds spent per part of an update (env, inference, update), for the curve."""

    def __init__(self) -> None:
        self.parts = {"env": 0.0, "inference": 0.0, "update": 0.0}

    def add(self, part: str, since: float) -> float:
        now = time.perf_counter()
        self.parts[part] += now - since
        return now


class Learner:
    """A learner of the network ``model`` (on its device) by the update rule ``algorithm``
    (made for ``model``) with ``config``'s rollout settings, playing against the pool
    ``opponents`` (drawn by ``weights``, see :class:`~borders_sim.envs.training.TrainingEnv`)
    in games dealt from ``seed`` (module docstring); ``overlap``: collect beside the update
    (:meth:`overlapped`)."""

    def __init__(self, config: TrainConfig, model: PolicyValueNet, algorithm: Algorithm,
                 opponents: Sequence[str | NetPlayer], weights: np.ndarray | None,
                 seed: int, overlap: bool = False) -> None:
        c = self.config = config
        self.model = model
        self.algorithm = algorithm
        self.env = TrainingEnv(c.num_envs, num_players=c.players, opponents=opponents,
                               weights=weights, mixed=c.mixed, deviator=c.deviator,
                               reward=c.reward, dense=c.dense, seed=seed,
                               autoreset_mode="same_step", scale_obs=False)  # (raw: the net
        # divides by the scales itself)
        self.rollout = Rollout(c.steps, c.num_envs)
        # acting where it is fastest: the compiled network on the CPU's threads, or with the
        # update on a GPU the same draw batched there (:mod:`.acting`)
        on_cpu = model.inv_scale.device.type == "cpu"
        self.actor = (CompiledActor if on_cpu else DeviceActor)(c.num_envs, seed)
        self.actor.load(self.model)
        self.learner_steps = 0
        self.clock = Clock()
        self.obs, self.infos = self.env.reset()
        #: with ``overlap``: the second rollout storage, and the observations and masks that
        #: follow the rollout collected but not yet learned from (None before the first)
        self.spare = Rollout(c.steps, c.num_envs) if overlap else None
        self.pending: tuple[np.ndarray, np.ndarray] | None = None

    def collect(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One rollout; returns the learner's win share in each finished game, and the same
        shares per member faced (``members``, ``shares``: a game counts once for each member at
        its table, so a mixed table is credited to each of its members)."""
        c, r, env = self.config, self.rollout, self.env
        games, members, shares = [], [], []
        t0 = time.perf_counter()
        for t in range(c.steps):
            mask = self.infos["action_mask"]
            action, logp, value = self.actor.act(self.obs, mask)
            r.put(t, self.obs, mask, torch.from_numpy(action), torch.from_numpy(logp),
                  torch.from_numpy(value))
            t0 = self.clock.add("inference", t0)
            self.obs, reward, done, _, self.infos = env.step(action)
            r.result(t, reward, done)
            for k in np.flatnonzero(done):
                seats, share = self.infos["ended_members"][k], self.infos["outcome"][k, 2]
                faced = np.unique(seats[seats >= 0])
                games.append(share)
                members.append(faced)
                shares.append(np.full(len(faced), share))
            t0 = self.clock.add("env", t0)
        self.learner_steps += c.steps * c.num_envs
        if not games:
            return np.zeros(0), np.zeros(0, dtype=np.int64), np.zeros(0)
        return np.array(games), np.concatenate(members), np.concatenate(shares)

    def learn(self, update: int, anchor: PolicyValueNet | None = None) -> Any:
        """One update of the algorithm from the last rollout (``update``: the updates made
        before it, for the learning-rate schedule; ``anchor``: the KL penalty's network, if
        any); returns the algorithm's figures (a dataclass). The actor plays the new weights
        from then on."""
        stats = self._update(self.rollout, self.obs, self.infos["action_mask"], update, anchor)
        self.actor.load(self.model)
        return stats

    def _update(self, rollout: Rollout, obs: np.ndarray, mask: np.ndarray, update: int,
                anchor: PolicyValueNet | None) -> Any:
        """The algorithm's update from ``rollout``, bootstrapped from the decisions ``obs``,
        ``mask`` that follow it."""
        t0 = time.perf_counter()
        device = self.model.inv_scale.device
        with torch.no_grad():
            _, last_value = self.model(torch.from_numpy(obs).to(device),
                                       torch.from_numpy(mask).to(device))
        stats = self.algorithm.update(rollout, last_value.cpu(), update, anchor)
        self.clock.add("update", t0)
        return stats

    def overlapped(self, update: int, anchor: PolicyValueNet | None = None
                   ) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], Any]:
        """With ``overlap``: one update from the rollout collected before (the first call
        collects one first) while another thread collects the next with the weights from
        before the update; returns :meth:`collect`'s figures of the rollouts collected in
        this call, and the update's. The actor plays the new weights from the next call on."""
        results = []
        if self.pending is None:
            results.append(self.collect())
            self.pending = (self.obs.copy(), self.infos["action_mask"].copy())
        learn_from, (obs, mask) = self.rollout, self.pending
        self.rollout, self.spare = self.spare, learn_from
        threads, out = numba.get_num_threads(), {}

        def collect() -> None:
            numba.set_num_threads(threads)  # numba's thread count is per thread
            try:
                out["result"] = self.collect()
            except BaseException as err:  # noqa: BLE001 - re-raised in the caller's thread
                out["error"] = err

        worker = threading.Thread(target=collect, name="borders_sim-collect")
        worker.start()
        try:
            stats = self._update(learn_from, obs, mask, update, anchor)
        finally:
            worker.join()
        if "error" in out:
            raise out["error"]
        results.append(out["result"])
        self.pending = (self.obs.copy(), self.infos["action_mask"].copy())
        self.actor.load(self.model)
        games, members, shares = (np.concatenate(parts) for parts in zip(*results))
        return (games, members, shares), stats

    def reset(self, start: PolicyValueNet) -> None:
        """Start learning anew from ``start``'s weights (value head included) with a fresh
        optimizer; the games in flight go on."""
        self.model.load_state_dict(start.state_dict())
        self.algorithm.reset()
        self.actor.load(self.model)

    def state(self) -> dict:
        """What a checkpoint keeps of the learner (with :meth:`restore`): tensors and plain
        values only (module docstring); the algorithm's under its own key; a network member's
        policy as its arrays and its ``meta`` as JSON text."""
        networks = {int(m): {**{name: to_tensor(value) for name, value in vars(p.policy).items()
                                if name != "meta"}, "meta": json.dumps(p.policy.meta)}
                    for m, p in self.env.network_members().items()}
        return {"model": self.model.state_dict(), "algorithm": self.algorithm.state(),
                "actor": to_tensor(self.actor.state()),
                "env": {name: to_tensor(a) for name, a in self.env.state_arrays().items()},
                "obs": to_tensor(self.obs), "learner_steps": self.learner_steps,
                "networks": networks, **self._pending_state()}

    def _pending_state(self) -> dict:
        """With ``overlap``, the rollout collected but not yet learned from and the decisions
        after it (a checkpoint then holds a second rollout)."""
        if self.pending is None:
            return {}
        r = self.rollout
        rollout = {name: getattr(r, name).clone() for name in ROLLOUT_FIELDS}
        return {"pending": {"rollout": rollout, "obs": to_tensor(self.pending[0]),
                            "mask": to_tensor(self.pending[1])}}

    def restore(self, state: dict) -> None:
        """Continue from :meth:`state` of a learner of the same settings (a checkpoint written
        before the algorithm had its own key holds PPO's state beside the others).

        Raises:
            ValueError: an array of another dtype or shape than this learner's (named); a
                malformed state raises what reading it raises (``KeyError``, ``TypeError``).
        """
        self.model.load_state_dict(state["model"])
        self.algorithm.restore(state["algorithm"] if "algorithm" in state else state)
        self.actor.restore(to_array(state["actor"], self.actor.state(), "actor"))
        self.actor.load(self.model)
        for m, saved in state["networks"].items():
            arrays = {name: t.numpy() for name, t in saved.items() if name != "meta"}
            self.env.replace_policy(int(m), Policy(meta=json.loads(saved["meta"]), **arrays))
        self.env.load_state_arrays({name: to_array(state["env"][name], like, f"env {name}")
                                    for name, like in self.env.state_arrays().items()})
        self.obs = to_array(state["obs"], self.obs, "obs")
        self.infos = self.env.pending_infos()
        self.learner_steps = int(state["learner_steps"])
        pending = state.get("pending")
        if (pending is not None) != (self.spare is not None and self.learner_steps > 0):
            # an overlapping learner's checkpoint after an update always holds one
            raise ValueError("the checkpoint's overlap of collection and update is not this "
                             "run's")
        if pending is not None:
            for name in ROLLOUT_FIELDS:
                getattr(self.rollout, name).copy_(pending["rollout"][name])
            self.pending = (to_array(pending["obs"], self.obs, "pending obs"),
                            to_array(pending["mask"], self.infos["action_mask"],
                                     "pending mask"))
