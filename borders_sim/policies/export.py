"""A torch module of your own as a policy file the library seats (``--bots ppo@FILE``,
``evaluate``, a pool): :func:`export_policy`.

A policy file holds one shape of network (:mod:`.network`): the observation times per-feature
input scales, then ``Linear(OBS_SIZE, H0)``, ``tanh``, ``Linear(H0, H1)``, ``tanh``,
``Linear(H1, NUM_ACTIONS)`` (one logit per action id; illegal ids are never considered). So a
module exports when it is that stack, given as ``torch.nn.Sequential(Linear, Tanh, Linear,
Tanh, Linear)`` (or any module whose ``children()`` are those five, in order); anything else
is refused naming what differs, never saved as another policy. ``inputs`` says what your
module was trained on: ``"scaled"`` (:class:`~borders_sim.envs.TrainingEnv`'s default, the
observations divided by :func:`~borders_sim.rules.observation.observation_scales`) or
``"raw"``.

>>> import torch
>>> from borders_sim.envs import OBS_SIZE, NUM_ACTIONS
>>> net = torch.nn.Sequential(torch.nn.Linear(OBS_SIZE, 64), torch.nn.Tanh(),
...                           torch.nn.Linear(64, 64), torch.nn.Tanh(),
...                           torch.nn.Linear(64, NUM_ACTIONS))
>>> policy = policy_from_module(net)                    # export_policy(net, "mine.npz") saves it
>>> policy.hidden, policy.meta["algorithm"]["name"]
((64, 64), 'exported')

Torch is imported only by the module you hand in: this module needs none itself.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from ..rules.actions import NUM_ACTIONS
from ..rules.observation import OBS_SIZE, observation_scales
from .network import MAX_HIDDEN, Policy, save_policy

#: What a module's inputs were: the env's scaled observations, or the raw ones.
INPUTS = ("scaled", "raw")
#: The layers a policy file holds, in order, by torch class name.
LAYERS = ("Linear", "Tanh", "Linear", "Tanh", "Linear")


def _kind(layer: Any) -> str:
    """A layer's kind by torch class name: ``"Linear"`` for ``nn.Linear`` and its subclasses
    (:class:`~borders_sim.train.layers.SparseLinear`, ``PhaseHead``), else its class's name."""
    names = [cls.__name__ for cls in type(layer).__mro__]
    return "Linear" if "Linear" in names else names[0]


def _array(tensor: Any) -> np.ndarray:
    """A torch tensor (or an array) as float32 numpy."""
    if hasattr(tensor, "detach"):
        tensor = tensor.detach().cpu().numpy()
    return np.asarray(tensor, dtype=np.float32)


def policy_from_module(module: Any, inputs: str = "scaled",
                       meta: dict[str, Any] | None = None) -> Policy:
    """The :class:`~.network.Policy` that plays as ``module`` does (module docstring).

    Args:
        module: a ``torch.nn.Module`` whose children are ``Linear(OBS_SIZE, H0)``, ``Tanh``,
            ``Linear(H0, H1)``, ``Tanh``, ``Linear(H1, NUM_ACTIONS)`` (a layer without bias
            counts as a bias of 0).
        inputs: ``"scaled"`` (the module read ``TrainingEnv``'s default observations) or
            ``"raw"`` (``scale_obs=False``).
        meta: more of the file's record (how it was trained), kept beside ``algorithm``
            (``{"name": "exported"}`` unless ``meta`` names one) and ``hidden``.

    Raises:
        ValueError: the module is not that stack (the message says what differs: a layer's
            kind, a size, a hidden layer over :data:`~.network.MAX_HIDDEN`), weights that are
            not finite, or ``inputs`` neither of :data:`INPUTS`.
    """
    if inputs not in INPUTS:
        raise ValueError(f"inputs must be one of {INPUTS}, got {inputs!r}")
    children = list(module.children()) if hasattr(module, "children") else []
    kinds = tuple(_kind(layer) for layer in children)
    if kinds != LAYERS:
        raise ValueError(f"a policy file holds Linear, Tanh, Linear, Tanh, Linear (in that "
                         f"order); this module's layers are {', '.join(kinds) or 'none'}")
    first, second, head = children[0], children[2], children[4]
    w0, w1, wp = (_array(layer.weight) for layer in (first, second, head))
    h0, h1 = w0.shape[0], w1.shape[0]
    wanted = {"the first Linear": ((h0, OBS_SIZE), w0.shape),
              "the second Linear": ((h1, h0), w1.shape),
              "the last Linear": ((NUM_ACTIONS, h1), wp.shape)}
    for name, (shape, got) in wanted.items():
        if got != shape:
            raise ValueError(f"{name} must be Linear({shape[1]}, {shape[0]}) here (inputs "
                             f"OBS_SIZE = {OBS_SIZE}, NUM_ACTIONS = {NUM_ACTIONS} logits), got "
                             f"Linear({got[1]}, {got[0]})")
    if max(h0, h1) > MAX_HIDDEN:
        raise ValueError(f"a policy file holds hidden layers of at most {MAX_HIDDEN} units, "
                         f"this module has {h0} and {h1}")

    def bias(layer: Any, size: int) -> np.ndarray:
        return np.zeros(size, np.float32) if layer.bias is None else _array(layer.bias)

    scale = 1.0 / observation_scales() if inputs == "scaled" else np.ones(OBS_SIZE)
    record = {"algorithm": {"name": "exported", "settings": {}}, **(meta or {}),
              "exported_from": type(module).__name__, "inputs": inputs, "hidden": [h0, h1]}
    return Policy(inv_scale=scale, w0=w0.T, b0=bias(first, h0), w1=w1.T, b1=bias(second, h1),
                  wp=wp, bp=bias(head, NUM_ACTIONS), meta=record)


def export_policy(module: Any, path: str | os.PathLike, inputs: str = "scaled",
                  meta: dict[str, Any] | None = None) -> Path:
    """Write ``module`` as a policy file (:func:`policy_from_module`, then
    :func:`~.network.save_policy`); returns the path. Seat it as ``ppo@PATH``.

    Raises:
        ValueError: what :func:`policy_from_module` refuses; nothing is written then.
    """
    return save_policy(path, policy_from_module(module, inputs, meta))
