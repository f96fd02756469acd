"""An RLlib env runner that samples the compiled training env in whole batches.

RLlib's ``SingleAgentEnvRunner`` steps any vector env, :class:`.TrainingVectorEnv` included,
but spends its time per game and per step in Python: it splits every batch into one item per
game, runs its connector pipelines item by item, and appends each step to one episode object
per game. With the games themselves compiled, that bookkeeping is most of a step.
:class:`TrainingEnvRunner` keeps RLlib's runner (its env, module, weights, metrics and state)
and replaces its sampling loop for :class:`.TrainingVectorEnv`: each step is one batched
forward pass of the masking module on the env's Dict batch, one draw of every game's action
from the masked logits, and one compiled env step, written into arrays; at the end of
``sample()`` the arrays are cut into ``SingleAgentEpisode`` chunks (already numpy), one per
game segment, as RLlib's learners expect them (ongoing games continue in the next call under
the same episode id).

What it leaves out of RLlib's runner: the env-to-module and module-to-env connector pipelines
(the module sees the env's batch as it is: put observation filters in the env or the module)
and the per-episode callbacks (``on_episode_start``/``step``/``end``); ``sample(num_episodes=...)``
(evaluation by episodes) runs RLlib's own loop. ``random_actions=True`` draws uniformly among the
legal actions. :func:`~borders_sim.envs.rllib.config.ppo_config` uses it for the ``"training"``
route unless ``fast_runner=False``.
"""

from __future__ import annotations

import time
import uuid
import numpy as np
import torch
from ray.rllib.core import DEFAULT_MODULE_ID
from ray.rllib.core.columns import Columns
from ray.rllib.core.distribution.torch.torch_distribution import TorchCategorical
from ray.rllib.env.env_runner import ENV_STEP_FAILURE
from ray.rllib.env.single_agent_env_runner import SingleAgentEnvRunner
from ray.rllib.env.single_agent_episode import SingleAgentEpisode
from ray.rllib.utils.metrics import RLMODULE_INFERENCE_TIMER, WEIGHTS_SEQ_NO

from .spaces import MASK_KEY, OBS_KEY
from .vector import TrainingVectorEnv


class TrainingEnvRunner(SingleAgentEnvRunner):
    """RLlib's ``SingleAgentEnvRunner`` with a batched sampling loop for
    :class:`.TrainingVectorEnv` (module docstring).

    Raises:
        ValueError: the config's env is not a :class:`.TrainingVectorEnv` (the ``"training"``
            route of :func:`~borders_sim.envs.rllib.config.ppo_config`).
    """

    def make_env(self) -> None:
        """Create the env as RLlib's runner does; refuse one that is not a
        :class:`TrainingVectorEnv`."""
        super().make_env()
        if not isinstance(self.env.unwrapped, TrainingVectorEnv):
            raise ValueError(f"TrainingEnvRunner samples a TrainingVectorEnv (the 'training' "
                             f"route), got {type(self.env.unwrapped).__name__}")
        self._fast_ready = False

    # --- the sampling loop -----------------------------------------------------------------
    def _sample(self, *, num_timesteps: int | None = None, num_episodes: int | None = None,
                explore: bool, random_actions: bool = False,
                force_reset: bool = False) -> list[SingleAgentEpisode]:
        if num_episodes is not None:  # RLlib's own loop (it resets every env first)
            self._fast_ready = False
            return super()._sample(num_episodes=num_episodes, explore=explore,
                                   random_actions=random_actions)
        env: TrainingVectorEnv = self.env.unwrapped
        n = env.num_envs
        if force_reset or self._needs_initial_reset or not getattr(self, "_fast_ready", False):
            self._fast_reset(env)
        # as RLlib's loop: step until num_timesteps decisions (the ignored step after a game's
        # end is none), so about num_timesteps / n steps
        buf = _Rollout(n, -(-int(num_timesteps) // n) + 2, self._obs,
                       self.env.single_action_space.n)
        ended = self._ended.copy()
        ts, t, start = 0, 0, time.perf_counter()
        while ts < num_timesteps:
            buf.reserve(t + 1)
            buf.live[:, t] = ~ended
            current = {OBS_KEY: buf.obs[:, t], MASK_KEY: buf.masks[:, t]}
            if random_actions:
                a = _random_legal(current[MASK_KEY], self._rng)
            else:
                a, logp, buf.logits[:, t] = self._act(current, explore)
                if logp is not None:
                    buf.logps[:, t] = logp
            buf.actions[:, t] = a
            result = self._try_env_step(a)
            if result is ENV_STEP_FAILURE:  # the env was made anew (RLlib's
                # restart_failed_sub_environments): start over
                return self._sample(num_timesteps=num_timesteps, explore=explore,
                                    random_actions=random_actions, force_reset=True)
            nxt, buf.rewards[:, t], buf.terms[:, t], _, _ = result
            buf.obs[:, t + 1] = nxt[OBS_KEY]
            buf.masks[:, t + 1] = nxt[MASK_KEY]
            ts += int(buf.live[:, t].sum())
            ended = buf.terms[:, t].copy()
            t += 1
        buf.trim(t)
        self._obs = {OBS_KEY: buf.obs[:, t].copy(), MASK_KEY: buf.masks[:, t].copy()}
        self._ended = ended
        extra = {} if random_actions else {Columns.ACTION_DIST_INPUTS: buf.logits}
        if explore and not random_actions:
            extra[Columns.ACTION_LOGP] = buf.logps
        episodes, done = self._episodes(buf, extra, (time.perf_counter() - start) / t)
        self._log_env_steps(metric=self._metrics_num_env_steps_sampled, num_steps=ts)
        self._increase_sampled_metrics(ts, done)
        return episodes

    def _fast_reset(self, env: TrainingVectorEnv) -> None:
        """Reset every game (seeded as RLlib seeds its first reset) and the episode state."""
        seed = self._seed if self._needs_initial_reset else None
        obs, _ = self._try_env_reset(seed=seed)
        self._needs_initial_reset = False
        n = env.num_envs
        self._obs = {OBS_KEY: obs[OBS_KEY], MASK_KEY: obs[MASK_KEY]}
        self._ended = np.zeros(n, dtype=np.bool_)
        self._ids = [uuid.uuid4().hex for _ in range(n)]
        self._t = np.zeros(n, dtype=np.int64)  # steps of each game so far
        self._returns = np.zeros(n, dtype=np.float64)
        self._rng = np.random.default_rng(seed)
        self._fast_ready = True

    def _act(self, batch: dict,
             explore: bool) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
        """One forward pass of the module on the env's batch: the actions, their
        log-probabilities (when exploring) and the masked logits."""
        if self.module.training:  # (it never trains here: no switching modes every step)
            self.module.eval()
        tensors = {Columns.OBS: {OBS_KEY: torch.from_numpy(batch[OBS_KEY]).to(self._device),
                                 MASK_KEY: torch.from_numpy(batch[MASK_KEY]).to(self._device)}}
        with torch.inference_mode(), self.metrics.log_time(RLMODULE_INFERENCE_TIMER):
            if explore:
                out = self.module.forward_exploration(
                    tensors, t=self.num_env_steps_sampled_lifetime)
                cls = self.module.get_exploration_action_dist_cls()
            else:
                out = self.module.forward_inference(tensors)
                cls = self.module.get_inference_action_dist_cls()
            inputs = out[Columns.ACTION_DIST_INPUTS]
            if isinstance(cls, type) and issubclass(cls, TorchCategorical):
                log_probs = torch.log_softmax(inputs, dim=-1)
                a = _draw(inputs, log_probs) if explore else torch.argmax(log_probs, dim=-1)
                logp = log_probs.gather(-1, a[:, None])[:, 0] if explore else None
            else:
                dist = cls.from_logits(inputs)
                a = dist.sample() if explore else dist.to_deterministic().sample()
                logp = dist.logp(a) if explore else None
        return (a.cpu().numpy(), None if logp is None else logp.cpu().numpy(),
                inputs.cpu().numpy())

    # --- arrays into RLlib's episodes --------------------------------------------------------
    def _episodes(self, buf: "_Rollout", extra: dict,
                  step_seconds: float) -> tuple[list[SingleAgentEpisode], int]:
        """Cut the arrays of one ``sample()`` into one episode chunk per game segment; log
        the episodes that ended. Returns the chunks and the number of episodes ended."""
        obs, masks, actions, rewards = buf.obs, buf.masks, buf.actions, buf.rewards
        terms, live = buf.terms, buf.live
        n, steps = actions.shape
        space, action_space = self.env.single_observation_space, self.env.single_action_space
        seq = self._weights_seq_no
        chunks, done = [], 0
        for k in range(n):
            # a segment: from a decision after a reset (or the call's first step) to its end
            t = 0
            while t < steps:
                if not live[k, t]:
                    t += 1  # the ignored step after an end: the next game starts at t + 1
                    self._ids[k], self._t[k], self._returns[k] = uuid.uuid4().hex, 0, 0.0
                    continue
                ends = np.flatnonzero(terms[k, t:])
                last = t + int(ends[0]) if ends.size else steps - 1
                terminated = bool(ends.size)
                sl = slice(t, last + 1)
                length = last + 1 - t
                outputs = {key: value[k, sl] for key, value in extra.items()}
                outputs[WEIGHTS_SEQ_NO] = np.full(length, seq, dtype=np.int64)
                chunks.append(SingleAgentEpisode(
                    id_=self._ids[k],
                    observations={OBS_KEY: obs[k, t:last + 2], MASK_KEY: masks[k, t:last + 2]},
                    observation_space=space,
                    infos=[{} for _ in range(length + 1)],
                    actions=actions[k, sl], action_space=action_space,
                    rewards=rewards[k, sl], terminated=terminated,
                    extra_model_outputs=outputs, t_started=int(self._t[k]),
                    len_lookback_buffer=0, module_id=DEFAULT_MODULE_ID))
                self._t[k] += length
                self._returns[k] += float(rewards[k, sl].sum())
                if terminated:
                    done += 1
                    self._log_episode_metrics(int(self._t[k]), float(self._returns[k]),
                                              float(self._t[k]) * step_seconds)
                t = last + 1
        return chunks, done


class _Rollout:
    """The arrays of one ``sample()``, game-major (``[game, step]``, so that a game's segment
    is one contiguous slice): observations and masks of ``steps + 1`` rows, per step the
    actions, rewards, terminations, whether it was a decision (``live``), log-probabilities
    and masked logits. :meth:`reserve` grows them (rarely: RLlib's fragment plus a margin is
    allocated), :meth:`trim` cuts them to the steps taken."""

    def __init__(self, n: int, steps: int, first: dict, num_actions: int) -> None:
        self.obs = np.empty((n, steps + 1, first[OBS_KEY].shape[1]), dtype=np.float32)
        self.masks = np.empty((n, steps + 1, first[MASK_KEY].shape[1]), dtype=np.float32)
        self.obs[:, 0], self.masks[:, 0] = first[OBS_KEY], first[MASK_KEY]
        self.actions = np.zeros((n, steps), dtype=np.int64)
        self.rewards = np.zeros((n, steps), dtype=np.float32)
        self.terms = np.zeros((n, steps), dtype=np.bool_)
        self.live = np.zeros((n, steps), dtype=np.bool_)
        self.logps = np.zeros((n, steps), dtype=np.float32)
        self.logits = np.zeros((n, steps, num_actions), dtype=np.float32)

    def reserve(self, steps: int) -> None:
        """Room for at least ``steps`` steps (doubling)."""
        have = self.actions.shape[1]
        if steps <= have:
            return
        more = max(steps, 2 * have) - have
        for name, value in vars(self).items():
            pad = np.zeros((value.shape[0], more) + value.shape[2:], dtype=value.dtype)
            setattr(self, name, np.concatenate([value, pad], axis=1))

    def trim(self, steps: int) -> None:
        """Keep the first ``steps`` steps (and ``steps + 1`` observations)."""
        for name, value in vars(self).items():
            rows = steps + 1 if name in ("obs", "masks") else steps
            setattr(self, name, value[:, :rows])


def _draw(logits: torch.Tensor, log_probs: torch.Tensor) -> torch.Tensor:
    """One draw per row of the categorical of ``logits`` (masked actions, of logit about
    -3.4e38, have probability exactly 0), by the inverse of its cumulative sums: a few times
    cheaper than ``torch.multinomial`` on a batch of 513-way rows. A draw that rounding puts on
    an action of probability 0 (at the top of a row) becomes the row's most likely action."""
    probs = torch.softmax(logits, dim=-1)  # (exp of log_probs is slow where they are huge)
    cdf = torch.cumsum(probs, dim=-1)
    u = torch.rand((probs.shape[0], 1), dtype=cdf.dtype, device=cdf.device) * cdf[:, -1:]
    a = torch.searchsorted(cdf, u, right=True)[:, 0].clamp_(max=probs.shape[1] - 1)
    bad = probs.gather(-1, a[:, None])[:, 0] <= 0
    if bool(bad.any()):
        a[bad] = torch.argmax(log_probs[bad], dim=-1)
    return a


def _random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of ``masks`` (float 0/1)."""
    scores = rng.random(masks.shape) * (masks > 0.5)
    return np.argmax(scores, axis=1).astype(np.int64)
