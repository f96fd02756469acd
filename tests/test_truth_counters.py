"""The private truth counters (``state.truth``, issue 57 item 7): what each crate held as it was
settled and which offers inspectors declined, counted by the engine for the tournament's
ground-truth deception columns, and never in an observation."""

from __future__ import annotations

import numpy as np
import pytest

from borders_sim import Game, GameConfig
from borders_sim.agents import make
from borders_sim.arena import run_tournament
from borders_sim.envs import observe
from borders_sim.game.invariants import check
from borders_sim.game.saved.dict_format import state_from_dict, state_to_dict
from borders_sim.rules import state as st
from borders_sim.rules.actions import A_OPEN, A_PASS
from borders_sim.rules.cards import CARD_CLASS, CLASS_LEGAL, NUM_GOODS

T = {key: k for k, (key, _) in enumerate(st.TRUTH_COUNTERS)}
CONTRABAND = np.array([CARD_CLASS[t] != CLASS_LEGAL for t in range(NUM_GOODS)])


def watched_game(players: int, seed: int, **flags):
    """A game between heuristics, with the truth counted again from outside: every crate's
    content and status read at each settlement, every declined offer at each response."""
    game = Game(GameConfig(num_players=players, **flags), seed=seed)
    bots = [make(("bluffer", "strict", "collector", "honest")[p % 4], seed=p)
            for p in range(players)]
    want = np.zeros((players, st.NUM_TRUTH), dtype=np.int64)
    while not game.is_terminal:
        s = game.state[0]
        seat = game.current_player
        before = s.copy()
        action = bots[seat].act(observe(game, seat), game.legal_mask())
        game.step(action)
        if before["phase"] == st.PH_RESPOND:
            g = before["pos"]
            offered = (before["offer_gold"][g] or before["offer_wh"][g].any()
                       or before["offer_crate"][g].any() or before["offer_promise"][g])
            if offered and action in (A_OPEN, A_PASS):
                want[before["insp"][g], T["offers_declined"]] += 1
                want[before["cur"], T["offers_refused"]] += 1
    return game, want


@pytest.mark.parametrize("players,flags", [(4, {}), (7, {}), (5, {"accept_commits": False}),
                                           (6, {"action_cards": False})])
def test_truth_counters_are_bounded_by_the_public_history_and_hidden(players, flags):
    game, want = watched_game(players, seed=players, **flags)
    s = game.state[0]
    truth, hist = s["truth"][:players], s["hist"][:players]
    assert check(s) == []
    told, shown = truth[:, T["lies_told"]], hist[:, st.H_LIES_CAUGHT] + truth[:, T["lies_through"]]
    # a lie is caught when opened and passes otherwise, unless a False Bottom hid its card
    assert (told >= shown).all()
    if not flags.get("action_cards", True):
        np.testing.assert_array_equal(told, shown)
    assert (truth[:, T["lies_told"]] <= hist[:, st.H_CRATES]).all()
    assert truth[:, T["contraband_sent"]].sum() * (2 if players >= 6 else 1) == \
        truth[:, T["contraband_handled"]].sum(), "each inspector handles every crate"
    assert (truth[:, T["opened"]] <= hist[:, st.H_OPENS]).all()
    assert truth[:, T["lies_told"]].sum() > 0 and truth[:, T["opened"]].sum() > 0
    np.testing.assert_array_equal(truth[:, T["offers_declined"]], want[:, T["offers_declined"]])
    np.testing.assert_array_equal(truth[:, T["offers_refused"]], want[:, T["offers_refused"]])
    # the bluffer (seat 0) lies more than the honest heuristic, who lies only when it must
    # pack without a legal good (seat 3)
    rate = truth[:, T["lies_told"]] / np.maximum(1, hist[:, st.H_CRATES])
    assert rate[0] > rate[3]


def test_no_observation_reads_the_truth():
    """Two states equal but for their truth counters give every seat the same observation."""
    game, _ = watched_game(4, seed=11)
    states = game.state.copy()
    states[0]["truth"][:] = 0
    blank = Game.from_state(states)
    for seat in range(4):
        np.testing.assert_array_equal(observe(game, seat), observe(blank, seat))


def test_the_saved_state_keeps_the_truth_and_old_formats_load_without_it():
    game, _ = watched_game(4, seed=5)
    doc = state_to_dict(game.state)
    assert doc["format"] == "borders_sim.state/3" and len(doc["truth"]) == 4
    again = state_from_dict(doc)
    np.testing.assert_array_equal(again[0]["truth"], game.state[0]["truth"])
    old = {k: v for k, v in doc.items() if k != "truth"}
    old["format"] = "borders_sim.state/2"
    assert not state_from_dict(old)[0]["truth"].any()
    doc["truth"][1]["lies_told"] = -1
    with pytest.raises(ValueError, match=r"truth\[1\]\.lies_told"):
        state_from_dict(doc)


def test_tournament_deception_columns_are_the_same_on_both_paths():
    kwargs = dict(bots="honest,bluffer,collector,strict", games=24, seed=3)
    compiled = run_tournament(4, path="compiled", **kwargs)
    python = run_tournament(4, path="python", **kwargs)
    np.testing.assert_array_equal(compiled.truth_totals, python.truth_totals)
    rows = {b["name"]: b for b in compiled.bots}
    assert rows["honest"]["deception"]["lie_rate"] < 0.1
    assert rows["bluffer"]["deception"]["lie_rate"] > 0.5
    assert 0 < rows["strict"]["deception"]["inspection_recall"] <= 1
    header, lines = compiled.csv_rows()
    assert {"lie_rate", "inspection_precision", "truth_lies_told"} <= set(header)
    assert compiled.to_dict()["bots"][0]["truth"].keys() == T.keys()
