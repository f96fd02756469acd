"""The settings of a training run, without torch (the command line reads their defaults)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..agents.network import Policy
from .league import LEAGUE_BOTS, League


@dataclass
class PPOSettings:
    """The update's settings (CleanRL's names and defaults where they apply); ``anchor_coef``:
    the weight of the KL penalty toward the anchor, the policy the run started from (0: none;
    see :mod:`borders_sim.train.ppo`); ``anchor_every``: move the anchor to the current policy
    every that many updates (0: never; the magnet schedule of :mod:`borders_sim.train.trainer`)."""

    gamma: float = 0.999
    gae_lambda: float = 0.95
    epochs: int = 2
    minibatches: int = 4
    clip: float = 0.2
    value_coef: float = 0.5
    entropy_coef: float = 0.01
    max_grad_norm: float = 0.5
    anchor_coef: float = 0.0
    anchor_every: int = 0

@dataclass
class TrainConfig:
    """One experiment; the defaults are the recipe of the shipped policy (README).

    * ``players``: the player count of every game; ``opponents``: the pool (compiled bot names,
      ``ppo``, ``ppo@PATH``, ``league``: see :meth:`league`).
    * ``minutes``: the run's wall-clock budget; ``max_updates``: a cap on the updates, and the
      horizon over which ``anneal_lr`` lowers the learning rate linearly to 5% (without it the
      rate stays at ``lr``: a schedule by the clock would make two runs of one seed differ).
    * ``num_envs`` games side by side, ``steps`` learner decisions of each per update, so an
      update learns from ``num_envs * steps`` decisions; ``hidden``: the two hidden layers.
    * ``reward``: the terminal reward (``win``, ``score``, ``margin``); ``dense``: spread it over
      the learner's decisions by potential-based shaping (same sum, same best policy).
    * ``mixed``: the chance that a game draws a member per opponent seat (a mixed table, where
      the learner must tell its opponents apart by their history) instead of one for all.
    * ``snapshots`` self-play slots of ``league``, refreshed every ``snapshot_every`` updates.
    * ``exploiter_every``: with K > 0, a main exploiter trains beside the run against copies of
      the current policy, and every K updates its policy joins the pool in one of
      ``exploiter_slots`` slots (the oldest) and it starts again (:mod:`.trainer`).
    * ``checkpoint_every``, ``eval_every`` updates (an evaluation plays ``eval_games`` games
      against 3 copies of each heuristic; 0: none).
    * ``imitate``: a compiled bot whose choices the network learns first (behaviour cloning
      on ``imitate_games`` games of demonstrations, ``imitate_epochs`` passes,
      :mod:`borders_sim.train.imitate`), or None; then PPO trains from there.
    * ``torch_threads``; ``device``: where the update runs (``"cpu"``, or ``"cuda"``: the
      network and its update on a GPU, the env and the acting network on the CPU);
      ``init``: a policy file to start from; ``ppo``: the update's settings
      (``ppo.anchor_coef > 0`` keeps the policy near where it started, the imitated teacher or
      ``init``, so it needs one of them).
    """

    players: int = 4
    opponents: tuple[str, ...] = ("league",)
    minutes: float = 30.0
    seed: int = 0
    max_updates: int | None = None
    num_envs: int = 128
    steps: int = 64
    hidden: tuple[int, int] = (256, 256)
    lr: float = 3e-4
    anneal_lr: bool = True
    reward: str = "win"
    dense: bool = True
    mixed: float = 0.0
    snapshots: int = 4
    snapshot_every: int = 25
    exploiter_every: int = 0
    exploiter_slots: int = 2
    checkpoint_every: int = 200
    eval_every: int = 100
    eval_games: int = 200
    torch_threads: int = 1
    device: str = "cpu"
    init: str | None = None
    imitate: str | None = None
    imitate_games: int = 1000
    imitate_epochs: int = 4
    ppo: PPOSettings = field(default_factory=PPOSettings)

    def league(self, initial: Policy) -> League:
        """The league of ``opponents`` (``league`` expands to the league bots plus self-play)."""
        bots, selfplay = [], 0
        for name in self.opponents:
            if name == "league":
                bots += [b for b in LEAGUE_BOTS if b not in bots]
                selfplay = self.snapshots
            elif name not in bots:
                bots.append(name)
        return League(tuple(bots), self.players, selfplay, self.snapshot_every, initial,
                      self.exploiter_slots if self.exploiter_every else 0)
