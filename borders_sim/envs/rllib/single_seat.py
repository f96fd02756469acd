"""One learning seat against bots, as a Gymnasium env in RLlib's masking keys.

:class:`SingleSeatRLlibEnv` is :class:`~borders_sim.envs.SingleSeatEnv` (one seat learns, the
other seats are played by bots inside ``step``) with the observation RLlib's masking module
reads: a Dict of ``"observations"`` and a float32 ``"action_mask"`` (:mod:`.spaces`), the mask
moved from ``info`` into the observation. It is built from RLlib's ``env_config``, so the
opponents are bot specs (``"honest"``, ``"ppo:argmax"``, ``"ppo@PATH"``, any name of
:func:`borders_sim.agents.make_spec`), made in the env's process: each env copy on each
runner seeds its own bots. For many games per call, with the opponents compiled, use the
``training`` route (:mod:`.vector`) instead: this env plays one game in Python.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
import numpy as np

from ...agents.lineup import make_spec
from ...checks import as_int, as_seed, as_sequence
from ..single import SingleSeatEnv
from .spaces import dict_obs, env_settings, observation_space, runner_seed, scales

#: The settings of ``env_config`` this env reads itself; every other key goes to
#: :class:`~borders_sim.envs.SingleSeatEnv` (``seat``, ``reward``, ``illegal_action``, the
#: :class:`~borders_sim.GameConfig` flags).
SETTINGS = ("num_players", "opponents", "scale_obs", "seed")


class SingleSeatRLlibEnv(gym.Wrapper):
    """:class:`~borders_sim.envs.SingleSeatEnv` with Dict observations (module docstring).

    Args:
        config: RLlib's ``env_config`` (a dict or an ``EnvContext``): ``num_players`` (3..8,
            default 4); ``opponents``: ``None`` (uniformly random legal actions, the
            default), a bot spec for every other seat (``"honest"``), a list of
            ``num_players - 1`` specs (``opponents[j]`` plays the seat ``j + 1`` places after
            the learner) or callables ``(observation, action_mask) -> action`` (bots
            included); ``scale_obs`` (default True: observations divided by
            :func:`~borders_sim.rules.observation.observation_scales`); ``seed`` (the games of
            a first ``reset()`` without one and the bots' seeds, mixed with the runner's and
            the copy's index; default: fresh entropy); and every argument of
            :class:`~borders_sim.envs.SingleSeatEnv` (``seat``, ``reward``,
            ``illegal_action``) and :class:`~borders_sim.GameConfig` flag.

    Raises:
        ValueError: a bad setting, named.
    """

    def __init__(self, config: Any = None) -> None:
        own, rest = env_settings(config, SETTINGS)
        n = as_int(own.get("num_players", 4), "num_players", 3, 8)
        seed = own.get("seed")
        entropy = np.random.SeedSequence(
            None if seed is None else runner_seed(config, as_seed(seed)))
        env_seed, bot_seed = (int(s) for s in entropy.generate_state(2, np.uint64))
        opponents = _opponents(own.get("opponents"), n, bot_seed)
        super().__init__(SingleSeatEnv(num_players=n, opponents=opponents, seed=env_seed,
                                       **rest))
        self._scales = scales(own.get("scale_obs", True))
        self.observation_space = observation_space()
        self.action_space = self.env.action_space

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict, dict]:
        obs, info = self.env.reset(seed=seed, options=options)
        return dict_obs(obs, info["action_mask"], self._scales), info

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        obs, reward, terminated, truncated, info = self.env.step(action)
        mask = None if terminated else info["action_mask"]
        return dict_obs(obs, mask, self._scales), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """bool[NUM_ACTIONS]: the learner's legal actions now
        (:meth:`~borders_sim.envs.SingleSeatEnv.action_masks`)."""
        return self.env.action_masks()


def _opponents(spec: Any, n: int, seed: int) -> Any:
    """The opponents of :class:`~borders_sim.envs.SingleSeatEnv` for the setting ``spec``:
    bot specs become bots, one per seat, each seeded from ``seed`` and its place."""
    if spec is None or callable(spec):
        return spec
    what = (f"None, a bot spec (e.g. 'honest'), a callable, or a list of {n - 1} bot specs "
            "or callables")
    items = [spec] * (n - 1) if isinstance(spec, str) else as_sequence(spec, "opponents", what)
    if len(items) != n - 1:
        raise ValueError(f"opponents must be {what}, got {len(items)} of them")
    seeds = np.random.SeedSequence([seed]).generate_state(n - 1, np.uint64)
    return [_policy(item, int(s), what) for item, s in zip(items, seeds)]


def _policy(item: Any, seed: int, what: str) -> Callable:
    """A bot spec's bot (seeded ``seed``), or a callable as it is."""
    if isinstance(item, str):
        return make_spec(item, seed)
    if callable(item):
        return item
    raise ValueError(f"opponents must be {what}; an item is {item!r}")
