"""stable-baselines3 on the compiled training env (envs/sb3.py): sb3-contrib's MaskablePPO
trains on it, with its masks."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported  # noqa: E402

from borders_sim.envs.sb3 import SB3VecEnv  # noqa: E402
from borders_sim.rules.observation import OBS_SIZE  # noqa: E402

torch.set_num_threads(1)


def test_maskable_ppo_trains_on_the_compiled_env():
    env = SB3VecEnv(8, num_players=4, opponents=("honest", "random"), seed=0)
    assert is_masking_supported(env)
    masks = get_action_masks(env)
    assert masks.shape == (8, 513)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, seed=0,
                        policy_kwargs={"net_arch": [32, 32]})
    model.learn(600)
    obs = env.reset()
    actions, _ = model.predict(obs, action_masks=get_action_masks(env))
    assert get_action_masks(env)[np.arange(8), actions].all()


def test_episodes_report_their_last_observation():
    env = SB3VecEnv(4, num_players=3, opponents=("random",), seed=1)
    env.reset()
    rng = np.random.default_rng(0)
    done_seen = 0
    while done_seen < 2:
        masks = env.action_masks()
        env.step_async(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        obs, rewards, dones, infos = env.step_wait()
        for k in np.flatnonzero(dones):
            assert infos[k]["terminal_observation"].shape == (OBS_SIZE,)
            assert "r" in infos[k]["episode"]
            done_seen += 1


def test_external_opponents_are_refused():
    with pytest.raises(ValueError, match="compiled opponents only"):
        SB3VecEnv(2, opponents=("honest", "external:someone"))
