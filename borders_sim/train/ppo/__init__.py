"""Masked PPO: the clipped update, the trainer's default algorithm (``--algorithm ppo``).

:class:`PPO` is an update rule of a :class:`~borders_sim.train.learner.Learner` behind the
interface :class:`~borders_sim.train.algorithm.Algorithm` (update from a rollout, checkpoint
state, reset), made by the factory signature ``PPO(model, settings, config, seed)`` with its
settings :class:`PPOSettings`, declared here beside it as A2C's are in :mod:`~borders_sim.train.
a2c`; :func:`ppo_update` is its step, a pure function of the network, the optimizer, the
rollout and the settings (:mod:`.clipped`). It is written against the public API another rule
uses too: :func:`~borders_sim.train.rollout.advantages` and :meth:`~borders_sim.train.minibatch.
Batch.forward` (:mod:`~borders_sim.train.a2c` is the short example).

The algorithm is PPO with clipping (Schulman et al., 2017) as CleanRL writes it, with the legal
mask applied to the logits (illegal actions get :data:`~borders_sim.train.model.MASKED_LOGIT`,
so they have probability 0 and no gradient), over the learner's rollout (GAE advantages per
game slot).

**Anchor.** With ``settings.anchor_coef > 0`` and an ``anchor`` network (the policy the run
started from: the behaviour-cloned teacher, or ``--init``), the loss adds
``anchor_coef * KL(pi || pi_anchor)`` over the legal actions of each decision, so the policy
improves on its starting point without forgetting it (the KL regulariser toward a supervised
policy of AlphaStar, Vinyals et al., 2019).

Numerical safety: advantages are normalised once over the whole batch, never over a minibatch
(a minibatch of one sample has no spread), with ``1e-8`` under the square root; a row with no
legal action keeps finite logits; an update whose loss is not finite is skipped (and counted)
instead of writing NaN into every weight.

Importing this package imports no torch (the command line reads :class:`PPOSettings` to build
its options); :class:`PPO`, :func:`ppo_update` and :class:`UpdateStats` import it on first use.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import Any

from ...settings import check_settings, declared, flag_of, setting


@dataclass
class PPOSettings:
    """PPO's settings (CleanRL's names and defaults where they apply; each field's help says
    what it does, ``borders-sim train --help`` lists them as flags). ``anchor_coef`` and
    ``anchor_every`` are the anchor (module docstring) and the magnet schedule of
    :mod:`borders_sim.train.trainer`."""

    gamma: float = setting(0.999, lo=0.0, hi=1.0, metavar="G", help="the discount")
    gae_lambda: float = setting(0.95, lo=0.0, hi=1.0, metavar="L",
                                help="GAE's lambda (1: Monte-Carlo returns minus the value)")
    epochs: int = setting(2, lo=1, hi=100, metavar="K", help="passes over each rollout")
    minibatches: int = setting(4, lo=1, hi=4096, metavar="B", help="minibatches per pass")
    clip: float = setting(0.2, lo=0.0, above=True, hi=1.0, metavar="C",
                          help="PPO's clip of the probability ratio, 1 +- C")
    value_coef: float = setting(0.5, lo=0.0, hi=1000.0, metavar="C",
                                help="weight of the value loss")
    entropy_coef: float = setting(0.01, lo=0.0, hi=1000.0, metavar="C",
                                  help="weight of the entropy bonus")
    max_grad_norm: float = setting(0.5, lo=0.0, above=True, hi=1e6, metavar="N",
                                   help="the gradient's norm is clipped to this")
    anchor_coef: float = setting(
        0.0, lo=0.0, hi=1000.0, flag="--anchor", metavar="C",
        help="weight of a KL penalty toward the policy the run starts from (the imitated bot "
             "or --init; 0: none), so the rule improves on it without forgetting it")
    anchor_every: int = setting(
        0, lo=0, hi=10**9, metavar="K",
        help="move the anchor to the current policy every K updates (a magnet, as in magnetic "
             "mirror descent; 0: the anchor stays where the run started)")

    def check(self) -> None:
        """Check every setting against its declaration (:func:`~borders_sim.settings.
        check_settings`)."""
        check_settings(self)


def rule_option(name: str) -> str | None:
    """The command-line option that sets an algorithm's setting ``name``: the option of PPO's
    setting of that name (it sets another algorithm's setting of the name too), or None (the
    setting is given by ``--algorithm-arg NAME=VALUE`` only)."""
    found = [f for f, _, _ in declared(PPOSettings) if f.name == name]
    return flag_of(found[0]) if found else None


#: The names that need torch, imported from :mod:`.clipped` on first use (borders_sim.train
#: exports PPO and PPOSettings: this package's names are documented there).
_WITH_TORCH = ("PPO", "UpdateStats", "ppo_update")


def __getattr__(name: str) -> Any:
    if name in _WITH_TORCH:  # torch's import takes seconds
        return getattr(import_module(".clipped", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
