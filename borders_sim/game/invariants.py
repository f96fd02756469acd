"""Consistency checks of a state, used after every step in the property tests.

:func:`check` returns a list of violations (empty when the state is consistent): every card
accounted for, gold moving only through the bank flows the rules name, escrow never above
holdings, hand limits (R-40), main resources conserved, crate and phase bookkeeping.
"""

from __future__ import annotations

import numpy as np

from ..rules import state as st
from ..rules.cards import (COPIES, FIRST_ACTION, HAND_LIMIT, MAIN_IN_MIDDLE, MAX_CRATE, MAX_MAIN_HELD,
                    NUM_GOODS, START_GOLD, deck_tier)


def card_totals(s) -> np.ndarray:
    """Cards of each type in all places: draw pile, discard, hands, crates, warehouses."""
    n = int(s["cfg"][st.CFG_NUM_PLAYERS])
    totals = np.bincount(s["draw"][: s["draw_len"]], minlength=20).astype(np.int64)
    totals += s["discard"]
    totals += s["hand"][:n].sum(axis=0)
    totals[:NUM_GOODS] += s["crate"][:n].sum(axis=0) + s["wh_up"][:n].sum(axis=0) \
        + s["wh_down"][:n].sum(axis=0)
    return totals


def check(s) -> list[str]:
    """All violated invariants of the state record ``s`` as readable strings."""
    bad = []
    n = int(s["cfg"][st.CFG_NUM_PLAYERS])
    expected = COPIES[deck_tier(n)].copy()
    if not s["cfg"][st.CFG_ACTION_CARDS]:
        expected[FIRST_ACTION:] = 0
    totals = card_totals(s)
    if not np.array_equal(totals, expected):
        diff = {int(t): int(totals[t] - expected[t]) for t in np.flatnonzero(totals != expected)}
        bad.append(f"cards not conserved (type: surplus) {diff}")
    for name in ("hand", "hand_later", "crate", "wh_up", "wh_down", "gold", "res_gold", "res_wh",
                 "discard", "main_held"):
        if (s[name] < 0).any():
            bad.append(f"negative entry in {name}")
        if n < st.MAX_PLAYERS and name not in ("discard",) and s[name][n:].any():
            bad.append(f"{name} has entries for seats >= {n}")
    if (s["wh_up"][:, 4:] != 0).any():
        bad.append("non-legal card face up in a warehouse")
    if (s["hand_later"] > s["hand"][:, FIRST_ACTION:]).any():
        bad.append("more waiting action cards than action cards in hand")
    sizes = s["hand"][:n].sum(axis=1)
    for p in range(n):
        limit = HAND_LIMIT
        if s["phase"] == st.PH_RAID_DISCARD and p == s["turn"]:
            limit = HAND_LIMIT + n - 1  # the raider discards down to 6 one card at a time
        if sizes[p] > limit:
            bad.append(f"p{p} holds {sizes[p]} cards")
    total_gold = int(s["gold"][:n].sum())
    if total_gold != START_GOLD * n + int(s["bank_out"]) - int(s["bank_in"]):
        bad.append(f"gold not conserved: {total_gold} != {START_GOLD}*{n} + bank flows")
    if (s["res_gold"] > s["gold"]).any():
        bad.append("reserved gold above gold (R-09)")
    if (s["res_wh"] > s["wh_up"] + s["wh_down"]).any():
        bad.append("reserved warehouse cards above holdings (R-09)")
    if not (s["crate"][:n].sum(axis=1) <= MAX_CRATE).all():
        bad.append("crate over 5 cards")
    packing = np.isin(s["crate_status"][:n], (st.CRATE_PACKING, st.CRATE_CLOSED,
                                              st.CRATE_ANNOUNCED))
    if s["cur"] >= 0 and s["outcome"] != st.OUT_PENDING:
        packing[s["cur"]] = False  # a crate being settled empties card by card
    if not np.array_equal(np.where(packing, s["crate"][:n].sum(axis=1), 0),
                          np.where(packing, s["crate_size"][:n], 0)):
        bad.append("crate_size does not match crate contents")
    held = s["main_held"][:n]
    if (held.sum(axis=1) > MAX_MAIN_HELD).any():
        bad.append("a player holds more than 2 main resources (5-13)")
    in_play = s["main_middle"] + held.sum(axis=0)
    if (in_play > 1).any() or in_play.sum() != MAIN_IN_MIDDLE[n]:
        bad.append("main resources not conserved")
    if (s["know_hand"] > s["hand"][None]).any() or (s["know_hand"] < 0).any():
        bad.append("know_hand claims cards that are not in the hand (R-39)")
    if (s["know_down"] > s["wh_down"][None]).any() or (s["know_down"] < 0).any():
        bad.append("know_down claims face-down cards that are not in the warehouse (R-39)")
    if (s["hist"] < 0).any() or (s["promised"] < 0).any():
        bad.append("negative history counter")
    t = s["truth"]
    if (t < 0).any():
        bad.append("negative truth counter")
    if (t[:, st.T_LIES_THROUGH] > t[:, st.T_LIES_TOLD]).any():
        bad.append("more lies passed than told")
    if (t[:, st.T_CONTRABAND_FOUND] > t[:, st.T_CONTRABAND_HANDLED]).any() or \
            (t[:, st.T_OPENED_WITH_CONTRABAND] > t[:, st.T_OPENED]).any():
        bad.append("more contraband found than handled, or more finds than opens")
    if s["phase"] != st.PH_GAME_OVER and not 0 <= s["turn"] < n:
        bad.append(f"turn {s['turn']} is not a seat")
    return bad
