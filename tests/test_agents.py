"""Bots: the registry, and compiled twins that play exactly like the Python bots."""

from __future__ import annotations

import numpy as np
import pytest

from borders_sim import Game, GameConfig
from borders_sim.agents import COMPILED_BOTS, make
from borders_sim.batch import games as games_module
from borders_sim.policies.dispatch import BOT_NET
from borders_sim.policies.network import NO_NETS
from borders_sim.batch.games import IllegalBotAction, play_bot_games, run_bot_games
from borders_sim.batch.loop import decide
from borders_sim.batch.seeds import bot_seed
from borders_sim.envs import observe
from borders_sim.rules.cards import CARD_KEYS, MR_MALT
from borders_sim.rules.engine import MASK_SIZE
from borders_sim.game.invariants import check
from borders_sim.rules.limits import max_game_length
from borders_sim.rules.observation import OBS_SIZE
from borders_sim.batch.rollouts import make_batch
from borders_sim.rules.state import (H_CRATES_INSPECTED, H_CRATES_OPENED, H_LIES_CAUGHT,
                                     H_OPENS, PH_GAME_OVER)

from tests import scenario as sc


def play_python(config, seed, names):
    game = Game(config, seed=seed)
    bots = [make(names[p], bot_seed(seed, p)) for p in range(config.num_players)]
    while not game.is_terminal:
        p = game.current_player
        game.step(bots[p].act(observe(game, p), game.legal_mask()))
    return game


@pytest.mark.parametrize("n", range(3, 9))
@pytest.mark.parametrize("name", COMPILED_BOTS)
def test_compiled_twins_take_the_python_bots_actions(n, name):
    config = GameConfig(num_players=n, action_cards=n % 2 == 0)
    states, _ = make_batch(config, 7, 2)
    kinds = np.full((2, 8), COMPILED_BOTS.index(name), dtype=np.int64)
    steps = np.zeros(2, dtype=np.int64)
    play_bot_games(states, kinds, np.arange(7, 9, dtype=np.int64), 10**9, steps)
    for g in range(2):
        game = play_python(config, 7 + g, [name] * n)
        assert game.state[0].tobytes() == states[g].tobytes()
        assert not check(states[g])


def test_make_refuses_unknown_names_and_bad_masks():
    with pytest.raises(ValueError, match="unknown bot 'nobody'; known bots"):
        make("nobody")
    bot = make("random", seed=3)
    with pytest.raises(ValueError, match="expected an observation"):
        bot.act(np.zeros(5), np.zeros(5))
    game = Game(GameConfig(), seed=1)
    with pytest.raises(ValueError, match="allows no action"):
        bot.act(observe(game, 0), np.zeros_like(game.legal_mask()))
    assert bot.act(observe(game, game.current_player), game.legal_mask()) in game.legal_actions()


# --- heuristic bots ---------------------------------------------------------------------------
FLAG_SETS = {
    "rulebook": {},
    "no_action_cards": {"action_cards": False},
    "accept_holds": {"accept_commits": False, "skip_forced": False},
    "gold_only_transfers": {"haggling": "gold_only", "smuggler_transfers": True,
                            "bounty_goods": True, "haggle_rounds": 1},
    "no_haggling": {"haggling": "none", "bounties": False, "crate_order": "announcement"},
    "lawyer_choice": {"lawyer_goods": "player_choice", "robbery_timing": "own_turn",
                      "midround_2_5_rollover": True, "first_inspector": "random",
                      "haggle_rounds": 5, "bounty_goods": True},
}


def mixed_kinds(games: int, n: int) -> np.ndarray:
    """Lineups cycling through every compiled bot, rotated from game to game."""
    kinds = np.zeros((games, 8), dtype=np.int64)
    k = len(COMPILED_BOTS)
    for g in range(games):
        kinds[g, :n] = [(g + p * (1 + g % 3)) % k for p in range(n)]
    return kinds


@pytest.mark.parametrize("flags", FLAG_SETS.values(), ids=FLAG_SETS.keys())
def test_bots_never_choose_an_illegal_action(flags):
    """Every compiled bot in mixed lineups, every player count: the checked kernel raises on
    the first illegal choice; every game ends with the invariants intact."""
    for n in range(3, 9):
        config = GameConfig(num_players=n, **flags)
        games = 160
        states, _ = make_batch(config, 1000 * n, games)
        steps = run_bot_games(states, mixed_kinds(games, n), np.arange(games) + 1000 * n,
                              max_game_length(config))
        assert (steps > 0).all()
        assert (states["phase"] == PH_GAME_OVER).all()
        for g in range(games):
            assert not check(states[g]), (n, g, check(states[g]))


@pytest.mark.parametrize("n", range(3, 9))
def test_compiled_twins_agree_in_mixed_lineups(n):
    flags = list(FLAG_SETS.values())[n % len(FLAG_SETS)]
    config = GameConfig(num_players=n, **flags)
    states, _ = make_batch(config, 50, 2)
    kinds = mixed_kinds(2, n)
    seeds = np.arange(50, 52, dtype=np.int64)
    run_bot_games(states, kinds, seeds, max_game_length(config))
    for g in range(2):
        game = play_python(config, 50 + g, [COMPILED_BOTS[k] for k in kinds[g, :n]])
        assert game.state[0].tobytes() == states[g].tobytes()


def test_run_bot_games_names_the_bot_that_chose_an_illegal_action(monkeypatch):
    """The kernel marks a game stopped by an illegal choice with -1 - decision; the checked
    entry point turns that into an error naming the bot, its seat and the game."""
    config = GameConfig(num_players=4)
    states, _ = make_batch(config, 0, 3)

    def stopped_at_decision_7(states, kinds, seeds, max_steps, out, nets):
        out[:] = 100
        out[1] = -1 - 7

    monkeypatch.setattr(games_module, "play_bot_games", stopped_at_decision_7)
    kinds = np.zeros((3, 8), dtype=np.int64)
    kinds[1, states[1]["turn"]] = COMPILED_BOTS.index("bluffer")
    with pytest.raises(IllegalBotAction, match=r"bot 'bluffer' in seat \d of game 1 \(seed 1\) "
                                               r"chose an action .* at decision 7"):
        run_bot_games(states, kinds, np.arange(3), 1000)
    with pytest.raises(ValueError, match=f"bot kinds must be 0..{BOT_NET - 1}"):
        run_bot_games(states, np.full((3, 8), 9), np.arange(3), 1000)
    with pytest.raises(ValueError, match="kinds must have shape"):
        run_bot_games(states, np.zeros((2, 8)), np.arange(3), 1000)


def test_the_kernel_refuses_a_choice_the_mask_does_not_allow():
    """The kernel's check: a bot facing a mask emptied under it (its fallback finds no legal
    id) gets -1, which stops the game (play_bot_game) with nothing applied."""
    states, _ = make_batch(GameConfig(num_players=4), 0, 1)
    before = states.tobytes()
    mask = np.zeros(MASK_SIZE, dtype=np.uint8)
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    for kind in range(len(COMPILED_BOTS)):
        rng = np.ones(2, dtype=np.uint64)
        assert decide(states[0], kind, obs, mask, mask.view(np.uint64), 1, rng,
                            NO_NETS) == -1
    assert states.tobytes() == before


def drive(game, bots, until):
    """Let ``bots`` (seat -> bot) play ``game`` until ``until(game)``."""
    while not until(game):
        p = game.current_player
        game.step(bots[p].act(observe(game, p), game.legal_mask()))


def at_pack(hands, hist=None, n=4, **flags):
    """Round 1 at packing, hands set, optional public history (seat -> {H_* index: count})."""
    flags.setdefault("action_cards", False)
    game = sc.make_game(n, 0, **flags)
    while game.phase == "action window":
        game.step("pass")
    while game.phase == "market":
        game.step("end market")
    for p in range(n):
        sc.set_counts(game, "hand", p, hands.get(p, {"sugar": 1}))
    for p, counters in (hist or {}).items():
        for h, v in counters.items():
            game.state[0]["hist"][p, h] = v
    sc.relist(game)
    return game


def pack_and_announce(game, name):
    bots = {p: make(name) for p in range(game.config.num_players)}
    drive(game, bots, lambda g: g.phase not in ("pack", "announce"))
    s = game.state[0]
    return {CARD_KEYS[t]: int(c) for t, c in enumerate(s["crate"][1]) if c}, \
        CARD_KEYS[int(s["announced"][1])]


def test_honest_packs_its_most_held_legal_type_and_announces_it():
    game = at_pack({1: {"coffee": 3, "beer": 2, "sugar": 1}})
    assert pack_and_announce(game, "honest") == ({"coffee": 3}, "coffee")


@pytest.mark.parametrize("opens,crate", [(0, {"beer": 2, "coffee": 2}), (20, {"coffee": 2})],
                         ids=["inspector never opens", "inspector opens everything"])
def test_bluffer_smuggles_only_against_a_lenient_inspector(opens, crate):
    """Inspector seat 0 handled 20 crates: beer's (1 - q) 6 - q 4 is positive when it opened
    none, negative when it opened them all."""
    game = at_pack({1: {"beer": 2, "coffee": 2}},
                   {0: {H_CRATES_INSPECTED: 20, H_OPENS: opens}})
    assert pack_and_announce(game, "bluffer") == (crate, "coffee")


def test_collector_packs_what_its_main_resource_needs():
    game = at_pack({1: {"rum": 1, "coffee": 2, "sugar": 3}},
                   {0: {H_CRATES_INSPECTED: 20, H_OPENS: 10}})
    s = game.state[0]
    s["main_middle"][:] = 0
    s["main_middle"][MR_MALT] = 1  # 3 coffee + 1 rum
    sc.set_warehouse(game, 1, {"coffee": 1})
    assert pack_and_announce(game, "collector") == ({"coffee": 2, "rum": 1}, "coffee")
    game = at_pack({1: {"rum": 1, "coffee": 2, "sugar": 3}},
                   {0: {H_CRATES_INSPECTED: 20, H_OPENS: 10}})
    assert pack_and_announce(game, "honest") == ({"sugar": 3}, "sugar")


def respond_with(name, owner_hist, **check):
    """The inspector bot's answer in the first exchange to a 3-coffee crate of seat 1."""
    game = sc.at_check(crates={1: {"coffee": 3}}, **check)
    for h, v in owner_hist.items():
        game.state[0]["hist"][1, h] = v
    sc.relist(game)
    game.step("inspect p1")
    sc.finish_bounties(game)
    game.step("offer done")
    assert game.phase == "respond"
    return game.action_to_string(make(name).act(observe(game, 0), game.legal_mask()))


@pytest.mark.parametrize("name", ["honest", "bluffer", "collector"])
def test_inspectors_open_a_crate_whose_owner_was_caught_lying(name):
    assert respond_with(name, {H_CRATES_OPENED: 5, H_LIES_CAUGHT: 5}) == "open"
    assert respond_with(name, {H_CRATES_OPENED: 5, H_LIES_CAUGHT: 0}) != "open"


def test_bluffer_bribes_in_proportion_to_the_fine_at_risk():
    """Beer crates announced coffee: half the fine at risk in the first exchange (3 beers:
    fine 12, offer 6; 5 beers: fine 20, offer 10); a truthful crate offers nothing."""
    for crate, offer in (({"beer": 3}, "offer gold 6 to A"), ({"beer": 5}, "offer gold 10 to A"),
                         ({"coffee": 3}, "offer done")):
        game = sc.at_check(crates={1: crate})
        game.step("inspect p1")
        sc.finish_bounties(game)
        assert game.phase == "offer"
        assert game.action_to_string(make("bluffer").act(observe(game, 1),
                                                         game.legal_mask())) == offer


def test_owner_plays_secret_route_only_for_a_lying_crate():
    for crate, reaction in (({"beer": 2}, "play route"), ({"coffee": 2}, "no reaction")):
        game = sc.at_check(crates={1: crate}, hands={1: {"route": 1}}, action_cards=True)
        game.step("inspect p1")
        sc.finish_bounties(game)
        game.step("offer done")
        game.step("open")
        assert game.phase == "react"
        assert game.action_to_string(make("honest").act(observe(game, 1),
                                                        game.legal_mask())) == reaction


def test_lawyer_goods_hands_over_the_cheapest_card():
    """lawyer_goods="player_choice" (R-17d): the Lawyer halves a deal of 2 fish + 2 sugar; the
    bot hands over sugar, the card worth least."""
    game = sc.at_check(crates={1: {"beer": 1}}, hands={1: {"lawyer": 1}},
                       wh={1: {"fish": 2, "sugar": 2}}, action_cards=True,
                       lawyer_goods="player_choice")
    game.step("inspect p1")
    sc.finish_bounties(game)
    sc.play(game, "offer warehouse fish to A", "offer warehouse fish to A",
            "offer warehouse sugar to A", "offer warehouse sugar to A", "offer done", "accept")
    bot = make("collector")
    while game.phase == "lawyer":
        game.step(bot.act(observe(game, 1), game.legal_mask()))
    assert game.phase == "lawyer goods"
    assert game.action_to_string(bot.act(observe(game, 1), game.legal_mask())) == "hand over sugar"
