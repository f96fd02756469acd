"""A policy network: its arrays, its file, and its compiled forward pass and sampling.

The network reads a player's observation vector and legal mask only, like every bot:

* **input**: the observation times its documented inverse per-feature scales
  (:func:`~borders_sim.rules.observation.observation_scales`);
* **trunk**: two fully connected layers with ``tanh``;
* **policy head**: one logit per action id; illegal ids are never considered.

**Compiled, written once.** The forward pass (:func:`hidden_layer`, :func:`legal_logits`) and
the choice among the legal logits (:func:`choose`) are numba code over plain numpy arrays, and
every player of a network goes through them: the ``ppo`` bot (:mod:`borders_sim.agents.ppo_bot`), a
``ppo`` seat inside the whole-game kernels (tournaments on the compiled path, the training env's
opponents, the league's self-play snapshots) through :func:`net_act`, and the trainer's own acting
(:mod:`borders_sim.train.acting`), which adds the value head on the same trunk. Torch
(:mod:`borders_sim.train.model`) holds the same function for the update only. The first layer
skips the zero entries of the observation (about 160 of its 1870 are non-zero) and the policy
head computes the legal actions' logits only, so a decision costs a few microseconds.

**Temperature.** A network plays at a temperature ``T``: ``T = 0`` takes the legal action of
highest logit (the first on ties), ``T > 0`` draws from ``softmax(logits / T)`` over the legal
actions with the player's own generator; ``T = 1`` is the policy as trained
(:data:`SAMPLE_TEMPERATURE`, the default of the ``ppo`` bot: a bluffing game needs a mixed
policy, see :mod:`borders_sim.agents.ppo_bot`).

**The file** (:func:`save_policy`, :func:`load_policy`; :data:`FORMAT`) is an ``.npz`` of
float32 arrays, every matrix in torch's orientation (``[out, in]``, as ``nn.Linear.weight``):
``inv_scale`` [OBS_SIZE], ``w0`` [H0, OBS_SIZE], ``b0`` [H0], ``w1`` [H1, H0], ``b1`` [H1],
``wp`` [NUM_ACTIONS, H1] (one row per action), ``bp`` [NUM_ACTIONS] (``H0``, ``H1`` at most
:data:`MAX_HIDDEN`), plus ``format`` and ``meta`` (a JSON string: how it was trained; its
``hidden``, where present, is ``[H0, H1]``). A :class:`Policy` holds ``w0`` and ``w1`` as the
kernels read them, ``[in, out]`` (the first layer reads the row of each non-zero input).
:mod:`.export` writes one from a torch module of that shape. The package ships one,
:data:`SHIPPED_WEIGHTS`. Older files still load: a file of :data:`FORMAT_V1` (``w0``
[OBS_SIZE, H0] and ``w1`` [H0, H1], the kernels' orientation), and a file of the first
observation layout (``OBS_SIZE_V1`` inputs, before the behaviour ``rates`` block of
:mod:`borders_sim.rules.observation`) with weights of 0 for the inputs it never saw, so it
plays exactly as it was trained.

**Files read with bounds.** A policy file is read by :class:`~borders_sim.npzfile.NpzFile`, never by
``np.load``: every array's ``.npy`` header is checked against the layout the file must have
before any array data is inflated, and every problem is one ``ValueError`` naming the file
(:mod:`borders_sim.npzfile`). It is written atomically.

**Specs.** A network player is written ``ppo[:OPTION][@PATH]`` in lineups and pools
(:func:`parse_net_spec`): ``@PATH`` a policy file or ``borders-sim train`` output directory
(default: the shipped policy); ``OPTION`` ``argmax`` (temperature 0) or ``temp=T`` (default:
:data:`SAMPLE_TEMPERATURE`). ``ppo-zoo/NAME[:OPTION]`` plays a member of the zoo of reference
opponents (:mod:`.zoo`).
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
from ..checks import shown
from ..rules.observation import OBS_SIZE, OBS_SIZE_V1, observation_scales
from ..rules.rng import next_below
from ..npzfile import NpzFile, as_path, refusal, shown_path, write_npz
from .zoo import PREFIX as ZOO_PREFIX
from .zoo import is_zoo_spec, zoo_path

#: The policy file's format: every matrix ``[out, in]`` (module docstring).
FORMAT = "borders_sim.policy/2"
#: The first format, still read: ``w0`` and ``w1`` stored ``[in, out]``.
FORMAT_V1 = "borders_sim.policy/1"
#: The matrices a :data:`FORMAT` file stores transposed from a :class:`Policy`'s.
_TRANSPOSED = ("w0", "w1")
#: The policy the package ships (``make("ppo")``).
SHIPPED_WEIGHTS = Path(__file__).resolve().parent / "weights" / "ppo.npz"
#: The temperature a network plays at unless told otherwise: the policy as trained.
SAMPLE_TEMPERATURE = 1.0
#: The largest temperature a spec or a bot takes (beyond it the draw is uniform to float
#: rounding anyway).
MAX_TEMPERATURE = 1e3
#: The largest hidden layer a policy file holds (the limit of ``borders-sim train --hidden``).
MAX_HIDDEN = 4096
_ARRAYS = ("inv_scale", "w0", "b0", "w1", "b1", "wp", "bp")
_META_CHARS = 1 << 20  # the longest meta record read
#: The resolution of a draw: a uniform number is ``next_below(rng, UNIT) / UNIT``.
UNIT = 1 << 30


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
        for name, shape in policy_shapes(self.b0.shape[0], self.b1.shape[0]).items():
            got = getattr(self, name).shape
            if got != shape:
                raise ValueError(f"policy array {name!r} has shape {got}, expected {shape}")
            if not np.all(np.isfinite(getattr(self, name))):
                raise ValueError(f"policy array {name!r} holds NaN or infinite values")

    @property
    def hidden(self) -> tuple[int, int]:
        """The sizes of the two hidden layers."""
        return self.b0.shape[0], self.b1.shape[0]

    def __repr__(self) -> str:  # (the arrays are thousands of numbers)
        return f"Policy(hidden={self.hidden}, meta={self.meta!r})"


def policy_shapes(h0: int, h1: int, inputs: int = OBS_SIZE, file_format: str | None = None
                  ) -> dict[str, tuple[int, ...]]:
    """The shape of every array of a policy with hidden layers of ``h0`` and ``h1`` units (and
    ``inputs`` observation entries: a file of the first layout has :data:`OBS_SIZE_V1`), as a
    :class:`Policy` holds them, or with ``file_format`` as a file of that format stores them."""
    shapes = {"inv_scale": (inputs,), "w0": (inputs, h0), "b0": (h0,), "w1": (h0, h1),
              "b1": (h1,), "wp": (NUM_ACTIONS, h1), "bp": (NUM_ACTIONS,)}
    if file_format == FORMAT:
        shapes.update({name: shapes[name][::-1] for name in _TRANSPOSED})
    return shapes


def _with_rates(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The arrays of a policy file of the first observation layout (:data:`OBS_SIZE_V1`
    inputs, before the ``rates`` block) extended to today's: the new inputs get their scales
    and weights of 0, so the network computes exactly what it computed before."""
    if arrays["inv_scale"].shape[0] == OBS_SIZE:
        return arrays
    new = OBS_SIZE - OBS_SIZE_V1
    inv_scale = np.concatenate([arrays["inv_scale"], 1.0 / observation_scales()[OBS_SIZE_V1:]])
    w0 = np.concatenate([arrays["w0"], np.zeros((new, arrays["w0"].shape[1]), np.float32)])
    return {**arrays, "inv_scale": inv_scale, "w0": w0}


def as_temperature(value: Any, what: str = "temperature") -> float:
    """``value`` as a temperature (a number from 0 to :data:`MAX_TEMPERATURE`), else a
    ValueError naming ``what``."""
    try:
        t = float(value)
    except (TypeError, ValueError):
        t = math.nan
    if isinstance(value, bool) or not 0.0 <= t <= MAX_TEMPERATURE:
        raise ValueError(f"{what} must be a number from 0 to {MAX_TEMPERATURE:g}, got {value!r}")
    return t


def spec_head(spec: str) -> str:
    """The bot name a spec starts with, its options (``:...``) and file (``@...``) cut off;
    ``ppo`` for a zoo member ``ppo-zoo/NAME``, which the ``ppo`` bot plays."""
    return "ppo" if is_zoo_spec(spec) else spec.partition("@")[0].partition(":")[0]


def is_net_spec(spec: str) -> bool:
    """Whether ``spec`` names a network player (``ppo`` with any options and file, or a zoo
    member ``ppo-zoo/NAME``), valid or not (:func:`parse_net_spec` checks it)."""
    return isinstance(spec, str) and spec_head(spec) == "ppo"


def parse_net_spec(spec: str) -> tuple[str | None, float]:
    """The policy file (None: the shipped policy) and temperature of a network spec
    ``ppo[:argmax|:temp=T][@PATH]`` or ``ppo-zoo/NAME[:argmax|:temp=T]`` (module docstring).

    Raises:
        ValueError: not a network spec, an unknown option or zoo member, or a bad temperature.
    """
    head, at, path = spec.partition("@")
    name, colon, option = head.partition(":")
    if is_zoo_spec(name) and not at:
        path = str(zoo_path(name[len(ZOO_PREFIX):]))
    elif name != "ppo" or (at and not path):
        raise ValueError(f"a network player is ppo[:argmax|:temp=T][@PATH] or "
                         f"ppo-zoo/NAME[:argmax|:temp=T], got {spec!r}")
    temperature = SAMPLE_TEMPERATURE
    if colon:
        if option == "argmax":
            temperature = 0.0
        elif option.startswith("temp="):
            temperature = as_temperature(option[5:], f"the temperature of {spec!r}")
        else:
            raise ValueError(f"the ppo options are 'argmax' and 'temp=T', got {option!r} in "
                             f"{spec!r}")
    return (path or None), temperature


@dataclass(frozen=True)
class NetPlayer:
    """A policy network as a compiled player of a batch (a training env's opponent, a
    tournament's ``ppo`` seat): ``policy`` at ``temperature`` (module docstring), named
    ``name`` in logs and tables."""

    name: str
    policy: Policy
    temperature: float = SAMPLE_TEMPERATURE


def net_player(spec: str) -> NetPlayer:
    """The :class:`NetPlayer` of a network spec (:func:`parse_net_spec`), playing as the
    ``ppo`` bot of that spec does."""
    path, temperature = parse_net_spec(spec)
    return NetPlayer(spec, load_policy(path) if path else shipped_policy(), temperature)


def shipped_policy() -> Policy:
    """The shipped policy (:data:`SHIPPED_WEIGHTS`)."""
    if not SHIPPED_WEIGHTS.exists():
        raise ValueError(f"the shipped ppo policy {SHIPPED_WEIGHTS} is missing from this install")
    return load_policy(SHIPPED_WEIGHTS)


def save_policy(path: str | os.PathLike, policy: Policy, dtype: Any = np.float32) -> Path:
    """Write ``policy`` as a policy file (module docstring), atomically; returns the path.
    ``dtype``: how the arrays are stored, float32, or float16 for a file half the size (the
    zoo's; read back as float32).

    Raises:
        ValueError: a hidden layer larger than :data:`MAX_HIDDEN` (no reader would load it), or
            a ``dtype`` other than those two.
    """
    if max(policy.hidden) > MAX_HIDDEN:
        raise ValueError(f"a policy file holds hidden layers of at most {MAX_HIDDEN} units, "
                         f"this policy has {policy.hidden}")
    if np.dtype(dtype) not in (np.float32, np.float16):
        raise ValueError(f"a policy file stores float32 or float16 arrays, not {np.dtype(dtype)}")
    arrays = {name: getattr(policy, name).astype(dtype) for name in _ARRAYS}
    arrays.update({name: np.ascontiguousarray(arrays[name].T) for name in _TRANSPOSED})
    return write_npz(path, format=np.array(FORMAT), meta=np.array(json.dumps(policy.meta)),
                     **arrays)


def load_policy(path: str | os.PathLike) -> Policy:
    """Read a policy file, or the ``policy.npz`` of a directory (a ``borders-sim train``
    output), with bounds (module docstring).

    Raises:
        ValueError: not a policy file, or a damaged one (the message names the file and the
            problem; a PyTorch checkpoint gets the policy files of its run named).
    """
    with _policy_file(path) as npz:
        meta = _policy_meta(npz)
        file_format = _check_layout(npz, meta)
        arrays = {name: npz.array(name) for name in _ARRAYS}
        if file_format == FORMAT:
            arrays.update({name: arrays[name].T for name in _TRANSPOSED})
        arrays = _with_rates(arrays)
        try:
            return Policy(meta=meta, **arrays)
        except ValueError as err:  # NaN or infinite weights
            raise npz.refuse(str(err)) from None


def trained_algorithm(meta: dict[str, Any]) -> dict[str, Any]:
    """The update rule a policy file's ``meta`` says trained it, ``{"name": ..., "settings":
    {...}}`` (``borders-sim train --algorithm``); a file of a trainer that did not record it
    was trained by PPO (``{"name": "ppo", "settings": {}}``)."""
    found = meta.get("algorithm")
    if isinstance(found, dict) and isinstance(found.get("name"), str):
        return {"name": found["name"], "settings": dict(found.get("settings") or {})}
    return {"name": "ppo", "settings": {}}


def trained_by(spec: str) -> str | None:
    """The algorithm that trained the policy file of the network spec ``spec``
    (``ppo@PATH``: :func:`trained_algorithm`), or None for another spec or a file that cannot
    be read (its use then says why)."""
    if not is_net_spec(spec):
        return None
    try:
        path, _ = parse_net_spec(spec)
        return None if path is None else trained_algorithm(policy_meta(path))["name"]
    except (ValueError, OSError):
        return None


def policy_meta(path: str | os.PathLike) -> dict[str, Any]:
    """The ``meta`` record of a policy file (how it was trained); the file's arrays are checked
    against the layout (:func:`load_policy`'s errors) but not read."""
    with _policy_file(path) as npz:
        meta = _policy_meta(npz)
        _check_layout(npz, meta)
        return meta


def _policy_file(path: str | os.PathLike) -> NpzFile:
    """``path`` opened as a policy file: a directory's ``policy.npz``; a PyTorch checkpoint
    refused with the policy files of its run named."""
    path = as_path(path, "the policy file")
    if os.path.isdir(path):
        if not os.path.lexists(path / "policy.npz"):
            raise refusal("policy file", path, "it is a directory without a policy.npz (a "
                                               "borders-sim train output directory holds one)")
        path = path / "policy.npz"
    if path.suffix in (".pt", ".pth"):
        raise refusal("policy file", path, _checkpoint_hint(path))
    return NpzFile(path, "policy file")


def _format(npz: NpzFile) -> str | None:
    """The policy file's format (:data:`FORMAT` or :data:`FORMAT_V1`), or None."""
    if "format" not in npz.names:
        return None
    found = npz.text("format", len(FORMAT))
    return found if found in (FORMAT, FORMAT_V1) else None


def _policy_meta(npz: NpzFile) -> dict[str, Any]:
    """The format of a policy file, checked, and its meta record."""
    if _format(npz) is None:
        if any(m == "data.pkl" or m.endswith("/data.pkl") for m in npz.members):
            raise npz.refuse(_checkpoint_hint(npz.path))
        raise npz.refuse(f"not a {FORMAT} (or {FORMAT_V1}) file")
    if "meta" not in npz.names:
        raise npz.refuse("it has no meta record")
    return npz.json("meta", _META_CHARS)


def _check_layout(npz: NpzFile, meta: dict[str, Any]) -> str:
    """Every array of a policy file present, of a float dtype and of the shape the hidden sizes
    (those of ``b0`` and ``b1``, and of ``meta`` where it says) give in its format: checked on
    the headers, before any data is read. Returns the format."""
    missing = [name for name in _ARRAYS if name not in npz.names]
    if missing:
        raise npz.refuse(f"missing arrays {missing}")
    hidden = [_hidden_size(npz, "b0"), _hidden_size(npz, "b1")]
    if meta.get("hidden", hidden) != hidden:
        raise npz.refuse(f"its meta says hidden sizes {shown(meta['hidden'])}, its arrays "
                         f"{hidden}")
    inputs = OBS_SIZE_V1 if npz.header("inv_scale").shape == (OBS_SIZE_V1,) else OBS_SIZE
    file_format = _format(npz)
    for name, shape in policy_shapes(*hidden, inputs, file_format).items():
        header = npz.header(name)
        if header.dtype.kind != "f" or header.dtype.itemsize > 8:
            raise npz.refuse(f"array {name!r} is {header.dtype}, not float32")
        if header.shape != shape:
            raise npz.refuse(f"policy array {name!r} has shape {header.shape}, expected {shape} "
                             f"(a {file_format} file)")
    return file_format


def _hidden_size(npz: NpzFile, name: str) -> int:
    shape = npz.header(name).shape
    if len(shape) != 1 or not 1 <= shape[0] <= MAX_HIDDEN:
        raise npz.refuse(f"policy array {name!r} has shape {shape}, expected a hidden layer "
                         f"of 1 to {MAX_HIDDEN} units")
    return shape[0]


def _checkpoint_hint(path: Path) -> str:
    """Why a PyTorch checkpoint is no policy file, and the policy files of its run that
    exist (a ``borders-sim train`` run writes ``policy.npz`` and ``latest.npz`` in its
    directory and ``update-NNNNNN.npz`` beside each ``checkpoints/update-NNNNNN.pt``)."""
    run = path.parent.parent if path.parent.name == "checkpoints" else path.parent
    found = [shown_path(p) for p in (path.with_suffix(".npz"), run / "policy.npz",
                                     run / "latest.npz") if os.path.isfile(p)]
    where = (" or ".join(found) if found else "the run's policy.npz or latest.npz, or the "
             "update-NNNNNN.npz beside each checkpoints/update-NNNNNN.pt")
    return (f"it is a PyTorch training checkpoint, not a policy file; name a policy file "
            f"instead: {where}")


# --- stacks of networks for the kernels --------------------------------------------------------
class NetStack(NamedTuple):
    """``K`` networks of one shape, stacked along a first axis, and each one's temperature
    (module docstring): what the compiled players receive (:func:`net_act`)."""

    inv_scale: np.ndarray  # float32[K, OBS_SIZE]
    w0: np.ndarray  # float32[K, OBS_SIZE, H0]
    b0: np.ndarray  # float32[K, H0]
    w1: np.ndarray  # float32[K, H0, H1]
    b1: np.ndarray  # float32[K, H1]
    wp: np.ndarray  # float32[K, NUM_ACTIONS, H1]
    bp: np.ndarray  # float32[K, NUM_ACTIONS]
    temp: np.ndarray  # float64[K]


def stack_nets(policies: list[Policy], temps: list[float] | None = None) -> NetStack:
    """The :class:`NetStack` of ``policies`` (all with the same hidden sizes), each at its
    temperature of ``temps`` (default: 0, the most likely legal action)."""
    if not policies:
        return NO_NETS
    shapes = {p.hidden for p in policies}
    if len(shapes) != 1:
        raise ValueError(f"networks of one compiled batch must have the same hidden sizes, got "
                         f"{sorted(shapes)}")
    temps = [0.0] * len(policies) if temps is None else list(temps)
    if len(temps) != len(policies):
        raise ValueError(f"one temperature per network, got {temps!r}")
    temps = [as_temperature(t) for t in temps]
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


# --- the compiled forward pass and choice -------------------------------------------------------
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


@njit(inline="always")
def legal_logits(nets, j, h1, mask, ids, logits):
    """The logits of network ``j``'s policy head on trunk output ``h1`` for the legal ids of
    ``mask`` (uint8, 1 = legal), in id order: ``ids[:k]`` the ids, ``logits[:k]`` theirs
    (float64; both at least as long as the legal count). Returns ``k``."""
    wp = nets.wp[j]
    bp = nets.bp[j]
    k = 0
    for a in range(NUM_ACTIONS):
        if mask[a] != 0 and k < ids.shape[0]:
            z = np.float64(bp[a])
            row = wp[a]
            for v in range(np.uint64(h1.shape[0])):
                z += row[v] * h1[v]
            ids[k] = a
            logits[k] = z
            k += 1
    return k


@njit(inline="always")
def choose(logits, k, temp, rng, weights):
    """The choice among ``logits[:k]`` (``k >= 1``) at temperature ``temp``: the index of the
    highest (the first on ties) at 0, else a draw from ``softmax(logits[:k] / temp)`` with
    ``rng`` (``weights``: scratch, at least ``k`` long); and the chosen index's
    log-probability under the distribution drawn from (0 for the highest at temperature 0 or
    a single choice). No draw is taken when there is nothing to draw."""
    best = 0
    for i in range(1, k):
        if logits[i] > logits[best]:
            best = i
    if temp == 0 or k == 1:
        return best, 0.0
    top = logits[best]
    total = 0.0
    for i in range(k):
        w = math.exp((logits[i] - top) / temp)
        weights[i] = w
        total += w
    u = next_below(rng, UNIT) / UNIT * total
    pick = k - 1
    for i in range(k - 1):
        u -= weights[i]
        if u < 0:
            pick = i
            break
    return pick, (logits[pick] - top) / temp - math.log(total)


@kernel
def net_act(nets, j, obs, mask, count, rng):
    """The action of network ``j`` of ``nets`` (a :class:`NetStack`) for ``obs`` and ``mask``
    (uint8, 1 = legal, ``count >= 1`` legal ids), at the network's temperature, drawing from
    ``rng`` (module docstring)."""
    ids = np.empty(count, dtype=np.int64)
    logits = np.empty(count, dtype=np.float64)
    k = legal_logits(nets, j, hidden_layer(nets, j, obs), mask, ids, logits)
    pick, _ = choose(logits, k, nets.temp[j], rng, np.empty(k, dtype=np.float64))
    return ids[pick]


@kernel
def net_logits(nets, j, obs, out):
    """All ``NUM_ACTIONS`` logits of network ``j`` for ``obs`` into ``out`` (float64), for
    tests and analysis (the players compute the legal ones only)."""
    h1 = hidden_layer(nets, j, obs)
    for a in range(NUM_ACTIONS):
        z = np.float64(nets.bp[j][a])
        for v in range(np.uint64(h1.shape[0])):
            z += nets.wp[j][a, v] * h1[v]
        out[a] = z
    return out
