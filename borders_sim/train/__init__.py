"""Training learned agents: masked PPO over the compiled training env, against a league.

Needs PyTorch (the ``rl`` extra: ``pip install torch==2.13.0`` for a CPU build first, then
``pip install ".[rl]"`` in the source checkout); nothing else of borders_sim imports this
package, and importing it imports torch only when :func:`train` or :func:`evaluate` is first
used (without torch, that use raises a ModuleNotFoundError with the install line).

* :func:`train` / :class:`TrainConfig` (:mod:`.trainer`, :mod:`.config`): one run into an
  output directory (``policy.npz``, checkpoints, the learning curve); ``borders-sim train`` on
  the command line.
* :mod:`.league`: the pool of opponents and how often each is met.
* :mod:`.ppo`: the rollout storage, GAE and the clipped update (:class:`~.ppo.PPO`), the
  update rule of :mod:`.learner` behind the interface of :mod:`.algorithm`.
* :mod:`.model`: the policy-value network for the update, and its export to a policy file
  (played without torch by the compiled network, :mod:`borders_sim.policies.network`).
* :mod:`.acting`: the learner's actions during a rollout, drawn by that compiled network.
"""

from typing import Any

from ..rules.extras import needs
from .config import PPOSettings, TrainConfig

__all__ = ["PPOSettings", "TrainConfig", "TrainResult", "evaluate", "train"]


def __getattr__(name: str) -> Any:
    if name in ("TrainResult", "evaluate", "train"):  # torch's import takes seconds
        try:
            from . import trainer
        except ModuleNotFoundError as err:  # PyTorch is not installed
            if err.name != "torch":
                raise
            raise ModuleNotFoundError(needs(f"borders_sim.train.{name}", "rl", "PyTorch",
                                            alone=()), name="torch") from err
        return getattr(trainer, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
