"""Training learned agents: masked PPO (or another update rule) over the compiled training env,
against a league.

Needs PyTorch (the ``rl`` extra: ``pip install torch==2.13.0`` for a CPU build first, then
``pip install ".[rl]"`` in the source checkout); nothing else of borders_sim imports this
package, and importing it imports torch only when :func:`train` or :func:`evaluate` is first
used (without torch, that use raises a ModuleNotFoundError with the install line).

* :func:`train` / :class:`TrainConfig` (:mod:`.trainer`, :mod:`.config`): one run into an
  output directory (``policy.npz``, checkpoints, the learning curve); ``borders-sim train`` on
  the command line.
* :mod:`.league`: the pool of opponents and how often each is met.
* The update rule, pluggable (:mod:`.algorithm`: :class:`Algorithm`, the factory signature,
  the registry of names): :class:`PPO` (:mod:`.ppo`, the default) and :class:`A2C`
  (:mod:`.a2c`, the short example to copy), or the user's own as ``MODULE:FACTORY``. What a rule
  is given: the :class:`Rollout` and its :func:`advantages` (:mod:`.rollout`), and
  :class:`Batch` (:mod:`.minibatch`), whose :meth:`Batch.forward` is the network on a
  minibatch (log-probabilities of the taken actions, entropies, values, KL to the anchor)
  through the fast sparse first layer and phase-columns head.
* :mod:`.model`: the policy-value network for the update, and its export to a policy file
  (played without torch by the compiled network, :mod:`borders_sim.policies.network`).
* :mod:`.acting`: the learner's actions during a rollout, drawn by that compiled network.
* :mod:`.layers`: the update's two fast pieces as torch layers for a loop of your own
  (:class:`SparseLinear`, a first layer over an observation's non-zero entries;
  :class:`PhaseHead`, a policy head whose update reads each decision's phase's ids only), as
  ``examples/ppo_loop.py`` uses them.
"""

from typing import Any

from ..install_hints import needs
from importlib import import_module

from .algorithm import ALGORITHMS, Algorithm, Factory
from .config import TrainConfig
from .ppo import PPOSettings

#: The names that need torch, by the module holding each (imported on first use).
_WITH_TORCH = {"TrainResult": "trainer", "evaluate": "trainer", "train": "trainer",
               "Rollout": "rollout", "advantages": "rollout", "normalized": "rollout",
               "Batch": "minibatch", "Forward": "minibatch", "PPO": "ppo", "A2C": "a2c",
               "A2CSettings": "a2c", "PolicyValueNet": "model", "PhaseColumns": "layers",
               "PhaseHead": "layers", "SparseLinear": "layers", "sparse_obs": "layers"}

__all__ = ["A2C", "A2CSettings", "ALGORITHMS", "Algorithm", "Batch", "Factory", "Forward", "PPO",
           "PPOSettings", "PhaseColumns", "PhaseHead", "PolicyValueNet", "Rollout",
           "SparseLinear", "TrainConfig", "TrainResult", "advantages", "evaluate", "normalized",
           "sparse_obs", "train"]


def __getattr__(name: str) -> Any:
    if name in _WITH_TORCH:  # torch's import takes seconds
        try:
            return getattr(import_module(f".{_WITH_TORCH[name]}", __name__), name)
        except ModuleNotFoundError as err:  # PyTorch is not installed
            if err.name != "torch":
                raise
            raise ModuleNotFoundError(needs(f"borders_sim.train.{name}", "rl", "PyTorch",
                                            alone=()), name="torch") from err
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
