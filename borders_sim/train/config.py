"""The settings of a training run, without torch (the command line reads their defaults).

:meth:`TrainConfig.check` is every check of the settings, the run's memory against the
machine's included (:meth:`TrainConfig.memory_estimate`); :meth:`TrainConfig.shaping` names the
settings a resumed run must share with its checkpoint: all but :data:`RESUMABLE` (which only
change when the run stops, how often it writes and evaluates, and where its arithmetic runs)
and, without ``anneal_lr``, ``max_updates``.
"""

from __future__ import annotations

import math
import os
from dataclasses import asdict, dataclass, field
from typing import Any

from ..policies.network import MAX_HIDDEN, Policy, is_net_spec
from ..policies.dispatch import COMPILED_BOTS
from ..rules.actions import NUM_ACTIONS
from ..checks import as_bool, as_choice, as_float, as_int, as_mapping, as_seed, as_str
from ..rules.observation import OBS_SIZE
from ..rules.rewards import REWARD_MODES
from ..rules.state import STATE_DTYPE
from .algorithm import anchor_settings, settings_of
from .league import LEAGUE_BOTS, League
from .machine import default_num_envs, default_threads, default_torch_threads, max_threads

#: The longest budget of a run, in minutes (a week).
MAX_MINUTES = 7 * 24 * 60
#: The evaluations a run makes by default (``eval_every`` None): one after the update that
#: completes each ``1/DEFAULT_EVALUATIONS`` of the budget (:meth:`TrainConfig.evaluations_due`),
#: measured in the wall clock and the updates the run actually did, so on any machine.
DEFAULT_EVALUATIONS = 4
#: Evaluation games by default (:meth:`TrainConfig.evaluation_games`): ``EVAL_GAMES``, or
#: ``SHORT_EVAL_GAMES`` for a budget under ``SHORT_MINUTES`` (an evaluation of 200 games took
#: about a minute on 2 busy cores).
EVAL_GAMES, SHORT_EVAL_GAMES, SHORT_MINUTES = 200, 50, 10
#: The settings a resumed run may change (:meth:`TrainConfig.shaping`): the wall-clock budget,
#: how often it checkpoints and evaluates, and the threads and device of the update (the
#: numbers then follow the new device's arithmetic).
RESUMABLE = frozenset({"minutes", "checkpoint_every", "eval_every", "eval_games",
                       "threads", "torch_threads", "device"})
#: The command-line option of each setting whose option is not ``--NAME`` (``--sparse`` turns
#: ``dense`` off); the update's other settings and ``anneal_lr`` have none.
OPTIONS = {"dense": "--sparse", "ppo.anchor_coef": "--anchor",
           "ppo.anchor_every": "--anchor-every", "ppo.epochs": "--epochs",
           "ppo.minibatches": "--minibatches"}

#: Bytes of one decision in a rollout: its observation (float32), legal mask (bool), action
#: (int64), log-probability, value and reward (float32) and end flag.
DECISION_BYTES = OBS_SIZE * 4 + NUM_ACTIONS + 8 + 3 * 4 + 1
#: Bytes the update adds per decision: the observation as its non-zero entries (an int64 index
#: and a float32 value each; an 8-player game's observations have up to about 350), and the
#: advantages and returns.
UPDATE_BYTES = 384 * 12 + 4 * 4
#: Bytes per row of a minibatch: about a dozen float32 vectors of one entry per action id
#: (logits, log-probabilities, probabilities and their gradients); each hidden unit adds
#: :data:`HIDDEN_ROW_BYTES` (its activation and gradient, before and after ``tanh``).
MINIBATCH_ROW_BYTES = 12 * NUM_ACTIONS * 4
HIDDEN_ROW_BYTES = 4 * 4
#: Bytes of one game in flight in the training env: its state record, and its observation and
#: legal mask twice (pending and final).
GAME_BYTES = STATE_DTYPE.itemsize + 2 * (OBS_SIZE * 4 + NUM_ACTIONS)


def machine_memory() -> int | None:
    """The machine's physical memory in bytes (``os.sysconf``), or None where it cannot say."""
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, OSError, ValueError):  # no sysconf (Windows), or not these names
        return None
    return pages * size if pages > 0 and size > 0 else None


def option_of(name: str) -> str | None:
    """The command-line option of the setting ``name`` (as :meth:`TrainConfig.shaping` names
    it), or None for a setting only Python sets."""
    if name in OPTIONS:
        return OPTIONS[name]
    if name.startswith("ppo.") or name == "anneal_lr":
        return None
    return "--" + name.replace("_", "-")


def gib(n: float) -> str:
    """A byte count in GiB, as a message shows it."""
    x = n / 2**30
    return f"{x:,.0f} GiB" if x >= 100 else f"{x:.3g} GiB"


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

    def check(self) -> None:
        """Check every setting (:meth:`TrainConfig.check`)."""
        for name in ("gamma", "gae_lambda"):
            as_float(getattr(self, name), name, 0.0, 1.0)
        as_int(self.epochs, "epochs", 1)
        as_int(self.minibatches, "minibatches", 1)
        as_float(self.clip, "clip", above=0, finite=True)
        for name in ("value_coef", "entropy_coef", "anchor_coef"):
            as_float(getattr(self, name), name, 0.0, finite=True)
        as_float(self.max_grad_norm, "max_grad_norm", above=0, finite=True)
        as_int(self.anchor_every, "anchor_every", 0)


@dataclass
class TrainConfig:
    """One experiment. The defaults are one 30-minute run of seed 1 against the league (no
    imitation, anchor or exploiter): a sound start, not the shipped policy's recipe, which is
    a chain of runs, each from the last one's policy (docs/training.md, read from the shipped
    file).

    * ``players``: the player count of every game; ``opponents``: the pool (compiled bot names,
      ``ppo``, ``ppo@PATH``, ``league``: see :meth:`league`).
    * ``minutes``: the run's wall-clock budget; ``max_updates``: a cap on the updates, and the
      horizon over which ``anneal_lr`` lowers the learning rate linearly to 5% (without it the
      rate stays at ``lr``: a schedule by the clock would make two runs of one seed differ).
    * ``num_envs`` games side by side, ``steps`` learner decisions of each per update, so an
      update learns from ``num_envs * steps`` decisions; ``hidden``: the two hidden layers.
      ``num_envs`` None: from the device (:func:`~.machine.default_num_envs`: 128 on the CPU,
      1024 on a GPU), filled in when the config is made.
    * ``reward``: the terminal reward, a mode of :data:`~borders_sim.rules.rewards.REWARDS`;
      ``dense``: spread it over the learner's decisions by potential-based shaping (same sum,
      same best policy).
    * ``mixed``: the chance that a game draws a member per opponent seat (a mixed table, where
      the learner must tell its opponents apart by their history) instead of one for all;
      ``deviator``: the chance that a game, once a self-play snapshot exists, is a deviator
      table (one member drawn from the pool in one opponent seat, the newest snapshot in the
      others: the learner plays as one of the copies a deviator faces, the lineup of the
      exploitability test; :class:`~borders_sim.envs.training.TrainingEnv`).
    * ``snapshots`` self-play slots of ``league``, refreshed every ``snapshot_every`` updates.
    * ``exploiter_every``: with K > 0, a main exploiter trains beside the run against copies of
      the current policy, and every K updates its policy joins the pool in one of
      ``exploiter_slots`` slots (the oldest) and it starts again (:mod:`.trainer`).
    * ``checkpoint_every``, ``eval_every`` updates (an evaluation plays ``eval_games`` games
      against 3 copies of each heuristic; ``eval_every`` 0: none). Left None, both follow the
      budget: :data:`DEFAULT_EVALUATIONS` evaluations spread over it
      (:meth:`evaluations_due`), :meth:`evaluation_games`.
    * ``imitate``: a compiled bot whose choices the network learns first (behaviour cloning
      on ``imitate_games`` games of demonstrations, ``imitate_epochs`` passes,
      :mod:`borders_sim.train.imitate`), or None; then PPO trains from there.
    * ``overlap``: collect the next rollout in a second thread while the update runs (the
      env and acting beside torch; the update then learns from games played with the weights
      from one update before: :meth:`~.learner.Learner.overlapped`).
    * ``threads``: numba's threads for the env and acting; ``torch_threads``: torch's for the
      update; ``device``: where the update runs (``"cpu"``, or ``"cuda"``: the network and its
      update on a GPU, the env and the acting network on the CPU). ``threads`` and
      ``torch_threads`` None: from the cores and the device (:mod:`.machine`), filled in when
      the config is made. ``init``: a policy file to start from.
    * ``algorithm``: the update rule, a registered name (``ppo``, ``a2c``) or
      ``MODULE:FACTORY`` (:mod:`borders_sim.train.algorithm`); ``algorithm_args``: its
      settings by name, over its settings dataclass's defaults (text is typed by the field);
      ``exploiter_algorithm`` / ``exploiter_algorithm_args``: the main exploiter's, when it
      uses another (None: the main agent's rule and settings).
    * ``ppo``: PPO's settings (``algorithm_args`` of ``ppo`` are set over them;
      ``ppo.anchor_coef > 0`` keeps the policy near where it started, the imitated teacher or
      ``init``, so it needs one of them; any rule with an ``anchor_coef`` setting likewise).
    """

    players: int = 4
    opponents: tuple[str, ...] = ("league",)
    minutes: float = 30.0
    seed: int = 1
    max_updates: int | None = None
    num_envs: int | None = None
    steps: int = 64
    hidden: tuple[int, int] = (256, 256)
    lr: float = 3e-4
    anneal_lr: bool = True
    reward: str = "win"
    dense: bool = True
    mixed: float = 0.5
    deviator: float = 0.0
    snapshots: int = 4
    snapshot_every: int = 25
    exploiter_every: int = 0
    exploiter_slots: int = 2
    checkpoint_every: int = 200
    eval_every: int | None = None
    eval_games: int | None = None
    overlap: bool = False
    threads: int | None = None
    torch_threads: int | None = None
    device: str = "cpu"
    init: str | None = None
    imitate: str | None = None
    imitate_games: int = 1000
    imitate_epochs: int = 4
    algorithm: str = "ppo"
    algorithm_args: dict[str, Any] = field(default_factory=dict)
    exploiter_algorithm: str | None = None
    exploiter_algorithm_args: dict[str, Any] = field(default_factory=dict)
    ppo: PPOSettings = field(default_factory=PPOSettings)

    def __post_init__(self) -> None:
        """Fill the settings left None from the machine (:mod:`.machine`)."""
        if self.num_envs is None:
            self.num_envs = default_num_envs(self.device)
        if self.threads is None:
            self.threads = default_threads(self.device)
        if self.torch_threads is None:
            self.torch_threads = default_torch_threads(self.device)

    def check(self) -> None:
        """Check every setting (:mod:`borders_sim.checks`'s rules), then that the run fits
        in the machine's memory (:meth:`memory_estimate`), before anything is allocated.

        Raises:
            ValueError: the first setting out of range or of the wrong type, named; or a run
                that needs more memory than the machine has (the message names the settings
                and the estimate).
        """
        as_int(self.players, "players", 3, 8)
        if isinstance(self.opponents, str) or not isinstance(self.opponents, (tuple, list)) \
                or not self.opponents:
            raise ValueError(f"opponents must be a non-empty tuple of names, got "
                             f"{self.opponents!r}")
        as_float(self.minutes, "minutes", hi=MAX_MINUTES, above=0)
        as_seed(self.seed)
        if self.max_updates is not None:
            as_int(self.max_updates, "max_updates", 1)
        as_int(self.num_envs, "num_envs", 1)
        as_int(self.steps, "steps", 1)
        if not isinstance(self.hidden, (tuple, list)) or len(self.hidden) != 2:
            raise ValueError(f"hidden must be two layer sizes, got {self.hidden!r}")
        for k, size in enumerate(self.hidden):
            as_int(size, f"hidden[{k}]", 1, MAX_HIDDEN)
        as_float(self.lr, "lr", hi=1.0, above=0)
        as_bool(self.anneal_lr, "anneal_lr")
        as_choice(self.reward, "reward", REWARD_MODES)
        as_bool(self.dense, "dense")
        as_float(self.mixed, "mixed", 0.0, 1.0)
        as_float(self.deviator, "deviator", 0.0, 1.0)
        as_int(self.snapshots, "snapshots", 0)
        as_int(self.snapshot_every, "snapshot_every", 1)
        as_int(self.exploiter_every, "exploiter_every", 0)
        as_int(self.exploiter_slots, "exploiter_slots", 1)
        as_int(self.checkpoint_every, "checkpoint_every", 1)
        if self.eval_every is not None:
            as_int(self.eval_every, "eval_every", 0)
        if self.eval_games is not None:
            as_int(self.eval_games, "eval_games", 1)
        if as_int(self.threads, "threads", 1) > max_threads():
            raise ValueError(f"threads must be at most {max_threads()} here (numba's maximum; "
                             f"set NUMBA_NUM_THREADS before starting to allow more), got "
                             f"{self.threads}")
        as_int(self.torch_threads, "torch_threads", 1)
        as_bool(self.overlap, "overlap")
        if self.imitate is not None:
            as_choice(self.imitate, "imitate", COMPILED_BOTS)
        as_int(self.imitate_games, "imitate_games", 1)
        as_int(self.imitate_epochs, "imitate_epochs", 1)
        self.ppo.check()
        as_str(self.algorithm, "algorithm", "an algorithm's name or MODULE:FACTORY")
        if self.exploiter_algorithm is not None:
            as_str(self.exploiter_algorithm, "exploiter_algorithm",
                   "an algorithm's name or MODULE:FACTORY")
        for name in ("algorithm_args", "exploiter_algorithm_args"):
            if not all(isinstance(key, str) for key in as_mapping(getattr(self, name), name)):
                raise ValueError(f"{name} must map setting names (str) to values")
        if self.exploiter_algorithm is None and self.exploiter_algorithm_args:
            raise ValueError("exploiter_algorithm_args are the settings of exploiter_algorithm: "
                             "name it (without it the exploiter takes the main agent's)")
        anchor_coef, anchor_every = anchor_settings(self.algorithm_settings())
        if self.exploiter_every:
            self.exploiter_settings()
        if anchor_coef > 0 and self.init is None and self.imitate is None and not anchor_every:
            raise ValueError("a fixed anchor (anchor_coef > 0, anchor_every 0) is the policy the "
                             "run starts from: it needs imitate or init (or a moving anchor, "
                             "anchor_every > 0)")
        self.check_memory()

    def algorithm_settings(self) -> Any:
        """The settings of the main agent's algorithm: ``algorithm_args`` over its settings
        dataclass's defaults (PPO's: over ``ppo``), typed and checked
        (:func:`~borders_sim.train.algorithm.settings_of`; imports the algorithm).

        Raises:
            ValueError: an unknown algorithm or setting, or a bad value (one line).
        """
        return settings_of(self.algorithm, self.algorithm_args,
                           self.ppo if self.algorithm == "ppo" else None)

    def exploiter_spec(self) -> str:
        """The main exploiter's algorithm: ``exploiter_algorithm``, or the main agent's."""
        return self.algorithm if self.exploiter_algorithm is None else self.exploiter_algorithm

    def exploiter_settings(self) -> Any:
        """The main exploiter's algorithm's settings: the main agent's, or with
        ``exploiter_algorithm`` its ``exploiter_algorithm_args`` (as
        :meth:`algorithm_settings`)."""
        if self.exploiter_algorithm is None:
            return self.algorithm_settings()
        spec = self.exploiter_algorithm
        return settings_of(spec, self.exploiter_algorithm_args,
                           self.ppo if spec == "ppo" else None)

    def learning_rate(self, update: int) -> float:
        """The learning rate of the update after ``update`` updates: ``lr``, annealed linearly
        toward 5% of it over ``max_updates`` with ``anneal_lr`` (every rule's schedule)."""
        if self.anneal_lr and self.max_updates:
            return self.lr * max(1.0 - update / self.max_updates, 0.05)
        return self.lr

    def budget_share(self, update: int, seconds: float) -> float:
        """How much of the budget a run has spent after ``update`` updates and ``seconds`` of
        wall clock: the larger of the clock's share (of ``minutes``) and, with
        ``max_updates``, the updates' share, so 1.0 where the run stops."""
        share = seconds / (60.0 * self.minutes)
        if self.max_updates is not None:
            share = max(share, update / self.max_updates)
        return share

    def evaluations_due(self, update: int, seconds: float) -> int:
        """How many evaluations a run of ``eval_every`` None has made once it has done
        ``update`` updates in ``seconds``: one for each whole ``1/DEFAULT_EVALUATIONS`` of the
        budget spent (:meth:`budget_share`), so it evaluates after the update that completes
        a quarter, a half, three quarters and the whole of its budget, at any pace. An
        evaluation's own time counts toward the budget, as everything else does."""
        share = min(1.0, self.budget_share(update, seconds))
        return math.floor(share * DEFAULT_EVALUATIONS + 1e-9)

    def evaluation_games(self) -> int:
        """``eval_games``, or when None :data:`EVAL_GAMES` (:data:`SHORT_EVAL_GAMES` for a
        budget under :data:`SHORT_MINUTES` minutes)."""
        if self.eval_games is not None:
            return self.eval_games
        return SHORT_EVAL_GAMES if self.minutes < SHORT_MINUTES else EVAL_GAMES

    def check_memory(self) -> None:
        """Refuse a run whose :meth:`memory_estimate` is more than the machine's memory
        (:func:`machine_memory`; no check where it is unknown)."""
        have = machine_memory()
        parts = self.memory_estimate()
        need = sum(parts.values())
        if have is not None and need > have:
            h0, h1 = self.hidden
            shown = ", ".join(f"{name} {gib(n)}" for name, n in parts.items())
            raise ValueError(f"num_envs x steps = {self.num_envs} x {self.steps} with hidden "
                             f"{h0} {h1} needs about {gib(need)} of memory ({shown}), more than "
                             f"this machine's {gib(have)}: lower num_envs or steps")

    def memory_estimate(self) -> dict[str, int]:
        """About how many bytes the run holds, by part: ``rollout storage`` (``num_envs *
        steps`` decisions per learner), ``the update`` (the update's copy of the decisions and
        a minibatch's activations), ``networks`` (every copy of the weights: the learners',
        their gradients and Adam's moments, the acting and anchor copies, the pool's networks)
        and ``games`` (the games in flight)."""
        learners = 2 if self.exploiter_every else 1
        decisions = self.num_envs * self.steps
        h0, h1 = self.hidden
        params = OBS_SIZE * (h0 + 1) + h0 + h0 * h1 + h1 + (NUM_ACTIONS + 1) * (h1 + 1)
        pool = self.snapshots + (self.exploiter_slots if self.exploiter_every else 0) + \
            sum(1 for name in self.opponents if is_net_spec(name))
        # per learner its weights, gradients, Adam's two moments and acting copy; the start
        # and the anchor; the pool's networks
        copies = 5 * learners + 2 + pool
        rows = math.ceil(decisions / getattr(self.algorithm_settings(), "minibatches", 1))
        row_bytes = MINIBATCH_ROW_BYTES + HIDDEN_ROW_BYTES * (h0 + h1)
        return {"rollout storage": learners * decisions * DECISION_BYTES,
                "the update": decisions * UPDATE_BYTES + rows * row_bytes,
                "networks": 4 * params * copies,
                "games": learners * self.num_envs * GAME_BYTES}

    def shaping(self) -> dict[str, Any]:
        """The settings that shape the run, by name (``ppo.NAME`` for PPO's), as plain
        values (tuples as lists): every setting but :data:`RESUMABLE`, and ``max_updates``
        only while ``anneal_lr`` makes it the learning rate's horizon. The algorithms' own
        settings (``algorithm_args``) are compared as resolved, by
        :func:`~borders_sim.train.rundir.check_resume`."""
        flat = {name: value for name, value in asdict(self).items()
                if name not in ("ppo", "algorithm_args", "exploiter_algorithm_args")}
        flat.update({f"ppo.{name}": value for name, value in asdict(self.ppo).items()})
        free = RESUMABLE if self.anneal_lr else RESUMABLE | {"max_updates"}
        return {name: list(value) if isinstance(value, tuple) else value
                for name, value in flat.items() if name not in free}

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
