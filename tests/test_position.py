"""Research positions: ``Game.from_dict(d, reachable=False)`` (issue "layout").

A position set up by hand loads with its records of the past rebased
(:mod:`borders_sim.game.saved.rebase`: the bank's books, the stats, the promises made, the
knowledge bounds) and everything else checked as for a saved game; ``Game.from_dict(d)`` still refuses it, naming the field. The
property test (random real positions with gold, cards and hands changed, played to the end) is
``test_research_positions_play_to_the_end`` in :mod:`tests.test_properties`.
"""

from __future__ import annotations

import copy
import doctest
import random

import numpy as np
import pytest

from borders_sim import Game, GameConfig
from borders_sim.game import game as game_module
from borders_sim.game.saved.dict_format import state_from_dict
from borders_sim.game.saved.validate import MAX_GOLD
from borders_sim.rules.cards import CARD_KEYS, NUM_GOODS, NUM_LEGAL
from borders_sim.rules.limits import max_rounds
from tests.fuzz_load import play_out
from tests.perturb import perturb
from tests.test_fuzz_load import real_dict, refused

GOODS = CARD_KEYS[:NUM_GOODS]
CONTRABAND = CARD_KEYS[NUM_LEGAL:NUM_GOODS]


def research(d: dict) -> Game:
    """``d`` loaded with ``reachable=False`` and played to the end on a copy (every invariant
    after every step, reloading with ``reachable=False`` along the way)."""
    game = Game.from_dict(d, reachable=False)
    play_out(game.copy(), random.Random(0), reachable=False)
    return game


def research_refused(d: dict, pattern: str) -> str:
    """``Game.from_dict(d, reachable=False)`` raises a ValueError matching ``pattern``."""
    with pytest.raises(ValueError, match=pattern) as err:
        Game.from_dict(d, reachable=False)
    return str(err.value)


def test_the_example_of_from_dict_runs():
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner()
    tests = finder.find(Game.from_dict, "Game.from_dict", globs=vars(game_module))
    assert tests and tests[0].examples
    for test in tests:
        runner.run(test)
    assert runner.failures == 0


@pytest.mark.parametrize("n,phase,flags", [
    (3, "offer", {}), (4, "respond", {}), (5, "market", {"action_cards": False}),
    (6, "bounty", {"bounty_goods": True}), (7, "collect", {}),
    (8, "lawyer goods", {"lawyer_goods": "player_choice"}),
    (6, "keep or open", {"accept_commits": False})])
def test_a_saved_game_loads_the_same_either_way(n, phase, flags):
    """Nothing of a saved game needs rebasing: both ways give the same state, byte for byte."""
    d = real_dict(n, phase, **flags)
    assert state_from_dict(copy.deepcopy(d), reachable=False).tobytes() \
        == state_from_dict(d).tobytes()


def test_gold_chosen_by_hand_rebases_the_bank():
    d = real_dict(4, "offer")
    d["players"][0]["gold"] += 30
    d["players"][2]["gold"] = 0
    msg = refused(copy.deepcopy(d), r"players\[\*\]\.gold, bank: invariant violated: gold not "
                                    r"conserved")
    assert "reachable=False" in msg  # the refusal says where such positions load
    after = research(d).to_dict()
    surplus = sum(p["gold"] for p in d["players"]) - 50 * 4
    assert [p["gold"] for p in after["players"]] == [p["gold"] for p in d["players"]]
    assert after["bank"] == {"paid_out": max(3, surplus), "paid_in": max(3, surplus) - surplus}


def test_more_gold_than_the_bank_ever_paid_loads_when_the_books_balance():
    """The bank's bounds of the past (3.4-3, §8) no longer apply; the books are kept."""
    d = real_dict(3, "market")
    d["players"][1]["gold"] += 1000
    d["bank"]["paid_out"] += 1000
    refused(copy.deepcopy(d), r"bank\.paid_out: \d+, but the bank pays the first inspectors")
    assert research(d).to_dict()["bank"] == d["bank"]


def test_gold_beyond_the_research_bound_is_refused():
    d = real_dict(4, "market")
    d["players"][1]["gold"] = MAX_GOLD
    research_refused(d, r"players\[\*\]\.gold: \d+ in all, and up to 0 more from the bank "
                        rf"\(§8\), more than the {MAX_GOLD} gold a position may hold")
    d = real_dict(6, "market")  # two inspectors: the bank may pay 1 gold per crate to come
    d["players"][1]["gold"] = MAX_GOLD - sum(p["gold"] for p in d["players"][2:]) \
        - d["players"][0]["gold"]
    research_refused(d, r"players\[\*\]\.gold: 16777216 in all, and up to \d+ more from the bank")


def test_a_big_bank_entry_is_rebased():
    d = real_dict(4, "pack")
    d["bank"] = {"paid_in": 2 ** 62, "paid_out": 2 ** 62 + d["bank"]["paid_out"]}
    surplus = sum(p["gold"] for p in d["players"]) - 200
    assert research(d).to_dict()["bank"] == {"paid_in": 3 - surplus, "paid_out": 3}


def _knows_a_hand(d: dict) -> bool:
    return bool(d["knowledge"]["hand"])


def test_knowledge_of_a_card_that_is_gone_is_lowered():
    """Night Raid told its victim which card the thief took (R-39); that card leaves the
    thief's hand by hand, for a goods card of the draw pile: the bound is lowered to what is
    there."""
    d = real_dict(4, "pack", _knows_a_hand)
    known = d["knowledge"]["hand"][0]
    holder = d["players"][int(known["holder"][1:])]
    card = next(iter(known["cards"]))
    other = next(c for c in d["draw_pile"] if c in GOODS and c != card)
    d["draw_pile"][d["draw_pile"].index(other)] = card
    hand, waiting = holder["hand"], holder["hand_waiting"]
    hand[card] -= 1
    hand[other] = hand.get(other, 0) + 1
    if waiting.get(card, 0) > hand[card]:
        waiting[card] = hand[card]
    for counts in (hand, waiting):  # counts hold positive entries only
        if not counts.get(card):
            counts.pop(card, None)
    refused(copy.deepcopy(d), r"knowledge\.hand: invariant violated: know_hand claims cards")
    after = research(d).to_dict()["knowledge"]["hand"]
    bounds = {(e["viewer"], e["holder"]): e["cards"] for e in after}
    bound = bounds.get((known["viewer"], known["holder"]), {}).get(card, 0)
    assert bound == min(known["cards"][card], hand.get(card, 0))


def _knows_face_down(d: dict) -> bool:
    return bool(d["knowledge"]["face_down"])


def test_knowledge_of_face_down_cards_that_are_gone_is_lowered():
    d = real_dict(5, "market", _knows_face_down, action_cards=False)
    known = d["knowledge"]["face_down"][0]
    owner = d["players"][int(known["owner"][1:])]
    down = owner["warehouse_face_down"]
    card = next(iter(known["cards"]))
    reserved = owner["reserved_warehouse"].get(card, 0)
    moved = down[card] - reserved  # every free face-down card of that type goes to the pile
    assert moved > 0
    for _ in range(moved):  # the pile gives contraband of another type for each
        other = next(c for c in d["draw_pile"] if c in CONTRABAND and c != card)
        d["draw_pile"][d["draw_pile"].index(other)] = card
        down[other] = down.get(other, 0) + 1
    down[card] -= moved
    if not down[card]:
        del down[card]
    refused(copy.deepcopy(d), r"knowledge\.face_down: invariant violated: know_down claims")
    after = research(d).to_dict()["knowledge"]["face_down"]
    bounds = {(e["viewer"], e["owner"]): e["cards"] for e in after}
    assert bounds.get((known["viewer"], known["owner"]), {}).get(card, 0) == min(
        known["cards"][card], reserved)


def test_stats_are_the_totals_of_the_history():
    d = real_dict(5, "offer")
    counters = d["history"]["counters"]
    opened = sum(c["crates_opened"] for c in counters)
    passed = sum(c["crates_passed"] for c in counters)
    assert d["stats"] == {"crates_opened": opened, "crates_passed": passed}
    d["stats"] = {"crates_opened": 10 ** 6, "crates_passed": 7}
    refused(copy.deepcopy(d), r"stats: 1000000 crates_opened \+ 7 crates_passed")
    assert research(d).to_dict()["stats"] == {"crates_opened": opened, "crates_passed": passed}
    counters[0]["crates_opened"] = 2 ** 40  # beyond any game: no rebase can hide it
    research_refused(d, r"stats: 2147483647 crates_opened \+ \d+ crates_passed \(the totals of "
                        r"history\.counters\[\*\]\), and up to \d+ crates still to settle in "
                        r"this game, more than the \d+ crates of max_rounds = \d+ rounds")


def test_the_promises_made_cover_the_promises_owed():
    d = real_dict(4, "market")
    for c in d["history"]["counters"]:
        c["promises_made"] = 0
    d["history"]["promises"] = [{"from": "p1", "to": "p2", "count": 3},
                                {"from": "p1", "to": "p3", "count": 1}]
    counters = research(d).to_dict()["history"]["counters"]
    assert [c["promises_made"] for c in counters] == [0, 4, 0, 0]


def test_runouts_count_against_the_whole_game():
    d = real_dict(4, "market")
    d["end_of_game"].update(runouts=40, trigger_round=d["round"], reason="fallback")
    refused(copy.deepcopy(d), r"end_of_game\.runouts: 40, but \d+ rounds of draws")
    research(d)
    d["end_of_game"]["runouts"] = 2 ** 31 - 1
    research_refused(d, r"end_of_game\.runouts: 2147483647, and up to \d+ draws still to come "
                        r"in this game .*, more than the \d+ of max_rounds")


def test_round_and_rules_are_still_checked():
    """What the kernels rely on is checked as for a saved game."""
    d = real_dict(4, "pack")
    d["round"] = max_rounds(GameConfig(num_players=4))
    research_refused(copy.deepcopy(d), r"round: \d+, but a game in this position may last")
    d = real_dict(4, "respond")
    d["phase"] = "join"
    research_refused(d, r"negotiation\.inspectors: the join phase")


def test_cards_are_still_conserved():
    d = real_dict(4, "offer")
    d["players"][0]["hand"]["sugar"] = d["players"][0]["hand"].get("sugar", 0) + 1
    research_refused(copy.deepcopy(d), r"cards: \d+ sugar across draw_pile, discard_pile and "
                                       r"players\[\*\]\.hand.* the deck has")
    d = real_dict(4, "offer")
    d["draw_pile"].pop()
    research_refused(d, r"cards: .* the deck has")


def test_a_hand_above_the_limit_is_refused():
    d = real_dict(4, "pack")
    p = next(p for p in d["players"] if sum(p["hand"].values()) == 6
             and d["to_move"] != p["seat"])
    card = d["draw_pile"].pop()
    p["hand"][card] = p["hand"].get(card, 0) + 1
    research_refused(d, r"invariant violated: p\d holds 7 cards")


def test_reachable_must_be_a_bool():
    d = real_dict(3, "pack")
    with pytest.raises(TypeError, match="reachable must be a bool"):
        Game.from_dict(d, reachable="no")


@pytest.mark.parametrize("seed", range(4))
def test_perturbed_positions_are_research_positions(seed):
    """The positions of the property test: refused as saved games, naming the gold and the
    bank's books; loaded and played as research positions."""
    rng = random.Random(seed)
    d = real_dict(3 + seed, ("offer", "respond", "market", "pack")[seed])
    perturb(d, rng)
    refused(copy.deepcopy(d), r"players\[\*\]\.gold, bank: invariant violated")
    research(d)
    assert np.all(Game.from_dict(d, reachable=False).state["gold"][0][:3 + seed]
                  == [p["gold"] for p in d["players"]])


def _set_history_opened(d: dict, x: int) -> None:
    d["history"]["counters"][0]["crates_opened"] = x


def _set_gold(d: dict, x: int) -> None:
    d["players"][0]["gold"] = x


def _set_runouts(d: dict, x: int) -> None:
    d["end_of_game"].update(runouts=x, trigger_round=d["round"], reason="fallback")


@pytest.mark.parametrize("n,phase", [(4, "market"), (6, "offer"), (8, "window")])
@pytest.mark.parametrize("put", [_set_history_opened, _set_gold, _set_runouts],
                         ids=["stats", "gold", "runouts"])
def test_the_research_bounds_hold_again_after_every_decision(n, phase, put):
    """A counter at the largest value ``reachable=False`` accepts: the game plays to the end
    and reloads with ``reachable=False`` along the way and at the end (the bounds count what
    is still to come, so play never takes a state beyond them)."""
    base = real_dict(n, phase if phase != "window" else "action window")

    def put_into_copy(x: int) -> dict:
        d = copy.deepcopy(base)
        put(d, x)
        return d

    lo, hi = 0, 2 ** 31 - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        try:
            Game.from_dict(put_into_copy(mid), reachable=False)
            lo = mid
        except ValueError:
            hi = mid - 1
    research(put_into_copy(lo))
    with pytest.raises(ValueError):
        Game.from_dict(put_into_copy(lo + 1), reachable=False)
