"""The training loop: an update rule (masked PPO by default) over the compiled training env,
against a league.

:func:`train` runs one experiment into an output directory:

1. build the pool (:mod:`.league`) and the training env
   (:class:`~borders_sim.envs.training.TrainingEnv`, every opponent inside the compiled call),
   and the update rule ``config.algorithm`` names (:mod:`.algorithm`: ``ppo``, ``a2c`` or the
   user's ``MODULE:FACTORY``);
2. repeat until the time or step budget is spent: collect ``steps`` decisions in each of the
   ``num_envs`` games with the current policy (sampled from its masked logits), hand them to
   the update rule (PPO: GAE advantages per game slot, the clipped update, :mod:`.ppo`); fold
   the finished games
   into the league's win averages and reweight the pool; every ``snapshot_every`` updates freeze
   the learner into a self-play slot; a progress line that fits the terminal
   (:mod:`.progress`) shows the budget and the win shares over recent games;
3. every ``checkpoint_every`` updates write a checkpoint (``checkpoints/update-NNNNNN.pt``, with
   everything needed to resume: weights, optimizer, league, every game in flight, the random
   generators; and ``checkpoints/update-NNNNNN.npz``, the policy file of that moment); every
   ``eval_every`` updates (by default after each quarter of the budget,
   :meth:`~.config.TrainConfig.evaluations_due`) play the policy against each heuristic, and
   each heuristic and random play as a single deviator against copies of the policy, through
   the tournament code (:func:`evaluate`, seat-rotated, on seeds the training never uses);
4. at the end write ``policy.npz`` (the final policy, ``make("ppo", weights=DIR)``), the
   learning curve ``curve.csv`` / ``curve.json`` (one row per update) and, with ``plot``,
   ``curve.png``.

**The run directory** is the run's own, its files are written whole or not at all, checkpoints
hold tensors and plain values only, and a resumed run keeps the settings that shape it, its
algorithm and the algorithm's settings among them: see :mod:`.rundir`. Every checkpoint and
policy file records the algorithm (``{"name": ..., "settings": {...}}``, under ``algorithm``
in a checkpoint and in a policy file's meta; the rule's own state is the learner's
``algorithm`` entry).

**Memory.** Before anything is allocated, :meth:`~.config.TrainConfig.check` estimates the
run's memory (the rollouts, the update, the networks, the games in flight) and refuses a run
that needs more than the machine has, in one line naming the settings and the estimate.

**Budget.** ``minutes`` is the whole run's wall clock (updates, checkpoints and evaluations),
checked between updates, so a run ends within one update of it (plus the final checkpoint).

**Repeatability.** One ``seed`` seeds the env's stream of games, the league's draws, the
network's initialisation, the action samples and the minibatch shuffles; with one numba thread
and one torch thread a run is repeatable step for step (with more numba threads too: the env's
games do not depend on the thread count). The budget in minutes is wall clock, so two runs of
the same minutes may stop after different numbers of updates; ``max_updates`` fixes it.

**Anchor and magnet.** With ``ppo.anchor_coef > 0`` (or the ``anchor_coef`` of another
algorithm's settings, :mod:`.algorithm`) the loss adds a KL penalty toward a frozen *anchor*
network (:mod:`.ppo`). By default the anchor is the policy the run starts from (the
imitated teacher or ``init``), frozen for the whole run: PPO improves on a known-good start
without forgetting it (AlphaStar's KL toward its supervised policy). With
``ppo.anchor_every = K`` the anchor is a *magnet* that moves: every ``K`` updates it becomes a
copy of the current policy (and a run with neither teacher nor ``init`` starts from its
initial, near-uniform network). Each stretch of ``K`` updates is then a proximal step that
stays near where it began, the scheme of magnetic mirror descent (Sokota et al., ICLR 2023)
and R-NaD (DeepNash) that approaches equilibria of imperfect-information games instead of
cycling between best responses (the cycle honest > strict > greedy ``ppo`` > honest the
deviator matrix shows). ``K`` and ``anchor_coef`` together set how far a stretch may go: a
magnet moved every update holds nothing back.

**Main exploiter** (AlphaStar, Vinyals et al. 2019). With ``exploiter_every = K``, a second
learner (:class:`~.learner.Learner`, the same network and settings, the same algorithm unless
``exploiter_algorithm`` names another) trains beside the run,
one update per update, only against copies of the current policy (refreshed every update,
sampled as it plays); every ``K`` updates its policy joins the pool in the oldest of
``exploiter_slots`` slots (:mod:`.league`) and it starts again from the run's starting network.
The league's weights then send the main agent most often to the exploiters it loses to, so
what beats the policy now is in its pool within ``K`` updates. It doubles the learning per
update: ``steps_per_s`` counts the main agent's steps over all the time, the curve's
``exploiter_win_share`` and ``seconds_exploiter`` show the exploiter's part.

**Device.** The update runs where ``device`` says (default the CPU, where the first layer and
its gradient are computed from the observations' non-zero entries, :mod:`.sparse`; on
``"cuda"`` the network, its optimizer and its update live on the GPU, dense); the env and the
compiled acting network stay on the CPU, which receives the weights after every update.

**Threads.** Torch uses ``torch_threads`` (default 1: on 2 cores, two torch threads beside the
env's threads ran 6x slower), the env numba's threads. Numba's OpenMP threading layer, launched
by the first parallel kernel, sets OpenMP's thread count for the whole process, torch's
included: the trainer launches it before it sets torch's threads (else its updates ran on as
many torch threads as numba's, up to 10x slower on 2 busy cores).
"""

from __future__ import annotations

import copy
import csv
import io
import json
import os
import shutil
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Callable

import numba
import numpy as np
import torch

from .. import __version__
from ..agents.seats import Seat
from ..policies.network import SAMPLE_TEMPERATURE, NetPlayer, Policy, load_policy
from ..policies.registry import roster
from ..checks import as_bool
from .algorithm import Algorithm, Factory, anchor_settings, factory_of, record
from .config import TrainConfig
from .imitate import CloneStats, clone
from .league import RECENT_GAMES
from .learner import Learner, to_array, to_tensor
from .model import PolicyValueNet
from .lock import owned
from .progress import progress_line
from .rundir import (CHECKPOINT_FORMAT, check_resume, claim, load_checkpoint, one_line,
                     plain, run_directory, write_atomically, write_policy)

#: Seconds between two progress lines where stderr is not a terminal (a log file, a notebook):
#: each such line is whole, one line per interval, as tqdm writes to a file.
LOG_SECONDS = 30.0
#: Tournament seeds of the evaluations: game ``g`` of an evaluation is dealt from
#: ``EVAL_SEED + g`` (the training env's games come from hashed seeds, see
#: :func:`~borders_sim.batch.seeds.derive_seed`).
EVAL_SEED = 10**15
#: The opponents an evaluation plays ``players - 1`` copies of: the compiled bots whose entry
#: in :data:`~borders_sim.policies.registry.BOTS` joins the evaluations.
EVAL_BOTS = roster("evaluation")
#: The single deviators an evaluation plays against copies of the policy (likewise).
DEVIATOR_BOTS = roster("deviator")
#: Tournament seeds of the demonstration games of behaviour cloning (``imitate``): game ``g`` of
#: a run of seed ``s`` is dealt from ``DEMO_SEED + s * 10**7 + g``, far from the evaluations'
#: and from the seeds tournaments start at.
DEMO_SEED = 3 * 10**15
#: The main exploiter's games are dealt from the run's seed plus this (its own stream).
EXPLOITER_SEED = 0x5EED_0E7B


@dataclass
class TrainResult:
    """What :func:`train` leaves: the output directory, the final policy's file (``policy``)
    and the policy itself (``network``, in memory), the curve."""

    out: Path
    policy: Path
    updates: int
    learner_steps: int
    seconds: float
    curve: list[dict]
    network: Policy


class Trainer:
    """The state of one run (see the module docstring); :func:`train` drives it. ``main`` is
    the learner the run trains (:class:`~.learner.Learner`), ``exploiter`` its main exploiter
    (None without one)."""

    def __init__(self, config: TrainConfig, out: str | os.PathLike) -> None:
        config.check()
        self.config = c = config
        device = training_device(c.device)
        self.out = Path(out)
        # numba's threads for the env and acting, then torch's: launching numba's threading
        # layer resets OpenMP's thread count, so torch's comes after it
        numba.set_num_threads(c.threads)
        torch.set_num_threads(c.torch_threads)
        torch.manual_seed(c.seed)
        model = PolicyValueNet(c.hidden)
        #: the starting file's own record (a run that goes on from another keeps its history)
        self.init_meta: dict | None = None
        if c.init is not None:
            started = load_policy(c.init)
            model.load_policy(started)
            self.init_meta = dict(started.meta)
        model.to(device)
        self.league = c.league(model.policy())
        #: the main agent's algorithm's settings (:meth:`~.config.TrainConfig.
        #: algorithm_settings`)
        self.settings = c.algorithm_settings()
        self.main = Learner(c, model, factory_of(c.algorithm)(model, self.settings, c, c.seed),
                            self.league.members(), self.league.weights(), c.seed,
                            overlap=c.overlap)
        self.start = copy.deepcopy(model).requires_grad_(False)  # where the run starts
        self.exploiter: Learner | None = None
        if c.exploiter_every:
            seed = (c.seed + EXPLOITER_SEED) % 2**64
            twin = copy.deepcopy(model)
            rule: Algorithm = factory_of(c.exploiter_spec())(twin, c.exploiter_settings(), c, seed)
            self.exploiter = Learner(
                c, twin, rule, [NetPlayer("main", model.policy(), SAMPLE_TEMPERATURE)], None, seed)
        self.exploiter_games: list[float] = []  # its win shares since its last reset
        self.exploiter_seconds = 0.0
        self.anchor: PolicyValueNet | None = None
        self.freeze_anchor()
        self.update = 0
        self.cloned: CloneStats | None = None
        self.seconds_imitating = 0.0
        self.seconds = 0.0  # in updates (collect and learn), for steps/s
        self.wall = 0.0  # the whole run's wall clock: updates, checkpoints and evaluations
        self.curve: list[dict] = []

    @property
    def learner_steps(self) -> int:
        """The main learner's decisions so far."""
        return self.main.learner_steps

    def freeze_anchor(self) -> None:
        """Keep a frozen copy of the network as it is now: the anchor of the KL penalty."""
        if anchor_settings(self.settings)[0] > 0:
            self.anchor = copy.deepcopy(self.main.model).requires_grad_(False)

    def imitate(self) -> None:
        """Behaviour cloning of ``config.imitate`` before the first update (its own Adam at
        1e-3; PPO's optimizer, untouched by it, starts after it); the run then starts from the
        clone."""
        c = self.config
        start = time.perf_counter()
        model = self.main.model
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        self.cloned = clone(model, optimizer, c.imitate, c.players, c.imitate_games,
                            c.imitate_epochs, DEMO_SEED + c.seed * 10**7)
        self.main.actor.load(model)
        self.start = copy.deepcopy(model).requires_grad_(False)
        if self.exploiter is not None:
            self.exploiter.reset(self.start)
            self.exploiter.env.replace_policy(0, model.policy())
        self.freeze_anchor()
        self.seconds_imitating = time.perf_counter() - start

    # --- one update ------------------------------------------------------------------------
    def step(self) -> dict:
        """Collect, learn, move the anchor when due, train the main exploiter (and move it
        into the pool when due), reweight the league, snapshot: one update; returns its curve
        row."""
        c = self.config
        start = time.perf_counter()
        if c.overlap:
            (games, members, shares), stats = self.main.overlapped(self.update, self.anchor)
            self.league.record(members, shares)
        else:
            games, members, shares = self.main.collect()
            self.league.record(members, shares)
            stats = self.main.learn(self.update, self.anchor)
        self.update += 1
        every = anchor_settings(self.settings)[1]
        if every and self.update % every == 0:
            self.freeze_anchor()
        row_exploiter = self.train_exploiter() if self.exploiter is not None else {}
        if self.league.snapshot_due(self.update):
            self.main.env.replace_policy(self.league.take_snapshot(), self.main.model.policy())
            self.main.env.set_self_member(self.league.newest_snapshot())
        self.main.env.set_weights(self.league.weights())
        self.seconds += time.perf_counter() - start
        row = {"update": self.update, "learner_steps": self.learner_steps,
               "seconds": round(self.seconds, 3),
               "steps_per_s": round(self.learner_steps / max(self.seconds, 1e-9), 1),
               "games": len(games), "win_share": float(games.mean()) if len(games) else None,
               **{k: round(v, 6) for k, v in asdict(stats).items()},
               **{f"seconds_{k}": round(v, 3) for k, v in self.main.clock.parts.items()},
               **row_exploiter}
        for m, name in enumerate(self.league.names):
            share = self.league.recent_share(m)
            row[f"win_vs_{name}"] = None if share is None else round(share, 4)
        self.curve.append(row)
        return row

    def train_exploiter(self) -> dict:
        """One update of the main exploiter against copies of the main agent as it is now;
        every ``exploiter_every`` updates its policy goes into the oldest exploiter slot of
        the pool and it starts again from the run's starting network. Returns its curve
        entries."""
        c, ex = self.config, self.exploiter
        t0 = time.perf_counter()
        ex.env.replace_policy(0, self.main.model.policy())
        games, _, _ = ex.collect()
        ex.learn(self.update - 1)
        self.exploiter_games += games.tolist()
        entries = {"exploiter_steps": ex.learner_steps,
                   "exploiter_win_share": round(float(np.mean(self.exploiter_games)), 4)
                   if self.exploiter_games else None}
        if self.update % c.exploiter_every == 0:
            member = self.league.take_exploiter()
            self.main.env.replace_policy(member, ex.model.policy())
            ex.reset(self.start)
            self.exploiter_games = []
            entries["exploiter_joined"] = self.league.names[member]
        self.exploiter_seconds += time.perf_counter() - t0
        entries["seconds_exploiter"] = round(self.exploiter_seconds, 3)
        return entries

    # --- saving ------------------------------------------------------------------------------
    def algorithms(self) -> dict:
        """The provenance of the run's algorithms (:func:`~.algorithm.record`): ``algorithm``,
        the main agent's, and ``exploiter_algorithm``, the main exploiter's (None without
        one)."""
        c = self.config
        return {"algorithm": record(c.algorithm, self.settings),
                "exploiter_algorithm": None if self.exploiter is None else
                record(c.exploiter_spec(), c.exploiter_settings())}

    def meta(self) -> dict:
        """The policy file's record of the run: its settings and history, and ``algorithm``,
        the update rule that trained it (name and settings)."""
        c = self.config
        anchor_coef, anchor_every = anchor_settings(self.settings)
        cloned = (None if self.cloned is None else
                  {"teacher": c.imitate, "games": c.imitate_games, "epochs": c.imitate_epochs,
                   "decisions": self.cloned.decisions, "accuracy": round(self.cloned.accuracy, 4),
                   "seconds": round(self.seconds_imitating, 1)})
        return {"trained_by": f"borders_sim {__version__}", "players": c.players,
                "opponents": list(c.opponents), "seed": c.seed, "imitated": cloned,
                "updates": self.update,
                "learner_steps": self.learner_steps, "seconds": round(self.seconds, 1),
                "hidden": list(c.hidden), "reward": c.reward, "dense": c.dense,
                "mixed": c.mixed, "deviator": c.deviator, "anchor_coef": anchor_coef,
                "anchor_every": anchor_every, "exploiter_every": c.exploiter_every,
                "algorithm": self.algorithms()["algorithm"], "init": self.init_meta}

    def state(self) -> dict:
        """What a checkpoint holds (module docstring): tensors and plain values only."""
        league = self.league
        return {"format": CHECKPOINT_FORMAT, "config": plain(asdict(self.config)),
                **self.algorithms(),
                "update": self.update, "seconds": self.seconds, "wall": self.wall,
                "cloned": None if self.cloned is None else asdict(self.cloned),
                "seconds_imitating": self.seconds_imitating, "curve": plain(self.curve),
                "main": self.main.state(), "start": self.start.state_dict(),
                "anchor": None if self.anchor is None else self.anchor.state_dict(),
                "exploiter": None if self.exploiter is None else self.exploiter.state(),
                "exploiter_games": list(self.exploiter_games),
                "exploiter_seconds": self.exploiter_seconds,
                "torch_rng": torch.get_rng_state(),
                "league": {"win": to_tensor(league.win), "filled": to_tensor(league.filled),
                           "games": to_tensor(league.games), "next_slot": league.next_slot,
                           "next_exploiter": league.next_exploiter,
                           "recent": [list(games) for games in league.recent]}}

    def checkpoint(self) -> Path:
        """Write ``checkpoints/update-NNNNNN.pt`` and ``.npz`` (module docstring); returns the
        ``.pt``.

        Raises:
            OSError: a file could not be written (one line naming it; the files of earlier
                checkpoints stay as they were).
        """
        folder = self.out / "checkpoints"
        folder.mkdir(parents=True, exist_ok=True)
        stem = folder / f"update-{self.update:06d}"
        write_policy(stem.with_suffix(".npz"), self.main.model.policy(self.meta()))
        state = self.state()
        return write_atomically(stem.with_suffix(".pt"), lambda f: torch.save(state, f))

    def resume(self, path: Path) -> None:
        """Continue from the checkpoint ``path`` (written by :meth:`checkpoint`) of a run with
        the settings that shape this one (:func:`load_checkpoint`, :func:`check_resume`,
        :meth:`restore`)."""
        state = load_checkpoint(path)
        check_resume(state, self.config, path)
        self.restore(state, path)

    def restore(self, state: dict, path: Path) -> None:
        """Take the run's state from ``state``, a checkpoint read by :func:`load_checkpoint`
        from ``path`` and checked by :func:`check_resume`.

        Raises:
            ValueError: ``state`` is not what :meth:`state` writes for this run (one line
                naming ``path``; this trainer is then half restored: drop it).
        """
        try:
            self.main.restore(state["main"])
            self.start.load_state_dict(state["start"])
            if state["anchor"] is not None:
                self.freeze_anchor()
                self.anchor.load_state_dict(state["anchor"])
            if self.exploiter is not None:
                self.exploiter.restore(state["exploiter"])
            self.exploiter_games = [float(share) for share in state["exploiter_games"]]
            self.exploiter_seconds = float(state["exploiter_seconds"])
            torch.set_rng_state(state["torch_rng"])
            saved, league = state["league"], self.league
            league.win[:] = to_array(saved["win"], league.win, "league win")
            league.filled[:] = to_array(saved["filled"], league.filled, "league filled")
            league.games[:] = to_array(saved["games"], league.games, "league games")
            league.next_slot = int(saved["next_slot"])
            league.next_exploiter = int(saved["next_exploiter"])
            # (a checkpoint of before the recent games were kept has none: they start empty)
            for games, shares in zip(league.recent, saved.get("recent", [])):
                games.extend(float(share) for share in shares)
            self.main.env.set_weights(league.weights())
            self.main.env.set_self_member(league.newest_snapshot())
            self.update = int(state["update"])
            self.seconds = float(state["seconds"])
            self.wall = float(state["wall"])
            self.cloned = None if state["cloned"] is None else CloneStats(**state["cloned"])
            self.seconds_imitating = float(state["seconds_imitating"])
            self.curve = list(state["curve"])
            if not all(isinstance(row, dict) for row in self.curve):
                raise TypeError("the curve's rows are not dicts")
        except (KeyError, TypeError, ValueError, AttributeError, IndexError,
                RuntimeError) as err:
            raise ValueError(f"{path}: not a checkpoint this run can continue "
                             f"({type(err).__name__}: {one_line(err)})") from None

    def write_curve(self) -> None:
        """Write ``curve.json`` and ``curve.csv`` (each whole, :func:`write_atomically`)."""
        rows = self.curve
        text = json.dumps(rows, indent=1) + "\n"
        write_atomically(self.out / "curve.json", lambda f: f.write(text.encode()))
        table = io.StringIO(newline="")
        writer = csv.DictWriter(table, list(dict.fromkeys(k for row in rows for k in row)))
        writer.writeheader()
        writer.writerows(rows)
        write_atomically(self.out / "curve.csv", lambda f: f.write(table.getvalue().encode()))


def training_device(name: str) -> torch.device:
    """The torch device of ``TrainConfig.device`` (``"cpu"`` or ``"cuda"``, ``"cuda:N"``).

    Raises:
        ValueError: another name, or CUDA asked for where torch sees no GPU.
    """
    if not isinstance(name, str) or not (name == "cpu" or name.split(":")[0] == "cuda"):
        raise ValueError(f"device must be 'cpu' or 'cuda' ('cuda:N'), got {name!r}")
    if name != "cpu" and not torch.cuda.is_available():
        raise ValueError(f"device {name!r}: torch {torch.__version__} sees no CUDA GPU here "
                         "(a CPU build, or no driver); use device 'cpu'")
    return torch.device(name)


# --- evaluation and the run ------------------------------------------------------------------
def evaluate(policy: Policy | str | os.PathLike, players: int, games: int,
             bots: tuple[str, ...] = EVAL_BOTS, deviators: tuple[str, ...] = DEVIATOR_BOTS,
             seed: int = EVAL_SEED) -> dict[str, dict[str, dict]]:
    """The policy (in memory, or a policy file), sampled as the ``ppo`` bot plays, in
    seat-rotated tournaments of ``games``
    games each (compiled path, seeds ``seed + g``): ``"against"``, per bot of ``bots``, the
    policy against ``players - 1`` copies of it; ``"deviators"``, per bot of ``deviators``,
    that bot as a single deviator against ``players - 1`` copies of the policy (how
    exploitable the policy is by it, :mod:`borders_sim.arena.deviators`). Each entry: the
    ``win_rate`` of the single player, its ``win_rate_ci95`` (Wilson) and ``games``."""
    from ..arena import run_tournament  # (imports the tournament code only when evaluating)
    if not isinstance(policy, Policy):
        policy = load_policy(policy)
    learner = Seat("this policy", net=NetPlayer("this policy", policy, SAMPLE_TEMPERATURE))
    out: dict[str, dict[str, dict]] = {"against": {}, "deviators": {}}
    for kind, names in (("against", bots), ("deviators", deviators)):
        for bot in names:
            one, many = (learner, bot) if kind == "against" else (bot, learner)
            res = run_tournament(players, [one] + [many] * (players - 1), games, seed)
            row = res.bots[0]
            out[kind][bot] = {"win_rate": row["win_rate"], "win_rate_ci95": row["win_rate_ci95"],
                              "games": res.games_played}
    return out


def train(config: TrainConfig, out: str | os.PathLike, resume: bool = False,
          progress: bool = True, plot: bool = False,
          echo: Callable[[str], None] | None = None, overwrite: bool = False,
          algorithm: str | Factory | None = None) -> TrainResult:
    """Run the experiment ``config`` into the directory ``out`` (module docstring): with
    ``resume`` continue from its newest checkpoint, with ``overwrite`` delete another run's
    files there first. A progress line on stderr (:mod:`.progress`) shows the budget, the
    learner's steps/s and its win share over the last games against each pool member; ``echo``
    gets one line per event (checkpoints, evaluations, notes). ``algorithm``, if given, replaces
    ``config.algorithm``: a registered name, ``MODULE:FACTORY`` or the factory itself (which
    must be importable by its module and name, so a resumed run finds it again; its settings
    are ``config.algorithm_args``).

    Raises:
        ValueError: a setting out of range, a run too large for the machine's memory, a
            directory that is another run's or in use, a checkpoint that cannot be resumed
            (each one line).
        OSError: a file could not be written (one line naming it).
    """
    say = echo or (lambda line: print(line, file=sys.stderr, flush=True))
    if algorithm is not None:
        config = replace(config, algorithm=algorithm_spec(algorithm))
    config.check()
    training_device(config.device)
    if as_bool(resume, "resume") and as_bool(overwrite, "overwrite"):
        raise ValueError("--resume continues the run in --out, --overwrite deletes it: give "
                         "one of them")
    out = run_directory(out, resume)
    with owned(out, say):
        found = claim(out, resume, overwrite, say)
        state = None
        if found is not None:
            state = load_checkpoint(found)
            check_resume(state, config, found)
        trainer = Trainer(config, out)
        if state is not None:
            trainer.restore(state, found)
            say(f"resumed from {found} (update {trainer.update})")
        return run(trainer, progress, plot, say)


def algorithm_spec(algorithm: str | Factory) -> str:
    """The spec (:func:`~.algorithm.factory_of`) of ``train``'s ``algorithm``: a text as it is,
    a factory as ``MODULE:NAME``.

    Raises:
        ValueError: a factory that cannot be imported back by that name (defined in a
            function, or under another name).
    """
    if isinstance(algorithm, str):
        return algorithm
    spec = f"{getattr(algorithm, '__module__', '?')}:{getattr(algorithm, '__qualname__', '?')}"
    try:
        found = factory_of(spec)
    except ValueError:
        found = None
    if found is not algorithm:
        raise ValueError(f"algorithm {algorithm!r} cannot be found again as {spec}: define the "
                         f"factory at the top level of a module (a resumed run imports it)")
    return spec


def run(trainer: Trainer, progress: bool, plot: bool,
        say: Callable[[str], None]) -> TrainResult:
    """The updates of :func:`train` until the budget is spent, then the final files."""
    from tqdm import tqdm

    c, out = trainer.config, trainer.out
    budget = c.minutes * 60.0
    started, wall0 = time.perf_counter(), trainer.wall
    if c.imitate and trainer.update == 0 and trainer.cloned is None:
        say(f"imitating {c.imitate}: {c.imitate_games} games of demonstrations, "
            f"{c.imitate_epochs} passes ...")
        trainer.imitate()
        say(f"  {trainer.cloned.decisions:,} decisions, accuracy {trainer.cloned.accuracy:.1%} "
            f"({trainer.seconds_imitating:.0f} s)")
    by_budget = c.eval_every is None
    evaluated = c.evaluations_due(trainer.update, trainer.wall) if by_budget else 0
    if by_budget:
        say(f"evaluating after each quarter of the budget ({c.evaluation_games()} games a bot; "
            f"--eval-every U: every U updates instead)")

    # on a terminal one live line, redrawn to its width; into a file or a notebook (not a
    # terminal) the whole line, never cut, once per LOG_SECONDS and once at the end
    live = progress and sys.stderr.isatty()
    logged = (-LOG_SECONDS, -1)  # (wall clock, update) of the last line written

    def line(steps_per_s: float, width: int | None = None) -> str:
        league = trainer.league
        members = [(name, league.recent_share(m)) for m, name in enumerate(league.names)
                   if league.filled[m]]
        return progress_line(width or shutil.get_terminal_size().columns, trainer.update,
                             c.max_updates, trainer.wall, c.minutes, steps_per_s, members,
                             RECENT_GAMES)

    def log(steps_per_s: float, last: bool = False) -> None:
        nonlocal logged
        due = logged[1] != trainer.update if last else trainer.wall - logged[0] >= LOG_SECONDS
        if progress and not live and due:
            logged = (trainer.wall, trainer.update)
            print(line(steps_per_s, width=10**6), file=sys.stderr, flush=True)

    row = {"steps_per_s": 0.0}
    with tqdm(bar_format="{desc}", disable=not live, file=sys.stderr) as bar:
        bar.set_description_str(line(0.0))
        while trainer.wall < budget and (c.max_updates is None
                                          or trainer.update < c.max_updates):
            row = trainer.step()
            trainer.wall = wall0 + time.perf_counter() - started
            bar.set_description_str(line(row["steps_per_s"]))
            log(row["steps_per_s"])
            if trainer.update % c.checkpoint_every == 0:
                bar.write(f"checkpoint {trainer.checkpoint()}", file=sys.stderr)
            if by_budget:
                due = c.evaluations_due(trainer.update, trainer.wall)
                if due > evaluated:
                    evaluated = due
                    evaluate_now(trainer, row, bar.write)
            elif c.eval_every and trainer.update % c.eval_every == 0:
                evaluate_now(trainer, row, bar.write)
            trainer.write_curve()
            trainer.wall = wall0 + time.perf_counter() - started
    log(row["steps_per_s"], last=True)
    trainer.checkpoint()
    network = trainer.main.model.policy(trainer.meta())
    policy = write_policy(out / "policy.npz", network)
    trainer.write_curve()
    if plot:
        from .plot import plot_curve
        plot_curve(trainer.curve, out / "curve.png", eval_every=c.eval_every)
    say(f"{trainer.update} updates, {trainer.learner_steps:,} learner steps in "
        f"{trainer.wall / 60:.1f} min ({trainer.seconds / 60:.1f} min of updates); policy "
        f"written to {policy}")
    return TrainResult(out, policy, trainer.update, trainer.learner_steps, trainer.seconds,
                       trainer.curve, network)


def evaluate_now(trainer: Trainer, row: dict, write: Callable[..., None]) -> None:
    """Evaluate the policy as it is now (:func:`evaluate`, in memory; it is written to
    ``latest.npz`` too, the run's latest policy file) into the curve row ``row``, with a line
    per part through ``write`` (tqdm's)."""
    c = trainer.config
    games = c.evaluation_games()
    policy = trainer.main.model.policy(trainer.meta())
    write_policy(trainer.out / "latest.npz", policy)
    write(f"evaluating update {trainer.update} ({games} games against "
          f"{c.players - 1} of each of {', '.join(EVAL_BOTS)}, and of each of "
          f"{', '.join(DEVIATOR_BOTS)} alone against {c.players - 1} copies) ...",
          file=sys.stderr)
    result = evaluate(policy, c.players, games)
    row["eval"], row["deviators"] = result["against"], result["deviators"]
    for what, rates in (("against", result["against"]), ("deviators", result["deviators"])):
        write(f"  {what}: " + ", ".join(
            f"{b}: {r['win_rate']:.1%} [{r['win_rate_ci95'][0]:.1%}, "
            f"{r['win_rate_ci95'][1]:.1%}]" for b, r in rates.items()), file=sys.stderr)
