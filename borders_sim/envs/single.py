"""A Gymnasium env in which one seat learns and the other seats are played by given policies.

Every decision of the learner's seat is one :meth:`SingleSeatEnv.step`; the opponents' decisions
in between are played inside ``step`` and ``reset`` by their policies. The reward comes at the end
of the game only (``reward=`` mode of :mod:`borders_sim.rules.rewards`), with ``terminated=True``;
the game has a proven maximum length, so ``truncated`` is always False.

Action masking: the observation is the plain vector (``Box``), and the legal actions of the
learner's decision come from :meth:`SingleSeatEnv.action_masks` (what sb3-contrib's
``MaskablePPO`` calls) and from ``info["action_mask"]``::

    from sb3_contrib import MaskablePPO
    model = MaskablePPO("MlpPolicy", SingleSeatEnv(num_players=4), seed=0).learn(10_000)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding

from ..agents.seats import Seat, as_seat
from ..game.drawing import game_svg, svg_to_rgb
from ..game.game import Game, IllegalActionError
from ..rules.actions import NUM_ACTIONS, action_id
from ..checks import as_choice, as_int, as_seed, shown
from ..rules.config import GameConfig
from ..rules.observation import OBS_SIZE
from ..rules.state import MAX_PLAYERS
from ..game.turns import Decider, IllegalChoice, play_turns
from ..game.views import observe, observe_text
from ..rules.rewards import final_rewards_at, reward_mode

ILLEGAL_ACTION_MODES = ("raise", "lose")


def _policy(value: Any) -> Decider | None:
    """``value`` as a :data:`~borders_sim.game.turns.Decider`: a callable as it is, an object with a
    callable ``act`` (a bot written to the :class:`~borders_sim.agents.Bot` protocol without
    subclassing it) as that method; ``None`` for anything else."""
    if callable(value):
        return value
    act = getattr(value, "act", None)
    return act if callable(act) else None


def _opponent(value: Any) -> Seat | Decider | None:
    """One opponent as the env keeps it: a seat (a bot's name or spec, ``MODULE:NAME``, a
    :class:`~borders_sim.agents.Seat` or a bot class: a bot made for each game,
    :func:`~borders_sim.agents.as_seat`), or a policy (:func:`_policy`); ``None`` for
    anything else.

    Raises:
        ValueError: an unknown bot name or a bad spec (the message names it).
    """
    if isinstance(value, (str, Seat, type)):
        return as_seat(value)
    return _policy(value)


class RandomPolicy:
    """Uniformly random legal actions from its own generator (the default opponent)."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.rng.choice(np.flatnonzero(action_mask)))


class SingleSeatEnv(gym.Env):
    """One learning seat of a game of BORDERS against fixed policies.

    Args:
        num_players: 3..8.
        seat: the learner's seat, an int ``0..num_players-1`` or ``"random"`` (drawn per episode
            from the env's seeded generator).
        opponents: ``None`` (uniformly random legal actions from a generator seeded by the env),
            one opponent for every other seat, or a list of ``num_players - 1`` where
            ``opponents[j]`` plays the seat ``j + 1`` places after the learner (so the list keeps
            its meaning with ``seat="random"``). An opponent is a bot or a policy:

            * a bot, as a seat of :func:`borders_sim.agents.as_seat`: a name or spec the library
              knows (``"honest"``, ``"ppo:argmax"``), ``"MODULE:NAME"`` (your bot class or
              factory in an importable module), a bot class, or a
              :class:`~borders_sim.agents.Seat` (``Seat("mine", factory=make_mine)`` for a
              factory ``(seed) -> bot``): each opponent seat gets its own bot, made for each
              game with a seed from the env's generator, so a seeded env replays its games;
            * a policy, as it is, shared by the seats it plays: a callable ``(observation,
              action_mask) -> action`` (:data:`~borders_sim.game.turns.Decider`; a bot made by
              :func:`borders_sim.agents.make` is one, and so is any object with such an ``act``
              method). A function is always a policy here, never a factory.

            ``opponents=["honest", "bluffer", MyBot]``, ``opponents="ppo"``.
        reward: the learner's reward at the end, a mode of
            :data:`~borders_sim.rules.rewards.REWARDS`.
        seed: seeds the env's generator as ``reset(seed=seed)`` would, for a first ``reset()``
            without a seed; ``None``: unseeded until ``reset(seed=...)``. A seed is an int
            from 0 to ``2**64 - 1`` (:mod:`borders_sim.checks`).
        render_mode: ``None``, ``"ansi"`` (``render()`` returns the learner's view as text,
            :func:`~borders_sim.game.views.observe_text`), ``"human"`` (that text is
            printed by every ``reset`` and ``step``, Gymnasium's convention) or
            ``"rgb_array"`` (``render()`` returns the learner's view drawn,
            :func:`~borders_sim.game.drawing.seat_svg` with the last decision highlighted: a
            uint8 array of shape :func:`~borders_sim.game.drawing.frame_shape`
            ``(num_players)``, 720 x 1440 x 3 for 3 to 6 players; Gymnasium's ``RecordVideo``
            films it; it needs the optional ``render`` extra).
        illegal_action: what a learner action that is not legal now does: ``"lose"`` (default,
            PettingZoo's classic convention): the game ends at once, the learner's reward is -1
            whatever the reward mode, and ``info["illegal_action"]`` is True; or ``"raise"``:
            :class:`~borders_sim.IllegalActionError`, nothing changes. An action that is not an
            id of the action space (not an int, or outside ``0..NUM_ACTIONS - 1``) raises
            ``IllegalActionError`` in both modes: a policy bug, not a move.
        **flags: any other :class:`~borders_sim.GameConfig` flag.

    Spaces: ``observation_space`` is ``Box(0, float32 max, (OBS_SIZE,), float32)`` (layout
    :data:`~borders_sim.rules.observation.OBSERVATION_LAYOUT`, the learner's view);
    ``action_space`` is ``Discrete(NUM_ACTIONS)``. The legal actions are in :meth:`action_masks`
    and ``info["action_mask"]`` (bool[NUM_ACTIONS]); ``info["seat"]`` is the learner's seat, and at
    the end ``info["scores"]`` the final scores of all seats.

    Note: :meth:`action_space.sample` knows no mask. Gymnasium's ``check_env`` steps such samples,
    and passes with the default ``illegal_action="lose"``; pass ``"raise"`` to make any
    illegal action an error while debugging a policy.

    ``env.game`` is the :class:`~borders_sim.Game` in play (read it; do not step it).

    An opponent policy that raises or returns an illegal action stops the game at that
    opponent's decision: the call that ran it raises (the policy's own exception, or
    :class:`~borders_sim.IllegalActionError` naming the seat), and every later call but
    :meth:`reset` raises ``RuntimeError`` saying so, so the opponent's decision is never
    offered to the learner.
    """

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 4}

    def __init__(self, num_players: int = 4, seat: int | str = 0,
                 opponents: Decider | Sequence[Decider] | None = None, reward: str = "win",
                 seed: int | None = None, render_mode: str | None = None,
                 illegal_action: str = "lose", **flags) -> None:
        self.config = GameConfig(num_players=num_players, **flags)
        n = self.config.num_players
        if not (isinstance(seat, str) and seat == "random"):
            seat = as_int(seat, "seat", 0, n - 1, f"a seat, an int from 0 to {n - 1}, or 'random'")
        one = None if opponents is None else _opponent(opponents)  # each made once
        if one is not None:
            opponents = [one] * (n - 1)
        elif opponents is not None:
            kept = [_opponent(p) for p in opponents] if isinstance(opponents, Sequence) \
                and len(opponents) == n - 1 else [None]
            if any(k is None for k in kept):
                raise ValueError(f"opponents must be None, one opponent for every other seat "
                                 f"or a list of {n - 1}; an opponent is a bot (a name or spec, "
                                 f"MODULE:NAME, a Seat, a bot class) or a policy (a callable "
                                 f"(observation, action_mask) -> action, or an object with "
                                 f"such an act method); got {shown(opponents)}")
            opponents = kept
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of "
                             f"{self.metadata['render_modes']}, got {render_mode!r}")
        illegal_action = as_choice(illegal_action, "illegal_action", ILLEGAL_ACTION_MODES)
        if seed is not None:
            seed = as_seed(seed)
        self._mode = reward_mode(reward)
        self.reward_name = reward
        self.seat_choice = seat
        self.opponents = opponents
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.observation_space = spaces.Box(0.0, np.finfo(np.float32).max, (OBS_SIZE,),
                                            np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        if seed is not None:
            self._np_random, self._np_random_seed = seeding.np_random(seed)
        self.game: Game | None = None
        self.seat = 0 if seat == "random" else seat
        self._policies: list[Decider | None] = []  # by seat; None at the learner's
        self._done = False
        self._broken: str | None = None  # why an opponent stopped the game, if one did
        self._last_action: tuple[int, int] | None = None  # (seat, action) of the last decision

    # --- gymnasium API -------------------------------------------------------------------
    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """Deal a new game (from the env's generator) and play the opponents up to the
        learner's first decision. ``seed`` (0 to ``2**64 - 1``) reseeds the env's generator;
        ``options`` is accepted and unused."""
        super().reset(seed=None if seed is None else as_seed(seed))
        n = self.config.num_players
        rng = self.np_random
        game_seed = int(rng.integers(0, 2**63))
        if self.seat_choice == "random":
            self.seat = int(rng.integers(0, n))
        policy_rng = np.random.default_rng(int(rng.integers(0, 2**63)))
        if self.opponents is None:
            policies = [RandomPolicy(policy_rng)] * (n - 1)
        else:  # a seat's bot is made for this game, from a seed of the env's generator
            policies = [_policy(p.make(int(policy_rng.integers(0, 2**63))))
                        if isinstance(p, Seat) else p for p in self.opponents]
        self._policies = [None if p == self.seat
                          else self._marked(p, policies[(p - self.seat - 1) % n])
                          for p in range(n)]
        self.game = Game(self.config, game_seed)
        self._done = False
        self._broken = None
        self._last_action = None
        # every seat has a market decision in round 1, so the learner always gets to act
        self._play_opponents()
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(self, action) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Apply the learner's ``action`` (an int id), then the opponents' decisions up to the
        learner's next decision or the end of the game.

        Raises:
            RuntimeError: :meth:`reset` was not called, the game is over, or an opponent
                policy stopped it (see the class docstring).
            IllegalActionError: the action is not an id of the action space, or it is illegal
                and ``illegal_action="raise"`` (the game does not change), or an opponent policy
                returned an illegal action (the message names the seat).
        """
        self._require_game("step()")
        if self._done:
            raise RuntimeError("the game is over; call reset()")
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action.item()
        action = action_id(action)
        legal = bool(self.game.legal_mask()[action])
        reward = 0.0
        if not legal and self.illegal_action == "lose":
            self._done = True
            reward = -1.0
            info = self._info()
            info["illegal_action"] = True
        else:
            self.game.step(action, player=self.seat)  # raises IllegalActionError, no change
            self._last_action = (self.seat, action)
            self._play_opponents()
            info = self._info()
            if self.game.is_terminal:
                self._done = True
                out = np.zeros(MAX_PLAYERS, dtype=np.float32)
                final_rewards_at(self.game.state, 0, self._mode, out)
                reward = float(out[self.seat])
                info["scores"] = self.game.scores()
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, self._done, False, info

    def action_masks(self) -> np.ndarray:
        """bool[NUM_ACTIONS]: the learner's legal actions now (all False once the game is
        over), as sb3-contrib's ``MaskablePPO`` expects."""
        self._require_game("action_masks()")
        if self._done:
            return np.zeros(NUM_ACTIONS, dtype=np.bool_)
        return self.game.legal_mask().astype(np.bool_)

    def render(self) -> str | np.ndarray | None:
        """The learner's view as text (``"ansi"``: returned; ``"human"``: printed) or drawn
        (``"rgb_array"``: uint8[H, W, 3], the last decision highlighted).

        Raises:
            ModuleNotFoundError: ``"rgb_array"`` without the optional ``render`` extra (the
                message says how to install it).
        """
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode='ansi', "
                            "'human' or 'rgb_array' to SingleSeatEnv")
            return None
        self._require_game("render()")
        if self.render_mode == "rgb_array":
            return svg_to_rgb(game_svg(self.game, self.seat, self._last_action))
        text = observe_text(self.game, self.seat)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    # --- internals -----------------------------------------------------------------------
    def _require_game(self, what: str) -> None:
        """Refuse ``what`` before the first :meth:`reset` or after an opponent stopped the game."""
        if self.game is None:
            raise RuntimeError(f"call reset() before {what}")
        if self._broken is not None:
            raise RuntimeError(f"{what}: this episode stopped at an opponent's decision "
                               f"({self._broken}); call reset()")

    def _play_opponents(self) -> None:
        """The opponents' decisions up to the learner's next one, or the end of the game
        (:func:`~borders_sim.game.turns.play_turns`)."""
        try:
            play_turns(self.game, self._policies, on_step=self._note)
        except IllegalChoice as err:
            self._broken = (f"the opponent policy of seat p{err.seat} returned "
                            f"{shown(err.choice)}, which is not a legal action")
            raise IllegalActionError(f"the opponent policy of {err}") from None

    def _note(self, seat: int, action: int) -> None:
        """Keep ``(seat, action)`` as the last decision (drawn by ``render``)."""
        self._last_action = (seat, action)

    def _marked(self, p: int, policy: Decider) -> Decider:
        """``policy`` playing seat ``p``, marking the episode stopped if it raises."""
        def decide(observation: np.ndarray, action_mask: np.ndarray) -> int:
            try:
                return policy(observation, action_mask)
            except Exception as err:
                self._broken = (f"the opponent policy of seat p{p} raised "
                                f"{type(err).__name__}: {shown(str(err))}")
                raise
        return decide

    def _observation(self) -> np.ndarray:
        return observe(self.game, self.seat)

    def _info(self) -> dict:
        return {"action_mask": self.action_masks(), "seat": self.seat}
