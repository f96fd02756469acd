"""The league: the pool of opponents a run trains against, and how often it meets each.

Members are compiled bots (:data:`~borders_sim.policies.dispatch.COMPILED_BOTS`), frozen
policy networks (:class:`~borders_sim.policies.network.NetPlayer`, read once from the network
specs of the run's settings by :meth:`~borders_sim.train.config.TrainConfig.league`: ``ppo``,
the shipped policy; ``ppo@PATH``, a policy file; ``ppo:argmax``, greedy;
:func:`~borders_sim.policies.network.parse_net_spec`) and, with
self-play, ``snapshots`` of the learner itself: every ``snapshot_every`` updates the learner's
current policy is frozen into the oldest snapshot slot (the slots fill up first), so the
learner plays its own past. Every network plays at its temperature through the one compiled
sampler (:mod:`borders_sim.policies.network`): snapshots and plain specs sample their policy
(temperature 1, as the ``ppo`` bot plays), ``ppo:argmax`` takes its most likely legal action.
All members play inside the
compiled training env (:class:`~borders_sim.envs.training.TrainingEnv`); a game's opponents are
one member (a copy in every opponent seat) or, at a mixed table (``mixed``), one member per
seat; a game counts for each member at its table.

**Who is met how often** (prioritised fictitious self-play): the learner's win share against
each member is tracked as an exponential average over the games against it (about the last
:data:`WINDOW` games; it starts at a fair share, ``1 / players``), and a game draws member ``m``
with probability proportional to ``(1 - w_m) ** 2 + FLOOR``: the members it beats least are
met most, and no member is ever dropped. Empty snapshot slots are never drawn.

**What the run reports** is another figure: the learner's win share over the last
:data:`RECENT_GAMES` finished games against each member (:meth:`League.recent_share`; None
before the first game, and again once a slot takes a new policy), the progress bar's and the
curve's ``win_vs_NAME``; unlike the average above it starts from no assumed share.

**Main exploiters** (AlphaStar's): with exploiter slots, the trainer's main exploiter, a second
learner trained only against copies of the current policy, puts its policy into the oldest
exploiter slot every ``exploiter_every`` updates (:mod:`.trainer`), so the main agent meets what
beats it now, not only its past and the heuristics.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from ..policies.network import SAMPLE_TEMPERATURE, NetPlayer, Policy, parse_net_spec
from ..policies.dispatch import COMPILED_BOTS
from ..policies.registry import roster
from ..agents import REGISTRY
from ..user_code import NAMED

#: Games an average of win shares mostly looks back on.
WINDOW = 500
#: The least weight of a member, relative to one it never beats.
FLOOR = 0.05
#: The finished games per member that the reported win shares look back on.
RECENT_GAMES = 200
#: The compiled bots of ``--opponents league`` (with self-play): those whose entry in
#: :data:`~borders_sim.policies.registry.BOTS` joins the league, the heuristics then random
#: play.
LEAGUE_BOTS = roster("league")


def check_member(name: str) -> str:
    """``name`` if the trainer can play it: a compiled bot or a network spec; otherwise a
    ``ValueError`` saying why, in one line (a user's Python bot ``MODULE:NAME``, or a Python bot
    of the library, cannot play inside the compiled training env).

    Raises:
        ValueError: ``name`` is neither.
    """
    if name in COMPILED_BOTS:
        return name
    try:
        parse_net_spec(name)
        return name
    except ValueError:
        pass
    why = (f"{name!r} is a Python bot, and the trainer's opponents play inside the compiled "
           f"training env (TrainingEnv), which runs compiled bots and policy networks only; "
           f"train against it with SingleSeatEnv(opponents=...), or seat it in a tournament"
           if NAMED.fullmatch(name) or name in REGISTRY else
           f"the trainer's opponents are compiled bots ({', '.join(COMPILED_BOTS)}) or "
           f"network specs (ppo[:argmax|:temp=T][@PATH]: the shipped policy or a policy file, "
           f"sampled unless :argmax; ppo-zoo/NAME: a zoo member), got {name!r}")
    raise ValueError(why)


@dataclass
class League:
    """The pool (module docstring). ``bots``: compiled bot names and policy networks
    (:class:`~borders_sim.policies.network.NetPlayer`, named as the tables show them); with
    ``snapshots`` > 0, that many self-play slots, and with ``exploiters`` > 0 that many slots
    for the main exploiter's policies (:mod:`.trainer`), all filled from ``initial`` at the
    start (so the pool's shapes are fixed) but drawn only once a policy was put in them."""

    bots: tuple[str | NetPlayer, ...]
    players: int
    snapshots: int = 0
    snapshot_every: int = 10
    initial: Policy | None = None
    exploiters: int = 0
    win: np.ndarray = field(init=False)
    filled: np.ndarray = field(init=False)
    games: np.ndarray = field(init=False)
    recent: list[deque] = field(init=False)
    next_slot: int = 0
    next_exploiter: int = 0

    def __post_init__(self) -> None:
        for bot in self.bots:
            if not isinstance(bot, NetPlayer):
                check_member(bot)
        if (self.snapshots or self.exploiters) and self.initial is None:
            raise ValueError("self-play and exploiter slots need the initial policy")
        m = len(self.bots) + self.snapshots + self.exploiters
        self.win = np.full(m, 1.0 / self.players)
        self.filled = np.array([True] * len(self.bots) + [False] * (m - len(self.bots)))
        self.games = np.zeros(m, dtype=np.int64)
        self.recent = [deque(maxlen=RECENT_GAMES) for _ in range(m)]

    @property
    def names(self) -> list[str]:
        return ([b.name if isinstance(b, NetPlayer) else b for b in self.bots]
                + [f"self-{k}" for k in range(self.snapshots)]
                + [f"exploiter-{k}" for k in range(self.exploiters)])

    def members(self) -> list[str | NetPlayer]:
        """The pool for :class:`~borders_sim.envs.training.TrainingEnv`, in member order."""
        out = list(self.bots)
        out += [NetPlayer(name, self.initial, SAMPLE_TEMPERATURE)
                for name in self.names[len(self.bots):]]
        return out

    def weights(self) -> np.ndarray:
        """The chance of each member per game (module docstring)."""
        w = np.where(self.filled, (1.0 - self.win) ** 2 + FLOOR, 0.0)
        return w / w.sum()

    def record(self, members: np.ndarray, shares: np.ndarray) -> None:
        """Fold in finished games: ``members[g]`` the member the learner faced in game ``g``,
        ``shares[g]`` its win share there."""
        rate = 1.0 / WINDOW
        for m, share in zip(members.tolist(), shares.tolist()):
            self.win[m] += rate * (share - self.win[m])
            self.games[m] += 1
            self.recent[m].append(share)

    def recent_share(self, m: int) -> float | None:
        """The learner's win share over its last :data:`RECENT_GAMES` finished games against
        member ``m`` (fewer before it met ``m`` that often), None before the first."""
        games = self.recent[m]
        return sum(games) / len(games) if games else None

    def snapshot_due(self, update: int) -> bool:
        return self.snapshots > 0 and update % self.snapshot_every == 0

    def take_snapshot(self) -> int:
        """The member index of the slot the next snapshot goes into (the oldest), marked
        filled, its average reset to a fair share."""
        m = len(self.bots) + self.next_slot
        self.next_slot = (self.next_slot + 1) % self.snapshots
        self.filled[m] = True
        self.win[m] = 1.0 / self.players
        self.recent[m].clear()
        return m

    def newest_snapshot(self) -> int:
        """The member index of the newest self-play snapshot, -1 while there is none."""
        if not self.snapshots:
            return -1
        m = len(self.bots) + (self.next_slot - 1) % self.snapshots
        return m if self.filled[m] else -1

    def take_exploiter(self) -> int:
        """The member index of the exploiter slot the main exploiter's policy goes into (the
        oldest), marked filled, its average reset to a fair share."""
        m = len(self.bots) + self.snapshots + self.next_exploiter
        self.next_exploiter = (self.next_exploiter + 1) % self.exploiters
        self.filled[m] = True
        self.win[m] = 1.0 / self.players
        self.recent[m].clear()
        return m

    def state(self) -> dict:
        """What a checkpoint keeps of the league (with :meth:`restore`)."""
        return {"win": self.win.copy(), "filled": self.filled.copy(), "games": self.games.copy(),
                "recent": [list(games) for games in self.recent],
                "next_slot": self.next_slot, "next_exploiter": self.next_exploiter}

    def restore(self, state: dict) -> None:
        self.win[:] = state["win"]
        self.filled[:] = state["filled"]
        self.games[:] = state["games"]
        for games, saved in zip(self.recent, state["recent"]):
            games.clear()
            games.extend(float(share) for share in saved)
        self.next_slot = int(state["next_slot"])
        self.next_exploiter = int(state["next_exploiter"])
