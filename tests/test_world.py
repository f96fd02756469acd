"""world_from_observation: a complete, playable game built from one observation alone."""

from __future__ import annotations

import numpy as np
import pytest

from borders_sim import Game, GameConfig
from borders_sim.batch.games import play_bot_games
from borders_sim.envs import observe, world_from_observation
from borders_sim.game.belief import rotate_seats
from borders_sim.rules import state as st
from borders_sim.game.invariants import check
from borders_sim.rules.observation import offset_of

FLAG_SETS = [
    {},
    {"action_cards": False},
    {"accept_commits": False},
    {"haggling": "gold_only", "haggle_rounds": 2},
    {"haggling": "none"},
    {"bounty_goods": True, "smuggler_transfers": True, "lawyer_goods": "player_choice"},
    {"robbery_timing": "own_turn", "midround_2_5_rollover": True, "crate_order": "announcement",
     "first_inspector": "random", "skip_forced": False},
]


def plays_to_the_end(world: Game) -> None:
    states = world.state.copy()
    steps = np.zeros(1, dtype=np.int64)
    play_bot_games(states, np.zeros((1, st.MAX_PLAYERS), dtype=np.int64),
                   np.array([5], dtype=np.int64), 10**6, steps)
    assert states[0]["phase"] == st.PH_GAME_OVER
    assert not check(states[0])


def assert_world(game: Game, viewer: int, seed: int) -> Game:
    """The world of ``viewer``'s observation: the same observation (the viewer at its own seat),
    invariants, the round trip through to_dict, the same mover and its legal ids, playable."""
    world = world_from_observation(observe(game, viewer), seed=seed)
    assert np.array_equal(observe(world, viewer), observe(game, viewer))
    assert not check(world.state[0])
    again = Game.from_dict(world.to_dict())
    assert again.state.tobytes() == world.state.tobytes()
    if game.is_terminal:
        assert world.is_terminal
    else:
        assert world.current_player == game.current_player
        if game.current_player == viewer:
            assert np.array_equal(world.legal_mask(), game.legal_mask())
    plays_to_the_end(world)
    return world


@pytest.mark.parametrize("flags", FLAG_SETS, ids=range(len(FLAG_SETS)))
def test_worlds_at_random_mid_game_points(flags):
    rng = np.random.default_rng(len(flags))
    for n in range(3, 9):
        game = Game(GameConfig(num_players=n, **flags), seed=n)
        k = 0
        while not game.is_terminal:
            if k % 151 == 13:
                mover = game.current_player
                other = (mover + 1 + int(rng.integers(n - 1))) % n
                assert_world(game, mover, seed=k)
                assert_world(game, mover, seed=k + 1)
                assert_world(game, other, seed=k)
            game.step(int(rng.choice(game.legal_actions())))
            k += 1
        assert_world(game, int(rng.integers(n)), seed=1)


def reach(config: GameConfig, done, seed: int = 0, tries: int = 40) -> Game:
    """A random game played until ``done(game)`` (over several deals if needed)."""
    for g in range(tries):
        rng = np.random.default_rng(g)
        game = Game(config, seed=seed + g)
        while not game.is_terminal:
            if done(game):
                return game
            game.step(int(rng.choice(game.legal_actions())))
    raise AssertionError("position not reached")


def test_start_of_game():
    game = Game(GameConfig(num_players=5), seed=3)
    for viewer in range(5):
        world = assert_world(game, viewer, seed=viewer)
        assert world.round == 1 and world.phase == game.phase
        assert world.state[0]["steps"] == 0


@pytest.mark.parametrize("phase", [st.PH_OFFER, st.PH_RESPOND, st.PH_ANSWER_DEMAND,
                                   st.PH_BOUNTY, st.PH_JOIN, st.PH_KEEP_OR_OPEN,
                                   st.PH_LAWYER_GOODS])
def test_negotiation_phases(phase):
    config = GameConfig(num_players=6, accept_commits=phase != st.PH_KEEP_OR_OPEN,
                        lawyer_goods="player_choice", bounty_goods=True)
    game = reach(config, lambda g: g.state[0]["phase"] == phase)
    s = game.state[0]
    for viewer in {int(s["turn"]), int(s["cur"]), int(s["insp"][0])}:
        world = assert_world(game, viewer, seed=viewer)
        w = world.state[0]
        # the public negotiation is copied, the crate under check keeps its announced count
        for f in ("cur", "exchange", "g_status", "offer_gold", "demand", "deal_gold",
                  "bounty_gold", "outcome", "pool_left"):
            assert np.array_equal(w[f], s[f]), f
        assert w["crate_size"][s["cur"]] == s["crate_size"][s["cur"]]


def test_after_a_night_raid():
    config = GameConfig(num_players=4)
    game = reach(config, lambda g: g.state[0]["raid_thief"] >= 0
                 and g.state[0]["phase"] == st.PH_MARKET)
    s = game.state[0]
    thief = int(s["raid_thief"])
    for viewer in range(4):
        world = assert_world(game, viewer, seed=viewer)
        w = world.state[0]
        assert w["raid_thief"] == thief
        if viewer != thief:  # the victim knows the card the thief took from it
            taken = int(s["raid_taken"][viewer])
            if taken >= 0:
                assert w["raid_taken"][viewer] == taken
            assert (w["hand"][thief] >= s["know_hand"][viewer, thief]).all()
            assert np.array_equal(w["know_hand"][viewer], s["know_hand"][viewer])
        else:
            assert np.array_equal(w["raid_taken"][:4], s["raid_taken"][:4])


def test_packing_crates_get_sizes_from_the_hands():
    config = GameConfig(num_players=5)
    game = reach(config, lambda g: g.state[0]["phase"] == st.PH_ANNOUNCE)
    s = game.state[0]
    viewer = int(s["insp"][0])
    world = assert_world(game, viewer, seed=2)
    w = world.state[0]
    for p in range(5):
        if w["crate_status"][p] == st.CRATE_CLOSED:
            assert 1 <= w["crate_size"][p] == w["crate"][p].sum() <= 5


def test_game_end():
    game = Game(GameConfig(num_players=3), seed=4)
    rng = np.random.default_rng(4)
    while not game.is_terminal:
        game.step(int(rng.choice(game.legal_actions())))
    for viewer in range(3):
        world = assert_world(game, viewer, seed=viewer)
        assert world.is_terminal and world.current_player == -1
        # scores differ only by hidden cards (face-down premium goods count for King/Queen)
        w, s = world.state[0], game.state[0]
        for f in ("gold", "main_held", "wh_up"):
            assert np.array_equal(w[f], s[f]), f
        assert np.array_equal(w["wh_down"][viewer], s["wh_down"][viewer])


def test_rotate_seats_is_a_symmetry():
    game = reach(GameConfig(num_players=7), lambda g: g.state[0]["phase"] == st.PH_RESPOND)
    for k in range(7):
        states = game.state.copy()
        rotate_seats(states[0], k)
        assert not check(states[0])
        rotated = Game.from_state(states.copy())
        seat = slice(offset_of("seat"), offset_of("seat") + st.MAX_PLAYERS)
        for p in range(7):
            after, before = observe(rotated, (p + k) % 7), observe(game, p)
            assert after[seat].argmax() == (p + k) % 7 and before[seat].argmax() == p
            after[seat] = before[seat] = 0  # the one block that names the absolute seat
            assert np.array_equal(after, before)


def test_bad_observations_are_refused():
    game = Game(GameConfig(num_players=4), seed=1)
    obs = observe(game, 0)
    with pytest.raises(ValueError, match="expected shape"):
        world_from_observation(obs[:-1])
    bad = obs.copy()
    bad[3] = 0.5
    with pytest.raises(ValueError, match="non-negative integer"):
        world_from_observation(bad)
    bad = obs.copy()
    bad[offset_of("phase"):offset_of("phase") + 3] = 1
    with pytest.raises(ValueError, match="'phase' must be one-hot"):
        world_from_observation(bad)
    bad = obs.copy()
    bad[offset_of("discard_pile")] += 500
    with pytest.raises(ValueError, match="more cards seen than the deck holds"):
        world_from_observation(bad)
    bad = obs.copy()
    bad[offset_of("round_order")] = 9
    with pytest.raises(ValueError, match="round_order"):
        world_from_observation(bad)
    bad = obs.copy()
    bad[offset_of("gold") + 6] = 3  # a seat beyond the player count
    with pytest.raises(ValueError, match="gold has entries for seats >= 4"):
        world_from_observation(bad)
    bad = obs.copy()
    bad[offset_of("seat") + 6] = 1  # a second seat
    with pytest.raises(ValueError, match="block 'seat' must be one-hot"):
        world_from_observation(bad)
    for seed in ("x", -1, 2**64):
        with pytest.raises(ValueError, match="seed must be a seed, an int from 0 to 2"):
            world_from_observation(obs, seed=seed)
