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
from dataclasses import asdict, dataclass
from typing import Any

from ..policies.network import MAX_HIDDEN, Policy, is_net_spec, net_player
from ..policies.dispatch import COMPILED_BOTS
from ..rules.actions import NUM_ACTIONS
from ..checks import SEED_MAX, SEED_RANGE, as_mapping, as_sequence, as_str
from ..rules.observation import OBS_SIZE
from ..rules.rewards import REWARD_MODES
from ..rules.state import STATE_DTYPE
from .algorithm import anchor_settings, settings_of
from ..settings import check_settings, declared, flag_of, setting
from .league import LEAGUE_BOTS, League, check_member
from .machine import (CPU_NUM_ENVS, CUDA_NUM_ENVS, default_num_envs, default_threads,
                      default_torch_threads, max_threads)

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
    """The command-line option of the setting ``name`` of :class:`TrainConfig`, or None for
    a setting only Python sets."""
    found = [f for f, _, _ in declared(TrainConfig) if f.name == name]
    return flag_of(found[0]) if found else None


def gib(n: float) -> str:
    """A byte count in GiB, as a message shows it."""
    x = n / 2**30
    return f"{x:,.0f} GiB" if x >= 100 else f"{x:.3g} GiB"


def _opponents(value: Any, name: str) -> tuple[str, ...]:
    """The check of ``opponents``: a non-empty list of league members
    (:func:`~borders_sim.train.league.check_member`) or ``league``."""
    names = as_sequence(value, name, "a non-empty list of names, e.g. ('league',)")
    if not names:
        raise ValueError(f"{name} must be a non-empty list of names, e.g. ('league',)")
    for item in names:
        if as_str(item, f"{name} item", "a name") != "league":
            check_member(item)
    return tuple(names)


def _opponents_text(text: str) -> tuple[str, ...]:
    """``--opponents``' text, comma-separated names, as the setting's tuple (checked)."""
    try:
        return _opponents([item.strip() for item in text.split(",")], "opponents")
    except ValueError as err:
        raise ValueError(f"{err} (or league: the league bots and self-play)") from None


def _pairs(value: Any, name: str) -> dict[str, Any]:
    """The check of an algorithm's settings by name: a dict with str keys."""
    if not all(isinstance(key, str) for key in as_mapping(value, name)):
        raise ValueError(f"{name} must map setting names (str) to values")
    return dict(value)


def _threads_what() -> str:
    return (f"an int from 1 to {max_threads()} here (numba's maximum; set NUMBA_NUM_THREADS "
            f"before starting to allow more)")


_ALGORITHM = "an algorithm's name or MODULE:FACTORY"


@dataclass
class TrainConfig:
    """One experiment: every field is a setting declared once, its help, bounds and flag in
    the field (:func:`~borders_sim.settings.setting`; ``borders-sim train --help`` prints them,
    :meth:`check` checks them). The defaults are one 30-minute run of seed 1 against the league
    (no imitation, anchor or exploiter): a sound start, not the shipped policy's recipe, which
    is a chain of runs, each from the last one's policy (docs/training.md, read from the shipped
    file).

    The fields left None are filled when the config is made or run: ``num_envs``, ``threads``
    and ``torch_threads`` from the device and the cores (:mod:`.machine`), and ``eval_every`` /
    ``eval_games`` follow the budget (:meth:`evaluations_due`, :meth:`evaluation_games`).
    ``settings`` holds the algorithm's settings, an instance of its ``Settings`` dataclass
    (:class:`~borders_sim.train.ppo.PPOSettings` for ``ppo``, beside PPO as
    :class:`~borders_sim.train.a2c.A2CSettings` is beside A2C), or None for its defaults;
    ``algorithm_args`` are set over them (:mod:`borders_sim.train.algorithm`). A rule with ``anchor_coef > 0`` keeps the policy
    near where it started, the imitated teacher or ``init``, so it needs one of them (or a
    moving anchor).
    """

    players: int = setting(4, lo=3, hi=8, metavar="N", help="players per game")
    opponents: tuple[str, ...] = setting(
        ("league",), check=_opponents, parse=_opponents_text, metavar="NAME[,NAME...]",
        help="the pool: compiled bot names, ppo, ppo@PATH, ppo-zoo/NAME, league (the league "
             f"bots {', '.join(LEAGUE_BOTS)} and self-play); they play inside the compiled "
             "training env (train against a Python bot with SingleSeatEnv)")
    minutes: float = setting(30.0, lo=0.0, above=True, hi=MAX_MINUTES, metavar="M",
                             help="wall-clock budget, evaluations and checkpoints included")
    seed: int = setting(1, lo=0, hi=SEED_MAX, what=f"a seed, {SEED_RANGE}", metavar="S",
                        help="seeds the games, the league, the network and the samples")
    max_updates: int | None = setting(
        None, lo=1, hi=10**9, metavar="U",
        help="stop after U updates, and with anneal_lr lower the learning rate linearly to 5% "
             "over them (default: no cap, --minutes ends the run, the rate stays)")
    num_envs: int | None = setting(
        None, lo=1, hi=1 << 14, metavar="E",
        default_help=lambda: f"{CPU_NUM_ENVS} on the CPU, {CUDA_NUM_ENVS} with --device cuda",
        help="games played side by side; an update learns from num_envs x steps decisions")
    steps: int = setting(64, lo=1, hi=1 << 12, metavar="T",
                         help="learner decisions per game per update (the rollout length)")
    hidden: tuple[int, int] = setting((256, 256), lo=1, hi=MAX_HIDDEN, metavar=("H0", "H1"),
                                      help="sizes of the two hidden layers")
    lr: float = setting(3e-4, lo=0.0, above=True, hi=1.0, metavar="LR",
                        help="Adam learning rate, every rule's")
    anneal_lr: bool = setting(True, flag="--constant-lr", invert=True,
                              help="keep the learning rate at --lr (default: annealed over "
                                   "--max-updates when given; a schedule by the clock would make "
                                   "two runs of one seed differ)")
    reward: str = setting("win", choices=REWARD_MODES,
                          help="the learner's terminal reward (a mode of "
                               "borders_sim.rules.rewards.REWARDS)")
    dense: bool = setting(True, flag="--sparse", invert=True,
                          help="only the terminal reward (default: spread over the learner's "
                               "decisions by potential-based shaping, same sum, same best "
                               "policy)")
    mixed: float = setting(0.5, lo=0.0, hi=1.0, metavar="P",
                           help="chance that a game seats a member drawn per opponent seat (a "
                                "mixed table) instead of one member in every opponent seat")
    deviator: float = setting(
        0.0, lo=0.0, hi=1.0, metavar="P",
        help="chance that a game, once a self-play snapshot exists, seats one member drawn from "
             "the pool in one opponent seat and the newest snapshot in the others (the learner "
             "as one of the copies a deviator faces, the lineup of borders-sim exploit)")
    snapshots: int = setting(4, lo=0, hi=64, metavar="K", help="self-play slots of 'league'")
    snapshot_every: int = setting(25, lo=1, hi=10**9, metavar="U",
                                  help="updates between self-play snapshots")
    exploiter_every: int = setting(
        0, lo=0, hi=10**9, metavar="K",
        help="train a main exploiter beside the run, against copies of the current policy; "
             "every K updates its policy joins the pool and it starts again (0: none)")
    exploiter_slots: int = setting(2, lo=1, hi=64, metavar="N",
                                   help="pool slots for the main exploiter's policies (the "
                                        "oldest is replaced)")
    checkpoint_every: int = setting(200, lo=1, hi=10**9, metavar="U",
                                    help="updates between checkpoints")
    eval_every: int | None = setting(
        None, lo=0, hi=10**9, metavar="U",
        help="updates between evaluations against 3 copies of each heuristic (0: none; "
             f"default: {DEFAULT_EVALUATIONS} a run, after the update that completes each "
             "quarter of the budget, --minutes or --max-updates, whichever ends the run)")
    eval_games: int | None = setting(
        None, lo=1, hi=10**6, metavar="G",
        help=f"games per heuristic in an evaluation (default: {EVAL_GAMES}, or "
             f"{SHORT_EVAL_GAMES} for a budget under {SHORT_MINUTES} minutes)")
    overlap: bool = setting(False,
                            help="collect the next rollout in a second thread while the update "
                                 "runs (the env and acting beside torch, at one update of "
                                 "policy lag)")
    threads: int | None = setting(
        None, lo=1, hi=max_threads, what=_threads_what, metavar="N",
        default_help=lambda: f"from the cores and --device: {default_threads('cpu')} here on "
                             f"the CPU, {default_threads('cuda')} with cuda",
        help="numba threads of the env and acting")
    torch_threads: int | None = setting(
        None, lo=1, hi=256, metavar="T",
        default_help=lambda: f"from the cores and --device: {default_torch_threads('cpu')} here "
                             f"on the CPU, 1 with cuda; 1 is fastest beside the env on 2 cores",
        help="torch threads of the update")
    device: str = setting("cpu", metavar="DEV",
                          help="where the update runs: cpu, or cuda (a GPU; the env and the "
                               "acting network stay on the CPU)")
    init: str | None = setting(None, metavar="PATH",
                               help="start from this policy file (default: a random network)")
    imitate: str | None = setting(
        None, choices=COMPILED_BOTS, metavar="BOT",
        help="first learn a compiled bot's choices from demonstrations (behaviour cloning, "
             "borders_sim.train.imitate), then train from there (default: none)")
    imitate_games: int = setting(1000, lo=1, hi=10**6, metavar="G",
                                 help="games of demonstrations for --imitate")
    imitate_epochs: int = setting(4, lo=1, hi=100, metavar="K",
                                  help="passes over the demonstrations")
    algorithm: str = setting(
        "ppo", what=_ALGORITHM, metavar="NAME",
        help="the update rule: ppo, a2c, or MODULE:FACTORY (your own: factory(model, settings, "
             "config, seed) with a Settings dataclass, imported from the current directory too)")
    algorithm_args: dict[str, Any] = setting(
        factory=dict, check=_pairs, flag="--algorithm-arg", metavar="KEY=VALUE",
        help="a setting of the algorithm by name (a field of its Settings dataclass, typed by "
             "it), repeatable; the flags of PPO's settings below set those of that name too")
    exploiter_algorithm: str | None = setting(
        None, what=_ALGORITHM, metavar="NAME",
        help="the main exploiter's update rule (default: --algorithm's, with its settings)")
    exploiter_algorithm_args: dict[str, Any] = setting(
        factory=dict, check=_pairs, flag="--exploiter-algorithm-arg", metavar="KEY=VALUE",
        help="a setting of --exploiter-algorithm by name, repeatable")
    #: the algorithm's settings: an instance of its ``Settings`` dataclass, or None for its
    #: defaults (Python only: the command line sets them by name, class docstring)
    settings: Any = None

    def __post_init__(self) -> None:
        """Fill the settings left None from the machine (:mod:`.machine`)."""
        if self.num_envs is None:
            self.num_envs = default_num_envs(self.device)
        if self.threads is None:
            self.threads = default_threads(self.device)
        if self.torch_threads is None:
            self.torch_threads = default_torch_threads(self.device)

    def check(self) -> None:
        """Check every setting against its declaration (:func:`~borders_sim.settings.
        check_settings`), then how they go together, then that the run fits in the machine's
        memory (:meth:`memory_estimate`), before anything is allocated.

        Raises:
            ValueError: the first setting out of range or of the wrong type, named; or a run
                that needs more memory than the machine has (the message names the settings
                and the estimate).
        """
        check_settings(self)
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
        """The settings of the main agent's algorithm: ``algorithm_args`` over ``settings``
        (None: over its settings dataclass's defaults), typed and checked
        (:func:`~borders_sim.train.algorithm.settings_of`; imports the algorithm).

        Raises:
            ValueError: an unknown algorithm or setting, settings of another algorithm's
                dataclass, or a bad value (one line).
        """
        return settings_of(self.algorithm, self.algorithm_args, self.settings)

    def exploiter_spec(self) -> str:
        """The main exploiter's algorithm: ``exploiter_algorithm``, or the main agent's."""
        return self.algorithm if self.exploiter_algorithm is None else self.exploiter_algorithm

    def exploiter_settings(self) -> Any:
        """The main exploiter's algorithm's settings: the main agent's, or with
        ``exploiter_algorithm`` its ``exploiter_algorithm_args`` over its defaults (over the
        main agent's settings when it names the main agent's algorithm), as
        :meth:`algorithm_settings`."""
        if self.exploiter_algorithm is None:
            return self.algorithm_settings()
        spec = self.exploiter_algorithm
        return settings_of(spec, self.exploiter_algorithm_args,
                           self.algorithm_settings() if spec == self.algorithm else None)

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
        """The settings that shape the run, by name, as plain values (tuples as lists): every
        setting but :data:`RESUMABLE`, and ``max_updates`` only while ``anneal_lr`` makes it
        the learning rate's horizon. The algorithms' own settings (``settings`` and
        ``algorithm_args``) are compared as resolved, by
        :func:`~borders_sim.train.rundir.check_resume`."""
        flat = {name: value for name, value in asdict(self).items()
                if name not in ("settings", "algorithm_args", "exploiter_algorithm_args")}
        free = RESUMABLE if self.anneal_lr else RESUMABLE | {"max_updates"}
        return {name: list(value) if isinstance(value, tuple) else value
                for name, value in flat.items() if name not in free}

    def league(self, initial: Policy) -> League:
        """The league of ``opponents`` (``league`` expands to the league bots plus self-play),
        each network spec read here, once, into its policy network (a
        :class:`~borders_sim.policies.network.NetPlayer` named by the spec)."""
        names, selfplay = [], 0
        for name in self.opponents:
            if name == "league":
                names += [b for b in LEAGUE_BOTS if b not in names]
                selfplay = self.snapshots
            elif name not in names:
                names.append(name)
        bots = [net_player(name) if is_net_spec(name) else name for name in names]
        return League(tuple(bots), self.players, selfplay, self.snapshot_every, initial,
                      self.exploiter_slots if self.exploiter_every else 0)
