"""The ``ppo`` bot: its policy file, its compiled inference, and its place among the bots."""

from __future__ import annotations

import numpy as np
import pytest

from borders_sim import Game, GameConfig
from borders_sim.agents import make
from borders_sim.agents.lineup import compiled_kinds, make_spec, split_spec
from borders_sim.policies.network import (NO_NETS, SHIPPED_WEIGHTS, Policy, choose,
                                        load_policy, net_act, net_logits, save_policy,
                                        stack_nets)
from borders_sim.arena import parse_lineup, run_tournament
from borders_sim.game.views import observe
from borders_sim.rules.actions import NUM_ACTIONS
from borders_sim.rules.engine import MASK_SIZE
from borders_sim.rules.observation import OBS_SIZE, observation_scales
from borders_sim.rules.rng import seed_words


def random_policy(seed: int, hidden=(16, 8), scale: float = 0.3) -> Policy:
    rng = np.random.default_rng(seed)
    h0, h1 = hidden
    return Policy(1.0 / observation_scales(), rng.normal(0, scale, (OBS_SIZE, h0)),
                  rng.normal(0, scale, h0), rng.normal(0, scale, (h0, h1)),
                  rng.normal(0, scale, h1), rng.normal(0, scale, (NUM_ACTIONS, h1)),
                  rng.normal(0, scale, NUM_ACTIONS), meta={"test": seed})


@pytest.fixture(scope="module")
def policy_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("policy") / "policy.npz"
    save_policy(path, random_policy(1))
    return path


def positions(n: int = 4, games: int = 2):
    """(observation, mask) pairs of a few real games."""
    out = []
    for g in range(games):
        game = Game(GameConfig(num_players=n), seed=g)
        rng = np.random.default_rng(g)
        while not game.is_terminal:
            out.append((observe(game, game.current_player), game.legal_mask()))
            legal = game.legal_actions()
            game.step(legal[rng.integers(len(legal))])
    return out[::7]


def reference_logits(p: Policy, obs: np.ndarray) -> np.ndarray:
    h = np.tanh(np.tanh((obs * p.inv_scale) @ p.w0 + p.b0) @ p.w1 + p.b1)
    return p.wp @ h + p.bp


def test_policy_file_round_trip(policy_file):
    p = load_policy(policy_file)
    q = random_policy(1)
    for name in ("inv_scale", "w0", "b0", "w1", "b1", "wp", "bp"):
        assert np.array_equal(getattr(p, name), getattr(q, name))
    assert p.meta == {"test": 1} and p.hidden == (16, 8)
    assert load_policy(policy_file.parent).hidden == (16, 8)  # a directory: its policy.npz


def test_bad_policy_files_are_refused(tmp_path):
    bad = tmp_path / "bad.npz"
    np.savez(bad, x=np.zeros(3))
    with pytest.raises(ValueError, match=r"not a borders_sim.policy/2 \(or borders_sim.policy/1\) file"):
        load_policy(bad)
    with pytest.raises(ValueError, match="cannot read the policy file"):
        load_policy(tmp_path / "missing.npz")
    p = random_policy(2)
    with pytest.raises(ValueError, match="'w1' has shape"):
        Policy(p.inv_scale, p.w0, p.b0, p.w1[:3], p.b1, p.wp, p.bp)
    with pytest.raises(ValueError, match="NaN or infinite"):
        Policy(p.inv_scale, p.w0, p.b0 * np.nan, p.w1, p.b1, p.wp, p.bp)


def test_compiled_logits_match_numpy():
    p = random_policy(3)
    nets = stack_nets([p])
    out = np.zeros(NUM_ACTIONS)
    for obs, _ in positions():
        assert np.allclose(net_logits(nets, 0, obs, out), reference_logits(p, obs), atol=1e-4)


def test_the_bot_plays_its_most_likely_legal_action(policy_file):
    p = load_policy(policy_file)
    bot = make("ppo", weights=policy_file, sample=False)
    for obs, mask in positions():
        logits = np.where(mask != 0, reference_logits(p, obs), -np.inf)
        a = bot.act(obs, mask)
        assert mask[a] and logits[a] >= logits.max() - 1e-4


def test_sampling_is_legal_and_reproducible_for_its_seed(policy_file):
    pos = positions()
    first = [make("ppo", seed=5, weights=policy_file).act(o, m) for o, m in pos]
    again = [make("ppo", seed=5, weights=policy_file, sample=True).act(o, m) for o, m in pos]
    assert first == again
    assert all(m[a] for (o, m), a in zip(pos, first))
    greedy = [make("ppo", weights=policy_file, sample=False).act(o, m) for o, m in pos]
    assert greedy != first  # sampling departs from the most likely action somewhere
    assert greedy == [make("ppo", weights=policy_file, temperature=0).act(o, m) for o, m in pos]


def shipped_positions(count: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """``count`` positions with at least 2 legal actions, spread over 4-player games of the
    shipped policy against the heuristics."""
    found = []
    for g in range(2):
        game = Game(GameConfig(num_players=4), seed=100 + g)
        bots = [make(name, seed=10 * g + i)
                for i, name in enumerate(("ppo", "honest", "bluffer", "collector"))]
        while not game.is_terminal:
            seat = game.current_player
            obs, mask = observe(game, seat), game.legal_mask()
            if mask.sum() >= 2:
                found.append((obs, mask))
            game.step(bots[seat].act(obs, mask))
    return found[:: len(found) // count][:count]


@pytest.mark.parametrize("temperature", [1.0, 0.5])
def test_the_draws_follow_the_softmax(temperature):
    """For positions of real games, 10,000 draws of the compiled sampler (the ``ppo`` bot's
    and every compiled ``ppo`` seat's) lie within 0.02 total variation of the softmax of the
    shipped policy's legal logits at that temperature."""
    policy = load_policy(SHIPPED_WEIGHTS)
    nets = stack_nets([policy], [temperature])
    draws = 10_000
    for obs, mask in shipped_positions(8):
        z = np.where(mask != 0, reference_logits(policy, obs) / temperature, -np.inf)
        softmax = np.exp(z - z.max())
        softmax /= softmax.sum()
        padded = np.zeros(MASK_SIZE, dtype=np.uint8)
        padded[:NUM_ACTIONS] = mask
        rng = seed_words(11)
        picks = [net_act(nets, 0, obs, padded, int(mask.sum()), rng) for _ in range(draws)]
        seen = np.bincount(picks, minlength=NUM_ACTIONS) / draws
        assert 0.5 * np.abs(seen - softmax).sum() <= 0.02, (temperature, int(mask.sum()))


def test_choose_draws_the_softmax_of_its_logits():
    """The choice itself, on logits where the old bug (the best logit overwritten before the
    later ones were weighted) was 0.2 total variation off."""
    logits = np.array([0.3, 2.0, -1.0, 1.5, 1.9, 0.0])
    for temperature in (1.0, 0.5, 2.0):
        want = np.exp(logits / temperature)
        want /= want.sum()
        rng = seed_words(3)
        weights = np.zeros(6)
        counts = np.zeros(6)
        for _ in range(20_000):
            pick, logp = choose(logits, 6, temperature, rng, weights)
            counts[pick] += 1
            assert abs(logp - np.log(want[pick])) < 1e-9
        assert 0.5 * np.abs(counts / 20_000 - want).sum() < 0.01
    assert choose(logits, 6, 0.0, rng, weights) == (1, 0.0)


def test_net_act_with_one_legal_action_and_ties():
    nets = stack_nets([random_policy(4)])
    mask = np.zeros(MASK_SIZE, dtype=np.uint8)
    mask[17] = 1
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    assert net_act(nets, 0, obs, mask, 1, np.ones(2, np.uint64)) == 17
    blank = NO_NETS  # all-zero logits: the first legal id
    mask[3] = 1
    assert net_act(blank, 0, obs, mask, 2, np.ones(2, np.uint64)) == 3


def test_specs_and_lineups(policy_file):
    assert split_spec(f"ppo@{policy_file}") == ("ppo", {"weights": str(policy_file)})
    assert parse_lineup(f"ppo@{policy_file},honest,honest") == (f"ppo@{policy_file}", "honest",
                                                                "honest")
    assert split_spec(f"ppo:argmax@{policy_file}") == ("ppo", {"weights": str(policy_file),
                                                              "temperature": 0.0})
    assert split_spec("ppo:temp=0.5") == ("ppo", {"temperature": 0.5})
    assert make_spec("ppo:argmax").temperature == 0.0 and make_spec("ppo").temperature == 1.0
    for bad, why in (("honest@x", "only ppo takes a policy file"),
                     ("honest:argmax", "only ppo takes a policy file or options"),
                     ("ppo:greedy", "the ppo options are 'argmax' and 'temp=T'"),
                     ("ppo:temp=-1", "must be a number from 0"),
                     ("ppo:temp=x@y", "must be a number from 0"), ("ppo@", "a network player")):
        with pytest.raises(ValueError, match=why):
            split_spec(bad)
    kinds, nets = compiled_kinds(["ppo", "ppo:argmax", "ppo:temp=0.25", "honest"])
    assert [kinds[s] for s in ("ppo", "ppo:argmax", "ppo:temp=0.25")] == [5, 6, 7]
    assert nets.temp.tolist() == [1.0, 0.0, 0.25]
    with pytest.raises(ValueError, match="cannot read the policy file"):
        parse_lineup("ppo@/nonexistent/policy.npz,honest,honest")
    kinds, nets = compiled_kinds([f"ppo@{policy_file}", "honest", "ismcts"]) or ({}, None)
    assert not kinds  # ismcts has no compiled twin
    kinds, nets = compiled_kinds([f"ppo@{policy_file}", "honest", "bluffer"])
    assert nets.w0.shape[0] == 1 and kinds["honest"] == 1
    assert make_spec(f"ppo@{policy_file}", 3).policy.hidden == (16, 8)


@pytest.mark.parametrize("spec", ["ppo@{}", "ppo:argmax@{}", "ppo:temp=0.5@{}"])
def test_compiled_and_python_paths_play_the_same_games(policy_file, spec):
    lineup = [spec.format(policy_file), "honest", "bluffer", "collector"]
    compiled = run_tournament(4, lineup, 8, seed=21, path="compiled")
    python = run_tournament(4, lineup, 8, seed=21, path="python", threads=1)
    assert np.array_equal(compiled.scores, python.scores)
    assert np.array_equal(compiled.steps, python.steps)
