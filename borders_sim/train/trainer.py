"""The training loop: masked PPO over the compiled training env, against a league.

:func:`train` runs one experiment into an output directory:

1. build the pool (:mod:`.league`) and the training env
   (:class:`~borders_sim.envs.training.TrainingEnv`, every opponent inside the compiled call);
2. repeat until the time or step budget is spent: collect ``steps`` decisions in each of the
   ``num_envs`` games with the current policy (sampled from its masked logits), compute GAE
   advantages per game slot, run the clipped PPO update (:mod:`.ppo`); fold the finished games
   into the league's win averages and reweight the pool; every ``snapshot_every`` updates freeze
   the learner into a self-play slot;
3. every ``checkpoint_every`` updates write a checkpoint (``checkpoints/update-NNNNNN.pt``, with
   everything needed to resume: weights, optimizer, league, every game in flight, the random
   generators; and ``checkpoints/update-NNNNNN.npz``, the policy file of that moment); every
   ``eval_every`` updates play the policy against each heuristic, and each heuristic and
   random play as a single deviator against copies of the policy, through the tournament code
   (:func:`evaluate`, seat-rotated, on seeds the training never uses);
4. at the end write ``policy.npz`` (the final policy, ``make("ppo", weights=DIR)``), the
   learning curve ``curve.csv`` / ``curve.json`` (one row per update) and, with ``plot``,
   ``curve.png``.

**Budget.** ``minutes`` is the whole run's wall clock (updates, checkpoints and evaluations),
checked between updates, so a run ends within one update of it (plus the final checkpoint).

**Repeatability.** One ``seed`` seeds the env's stream of games, the league's draws, the
network's initialisation, the action samples and the minibatch shuffles; with one numba thread
and one torch thread a run is repeatable step for step (with more numba threads too: the env's
games do not depend on the thread count). The budget in minutes is wall clock, so two runs of
the same minutes may stop after different numbers of updates; ``max_updates`` fixes it.

**Anchor and magnet.** With ``ppo.anchor_coef > 0`` the loss adds a KL penalty toward a frozen
*anchor* network (:mod:`.ppo`). By default the anchor is the policy the run starts from (the
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

**Device.** The update runs where ``device`` says (default the CPU, where the first layer and
its gradient are computed from the observations' non-zero entries, :mod:`.sparse`; on
``"cuda"`` the network, its optimizer and its update live on the GPU, dense); the env and the
compiled acting network stay on the CPU, which receives the weights after every update.

**Threads.** Torch uses ``torch_threads`` (default 1: on 2 cores, two torch threads beside the
env's threads ran 6x slower), the env numba's threads.
"""

from __future__ import annotations

import copy
import csv
import json
import os
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import torch

from .. import __version__
from ..agents.network import Policy, load_policy, save_policy
from ..envs.training import TrainingEnv
from ..rules.args import as_int, as_seed
from .acting import CompiledActor
from .config import TrainConfig
from .imitate import CloneStats, clone
from .model import PolicyValueNet
from .ppo import Rollout, UpdateStats, ppo_update

#: Tournament seeds of the evaluations: game ``g`` of an evaluation is dealt from
#: ``EVAL_SEED + g`` (the training env's games come from hashed seeds, see
#: :func:`~borders_sim.envs.vector.derive_seed`).
EVAL_SEED = 10**15
EVAL_BOTS = ("honest", "bluffer", "collector", "strict")
#: The single deviators an evaluation plays against copies of the policy.
DEVIATOR_BOTS = ("honest", "bluffer", "collector", "strict", "random")
#: Tournament seeds of the demonstration games of behaviour cloning (``imitate``): game ``g`` of
#: a run of seed ``s`` is dealt from ``DEMO_SEED + s * 10**7 + g``, far from the evaluations'
#: and from the seeds tournaments start at.
DEMO_SEED = 3 * 10**15


@dataclass
class TrainResult:
    """What :func:`train` leaves: the output directory, the final policy file, the curve."""

    out: Path
    policy: Path
    updates: int
    learner_steps: int
    seconds: float
    curve: list[dict]


class _Clock:
    """Seconds spent per part of an update (env, inference, update), for the curve."""

    def __init__(self) -> None:
        self.parts = {"env": 0.0, "inference": 0.0, "update": 0.0}

    def add(self, part: str, since: float) -> float:
        now = time.perf_counter()
        self.parts[part] += now - since
        return now


class Trainer:
    """The state of one run (see the module docstring); :func:`train` drives it."""

    def __init__(self, config: TrainConfig, out: str | os.PathLike) -> None:
        self.config = c = config
        as_int(c.players, "players", 3, 8)
        as_seed(c.seed)
        as_int(c.ppo.anchor_every, "anchor_every", 0)
        if c.ppo.anchor_coef > 0 and c.init is None and c.imitate is None and \
                not c.ppo.anchor_every:
            raise ValueError("a fixed anchor (anchor_coef > 0, anchor_every 0) is the policy the "
                             "run starts from: it needs imitate or init (or a moving anchor, "
                             "anchor_every > 0)")
        self.out = Path(out)
        torch.set_num_threads(as_int(c.torch_threads, "torch_threads", 1))
        torch.manual_seed(c.seed)
        self.model = PolicyValueNet(c.hidden)
        if c.init is not None:
            self.model.load_policy(load_policy(c.init))
        self.model.to(training_device(c.device))
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=c.lr, eps=1e-5)
        self.generator = torch.Generator().manual_seed(c.seed)
        self.league = c.league(self.model.policy())
        self.env = TrainingEnv(c.num_envs, num_players=c.players,
                               opponents=self.league.members(), weights=self.league.weights(),
                               mixed=c.mixed, reward=c.reward, dense=c.dense, seed=c.seed)
        self.rollout = Rollout(c.steps, c.num_envs)
        self.actor = CompiledActor(c.num_envs, c.seed)
        self.actor.load(self.model)
        self.anchor: PolicyValueNet | None = None
        self.freeze_anchor()
        self.update = 0
        self.learner_steps = 0
        self.cloned: CloneStats | None = None
        self.seconds_imitating = 0.0
        self.seconds = 0.0  # in updates (collect and learn), for steps/s
        self.wall = 0.0  # the whole run's wall clock: updates, checkpoints and evaluations
        self.curve: list[dict] = []
        self.clock = _Clock()
        self.obs, self.infos = self.env.reset()

    def freeze_anchor(self) -> None:
        """Keep a frozen copy of the network as it is now: the anchor of the KL penalty."""
        if self.config.ppo.anchor_coef > 0:
            self.anchor = copy.deepcopy(self.model).requires_grad_(False)

    def imitate(self) -> None:
        """Behaviour cloning of ``config.imitate`` before the first update (its own Adam at
        1e-3; PPO's optimizer starts fresh after it)."""
        c = self.config
        start = time.perf_counter()
        optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.cloned = clone(self.model, optimizer, c.imitate, c.players, c.imitate_games,
                            c.imitate_epochs, DEMO_SEED + c.seed * 10**7)
        self.actor.load(self.model)
        self.freeze_anchor()
        self.seconds_imitating = time.perf_counter() - start

    # --- one update ------------------------------------------------------------------------
    def collect(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One rollout; returns the learner's win share in each finished game, and the same
        shares per member faced (``members``, ``shares``: a game counts once for each member at
        its table, so a mixed table is credited to each of its members)."""
        c, r, env = self.config, self.rollout, self.env
        games, members, shares = [], [], []
        t0 = time.perf_counter()
        for t in range(c.steps):
            mask = self.infos["action_mask"]
            action, logp, value = self.actor.act(self.obs, mask)
            r.put(t, self.obs, mask, torch.from_numpy(action), torch.from_numpy(logp),
                  torch.from_numpy(value))
            t0 = self.clock.add("inference", t0)
            self.obs, reward, done, _, self.infos = env.step(action)
            r.result(t, reward, done)
            for k in np.flatnonzero(done):
                seats, share = self.infos["ended_members"][k], self.infos["outcome"][k, 2]
                faced = np.unique(seats[seats >= 0])
                games.append(share)
                members.append(faced)
                shares.append(np.full(len(faced), share))
            t0 = self.clock.add("env", t0)
        self.learner_steps += c.steps * c.num_envs
        if not games:
            return np.zeros(0), np.zeros(0, dtype=np.int64), np.zeros(0)
        return np.array(games), np.concatenate(members), np.concatenate(shares)

    def learn(self) -> UpdateStats:
        c = self.config
        t0 = time.perf_counter()
        if c.anneal_lr and c.max_updates:
            frac = 1.0 - self.update / c.max_updates
            self.optimizer.param_groups[0]["lr"] = c.lr * max(frac, 0.05)
        device = self.model.inv_scale.device
        with torch.no_grad():
            _, last_value = self.model(torch.from_numpy(self.obs).to(device),
                                       torch.from_numpy(self.infos["action_mask"]).to(device))
        adv, returns = self.rollout.advantages(last_value.cpu(), c.ppo)
        stats = ppo_update(self.model, self.optimizer, self.rollout, adv, returns, c.ppo,
                           self.generator, self.anchor)
        self.clock.add("update", t0)
        return stats

    def step(self) -> dict:
        """Collect, learn, move the anchor when due, reweight the league, snapshot: one update;
        returns its curve row."""
        c = self.config
        start = time.perf_counter()
        games, members, shares = self.collect()
        self.league.record(members, shares)
        stats = self.learn()
        self.actor.load(self.model)
        self.update += 1
        if c.ppo.anchor_every and self.update % c.ppo.anchor_every == 0:
            self.freeze_anchor()
        if self.league.snapshot_due(self.update):
            self.env.replace_policy(self.league.take_snapshot(), self.model.policy())
        self.env.set_weights(self.league.weights())
        self.seconds += time.perf_counter() - start
        row = {"update": self.update, "learner_steps": self.learner_steps,
               "seconds": round(self.seconds, 3),
               "steps_per_s": round(self.learner_steps / max(self.seconds, 1e-9), 1),
               "games": len(games), "win_share": float(games.mean()) if len(games) else None,
               **{k: round(v, 6) for k, v in asdict(stats).items()},
               **{f"seconds_{k}": round(v, 3) for k, v in self.clock.parts.items()}}
        for name, w in zip(self.league.names, self.league.win):
            row[f"win_vs_{name}"] = round(float(w), 4)
        self.curve.append(row)
        return row

    # --- saving ------------------------------------------------------------------------------
    def meta(self) -> dict:
        c = self.config
        cloned = (None if self.cloned is None else
                  {"teacher": c.imitate, "games": c.imitate_games, "epochs": c.imitate_epochs,
                   "decisions": self.cloned.decisions, "accuracy": round(self.cloned.accuracy, 4),
                   "seconds": round(self.seconds_imitating, 1)})
        return {"trained_by": f"borders_sim {__version__}", "players": c.players,
                "opponents": list(c.opponents), "seed": c.seed, "imitated": cloned,
                "updates": self.update,
                "learner_steps": self.learner_steps, "seconds": round(self.seconds, 1),
                "hidden": list(c.hidden), "reward": c.reward, "dense": c.dense,
                "anchor_coef": c.ppo.anchor_coef, "anchor_every": c.ppo.anchor_every}

    def checkpoint(self) -> Path:
        """Write ``checkpoints/update-NNNNNN.pt`` and ``.npz`` (module docstring)."""
        folder = self.out / "checkpoints"
        folder.mkdir(parents=True, exist_ok=True)
        stem = folder / f"update-{self.update:06d}"
        save_policy(stem.with_suffix(".npz"), self.model.policy(self.meta()))
        env = self.env
        snapshots = {m: p.policy for m, p in env._players.items()}
        state = {"config": asdict(self.config), "update": self.update,
                 "learner_steps": self.learner_steps, "seconds": self.seconds,
                 "wall": self.wall, "cloned": self.cloned,
                 "seconds_imitating": self.seconds_imitating,
                 "curve": self.curve, "model": self.model.state_dict(),
                 "anchor": None if self.anchor is None else self.anchor.state_dict(),
                 "optimizer": self.optimizer.state_dict(), "generator": self.generator.get_state(),
                 "torch_rng": torch.get_rng_state(), "actor": self.actor.state(),
                 "league": self.league.state(),
                 "env": env.state_arrays(), "obs": self.obs.copy(),
                 "snapshots": {m: vars(p) for m, p in snapshots.items()}}
        torch.save(state, stem.with_suffix(".part"))
        os.replace(stem.with_suffix(".part"), stem.with_suffix(".pt"))
        return stem.with_suffix(".pt")

    def resume(self, path: Path) -> None:
        """Continue from the checkpoint ``path`` (written by :meth:`checkpoint`)."""
        state = torch.load(path, weights_only=False)
        self.model.load_state_dict(state["model"])
        if state["anchor"] is not None:
            self.freeze_anchor()
            self.anchor.load_state_dict(state["anchor"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.generator.set_state(state["generator"])
        torch.set_rng_state(state["torch_rng"])
        self.actor.restore(state["actor"])
        self.actor.load(self.model)
        self.league.restore(state["league"])
        for m, arrays in state["snapshots"].items():
            self.env.replace_policy(int(m), Policy(**arrays))
        self.env.set_weights(self.league.weights())
        self.env.load_state_arrays(state["env"])
        self.obs = state["obs"]
        self.infos = self.env.pending_infos()
        self.update = state["update"]
        self.learner_steps = state["learner_steps"]
        self.seconds = state["seconds"]
        self.wall = state["wall"]
        self.cloned = state["cloned"]
        self.seconds_imitating = state["seconds_imitating"]
        self.curve = state["curve"]

    def write_curve(self) -> None:
        rows = self.curve
        (self.out / "curve.json").write_text(json.dumps(rows, indent=1) + "\n")
        keys = list(dict.fromkeys(k for row in rows for k in row))
        with open(self.out / "curve.csv", "w", newline="") as f:
            writer = csv.DictWriter(f, keys)
            writer.writeheader()
            writer.writerows(rows)


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


def latest_checkpoint(out: str | os.PathLike) -> Path | None:
    """The newest ``checkpoints/update-*.pt`` of a run directory, or None."""
    found = sorted(Path(out).glob("checkpoints/update-*.pt"))
    return found[-1] if found else None


def evaluate(policy_path: str | os.PathLike, players: int, games: int,
             bots: tuple[str, ...] = EVAL_BOTS, deviators: tuple[str, ...] = DEVIATOR_BOTS,
             seed: int = EVAL_SEED) -> dict[str, dict[str, dict]]:
    """The policy (sampled, as ``ppo@PATH`` plays) in seat-rotated tournaments of ``games``
    games each (compiled path, seeds ``seed + g``): ``"against"``, per bot of ``bots``, the
    policy against ``players - 1`` copies of it; ``"deviators"``, per bot of ``deviators``,
    that bot as a single deviator against ``players - 1`` copies of the policy (how
    exploitable the policy is by it, :mod:`borders_sim.arena.deviators`). Each entry: the
    ``win_rate`` of the single player, its ``win_rate_ci95`` (Wilson) and ``games``."""
    from ..arena import run_tournament  # (imports the tournament code only when evaluating)
    spec = f"ppo@{policy_path}"
    out: dict[str, dict[str, dict]] = {"against": {}, "deviators": {}}
    for kind, names in (("against", bots), ("deviators", deviators)):
        for bot in names:
            one, many = (spec, bot) if kind == "against" else (bot, spec)
            res = run_tournament(players, [one] + [many] * (players - 1), games, seed)
            row = res.bots[0]
            out[kind][bot] = {"win_rate": row["win_rate"], "win_rate_ci95": row["win_rate_ci95"],
                              "games": res.games_played}
    return out


def train(config: TrainConfig, out: str | os.PathLike, resume: bool = False,
          progress: bool = True, plot: bool = False,
          echo: Callable[[str], None] | None = None) -> TrainResult:
    """Run the experiment ``config`` into the directory ``out`` (module docstring); with
    ``resume`` continue from its latest checkpoint. A tqdm bar on stderr shows the learner's
    steps/s and its win share against each pool member; ``echo`` gets one line per event
    (checkpoints, evaluations)."""
    from tqdm import tqdm

    say = echo or (lambda line: print(line, file=sys.stderr, flush=True))
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    trainer = Trainer(config, out)
    if resume:
        found = latest_checkpoint(out)
        if found is None:
            raise ValueError(f"--resume: no checkpoint in {out / 'checkpoints'}")
        trainer.resume(found)
        say(f"resumed from {found} (update {trainer.update})")
    c = config
    budget = c.minutes * 60.0
    started, wall0 = time.perf_counter(), trainer.wall
    if c.imitate and trainer.update == 0 and trainer.cloned is None:
        say(f"imitating {c.imitate}: {c.imitate_games} games of demonstrations, "
            f"{c.imitate_epochs} passes ...")
        trainer.imitate()
        say(f"  {trainer.cloned.decisions:,} decisions, accuracy {trainer.cloned.accuracy:.1%} "
            f"({trainer.seconds_imitating:.0f} s)")
    with tqdm(total=c.max_updates, initial=trainer.update, unit="update", desc="training",
              disable=not progress, file=sys.stderr, dynamic_ncols=True) as bar:
        while trainer.wall < budget and (c.max_updates is None
                                          or trainer.update < c.max_updates):
            row = trainer.step()
            wins = " ".join(f"{name}={row[f'win_vs_{name}']:.2f}"
                            for name, filled in zip(trainer.league.names, trainer.league.filled)
                            if filled)
            bar.set_postfix_str(f"{row['steps_per_s']:,.0f} steps/s | win {wins}", refresh=False)
            bar.update(1)
            if trainer.update % c.checkpoint_every == 0:
                bar.write(f"checkpoint {trainer.checkpoint()}", file=sys.stderr)
            if c.eval_every and trainer.update % c.eval_every == 0:
                path = save_policy(out / "latest.npz", trainer.model.policy(trainer.meta()))
                bar.write(f"evaluating update {trainer.update} ({c.eval_games} games against "
                          f"{c.players - 1} of each of {', '.join(EVAL_BOTS)}, and of each of "
                          f"{', '.join(DEVIATOR_BOTS)} alone against {c.players - 1} copies) ...",
                          file=sys.stderr)
                result = evaluate(path, c.players, c.eval_games)
                row["eval"], row["deviators"] = result["against"], result["deviators"]
                for what, rates in (("against", result["against"]),
                                    ("deviators", result["deviators"])):
                    bar.write(f"  {what}: " + ", ".join(
                        f"{b}: {r['win_rate']:.1%} [{r['win_rate_ci95'][0]:.1%}, "
                        f"{r['win_rate_ci95'][1]:.1%}]" for b, r in rates.items()),
                        file=sys.stderr)
            trainer.write_curve()
            trainer.wall = wall0 + time.perf_counter() - started
    trainer.checkpoint()
    policy = save_policy(out / "policy.npz", trainer.model.policy(trainer.meta()))
    trainer.write_curve()
    if plot:
        from .plot import plot_curve
        plot_curve(trainer.curve, out / "curve.png")
    say(f"{trainer.update} updates, {trainer.learner_steps:,} learner steps in "
        f"{trainer.wall / 60:.1f} min ({trainer.seconds / 60:.1f} min of updates); policy "
        f"written to {policy}")
    return TrainResult(out, policy, trainer.update, trainer.learner_steps, trainer.seconds,
                       trainer.curve)
