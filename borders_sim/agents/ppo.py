"""``ppo``: the learned bot, a masked policy network trained with PPO (:mod:`borders_sim.train`).

The network reads a player's observation vector and legal mask only, like every bot:

* **input**: the observation divided by its documented per-feature scales
  (:func:`~borders_sim.rules.observation.observation_scales`);
* **trunk**: two fully connected layers with ``tanh``;
* **policy head**: one logit per action id; illegal ids are never considered.

By default the bot plays the legal action of highest logit (deterministic); ``sample=True``
draws from the softmax over the legal actions with the bot's own generator (seeded by
``make("ppo", seed)``), so it is reproducible for its seed too.

**Compiled.** Inference is a numba kernel over plain numpy arrays (:func:`net_act`), so the bot
needs no torch, and the same kernel plays ``ppo`` seats inside the whole-game kernels
(tournaments on the compiled path, the training env's opponents): both paths take the same
actions. The first layer skips the zero entries of the observation (about 150 of 1822 are
non-zero) and the policy head computes the legal actions' logits only, so a decision costs a
few microseconds.

**The file** (:func:`save_policy`, :func:`load_policy`) is an ``.npz`` of float32 arrays
``inv_scale`` [OBS_SIZE], ``w0`` [OBS_SIZE, H0], ``b0`` [H0], ``w1`` [H0, H1], ``b1`` [H1],
``wp`` [NUM_ACTIONS, H1] (one row per action), ``bp`` [NUM_ACTIONS], plus ``format`` and
``meta`` (a JSON string: how it was trained). The package ships one, :data:`SHIPPED_WEIGHTS`:
``make("ppo")`` plays it; ``make("ppo", weights=PATH)`` plays any policy file, or the
``policy.npz`` of a ``borders-sim train`` output directory.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from numba import njit

from .._compile.jit import kernel
from ..rules.actions import NUM_ACTIONS
from ..rules.args import as_bool
from ..rules.engine import MASK_SIZE
from ..rules.observation import OBS_SIZE
from ..rules.piles import next_below, seed_words

FORMAT = "borders_sim.policy/1"
#: The policy the package ships (``make("ppo")``).
SHIPPED_WEIGHTS = Path(__file__).resolve().parent / "weights" / "ppo.npz"
_ARRAYS = ("inv_scale", "w0", "b0", "w1", "b1", "wp", "bp")
_UNIT = 1 << 30


@dataclass
class Policy:
    """A policy network's arrays (float32, the layout of the module docstring) and ``meta``."""

    inv_scale: np.ndarray
    w0: np.ndarray
    b0: np.ndarray
    w1: np.ndarray
    b1: np.ndarray
    wp: np.ndarray
    bp: np.ndarray
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in _ARRAYS:
            setattr(self, name, np.ascontiguousarray(getattr(self, name), dtype=np.float32))
        h0, h1 = self.b0.shape[0], self.b1.shape[0]
        want = {"inv_scale": (OBS_SIZE,), "w0": (OBS_SIZE, h0), "b0": (h0,), "w1": (h0, h1),
                "b1": (h1,), "wp": (NUM_ACTIONS, h1), "bp": (NUM_ACTIONS,)}
        for name, shape in want.items():
            got = getattr(self, name).shape
            if got != shape:
                raise ValueError(f"policy array {name!r} has shape {got}, expected {shape}")
            if not np.all(np.isfinite(getattr(self, name))):
                raise ValueError(f"policy array {name!r} holds NaN or infinite values")

    @property
    def hidden(self) -> tuple[int, int]:
        """The sizes of the two hidden layers."""
        return self.b0.shape[0], self.b1.shape[0]


@dataclass(frozen=True)
class NetPlayer:
    """A policy network as a compiled player of a batch (a training env's opponent, a
    tournament's ``ppo`` seat): ``policy`` at ``temperature`` (0: its most likely legal action;
    1: a sample of the policy itself), named ``name`` in logs and tables."""

    name: str
    policy: Policy
    temperature: float = 0.0


def net_player(spec: str) -> NetPlayer:
    """The :class:`NetPlayer` of a bot spec ``"ppo"`` (the shipped policy) or ``"ppo@PATH"`` (a
    policy file or ``borders-sim train`` directory), deterministic like the ``ppo`` bot."""
    name, _, path = spec.partition("@")
    if name != "ppo":
        raise ValueError(f"a network player is 'ppo' or 'ppo@PATH', got {spec!r}")
    return NetPlayer(spec, load_policy(path) if path else shipped_policy())


def shipped_policy() -> Policy:
    """The shipped policy (:data:`SHIPPED_WEIGHTS`)."""
    if not SHIPPED_WEIGHTS.exists():
        raise ValueError(f"the shipped ppo policy {SHIPPED_WEIGHTS} is missing from this install")
    return load_policy(SHIPPED_WEIGHTS)


def save_policy(path: str | os.PathLike, policy: Policy) -> Path:
    """Write ``policy`` as a policy file (module docstring); returns the path."""
    path = Path(path)
    arrays = {name: getattr(policy, name) for name in _ARRAYS}
    part = path.with_name(path.name + ".part")
    with open(part, "wb") as f:  # (np.savez would add ".npz" to a name without it)
        np.savez_compressed(f, format=np.array(FORMAT), meta=np.array(json.dumps(policy.meta)),
                            **arrays)
    os.replace(part, path)
    return path


def load_policy(path: str | os.PathLike) -> Policy:
    """Read a policy file, or the ``policy.npz`` of a directory (a ``borders-sim train``
    output).

    Raises:
        ValueError: not a policy file (the message names the file and the problem).
    """
    path = Path(path)
    if path.is_dir():
        path = path / "policy.npz"
    try:
        with np.load(path, allow_pickle=False) as data:
            if "format" not in data or str(data["format"]) != FORMAT:
                raise ValueError(f"{path}: not a {FORMAT} file")
            missing = [name for name in _ARRAYS if name not in data]
            if missing:
                raise ValueError(f"{path}: missing arrays {missing}")
            arrays = {name: data[name] for name in _ARRAYS}
            meta = json.loads(str(data["meta"])) if "meta" in data else {}
    except (OSError, EOFError) as err:
        raise ValueError(f"cannot read the policy file {str(path)!r}: {err}") from None
    return Policy(meta=meta, **arrays)


# --- stacks of networks for the kernels --------------------------------------------------------
class NetStack(NamedTuple):
    """``K`` networks of one shape, stacked along a first axis, and each one's temperature
    (0: the highest legal logit; else a softmax sample at that temperature): what the compiled
    bots receive (:func:`net_act`)."""

    inv_scale: np.ndarray  # float32[K, OBS_SIZE]
    w0: np.ndarray  # float32[K, OBS_SIZE, H0]
    b0: np.ndarray  # float32[K, H0]
    w1: np.ndarray  # float32[K, H0, H1]
    b1: np.ndarray  # float32[K, H1]
    wp: np.ndarray  # float32[K, NUM_ACTIONS, H1]
    bp: np.ndarray  # float32[K, NUM_ACTIONS]
    temp: np.ndarray  # float64[K]


def stack_nets(policies: list[Policy], temps: list[float] | None = None) -> NetStack:
    """The :class:`NetStack` of ``policies`` (all with the same hidden sizes)."""
    if not policies:
        return NO_NETS
    shapes = {p.hidden for p in policies}
    if len(shapes) != 1:
        raise ValueError(f"networks of one compiled batch must have the same hidden sizes, got "
                         f"{sorted(shapes)}")
    temps = [0.0] * len(policies) if temps is None else list(temps)
    if len(temps) != len(policies) or any(not t >= 0 for t in temps):
        raise ValueError(f"one temperature >= 0 per network, got {temps!r}")
    return NetStack(*(np.ascontiguousarray(np.stack([getattr(p, name) for p in policies]))
                      for name in _ARRAYS), np.asarray(temps, dtype=np.float64))


def _blank_net() -> Policy:
    h = 1
    return Policy(np.zeros(OBS_SIZE), np.zeros((OBS_SIZE, h)), np.zeros(h), np.zeros((h, h)),
                  np.zeros(h), np.zeros((NUM_ACTIONS, h)), np.zeros(NUM_ACTIONS))


#: The stack passed where no network plays (one blank network: the kernels' argument types
#: stay the same).
NO_NETS = NetStack(*(np.ascontiguousarray(np.stack([getattr(_blank_net(), name)]))
                     for name in _ARRAYS), np.zeros(1, dtype=np.float64))


@njit(inline="always")
def hidden_layer(nets, j, obs):
    """The second hidden layer of network ``j`` for ``obs`` (float32[H1])."""
    w0 = nets.w0[j]
    inv = nets.inv_scale[j]
    h0 = nets.b0[j].copy()
    for i in range(np.uint64(obs.shape[0])):  # skip the zero entries (most of them)
        x = obs[i]
        if x != 0:
            x = x * inv[i]
            row = w0[i]
            for u in range(np.uint64(h0.shape[0])):
                h0[u] += x * row[u]
    w1 = nets.w1[j]
    h1 = nets.b1[j].copy()
    for u in range(np.uint64(h0.shape[0])):
        x = np.tanh(h0[u])
        row = w1[u]
        for v in range(np.uint64(h1.shape[0])):
            h1[v] += x * row[v]
    for v in range(np.uint64(h1.shape[0])):
        h1[v] = np.tanh(h1[v])
    return h1


@kernel
def net_act(nets, j, obs, mask, count, rng):
    """The action of network ``j`` of ``nets`` (a :class:`NetStack`) for ``obs`` and ``mask``
    (uint8, 1 = legal, ``count`` legal ids): the highest legal logit (the first on ties) at
    temperature 0, else a draw from the softmax over the legal logits with ``rng``."""
    h1 = hidden_layer(nets, j, obs)
    wp = nets.wp[j]
    bp = nets.bp[j]
    ids = np.empty(count, dtype=np.int64)
    logits = np.empty(count, dtype=np.float64)
    k = 0
    best = -1
    for a in range(NUM_ACTIONS):
        if mask[a] != 0 and k < count:
            z = bp[a]
            row = wp[a]
            for v in range(np.uint64(h1.shape[0])):
                z += row[v] * h1[v]
            ids[k] = a
            logits[k] = z
            if best < 0 or z > logits[best]:
                best = k
            k += 1
    temp = nets.temp[j]
    if temp == 0 or k == 1:
        return ids[best]
    total = 0.0
    for i in range(k):
        logits[i] = math.exp((logits[i] - logits[best]) / temp)
        total += logits[i]
    u = next_below(rng, _UNIT) / _UNIT * total
    for i in range(k - 1):
        u -= logits[i]
        if u < 0:
            return ids[i]
    return ids[k - 1]


@kernel
def net_logits(nets, j, obs, out):
    """All ``NUM_ACTIONS`` logits of network ``j`` for ``obs`` into ``out`` (float64), for
    tests and analysis (the bot computes the legal ones only)."""
    h1 = hidden_layer(nets, j, obs)
    for a in range(NUM_ACTIONS):
        z = nets.bp[j][a]
        for v in range(np.uint64(h1.shape[0])):
            z += nets.wp[j][a, v] * h1[v]
        out[a] = z
    return out


class PPOBot:
    """The ``ppo`` bot (module docstring).

    Args:
        seed: seeds the bot's generator (used only with ``sample=True``).
        weights: a policy file or a ``borders-sim train`` output directory (default: the
            shipped policy, :data:`SHIPPED_WEIGHTS`).
        sample: draw from the policy instead of playing its most likely legal action.
    """

    name = "ppo"

    def __init__(self, seed: int = 0, weights: str | os.PathLike | None = None,
                 sample: bool = False) -> None:
        self.weights = str(SHIPPED_WEIGHTS if weights is None else weights)
        self.policy = shipped_policy() if weights is None else load_policy(weights)
        self.sample = as_bool(sample, "sample")
        self.nets = stack_nets([self.policy], [1.0 if self.sample else 0.0])
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
        return f"PPOBot(weights={self.weights!r}, sample={self.sample})"


def policy_meta(path: str | os.PathLike) -> dict[str, Any]:
    """The ``meta`` record of a policy file (how it was trained)."""
    return load_policy(path).meta
