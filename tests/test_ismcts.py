"""The ismcts search bot: legal, deterministic, registered, keeps its base policy's choice
without a clear gain, compares actions on shared samples, guesses its opponents from public
history (strength is measured in benchmarks/ladder.py and benchmarks/ismcts.py, not asserted
here)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from borders_sim import Game, GameConfig
from borders_sim.agents import REGISTRY, ISMCTSBot, make
from borders_sim.agents.ismcts import DEFAULT_OPPONENTS, default_rollout, opponent_belief
from borders_sim.batch.seeds import bot_seed
from borders_sim.envs import observe
from borders_sim.rules.actions import A_INSPECT, A_ROB, NUM_ACTIONS
from borders_sim.rules.observation import OBS_SIZE

TINY = {"simulations": 4, "worlds": 1}


def play(config: GameConfig, seed: int, searcher: int, max_decisions: int | None = None,
         **options) -> list[int]:
    """A game with ismcts in seat ``searcher`` and random bots elsewhere; every action the
    search bot took (Game.step refuses an illegal one)."""
    game = Game(config, seed=seed)
    bots = [ISMCTSBot(seed=seed, **{**TINY, **options}) if p == searcher
            else make("random", bot_seed(seed, p)) for p in range(config.num_players)]
    taken = []
    while not game.is_terminal and (max_decisions is None or len(taken) < max_decisions):
        p = game.current_player
        action = bots[p].act(observe(game, p), game.legal_mask())
        if p == searcher:
            taken.append(action)
        game.step(action, player=p)
    return taken


@pytest.mark.parametrize("n", [3, 4, 5] + [pytest.param(n, marks=pytest.mark.slow)
                                            for n in (6, 7, 8)])
def test_legal_actions_over_whole_games(n):
    flags = [{}, {"action_cards": False}, {"first_inspector": "random"},
             {"accept_commits": False}, {"haggling": "gold_only"}, {"bounty_goods": True}][n - 3]
    taken = play(GameConfig(num_players=n, **flags), seed=n, searcher=n % 3)
    assert len(taken) > 10


def test_seat_indexed_choices_are_legal_with_a_random_first_inspector():
    """Robbery and inspect ids name absolute seats; the observation's seat block puts the
    bot's worlds at its real seat, so its seat-indexed choices are legal in the real game."""
    config = GameConfig(num_players=4, first_inspector="random")
    bots = {p: ISMCTSBot(seed=p, **TINY) for p in range(4)}
    checked = 0
    for seed in range(3):
        game = Game(config, seed=seed)
        rng = np.random.default_rng(seed)
        while not game.is_terminal and game.round < 2:
            p = game.current_player
            mask = game.legal_mask()
            named = mask[A_ROB:A_ROB + 4].any() or mask[A_INSPECT:A_INSPECT + 4].any()
            if mask.sum() > 1 and named:
                assert mask[bots[p].act(observe(game, p), mask)]
                checked += 1
            game.step(int(rng.choice(np.flatnonzero(mask))))
    assert checked > 0


def test_deterministic_for_a_seed():
    config = GameConfig(num_players=5)
    first = play(config, seed=3, searcher=1, max_decisions=25)
    again = play(config, seed=3, searcher=1, max_decisions=25)
    assert first == again


def test_single_legal_action_is_returned_at_once():
    bot = make("ismcts", seed=0)
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[30] = 1
    # no world is built: an observation that describes no game is not even read
    assert bot.act(np.zeros(OBS_SIZE, dtype=np.float32), mask) == 30


def test_registry_and_options():
    assert REGISTRY["ismcts"] is ISMCTSBot
    bot = make("ismcts", seed=4)
    assert isinstance(bot, ISMCTSBot) and bot.seed == 4 and bot.rollout == default_rollout()
    for bad in ({"simulations": 0}, {"worlds": -1}, {"rollout": "nobody"},
                {"opponents": ("honest", "nobody")}, {"opponents": ()}, {"reward": "points"},
                {"time_limit": 0}, {"margin": -1}, {"floor": 1.5}):
        with pytest.raises(ValueError):
            ISMCTSBot(**bad)
    game = Game(GameConfig(), seed=1)
    with pytest.raises(ValueError, match="expected an observation"):
        bot.act(np.zeros(5), game.legal_mask())
    with pytest.raises(ValueError, match="allows no action"):
        bot.act(observe(game, 0), np.zeros(NUM_ACTIONS))


def test_time_limit_stops_the_search():
    """A million rollouts in one round (2 legal actions): the limit stops them within the
    round, after a call of ROLLOUTS_PER_CALL (it took minutes and 10 GB when the clock was
    read only between rounds)."""
    game = Game(GameConfig(num_players=4), seed=2)
    assert len(game.legal_actions()) == 2
    bot = ISMCTSBot(seed=0, simulations=10**6, worlds=1, time_limit=0.05)
    p = game.current_player
    assert game.legal_mask()[bot.act(observe(game, p), game.legal_mask())]


def test_rollouts_in_smaller_calls_decide_the_same(monkeypatch):
    """Without a time limit the search is the same whatever the calls its rounds are cut into:
    sample j is the same (world, opponents, chance) triple in any call."""
    game = Game(GameConfig(num_players=4), seed=5)
    decisions = []
    for per_call in (256, 7):
        monkeypatch.setattr("borders_sim.agents.ismcts.ROLLOUTS_PER_CALL", per_call)
        g = game.copy()
        bot = ISMCTSBot(seed=3, simulations=60, worlds=4)
        chosen = []
        while len(chosen) < 6 and not g.is_terminal:
            p = g.current_player
            a = bot.act(observe(g, p), g.legal_mask())
            chosen.append(a)
            g.step(a)
        decisions.append(chosen)
    assert decisions[0] == decisions[1]


def test_base_policy_choice_is_kept_without_a_clear_gain():
    """With an infinite margin no gain is clear enough (not even one seen on every sample):
    the search plays exactly what the compiled ``honest`` bot plays on the same observation."""
    config = GameConfig(num_players=4)
    game = Game(config, seed=6)
    search = ISMCTSBot(seed=1, simulations=8, worlds=2, margin=math.inf)
    honest = make("honest", seed=0)
    others = [make("bluffer", bot_seed(6, p)) for p in range(4)]
    compared = 0
    while not game.is_terminal and compared < 30:
        p = game.current_player
        obs, mask = observe(game, p), game.legal_mask()
        if p == 0 and mask.sum() > 1:
            action = search.act(obs, mask)
            assert action == honest.act(obs, mask)
            compared += 1
        else:
            action = others[p].act(obs, mask)
        game.step(action, player=p)
    assert compared == 30


def test_every_candidate_is_played_on_the_same_samples():
    """Common random numbers: the same action twice in one evaluation gets the same reward on
    every sample (same world, same opponents, same chance)."""
    game = Game(GameConfig(num_players=4), seed=2)
    while game.legal_mask().sum() < 2:
        game.step(int(np.flatnonzero(game.legal_mask())[0]))
    p = game.current_player
    obs, mask = observe(game, p), game.legal_mask()
    bot = ISMCTSBot(seed=3, worlds=3)
    from borders_sim.game.belief import world_states
    worlds = world_states(obs, [11, 12, 13])
    a = int(np.flatnonzero(mask)[0])
    belief = opponent_belief(obs, p, DEFAULT_OPPONENTS, 0.1)
    rewards = bot._evaluate(worlds, np.array([a, a]), np.arange(6), p, 5, belief)
    assert rewards.shape == (2, 6) and np.array_equal(rewards[0], rewards[1])


@pytest.mark.parametrize("kind", ["honest"])
def test_opponent_belief_recognises_a_heuristic_from_public_history(kind):
    """After a whole game among copies of one heuristic bot, the guess from the public
    counters (offers, lies caught, opens) tells ``honest`` (no offers, no lies) from the two
    others for every other seat, and rules none of the candidates out."""
    game = Game(GameConfig(num_players=4), seed=7)
    bots = [make(kind, bot_seed(7, p)) for p in range(4)]
    while not game.is_terminal:
        p = game.current_player
        game.step(bots[p].act(observe(game, p), game.legal_mask()), player=p)
    belief = opponent_belief(observe(game, 1), 1, DEFAULT_OPPONENTS, 0.1)
    for seat in (0, 2, 3):
        honest = belief[seat][DEFAULT_OPPONENTS.index("honest")]
        assert honest > 0.5 if kind == "honest" else honest < 0.5
        assert belief[seat].min() > 0 and abs(belief[seat].sum() - 1) < 1e-12
    assert np.allclose(belief[1], 1 / 3)  # its own seat: never guessed
