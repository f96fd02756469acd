"""``GameConfig``: numpy scalars become plain Python values; wrong types are refused by name.

A config made from numpy values equals (and hashes like) the one made from Python values, its
``to_dict()`` is JSON-ready and its ``max_game_length`` is the same Python int. Every refusal is
a ``ValueError`` naming the flag and what it takes. Configs pickle and copy.
"""

from __future__ import annotations

import copy
import json
import pickle

import numpy as np
import pytest

from borders_sim import Game, GameConfig
from borders_sim.rules.limits import max_game_length


def test_numpy_scalars_are_stored_as_python_values():
    cfg = GameConfig(num_players=np.int8(8), haggle_rounds=np.uint16(2),
                     bounties=np.bool_(False), action_cards=np.bool_(True),
                     gold_menu=[np.int32(1), np.int64(5), 10], haggling=np.str_("gold_only"))
    plain = GameConfig(num_players=8, haggle_rounds=2, bounties=False, action_cards=True,
                       gold_menu=(1, 5, 10), haggling="gold_only")
    assert cfg == plain and hash(cfg) == hash(plain)
    for name, value in cfg.to_dict().items():
        assert type(value) is type(plain.to_dict()[name]), name
    assert type(cfg.num_players) is int and type(cfg.bounties) is bool
    assert all(type(g) is int for g in cfg.gold_menu)
    assert json.loads(json.dumps(cfg.to_dict())) == plain.to_dict()
    assert GameConfig(**json.loads(json.dumps(cfg.to_dict()))) == cfg
    length = max_game_length(cfg)
    assert type(length) is int and length == max_game_length(plain) > 0
    assert Game(cfg, seed=np.int64(3)).max_game_length == length


@pytest.mark.parametrize("menu", [np.array([2, 4, 8]), np.arange(1, 17, dtype=np.int16),
                                  range(5, 50, 5), [3], (1, 1000)])
def test_gold_menu_takes_sequences_and_1d_arrays_of_ints(menu):
    cfg = GameConfig(gold_menu=menu)
    assert cfg.gold_menu == tuple(int(g) for g in menu)
    assert all(type(g) is int for g in cfg.gold_menu)


MENU_TYPE = r"gold_menu must be an increasing tuple or list of 1 to 16 ints from 1 to 1000"
REFUSED = [
    ({"gold_menu": 5}, MENU_TYPE + r", got 5 \(int\)"),
    ({"gold_menu": None}, MENU_TYPE + r", got None \(NoneType\)"),
    ({"gold_menu": {1: 2, 3: 4}}, MENU_TYPE + r", got \{1: 2, 3: 4\} \(dict\)"),
    ({"gold_menu": {1, 2, 3}}, MENU_TYPE + r", got \{1, 2, 3\} \(set\)"),
    ({"gold_menu": frozenset({1, 2})}, MENU_TYPE + r".*\(frozenset\)"),
    ({"gold_menu": b"\x01\x02"}, MENU_TYPE + r".*\(bytes\)"),
    ({"gold_menu": bytearray(b"\x01")}, MENU_TYPE + r".*\(bytearray\)"),
    ({"gold_menu": "123"}, MENU_TYPE + r", got '123' \(str\)"),
    ({"gold_menu": (g for g in (1, 2))}, MENU_TYPE + r".*\(generator\)"),
    ({"gold_menu": iter([1, 2])}, MENU_TYPE + r".*\(list_iterator\)"),
    ({"gold_menu": np.array([[1, 2]])}, MENU_TYPE + r".*\(ndarray\)"),
    ({"gold_menu": np.int64(5)}, MENU_TYPE + r".*\(int64\)"),
    ({"gold_menu": ()}, MENU_TYPE + r", got 0 amounts"),
    ({"gold_menu": tuple(range(1, 18))}, MENU_TYPE + r", got 17 amounts"),
    ({"gold_menu": [1, 2.5]}, r"gold_menu\[1\] must be an int from 1 to 1000, got 2.5 \(float\)"),
    ({"gold_menu": np.array([1.0, 2.0])}, r"gold_menu\[0\] must be an int .*\(float64\)"),
    ({"gold_menu": [True, 2]}, r"gold_menu\[0\] must be an int .* got True \(bool\)"),
    ({"gold_menu": [1, "2"]}, r"gold_menu\[1\] must be an int .* got '2' \(str\)"),
    ({"gold_menu": [0, 5]}, r"gold_menu\[0\] must be an int from 1 to 1000, got 0"),
    ({"gold_menu": [5, 1001]}, r"gold_menu\[1\] must be an int from 1 to 1000, got 1001"),
    ({"gold_menu": [1, 3, 2]}, r"gold_menu must be increasing, got \(1, 3, 2\)"),
    ({"gold_menu": [2, 2]}, r"gold_menu must be increasing"),
    ({"num_players": "4"}, r"num_players must be an int from 3 to 8, got '4' \(str\)"),
    ({"num_players": 4.0}, r"num_players must be an int from 3 to 8, got 4.0 \(float\)"),
    ({"num_players": True}, r"num_players must be an int from 3 to 8, got True \(bool\)"),
    ({"num_players": None}, r"num_players must be an int .* got None"),
    ({"num_players": np.float64(4)}, r"num_players must be an int .*\(float64\)"),
    ({"num_players": np.int8(9)}, r"num_players must be an int from 3 to 8, got 9"),
    ({"num_players": 2}, r"num_players must be an int from 3 to 8, got 2"),
    ({"haggle_rounds": np.bool_(True)}, r"haggle_rounds must be an int from 1 to 8, got .*bool"),
    ({"haggle_rounds": 0}, r"haggle_rounds must be an int from 1 to 8, got 0"),
    ({"haggle_rounds": 2**70}, r"haggle_rounds must be an int from 1 to 8"),
    ({"bounties": 1}, r"bounties must be True or False \(a bool\), got 1 \(int\)"),
    ({"bounties": "yes"}, r"bounties must be True or False \(a bool\), got 'yes' \(str\)"),
    ({"skip_forced": None}, r"skip_forced must be True or False \(a bool\), got None"),
    ({"action_cards": np.int64(0)}, r"action_cards must be True or False .*\(int64\)"),
    ({"midround_2_5_rollover": "False"}, r"midround_2_5_rollover must be True or False"),
    ({"haggling": 1}, r"haggling must be one of \('full', 'gold_only', 'none'\), got 1 \(int\)"),
    ({"haggling": "loud"}, r"haggling must be one of .* got 'loud'$"),
    ({"haggling": ["full"]}, r"haggling must be one of .*\(list\)"),
    ({"lawyer_goods": None}, r"lawyer_goods must be one of \('auto_lowest', 'player_choice'\)"),
    ({"colour": "red"}, r"unknown GameConfig flag\(s\) \['colour'\]"),
]


@pytest.mark.parametrize("flags,message", REFUSED, ids=[repr(f)[:40] for f, _ in REFUSED])
def test_wrong_types_and_values_are_refused_by_name(flags, message):
    with pytest.raises(ValueError, match=message):
        GameConfig(**flags)


@pytest.mark.parametrize("how", [lambda c: pickle.loads(pickle.dumps(c)), copy.deepcopy,
                                 copy.copy])
def test_config_pickles_and_copies(how):
    cfg = GameConfig(num_players=np.int64(7), gold_menu=np.array([1, 2, 50]), bounties=False,
                     lawyer_goods="player_choice")
    back = how(cfg)
    assert back == cfg and hash(back) == hash(cfg) and back.to_dict() == cfg.to_dict()
    assert back.num_inspectors == 2 and back.pack()[0].tobytes() == cfg.pack()[0].tobytes()
