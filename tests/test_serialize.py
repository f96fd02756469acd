"""Tests of borders_sim.game.saved.dict_format and Game.to_dict / Game.from_dict.

* Round trips are exact: ``state_from_dict(state_to_dict(s))`` equals ``s`` byte for byte (the
  random generator included), at setup and at random points of random games with 3..8 players,
  action cards on and off, under several rule variants; the dict survives ``json.dumps``.
* A game loaded from its dict continues exactly like the original under the same actions.
* ``state_from_dict`` refuses malformed or inconsistent dicts with a ``ValueError`` naming the
  field.

Games are driven by ``game.step(rng.choice(game.legal_actions()))`` with ``random.Random(seed)``.
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

from borders_sim import Game, GameConfig
from borders_sim.rules import state as st
from borders_sim.rules.cards import (CARD_KEYS, COPIES, FIRST_ACTION, MAIN_IN_MIDDLE, MAIN_NAMES,
                                    deck_tier)
from borders_sim.game.saved.dict_format import FIELDS, FORMAT, state_from_dict, state_to_dict

CONFIGS = [(n, ac) for n in range(3, 9) for ac in (True, False)]
CONFIG_IDS = [f"{n}p-{'actions' if ac else 'goods'}" for n, ac in CONFIGS]
#: Rule variants spread over the configurations, so bounty goods, gifts, the other haggling
#: modes and crate orders all show up in serialized states.
VARIANTS = [
    {},
    {"bounty_goods": True, "smuggler_transfers": True},
    {"haggling": "gold_only"},
    {"smuggler_transfers": True, "first_inspector": "random"},
    {"bounty_goods": True, "crate_order": "announcement"},
    {"robbery_timing": "own_turn", "haggle_rounds": 2},
    {"haggling": "none", "collect_order_2inspectors": "a_plus_1"},
    {"bounty_goods": True, "tiebreak_legal": "pieces"},
]


def make_game(n, action_cards, seed, variant=None):
    flags = dict(VARIANTS[seed % len(VARIANTS)] if variant is None else variant)
    return Game(GameConfig(num_players=n, action_cards=action_cards, **flags), seed=seed)


def random_step(game, rng):
    action = rng.choice(game.legal_actions())
    game.step(action)
    return action


def assert_json_ready(x, path="d"):
    """Only dict (with str keys), list, str, int, bool and None: no numpy scalars, no floats."""
    if isinstance(x, dict):
        assert type(x) is dict, path
        for k, v in x.items():
            assert type(k) is str, f"{path}: key {k!r}"
            assert_json_ready(v, f"{path}.{k}")
    elif isinstance(x, list):
        assert type(x) is list, path
        if all(type(v) is str for v in x):
            return
        for i, v in enumerate(x):
            assert_json_ready(v, f"{path}[{i}]")
    else:
        assert x is None or type(x) in (str, int, bool), f"{path}: {type(x).__name__} {x!r}"


def assert_round_trip(state) -> dict:
    """Round-trip ``state`` through the dict and JSON text; return the dict."""
    d = state_to_dict(state)
    assert_json_ready(d)
    back = state_from_dict(json.loads(json.dumps(d)))
    assert back.dtype == st.STATE_DTYPE and back.shape == (1,)
    assert (back == state).all()
    assert back.tobytes() == state.tobytes()
    assert state_to_dict(back) == d
    return d


def deck_size(n, action_cards):
    copies = COPIES[deck_tier(n)]
    return int(copies.sum() if action_cards else copies[:FIRST_ACTION].sum())


# --- round trips -------------------------------------------------------------------------------
def test_layout_covers_every_state_field():
    """A field added to STATE_DTYPE must be added to the layout (and to FIELDS)."""
    assert sorted(FIELDS) == sorted(st.STATE_DTYPE.names)


@pytest.mark.parametrize("n,action_cards", CONFIGS, ids=CONFIG_IDS)
def test_round_trip_at_setup_in_game_words(n, action_cards):
    game = make_game(n, action_cards, seed=n)
    d = assert_round_trip(game.state)
    assert d["format"] == FORMAT
    assert d["config"] == game.config.to_dict()
    assert d["round"] == 1 and d["steps"] == 0
    assert d["phase"] == game.phase
    assert d["to_move"] == f"p{game.current_player}"
    assert d["negotiation"] is None
    assert [p["seat"] for p in d["players"]] == [f"p{i}" for i in range(n)]
    assert sorted(d["round_order"]) == sorted(f"p{i}" for i in range(n))
    assert (d["inspectors"]["B"] is None) == (n <= 5)
    inspectors = {d["inspectors"]["A"], d["inspectors"]["B"]}
    for p in d["players"]:
        assert sum(p["hand"].values()) == 6
        assert p["gold"] == 50 + 3 * (p["seat"] in inspectors)
        assert p["crate_status"] == ("none" if p["seat"] in inspectors else "packing")
        assert all(c > 0 for c in p["hand"].values())
        assert set(p["hand_waiting"]) <= set(CARD_KEYS[FIRST_ACTION:])
    assert len(d["main_resources_in_middle"]) == MAIN_IN_MIDDLE[n]
    # the dealt cards came off the top of the pile: the slots above the top hold exactly them
    dealt = sum((Counter(p["hand"]) for p in d["players"]), Counter())
    assert len(d["draw_pile"]) == deck_size(n, action_cards) - 6 * n
    drawn = d["drawn_from_pile"] + ["sugar"] * (6 * n - len(d["drawn_from_pile"]))
    assert Counter(drawn) == dealt
    assert d["draw_pile"][-1] == CARD_KEYS[game.state[0]["draw"][game.state[0]["draw_len"] - 1]]
    assert [int(w) for w in d["rng"]] == [int(w) for w in game.state[0]["rng"]]


@pytest.mark.parametrize("n,action_cards", CONFIGS, ids=CONFIG_IDS)
def test_round_trip_through_a_whole_game(n, action_cards):
    """At the first decision in each phase, then in each phase every 40th time, and at the end."""
    seed = 100 + 2 * n + action_cards
    game = make_game(n, action_cards, seed)
    rng = random.Random(seed)
    visits = Counter()
    while True:
        if visits[game.phase] % 40 == 0:
            assert_round_trip(game.state)
        visits[game.phase] += 1
        if game.is_terminal:
            break
        random_step(game, rng)
    phases = set(visits)
    assert {"market", "pack", "announce", "respond", "collect", "game over"} <= phases
    assert ("action window" in phases) == action_cards


def test_round_trips_cover_every_part_of_the_layout():
    """Sanity check that the random games above reach the interesting parts of the dict."""
    seen = Counter()
    for seed, (n, ac) in enumerate([(4, True), (6, True)]):
        game = make_game(n, ac, seed=1, variant={"bounty_goods": True, "smuggler_transfers": True})
        rng = random.Random(seed)
        while not game.is_terminal:
            random_step(game, rng)
            if game.state[0]["steps"] % 4:
                continue
            d = state_to_dict(game.state)
            neg = d["negotiation"]
            if neg is not None:
                seen["negotiation"] += 1
                seen["bounty"] += bool(neg["bounties"])
                seen["accepted bounty"] += any(b["accepted"] for b in neg["bounties"])
                seen["deal"] += any(b["deal_order"] for b in neg["inspectors"])
                seen["gift"] += bool(neg["gold_gifts_made_by"])
                seen["badge B"] += neg["inspectors"][1]["status"] != "passed" and n >= 6
            seen["waiting"] += any(p["hand_waiting"] for p in d["players"])
            seen["reserved"] += any(p["reserved_gold"] for p in d["players"])
            seen["main held"] += any(p["main_resources"] for p in d["players"])
            seen["face down"] += any(p["warehouse_face_down"] for p in d["players"])
            if seen["checked"] < 40 and neg is not None and neg["bounties"]:
                seen["checked"] += 1
                assert_round_trip(game.state)
    for part in ("negotiation", "bounty", "accepted bounty", "deal", "gift", "badge B",
                 "waiting", "reserved", "main held", "face down"):
        assert seen[part] > 0, part


@settings(max_examples=30, deadline=None)
@given(seed=hst.integers(0, 10 ** 6), n=hst.integers(3, 8), action_cards=hst.booleans(),
       steps=hst.integers(0, 900))
def test_round_trip_at_random_points(seed, n, action_cards, steps):
    game = make_game(n, action_cards, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.is_terminal:
            break
        random_step(game, rng)
    assert_round_trip(game.state)


def test_state_to_dict_takes_a_record_or_a_one_element_array():
    game = make_game(5, True, seed=3)
    assert state_to_dict(game.state[0]) == state_to_dict(game.state)
    with pytest.raises(TypeError):
        state_to_dict(np.zeros(2, dtype=st.STATE_DTYPE))
    with pytest.raises(TypeError):
        state_to_dict({"round": 1})


# --- a loaded game plays on like the original ------------------------------------------------
@pytest.mark.parametrize("n,action_cards", CONFIGS, ids=CONFIG_IDS)
def test_loaded_game_continues_identically(n, action_cards):
    seed = 500 + 2 * n + action_cards
    rng = random.Random(seed)
    game = make_game(n, action_cards, seed)
    fork_at = rng.randrange(0, 150 * n)
    for _ in range(fork_at):
        if game.is_terminal:
            break
        random_step(game, rng)
    loaded = Game.from_dict(json.loads(json.dumps(game.to_dict())))
    assert loaded.config == game.config
    assert loaded.state.tobytes() == game.state.tobytes()
    assert loaded.state is not game.state
    while not game.is_terminal:
        legal = game.legal_actions()
        assert loaded.legal_actions() == legal
        action = rng.choice(legal)
        game.step(action)
        loaded.step(action)
        assert loaded.state.tobytes() == game.state.tobytes()
    assert loaded.is_terminal
    assert (loaded.state == game.state).all()
    assert loaded.scores() == game.scores()
    assert loaded.winners() == game.winners()


def test_game_to_dict_and_from_dict():
    game = make_game(6, True, seed=11)
    rng = random.Random(11)
    for _ in range(250):
        random_step(game, rng)
    d = game.to_dict()
    assert d == state_to_dict(game.state)
    loaded = Game.from_dict(d)
    assert isinstance(loaded, Game)
    assert (loaded.phase, loaded.round, loaded.current_player) == \
        (game.phase, game.round, game.current_player)
    d["players"][0]["gold"] += 1000  # the loaded game does not share anything with the dict
    assert loaded.state.tobytes() == game.state.tobytes()
    d["players"][0]["gold"] = -1
    with pytest.raises(ValueError, match=r"players\[0\]\.gold: must not be negative"):
        Game.from_dict(d)


# --- refusing bad input -----------------------------------------------------------------------
def _mid_negotiation(n, seed, variant):
    """A dict of a game in the middle of a border check with a bounty on the table."""
    for s in range(seed, seed + 50):
        game = make_game(n, True, s, variant=variant)
        rng = random.Random(s)
        while not game.is_terminal:
            random_step(game, rng)
            d = game.to_dict()
            if d["phase"] in ("offer", "respond") and d["negotiation"]["bounties"] \
                    and any(p["reserved_gold"] == 0 for p in d["players"]):
                return d
    raise AssertionError("no game reached a border check with a bounty")


@pytest.fixture(scope="module")
def saved():
    """A 4-player game in an offer or respond phase, as a dict."""
    return _mid_negotiation(4, 7, {"bounty_goods": True})


def _player_with(d, pred):
    return next(i for i, p in enumerate(d["players"]) if pred(p))


def _set(path, value):
    """A mutation that sets ``d[path[0]][path[1]]... = value``."""
    def mutate(d):
        target = d
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return mutate


def _add_card_to_hand(d):
    hand = d["players"][0]["hand"]
    hand["sugar"] = hand.get("sugar", 0) + 1


def _gold_above_reserve(d):
    p = d["players"][_player_with(d, lambda p: p["reserved_gold"] == 0)]
    p["reserved_gold"] = p["gold"] + 1


def _more_waiting_than_held(d):
    d["players"][1]["hand_waiting"]["lawyer"] = d["players"][1]["hand"].get("lawyer", 0) + 1


def _gold_from_nowhere(d):
    d["players"][2]["gold"] += 5


def _wrong_decider(d):
    d["to_move"] = next(seat for seat in d["round_order"]
                        if seat not in (d["to_move"], d["negotiation"]["crate_of"]))


def _pop(*path):
    def mutate(d):
        target = d
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
    return mutate


BAD_INPUTS = [
    # (id, mutation, regex the message must match)
    ("card conservation: extra card in a hand", _add_card_to_hand,
     r"inconsistent state: .*cards: \d+ sugar .*players\[\*\]\.hand.* the deck has 51"),
    ("negative gold", _set(("players", 1, "gold"), -5),
     r"players\[1\]\.gold: must not be negative, got -5"),
    ("negative count in a hand", _set(("players", 2, "hand", "coffee"), -1),
     r"players\[2\]\.hand\.coffee: must not be negative"),
    ("unknown card name", _set(("players", 0, "hand", "caviar"), 1),
     r"players\[0\]\.hand\.caviar: unknown card 'caviar'"),
    ("unknown card in the draw pile", lambda d: d["draw_pile"].append("gold bar"),
     r"draw_pile\[\d+\]: unknown card 'gold bar'"),
    ("contraband face up", _set(("players", 0, "warehouse_face_up", "beer"), 1),
     r"players\[0\]\.warehouse_face_up\.beer: 'beer' cannot be here"),
    ("illegal announcement", _set(("players", 0, "announced"), "rum"),
     r"players\[0\]\.announced: unknown legal card 'rum'"),
    ("bad phase", _set(("phase",), "lunch"), r"at phase: unknown phase 'lunch'"),
    ("phase of the wrong type", _set(("phase",), 3), r"at phase: expected a phase name"),
    ("seat p9 in a 4-player game", _set(("to_move",), "p9"),
     r"to_move: seat 'p9' does not exist in a 4-player game"),
    ("seat p4 in a 4-player game", _set(("inspectors", "A"), "p4"),
     r"inspectors\.A: seat 'p4' does not exist in a 4-player game"),
    ("malformed seat", _set(("round_order", 0), "player 1"), r"round_order\[0\]: expected a seat"),
    ("seat twice in the round order",
     lambda d: d["round_order"].__setitem__(0, d["round_order"][1]),
     r"round_order: must list every seat exactly once"),
    ("bounty from a seat beyond the player count",
     _set(("negotiation", "bounties", 0, "from"), "p6"),
     r"negotiation\.bounties\[0\]\.from: seat 'p6' does not exist"),
    ("unknown top-level key", _set(("colour",), "blue"),
     r"at <top>: unknown key\(s\) \['colour'\]"),
    ("unknown player key", _set(("players", 2, "mood"), "sly"),
     r"at players\[2\]: unknown key\(s\) \['mood'\]"),
    ("unknown negotiation key", _set(("negotiation", "inspectors", 0, "offer", "cash"), 1),
     r"negotiation\.inspectors\[0\]\.offer: unknown key\(s\) \['cash'\]"),
    ("missing top-level key", _pop("rng"), r"at <top>: missing key\(s\) \['rng'\]"),
    ("missing player key", _pop("players", 3, "gold"),
     r"at players\[3\]: missing key\(s\) \['gold'\]"),
    ("missing config flag", _pop("config", "haggling"),
     r"at config: missing key\(s\) \['haggling'\]"),
    ("gold as a string", _set(("players", 0, "gold"), "50"),
     r"players\[0\]\.gold: expected an int, got str"),
    ("gold as a bool", _set(("players", 0, "gold"), True),
     r"players\[0\]\.gold: expected an int, got bool"),
    ("round as a float", _set(("round",), 3.0), r"at round: expected an int, got float"),
    ("flag as an int", _set(("players", 0, "collected_this_round"), 1),
     r"players\[0\]\.collected_this_round: expected true or false"),
    ("hand as a list", _set(("players", 0, "hand"), ["sugar"]),
     r"players\[0\]\.hand: expected an object of cards counts"),
    ("players as a dict", _set(("players",), {}), r"at players: expected a list"),
    ("too few player records", lambda d: d["players"].pop(),
     r"players: expected 4 player records"),
    ("reserved gold above gold", _gold_above_reserve,
     r"players\[\d\]\.reserved_gold: \d+ is above gold \d+"),
    ("waiting action cards not in hand", _more_waiting_than_held,
     r"players\[1\]\.hand_waiting\.lawyer: \d+ waiting but \d+ in hand"),
    ("gold not conserved (an invariant)", _gold_from_nowhere,
     r"invariant violated: gold not conserved"),
    ("config GameConfig rejects", _set(("config", "num_players"), 9),
     r"at config: GameConfig rejects it: num_players must be an int from 3 to 8"),
    ("config with a bad menu", _set(("config", "gold_menu"), [5, 3]),
     r"at config: GameConfig rejects it: gold_menu"),
    ("config with an unknown flag", _set(("config", "house_rules"), True),
     r"at config: unknown key\(s\) \['house_rules'\]"),
    ("draw pile longer than the deck",
     lambda d: d.update(draw_pile=["sugar"] * 250, drawn_from_pile=[]),
     r"draw_pile: 250 cards, more than the whole deck of a 4-player game \(247 cards\)"),
    ("draw pile longer than any deck", lambda d: d.update(draw_pile=["sugar"] * 400),
     r"draw_pile: 400 cards, more than any deck"),
    ("unknown main resource", _set(("main_resources_in_middle",), ["unicorn"]),
     r"main_resources_in_middle\[0\]: unknown main resource 'unicorn'"),
    ("unknown crate status", _set(("players", 0, "crate_status"), "lost"),
     r"players\[0\]\.crate_status: unknown crate status 'lost'"),
    ("unknown outcome", _set(("negotiation", "outcome"), "bribed"),
     r"negotiation\.outcome: unknown outcome 'bribed'"),
    ("badge B with one inspector", _set(("inspectors", "B"), "p1"),
     r"inspectors\.B: must be null: a 4-player game has one inspector"),
    ("bounty to badge B with one inspector", _set(("negotiation", "bounties", 0, "to"), "B"),
     r"negotiation\.bounties\[0\]\.to: badge B is not in play"),
    ("nobody to move mid-game", _set(("to_move",), None),
     r"to_move: must be null exactly when the phase is 'game over'"),
    ("no crate under check in a border-check phase", _set(("negotiation",), None),
     r"negotiation\.crate_of: the '(offer|respond)' phase needs the seat of an announced crate"),
    ("the wrong seat to move", _wrong_decider,
     r"to_move: the (owner p\d|inspector of badge slot position\.index) decides"),
    ("rng not a number", _set(("rng",), ["abc", "1"]), r"rng\[0\]: expected a decimal string"),
    ("rng out of range", _set(("rng",), [2 ** 64, 1]), r"rng\[0\]: must be from 0 to 2\*\*64"),
    ("dead rng", _set(("rng",), ["0", "0"]), r"at rng: both words are 0"),
    ("wrong format", _set(("format",), "something else"), r"at format: expected"),
]


@pytest.mark.parametrize("mutate,pattern", [b[1:] for b in BAD_INPUTS],
                         ids=[b[0] for b in BAD_INPUTS])
def test_from_dict_refuses_bad_input(saved, mutate, pattern):
    state_from_dict(copy.deepcopy(saved))  # the unmodified dict loads
    d = copy.deepcopy(saved)
    mutate(d)
    with pytest.raises(ValueError) as err:
        state_from_dict(d)
    assert re.search(pattern, str(err.value)), str(err.value)


def test_from_dict_refuses_a_non_dict():
    with pytest.raises(ValueError, match="expected an object"):
        state_from_dict([1, 2, 3])


def test_from_dict_refuses_badge_b_data_with_one_inspector(saved):
    d = copy.deepcopy(saved)
    d["negotiation"]["inspectors"][1]["demand"] = 5
    with pytest.raises(ValueError, match=r"negotiation\.inspectors\[1\]: badge B is not in play"):
        state_from_dict(d)


def test_from_dict_refuses_a_missing_badge_b_with_two_inspectors():
    d = make_game(7, True, seed=2).to_dict()
    state_from_dict(copy.deepcopy(d))
    d["inspectors"]["B"] = None
    with pytest.raises(ValueError, match=r"inspectors\.B: must be a seat"):
        state_from_dict(d)


JSON_VALUES = hst.recursive(
    hst.none() | hst.booleans() | hst.integers(-2 ** 70, 2 ** 70) | hst.floats(allow_nan=False)
    | hst.text(max_size=6)
    | hst.sampled_from(CARD_KEYS + MAIN_NAMES + st.PHASE_NAMES
                      + ("p0", "p3", "p4", "p9", "A", "B")),
    lambda inner: hst.lists(inner, max_size=3) | hst.dictionaries(hst.text(max_size=6), inner,
                                                                  max_size=3),
    max_leaves=4)


@settings(max_examples=150, deadline=None)
@given(data=hst.data())
def test_from_dict_fuzz_raises_nothing_but_value_error(saved, data):
    """Replace, delete or add one entry anywhere: the dict loads or raises ValueError."""
    d = copy.deepcopy(saved)
    target = d
    while True:
        keys = list(target) if isinstance(target, dict) else list(range(len(target)))
        key = data.draw(hst.sampled_from(keys))
        child = target[key]
        if isinstance(child, (dict, list)) and child and data.draw(hst.booleans()):
            target = child
            continue
        break
    how = data.draw(hst.sampled_from(["replace", "delete", "add"]))
    if how == "replace":
        target[key] = data.draw(JSON_VALUES)
    elif how == "delete":
        del target[key]
    elif isinstance(target, dict):
        target[data.draw(hst.text(max_size=6))] = data.draw(JSON_VALUES)
    else:
        target.insert(key, data.draw(JSON_VALUES))
    try:
        state_from_dict(d)
    except ValueError as err:
        assert str(err).startswith("bad state dict")
