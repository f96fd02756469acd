"""Which states the engine can play: the checks :func:`~.dict_format.state_from_dict` runs on a
loaded state.

:func:`problems` lists what is wrong with a state, each problem naming the dict path of
:mod:`~borders_sim.game.dict_format` that causes it (``position.index``,
``negotiation.inspectors[0].deal.gold``, ``end_of_game.runouts``, ...). A state without problems
is one the kernels can play: it sits at a decision point of its phase (or is over), every index
the kernels read is in range, every count they loop over is small, and the rest of the round
finds what it expects. The checks are *inductive*: every state the engine reaches from an
accepted state by legal actions is accepted again, so a loaded game plays to the end without
breaking an invariant, and its own ``to_dict()`` loads. (It ends within ``max_game_length``
decisions of play, P-0.4; the ``steps`` count it was loaded with is only checked against that
bound, so a count set near the bound by hand can reach it first: :func:`~.engine.step` then
gives up, an ``EngineError``.)

What is checked
---------------
* **Cards and escrow**: every card of the deck in exactly one place; reserved gold and cards
  (R-09) are exactly what the accepted deals and bounties of the crate under check hold, and
  nothing outside a border check; waiting action cards are in hand (§7.2).
* **Seats**: badge B sits left of A (3.4-2, 4.5-5); the round order starts left of the last
  inspector (4-3, R-04).
* **Each phase's preconditions** (P-1 .. P-6): crate statuses and contents for the point of
  the round (e.g. in the pack phase the smugglers before ``position.index`` have closed or sit
  out, the later ones have not packed), ``position.index`` inside the seats, badge slots or
  round order the phase walks, market discards, collections, who holds a deal, a demand, a
  bounty or an open, the outcome and the settlement step the crate is at (Appendix A).
* **The decision**: one look of the engine for the next decision (``seek``, what
  :func:`~.engine.advance` repeats) leaves the state unchanged, so ``to_move`` decides now, and
  the phase's legal mask holds at least one action: a card the action needs (Lawyer, Fund,
  Secret Route, ...) is in hand and active.
* **Counters** (no game exceeds them, so none can wrap around):

  - ``round``: the game provably ends by round ``max_rounds`` (P-0.4): with the end of the game
    set (``end_of_game.trigger_round``) it ends after round ``E = L ceil(trigger / L)``
    (6-4); otherwise every round takes a card from the draw pile or runs it out
    (:mod:`~.limits`), so at most ``draw_len + a + (1 - runouts)(D + 1) + 2 L`` rounds remain
    (``D`` cards in the deck, ``L`` rounds a cycle; ``a`` is 1 while every hand is full after
    the market, when the current round may end without a draw). ``round`` plus that must be
    at most ``max_rounds``; the sum never grows in play.
  - ``steps`` at most ``max_game_length`` (:func:`~.engine.step` gives up rather than count
    past it; see above).
  - ``stats``: the crates settled plus the crates still to settle this round are at most
    ``(players - inspectors) * round``.
  - ``end_of_game.runouts`` plus 2 per draw still to come this round (market and refill; a
    draw runs the pile out at most twice) is at most ``2 (players + (smugglers + players)
    round)``.
  - ``bank``: the bank pays out the first inspectors' 3 gold (3.4-3) and then at most 1 gold per
    opened crate, the odd gold of a fine split by two openers (§8); it takes in 10 gold per main
    resource collected with the black market (5-12) and at most that odd gold per opened crate.
    With gold conserved (``sum(gold) == 50 players + paid_out - paid_in``) every gold amount
    stays below ``50 players + 6 + crates_opened``.
  - gold amounts of offers, deals, demands and bounties come from the gold menu (an accepted
    bounty may be cut down to the payer's free gold, R-09); fines are at most 5 cards' fines.

Outside a border check the negotiation record is what the last one left behind; the engine
resets it when the next crate comes up, so only what could still act is checked there (no
reserve, no accepted bounty, no standing demand or offer lock, no Lawyer pool).

Positions no game reaches (``reachable=False``)
-----------------------------------------------
The ``stats``, ``end_of_game.runouts`` and ``bank`` bounds above, and the invariants of gold
conservation and private knowledge, hold because a real game produced the state: they refuse
positions that the kernels can play but that no game reaches. With ``reachable=False``
(:func:`~.dict_format.state_from_dict`, :meth:`borders_sim.Game.from_dict`) the records they
constrain are rebased first (:mod:`.rebase`: the bank's books, the stats, the promises made, the
knowledge bounds), and the three counter bounds count against the whole game instead of the
rounds played, so every count stays far from its field's limit and the bounds hold again after
every decision:

- ``stats`` plus the crates still to settle this round, plus ``smugglers`` per round that may
  still come (the rounds left above), is at most ``smugglers * max_rounds``;
- ``end_of_game.runouts`` plus 2 per draw that may still come in the game is at most
  ``2 (players + (smugglers + players) max_rounds)``;
- the gold of all players, plus the 1 gold per crate still to settle that the bank may pay with
  two inspectors (§8), is at most :data:`MAX_GOLD` (``2**24``).

Everything else is checked as above: the cards, the escrow, the seats, every phase's
bookkeeping, the decision, the rounds and the steps.
"""

from __future__ import annotations

import numpy as np

from ...rules import state as st
from ...rules.actions import PHASE_HI, PHASE_LO
from ...rules.cards import (BLACK_MARKET_PRICE, CARD_FINE, CARD_KEYS, COPIES, CYCLE_LENGTH, FIRST_ACTION,
                    FIRST_INSPECTOR_BONUS, HAND_LIMIT, MAX_CRATE, NUM_CARD_TYPES, NUM_GOODS,
                    deck_tier)
from ...rules.config import GameConfig
from ...rules.engine import count_legal, legal_mask_at, new_mask, seek_at
from ..invariants import check
from ...rules.limits import deck_size, max_game_length, max_rounds

ACTION_KEYS = CARD_KEYS[FIRST_ACTION:]
GOODS_KEYS = CARD_KEYS[:NUM_GOODS]
MAX_FINE = MAX_CRATE * int(CARD_FINE.max())  # 4.4-B: every card of a full crate fined

PRE_PACK = (st.PH_WINDOW, st.PH_RAID_DISCARD, st.PH_MARKET)
#: The border check of a crate (P-5): negotiation, after an open, settlement.
NEGOTIATING = (st.PH_BOUNTY, st.PH_OFFER, st.PH_RESPOND, st.PH_ANSWER_DEMAND)
AFTER_OPEN = (st.PH_JOIN, st.PH_REACT)
#: P-5.3(b'): the negotiation ended without an open; inspectors holding deals keep or open.
KEEPING = (st.PH_KEEP_OR_OPEN,)
SETTLING = (st.PH_LAWYER, st.PH_LAWYER_GOODS, st.PH_FUND, st.PH_BOUNTY_LAWYER)
BORDER = NEGOTIATING + KEEPING + AFTER_OPEN + SETTLING
#: Phases in which the owner's accepted deals are still reserved (paid when the Lawyer phase ends).
DEALS_RESERVED = NEGOTIATING + KEEPING + AFTER_OPEN + (st.PH_LAWYER,)
#: Phases in which an inspector may hold a deal (accept_commits=False): by the settlement every
#: held deal is kept (committed) or void (P-5.3(b')).
HOLDING_PHASES = (st.PH_OFFER, st.PH_RESPOND, st.PH_ANSWER_DEMAND, st.PH_JOIN,
                  st.PH_KEEP_OR_OPEN)
#: Phases in which the owner decides (P-5.3a, P-5.3c, P-5.4, P-5.5).
OWNER_PHASES = (st.PH_OFFER, st.PH_ANSWER_DEMAND, st.PH_REACT, st.PH_LAWYER, st.PH_FUND)
#: Phases in which position.index is a badge slot (0 = A).
SLOT_PHASES = (st.PH_RESPOND, st.PH_ANSWER_DEMAND, st.PH_JOIN, st.PH_KEEP_OR_OPEN)
#: Phases that walk the round order with position.index.
ORDER_PHASES = (st.PH_WINDOW, st.PH_RAID_DISCARD, st.PH_MARKET, st.PH_PACK, st.PH_ANNOUNCE,
                st.PH_BOUNTY, st.PH_BOUNTY_LAWYER, st.PH_COLLECT)


def _seat(p) -> str:
    return f"p{int(p)}"


def _pl(p, key) -> str:
    return f"players[{int(p)}].{key}"


def _badge(g, key) -> str:
    return f"negotiation.inspectors[{int(g)}].{key}"


def _bounty(x, g) -> str:
    return f"negotiation.bounties (from {_seat(x)} to {st.BADGES[g]})"


def _phase(phase) -> str:
    return repr(st.PHASE_NAMES[phase])


def _status(status) -> str:
    return repr(st.CRATE_STATUS_NAMES[status])


class _State:
    """The fields of one state record as plain numpy arrays and ints, with derived facts."""

    def __init__(self, s, config: GameConfig) -> None:
        self.config = config
        self.n = n = config.num_players
        self.ni = ni = config.num_inspectors
        self.smugglers = n - ni
        for name in st.STATE_DTYPE.names:
            v = s[name]
            setattr(self, name, v.copy() if isinstance(v, np.ndarray) else int(v))
        self.is_insp = np.zeros(st.MAX_PLAYERS, dtype=bool)
        self.is_insp[self.insp[:ni]] = True
        self.where = np.full(st.MAX_PLAYERS, -1)  # position of each seat in the round order
        self.where[self.order[:n]] = np.arange(n)
        self.menu_set = {0} | set(config.gold_menu)
        self.hand_size = self.hand[:n].sum(axis=1)
        self.crate_sum = self.crate[:n].sum(axis=1)
        self.committed = [g for g in range(ni) if self.g_status[g] == st.G_COMMITTED]
        self.opened = [g for g in range(ni) if self.g_status[g] == st.G_OPENED]
        self.undecided = [g for g in range(ni) if self.g_status[g] == st.G_UNDECIDED]
        self.holding = [g for g in range(ni) if self.g_status[g] == st.G_HOLDING]
        #: badges with an accepted deal: committed (R-05) or holding it (P-5.3(b'))
        self.dealt = sorted(self.committed + self.holding)


# --- cards and escrow -------------------------------------------------------------------------
def _cards(v: _State, bad: list) -> None:
    n, config = v.n, v.config
    expected = COPIES[deck_tier(n)].copy()
    if not config.action_cards:
        expected[FIRST_ACTION:] = 0
    if v.draw_len > expected.sum():
        bad.append(f"draw_pile: {v.draw_len} cards, more than the whole deck of a "
                   f"{n}-player game ({int(expected.sum())} cards)")
    totals = np.bincount(v.draw[: v.draw_len], minlength=NUM_CARD_TYPES).astype(np.int64)
    totals += v.discard + v.hand[:n].sum(axis=0)
    totals[:NUM_GOODS] += (v.crate[:n] + v.wh_up[:n] + v.wh_down[:n]).sum(axis=0)
    for t in np.flatnonzero(totals != expected):
        bad.append(f"cards: {int(totals[t])} {CARD_KEYS[t]} across draw_pile, discard_pile and "
                   f"players[*].hand/crate/warehouse_face_up/warehouse_face_down, but the deck "
                   f"has {int(expected[t])}")
    for p in np.flatnonzero(v.res_gold > v.gold):
        bad.append(f"{_pl(p, 'reserved_gold')}: {int(v.res_gold[p])} is above gold "
                   f"{int(v.gold[p])} (R-09)")
    held = v.wh_up + v.wh_down
    for p, t in zip(*np.nonzero(v.res_wh > held)):
        bad.append(f"{_pl(p, 'reserved_warehouse')}.{CARD_KEYS[t]}: {int(v.res_wh[p, t])} "
                   f"reserved but {int(held[p, t])} in the warehouse (R-09)")
    in_hand = v.hand[:, FIRST_ACTION:]
    for p, k in zip(*np.nonzero(v.hand_later > in_hand)):
        bad.append(f"{_pl(p, 'hand_waiting')}.{ACTION_KEYS[k]}: {int(v.hand_later[p, k])} "
                   f"waiting but {int(in_hand[p, k])} in hand")


def _escrow(v: _State, bad: list) -> None:
    """R-09: reserves are exactly the accepted deals (on the owner, until they are paid) and
    the accepted bounties (on their payers, until they are paid)."""
    gold = np.zeros(st.MAX_PLAYERS, dtype=np.int64)
    wh = np.zeros((st.MAX_PLAYERS, NUM_GOODS), dtype=np.int64)
    if v.phase in BORDER:
        for x in range(v.n):
            for g in range(2):
                if v.bounty_on[x, g]:
                    gold[x] += v.bounty_gold[x, g]
                    wh[x] += v.bounty_wh[x, g]
        if v.phase in DEALS_RESERVED and v.cur >= 0:
            for g in v.dealt:
                gold[v.cur] += v.deal_gold[g]
                wh[v.cur] += v.deal_wh[g]
    for p in range(v.n):
        if v.res_gold[p] != gold[p]:
            bad.append(f"{_pl(p, 'reserved_gold')}: {int(v.res_gold[p])}, but the accepted "
                       f"deals and bounties in {_phase(v.phase)} reserve {int(gold[p])} (R-09)")
        for t in np.flatnonzero(v.res_wh[p] != wh[p]):
            bad.append(f"{_pl(p, 'reserved_warehouse')}.{CARD_KEYS[t]}: "
                       f"{int(v.res_wh[p, t])}, but the accepted deals and bounties in "
                       f"{_phase(v.phase)} reserve {int(wh[p, t])} (R-09)")


# --- seats, end of game, counters -------------------------------------------------------------
def _seats(v: _State, bad: list) -> None:
    n, ni = v.n, v.ni
    if ni == 2 and v.insp[1] != (v.insp[0] + 1) % n:
        bad.append(f"inspectors.B: must be {_seat((v.insp[0] + 1) % n)}, the seat left of A "
                   "(the badges move together, 3.4-2, 4.5-5)")
    start = (v.insp[ni - 1] + 1) % n
    if list(v.order[:n]) != [(start + i) % n for i in range(n)]:
        bad.append(f"round_order: must start with {_seat(start)}, left of the last inspector, "
                   "and go round the table (4-3, R-04)")


def _end_of_game(v: _State, bad: list) -> None:
    trigger, k, middle = v.trigger_round, v.runouts, bool(v.main_middle.any())
    cycle = int(CYCLE_LENGTH[v.n])
    last = cycle * -(-trigger // cycle)  # 6-4: the cycle of the trigger round is finished
    if (trigger == 0) != (v.end_reason == st.END_NONE):
        bad.append("end_of_game: trigger_round and reason must be both null or both set")
    if v.end_round != 0 and trigger == 0:
        bad.append("end_of_game.end_round: set while trigger_round is null")
    if k >= 2 and trigger == 0:
        bad.append(f"end_of_game.trigger_round: null after {k} run-outs of the draw pile; the "
                   "second one sets it (6-6, R-29)")
    if v.end_reason == st.END_FALLBACK and k < 2:
        bad.append(f"end_of_game.reason: 'fallback' needs 2 run-outs of the draw pile, "
                   f"end_of_game.runouts is {k} (6-6)")
    if v.end_reason == st.END_MAIN_RESOURCES and middle:
        bad.append("end_of_game.reason: 'main resources' while main_resources_in_middle is "
                   "not empty (6-1)")
    if not middle and trigger == 0:
        bad.append("end_of_game.trigger_round: null although main_resources_in_middle is empty "
                   "(collecting the last one sets it, 6-1)")
    if trigger > v.round:
        bad.append(f"end_of_game.trigger_round: {trigger} is after the current round {v.round}")
        return
    if v.phase == st.PH_GAME_OVER:
        if trigger == 0:
            bad.append("phase: 'game over' but end_of_game.trigger_round is null (the game "
                       "ends only through it, 6-4)")
        elif v.round != last or v.end_round != last:
            bad.append(f"end_of_game.end_round: a game triggered in round {trigger} ends "
                       f"after round {last} (cycles of {cycle} rounds, 6-4), so round and "
                       f"end_round must both be {last}")
    elif trigger:
        if v.round > last:
            bad.append(f"round: {v.round}, but a game triggered in round {trigger} ends after "
                       f"round {last} (cycles of {cycle} rounds, 6-4)")
        elif trigger < v.round and v.end_round != last:
            bad.append(f"end_of_game.end_round: must be {last} (cycles of {cycle} rounds from "
                       f"trigger_round {trigger}, 6-4) once that round has ended")
        elif trigger == v.round and v.end_round != 0:
            bad.append("end_of_game.end_round: must be null in the round of trigger_round (it "
                       "is set when that round ends)")


def _rounds_left(v: _State) -> int:
    """An upper bound on the rounds after the current one (module docstring)."""
    if v.trigger_round:
        cycle = int(CYCLE_LENGTH[v.n])
        return cycle * -(-v.trigger_round // cycle) - v.round
    full = v.phase not in PRE_PACK and bool((v.hand_size == HAND_LIMIT).all())
    if v.phase == st.PH_PACK and 0 <= v.turn and v.crate_size[v.turn] == 0:
        full = False  # the packer must pack a card (P-3)
    d = deck_size(v.config)
    cycle = int(CYCLE_LENGTH[v.n])
    return v.draw_len + int(full) + (1 - min(v.runouts, 1)) * (d + 1) + 2 * cycle


def _counters(v: _State, bad: list) -> None:
    """The decisions and the rounds: the game ends within its bounds (P-0.4)."""
    config = v.config
    limit = max_game_length(config)
    if v.steps > limit:
        bad.append(f"steps: {v.steps} decisions, more than max_game_length = {limit} of this "
                   "config (P-0.4)")
    if v.trigger_round <= v.round:  # else _end_of_game reported it
        end = v.round + _rounds_left(v)
        if end > max_rounds(config):
            bad.append(f"round: {v.round}, but a game in this position may last until round "
                       f"{end} (draw_pile of {v.draw_len} cards, end_of_game.runouts "
                       f"{v.runouts}), beyond max_rounds = {max_rounds(config)} (P-0.4)")


def _crates_left(v: _State) -> int:
    """An upper bound on the crates still to settle this round."""
    statuses = v.crate_status[:v.n]
    if v.phase in PRE_PACK:
        return v.smugglers
    if v.phase == st.PH_PACK:
        return int(np.isin(statuses, (st.CRATE_PACKING, st.CRATE_CLOSED)).sum())
    if v.phase == st.PH_ANNOUNCE:
        return int(np.isin(statuses, (st.CRATE_CLOSED, st.CRATE_ANNOUNCED)).sum())
    if v.phase == st.PH_CHOOSE_CRATE or v.phase in BORDER:
        return int((statuses == st.CRATE_ANNOUNCED).sum()) - (v.phase in SETTLING)
    return 0


def _draws_left(v: _State) -> int:
    """An upper bound on the draws still to come this round (the market's, P-2, and the
    refill's, 4.5-4); each runs the draw pile out at most twice."""
    if v.phase == st.PH_GAME_OVER:
        return 0
    if v.phase in (st.PH_WINDOW, st.PH_RAID_DISCARD):
        return v.smugglers + v.n
    if v.phase == st.PH_MARKET:
        return sum(1 for i in range(v.pos, v.n) if not v.is_insp[v.order[i]]) + v.n
    return v.n


#: Appended to the problems that only a real game's past rules out.
UNREACHED = " (only a real game's past rules this out: see Game.from_dict(d, reachable=False))"


def _past(v: _State, bad: list) -> None:
    """The counters a real game's past bounds by the rounds played: crates settled, run-outs,
    the bank's books (module docstring)."""
    n, ni = v.n, v.ni
    left = _crates_left(v)
    if v.n_opened + v.n_passed + left > v.smugglers * v.round:
        bad.append(f"stats: {v.n_opened} crates_opened + {v.n_passed} crates_passed, and "
                   f"{left} crate(s) still to settle this round, but {v.smugglers} smugglers "
                   f"settle at most {v.smugglers * v.round} crates in {v.round} rounds"
                   + UNREACHED)
    draws = _draws_left(v)
    most = 2 * (n + (v.smugglers + n) * v.round)
    if v.runouts + 2 * draws > most:
        bad.append(f"end_of_game.runouts: {v.runouts}, but {v.round} rounds of draws (two "
                   f"run-outs at most per draw, {draws} draws still to come this round) allow "
                   f"{most - 2 * draws}" + UNREACHED)
    paid_out_min = FIRST_INSPECTOR_BONUS * ni
    paid_out_max = paid_out_min + (ni - 1) * v.n_opened
    if not paid_out_min <= v.bank_out <= paid_out_max:
        bad.append(f"bank.paid_out: {v.bank_out}, but the bank pays the first inspectors "
                   f"{paid_out_min} gold (3.4-3) and at most 1 gold per opened crate with two "
                   f"inspectors (§8): {paid_out_min}..{paid_out_max} with {v.n_opened} "
                   "crates_opened" + UNREACHED)
    held = int(v.main_held[:n].sum())
    paid_in_max = BLACK_MARKET_PRICE * held + (ni - 1) * v.n_opened
    if v.bank_in > paid_in_max:
        bad.append(f"bank.paid_in: {v.bank_in}, but the bank takes {BLACK_MARKET_PRICE} gold "
                   f"per main resource collected (5-12) and at most 1 gold per opened crate "
                   f"with two inspectors (§8): at most {paid_in_max} with {held} main "
                   f"resources held and {v.n_opened} crates_opened" + UNREACHED)


#: With ``reachable=False``, the most gold all players may hold together: far below the int32
#: limit of the gold fields, and exact in the float32 observations.
MAX_GOLD = 2 ** 24


def _whole_game(v: _State, bad: list) -> None:
    """``reachable=False``: the counters of :func:`_past` bounded by the whole game instead of
    the rounds played (module docstring). Each bound adds what is still to come in this game
    (crates, draws, the bank's gold) and so holds again after every decision."""
    if v.trigger_round > v.round:  # _end_of_game reported it
        return
    n, rounds, whole = v.n, _rounds_left(v), max_rounds(v.config)
    crates = _crates_left(v) + v.smugglers * rounds
    if v.n_opened + v.n_passed + crates > v.smugglers * whole:
        bad.append(f"stats: {v.n_opened} crates_opened + {v.n_passed} crates_passed (the "
                   f"totals of history.counters[*]), and up to {crates} crates still to settle "
                   f"in this game, more than the {v.smugglers * whole} crates of "
                   f"max_rounds = {whole} rounds (P-0.4)")
    draws = _draws_left(v) + (v.smugglers + n) * rounds
    most = 2 * (n + (v.smugglers + n) * whole)
    if v.runouts + 2 * draws > most:
        bad.append(f"end_of_game.runouts: {v.runouts}, and up to {draws} draws still to come "
                   f"in this game (two run-outs at most per draw), more than the {most} of "
                   f"max_rounds = {whole} rounds (P-0.4)")
    gold = int(v.gold[:n].sum())
    bonus = (v.ni - 1) * crates  # the odd gold of a fine split by two openers (§8)
    if gold + bonus > MAX_GOLD:
        bad.append(f"players[*].gold: {gold} in all, and up to {bonus} more from the bank "
                   f"(§8), more than the {MAX_GOLD} gold a position may hold")


# --- the round: positions and crates ------------------------------------------------------------
def _position(v: _State, bad: list) -> None:
    phase, n, ni = v.phase, v.n, v.ni
    if phase in ORDER_PHASES and v.pos >= n:
        bad.append(f"position.index: {v.pos}, but the {_phase(phase)} phase walks the round "
                   f"order (0..{n - 1})")
    if phase in SLOT_PHASES and v.pos >= ni:
        bad.append(f"position.index: {v.pos}, but in the {_phase(phase)} phase it is a badge "
                   f"slot (0 = A{', 1 = B' if ni == 2 else ''})")
    if phase == st.PH_WINDOW and v.window_passes >= n:
        bad.append(f"position.window_passes: {v.window_passes}; the action window closes after "
                   f"{n} passes in a row (R-02)")
    if phase == st.PH_RAID_DISCARD:
        if v.window_passes != 0:
            bad.append("position.window_passes: must be 0 right after a Night Raid (R-02)")
        if v.pos < n and v.turn != v.order[v.pos]:
            bad.append("to_move: the raider, round_order[position.index], discards in the "
                       "'raid discard' phase (R-21)")
    if phase != st.PH_MARKET and v.count != 0:
        bad.append(f"position.market_discards: must be 0 outside the market (P-2), got {v.count}")
    if phase not in (st.PH_COLLECT, st.PH_GAME_OVER):
        for p in np.flatnonzero(v.collected[:n]):
            bad.append(f"{_pl(p, 'collected_this_round')}: true before the collection (P-6)")
    elif phase == st.PH_COLLECT and v.pos < n:
        for i in range(v.pos, n):
            p = _collector(v, i)
            if v.collected[p]:
                bad.append(f"{_pl(p, 'collected_this_round')}: true, but the collection has "
                           f"not come to {_seat(p)} yet (position.index {v.pos}, P-6)")
    for p in np.flatnonzero(v.collected[:n]):
        if not v.main_held[p].any():
            bad.append(f"{_pl(p, 'collected_this_round')}: true but no main resource held")


def _collector(v: _State, i: int) -> int:
    """Seat collecting at position ``i`` (as :func:`~.end_of_round._collector`)."""
    if v.ni == 2 and v.config.collect_order_2inspectors == "a_plus_1":
        return (v.insp[0] + 1 + i) % v.n
    return int(v.order[i])


def _allowed_status(v: _State, p: int) -> tuple:
    """Crate statuses a smuggler may have at this point of the round."""
    phase, i = v.phase, v.where[p]
    if phase in PRE_PACK:
        return (st.CRATE_PACKING,)
    if phase == st.PH_PACK:
        if i < v.pos:
            return st.CRATE_CLOSED, st.CRATE_SITTING_OUT
        return (st.CRATE_PACKING,)
    if phase == st.PH_ANNOUNCE:
        if i < v.pos:
            return st.CRATE_ANNOUNCED, st.CRATE_SITTING_OUT
        return st.CRATE_CLOSED, st.CRATE_SITTING_OUT
    if phase in (st.PH_COLLECT, st.PH_GAME_OVER):
        return st.CRATE_DONE, st.CRATE_SITTING_OUT
    return st.CRATE_ANNOUNCED, st.CRATE_DONE, st.CRATE_SITTING_OUT


def _crates(v: _State, bad: list) -> None:
    n, phase = v.n, v.phase
    settling = phase in SETTLING and v.cur >= 0
    for p in range(n):
        status, size, inside = v.crate_status[p], v.crate_size[p], v.crate_sum[p]
        if v.is_insp[p]:
            allowed = (st.CRATE_NONE,)
        else:
            allowed = _allowed_status(v, p)
        if status not in allowed:
            where = (f"{_seat(p)} is an inspector this round" if v.is_insp[p] else
                     f"in the {_phase(phase)} phase at position.index {v.pos}")
            bad.append(f"{_pl(p, 'crate_status')}: {_status(status)}, but {where}: it must "
                       f"be one of {[st.CRATE_STATUS_NAMES[x] for x in allowed]}")
            continue
        announced = v.announced[p] >= 0
        if announced != (status in (st.CRATE_ANNOUNCED, st.CRATE_DONE)):
            bad.append(f"{_pl(p, 'announced')}: {'set' if announced else 'null'} for a crate "
                       f"that is {_status(status)} (P-4)")
        if settling and p == v.cur:
            if not 1 <= size <= MAX_CRATE or inside > size:
                bad.append(f"{_pl(p, 'crate_count')}: {size} packed, with {inside} cards left "
                           "in the crate being settled")
        elif status in (st.CRATE_NONE, st.CRATE_DONE, st.CRATE_SITTING_OUT):
            if size or inside:
                bad.append(f"{_pl(p, 'crate')}: a crate that is {_status(status)} holds "
                           f"nothing (crate_count {size}, {inside} cards)")
        elif size != inside:
            bad.append(f"{_pl(p, 'crate_count')}: {size}, but the crate holds {inside} cards")
        elif status == st.CRATE_PACKING:
            if size >= MAX_CRATE or (size and (phase != st.PH_PACK or p != v.turn)):
                bad.append(f"{_pl(p, 'crate')}: {size} cards packed, but only the smuggler "
                           "packing now has a partly packed crate (at most 4 cards, P-3)")
        elif not 1 <= size <= MAX_CRATE:
            bad.append(f"{_pl(p, 'crate_count')}: a {_status(status)} crate holds 1 to "
                       f"{MAX_CRATE} cards, got {size}")


# --- the negotiation ----------------------------------------------------------------------------
def _parcel_empty(v: _State, g: int, prefix: str) -> bool:
    return not (getattr(v, f"{prefix}_gold")[g] or getattr(v, f"{prefix}_wh")[g].any()
                or getattr(v, f"{prefix}_crate")[g].any() or getattr(v, f"{prefix}_promise")[g])


def _domains(v: _State, bad: list) -> None:
    """What the config allows in every negotiation record, the stale one included."""
    config, n = v.config, v.n
    full = config.haggling == "full"
    for g in range(2):
        for prefix, what in (("offer", "offer"), ("deal", "deal")):
            if config.haggling == "none" and not _parcel_empty(v, g, prefix):
                bad.append(f"{_badge(g, what)}: must be empty with haggling 'none' (P-7)")
            elif not full and (getattr(v, f"{prefix}_wh")[g].any()
                               or getattr(v, f"{prefix}_crate")[g].any()
                               or getattr(v, f"{prefix}_promise")[g]):
                bad.append(f"{_badge(g, what)}: goods and promises need haggling 'full' (P-7)")
            amount = int(getattr(v, f"{prefix}_gold")[g])
            if amount not in v.menu_set:
                bad.append(f"{_badge(g, what + '.gold')}: {amount} is not on the gold menu "
                           f"{list(config.gold_menu)} (P-0.5)")
        if v.demand[g] not in v.menu_set:
            bad.append(f"{_badge(g, 'demand')}: {int(v.demand[g])} is not on the gold menu "
                       f"(P-0.5)")
    top = max(config.gold_menu)
    for x in range(n):
        for g in range(2):
            gold, wh = int(v.bounty_gold[x, g]), v.bounty_wh[x, g]
            if (gold or wh.any()) and not config.bounties:
                bad.append(f"{_bounty(x, g)}: bounties are off in this config (P-5.2)")
            elif wh.any() and not (config.bounty_goods and full):
                bad.append(f"{_bounty(x, g)}.warehouse: bounty goods need bounty_goods and "
                           "haggling 'full' (P-5.2)")
            if gold > top:
                bad.append(f"{_bounty(x, g)}.gold: {gold}, more than the menu's {top} (P-0.5)")
            elif v.phase in NEGOTIATING and gold not in v.menu_set:
                # accepting a bounty may cut it down to the payer's free gold
                bad.append(f"{_bounty(x, g)}.gold: {gold} is not on the gold menu (P-0.5)")
    if v.gift_lock[:n].any() and not config.smuggler_transfers:
        bad.append("negotiation.gold_gifts_made_by: gifts need smuggler_transfers (R-06c)")
    if v.fine > MAX_FINE:
        bad.append(f"negotiation.fine: {v.fine}, more than a full crate's fines ({MAX_FINE})")
    if v.pool_left and v.phase != st.PH_LAWYER_GOODS:
        bad.append(f"negotiation.lawyer_pool.cards_left: {v.pool_left} outside the 'lawyer goods' "
                   "phase (R-17d)")
    if v.fund_paid > 2 * top:
        bad.append(f"negotiation.fund_paid: {v.fund_paid}, more than two deals of the menu's "
                   f"largest amount ({2 * top})")


def _outside_border(v: _State, bad: list) -> None:
    """The record the last border check left behind: nothing in it may still act (the Lawyer's
    pool is checked by :func:`_domains`)."""
    phase, n = v.phase, v.n
    if phase in (st.PH_WINDOW, st.PH_RAID_DISCARD, st.PH_MARKET, st.PH_PACK, st.PH_ANNOUNCE):
        if v.cur != -1:
            bad.append(f"negotiation.crate_of: must be null in the {_phase(phase)} phase (no "
                       "crate has been checked this round)")
    elif v.cur >= 0 and v.crate_status[v.cur] != st.CRATE_DONE:
        bad.append(f"negotiation.crate_of: {_seat(v.cur)}, the crate checked last, must be "
                   "'done'")
    for x, g in zip(*np.nonzero(v.bounty_on[:n])):
        bad.append(f"{_bounty(x, g)}.accepted: true outside a border check (bounties are paid "
                   "when their crate is settled, R-07)")
    for g in range(2):
        if v.demand[g]:
            bad.append(f"{_badge(g, 'demand')}: {int(v.demand[g])} outside a border check")
        if v.offer_lock[g]:
            bad.append(f"{_badge(g, 'offer_lock')}: set outside the owner's offer turn")


def _border(v: _State, bad: list) -> None:
    """A border check in progress (P-5, Appendix A), checked step by step."""
    if v.cur < 0 or v.crate_status[v.cur] != st.CRATE_ANNOUNCED:
        bad.append(f"negotiation.crate_of: the {_phase(v.phase)} phase needs the seat of an "
                   "announced crate under border check")
        return
    for step in (_border_turn, _border_rules, _border_standing, _border_outcome,
                 _border_parcels, _border_deals, _border_crate, _border_bounties):
        step(v, bad)


def _border_turn(v: _State, bad: list) -> None:
    """Who decides: the owner in its phases, the inspector of the badge slot in the others."""
    phase, name = v.phase, _phase(v.phase)
    if phase in OWNER_PHASES and v.turn != v.cur:
        bad.append(f"to_move: the owner {_seat(v.cur)} decides in the {name} phase")
    if phase in (st.PH_RESPOND, st.PH_JOIN, st.PH_KEEP_OR_OPEN) and v.pos < v.ni \
            and v.turn != v.insp[v.pos]:
        bad.append(f"to_move: the inspector of badge slot position.index decides in the {name} "
                   "phase")


def _border_rules(v: _State, bad: list) -> None:
    """The phase and the exchange exist under the config (P-7, P-5.2, R-17d, P-5.3)."""
    phase, config, name = v.phase, v.config, _phase(v.phase)
    if config.haggling == "none" and phase in (st.PH_BOUNTY, st.PH_OFFER, st.PH_ANSWER_DEMAND):
        bad.append(f"phase: no {name} phase with haggling 'none' (P-7)")
    if phase == st.PH_BOUNTY and not (config.bounties or config.smuggler_transfers):
        bad.append("phase: no 'bounty' phase without bounties or smuggler_transfers (P-5.2)")
    if phase == st.PH_LAWYER_GOODS and config.lawyer_goods != "player_choice":
        bad.append("phase: the 'lawyer goods' phase needs lawyer_goods 'player_choice' (R-17d)")
    if not 1 <= v.exchange <= (1 if config.haggling == "none" or phase == st.PH_BOUNTY
                               else config.haggle_rounds):
        bad.append(f"negotiation.exchange: {v.exchange} is not an exchange of this border check "
                   f"(1..{config.haggle_rounds}, 1 in the bounty phase or without haggling)")


def _border_standing(v: _State, bad: list) -> None:
    """Who stands where: the inspectors' statuses the phase needs (P-5.3, P-5.4)."""
    phase, ni, name = v.phase, v.ni, _phase(v.phase)
    for g in range(ni, 2):
        if v.g_status[g] != st.G_PASSED:
            bad.append(f"{_badge(g, 'status')}: badge B is not in play; its slot is 'passed' "
                       "during a border check")
    opened, undecided = v.opened, v.undecided
    if v.holding and (v.config.accept_commits or phase not in HOLDING_PHASES):
        bad.append(f"{_badge(v.holding[0], 'status')}: 'holding' needs config.accept_commits "
                   f"false and one of the phases {[_phase(p) for p in HOLDING_PHASES]} "
                   "(P-5.3(b'))")
    if phase == st.PH_KEEP_OR_OPEN:
        if opened or undecided or v.pos >= ni or v.g_status[v.pos] != st.G_HOLDING:
            bad.append("negotiation.inspectors: in the keep or open phase no inspector is "
                       "'opened' or 'undecided' and the one at position.index is 'holding' "
                       "(P-5.3(b'))")
    elif phase in NEGOTIATING:
        if opened:
            bad.append(f"{_badge(opened[0], 'status')}: 'opened' ends the negotiation (R-10); "
                       f"no {name} phase after it")
        if phase == st.PH_BOUNTY and len(undecided) != ni:
            bad.append("negotiation.inspectors: every inspector is 'undecided' in the bounty "
                       "phase (P-5.2)")
        if phase == st.PH_OFFER and not undecided:
            bad.append("negotiation.inspectors: the offer phase needs an 'undecided' inspector "
                       "(P-5.3a)")
    elif phase == st.PH_JOIN:
        joining = undecided + v.holding
        if ni != 2 or len(opened) != 1 or len(joining) != 1 or joining[0] != v.pos:
            bad.append("negotiation.inspectors: the join phase needs one badge 'opened' and the "
                       "other 'undecided' (or 'holding', P-5.3(b')) at position.index (P-5.4)")
    elif phase == st.PH_REACT:
        if not opened or undecided:
            bad.append("negotiation.inspectors: the react phase comes after an open, with no "
                       "inspector 'undecided' (P-5.4)")
    elif undecided:
        bad.append(f"{_badge(undecided[0], 'status')}: 'undecided' during settlement "
                   "(undecided inspectors pass when the negotiation ends, 4.4-2)")


def _border_outcome(v: _State, bad: list) -> None:
    """The outcome and the settlement step the crate is at (Appendix A, R-16)."""
    phase, out, name = v.phase, v.outcome, _phase(v.phase)
    if phase in SETTLING:
        if out == st.OUT_PENDING:
            bad.append(f"negotiation.outcome: 'pending' in the {name} phase (settlement has "
                       "begun)")
        elif (out == st.OUT_PASSED) == bool(v.opened):
            bad.append("negotiation.outcome: 'passed' exactly when no inspector opened "
                       "(Appendix A)")
        if (v.fb_hidden >= 0) != (out == st.OUT_FALSE_BOTTOM):
            bad.append("negotiation.false_bottom_card: set exactly when the outcome is 'false "
                       "bottom' (FB-4)")
    else:
        if out != st.OUT_PENDING:
            bad.append(f"negotiation.outcome: must be 'pending' in the {name} phase")
        if v.fb_hidden >= 0:
            bad.append("negotiation.false_bottom_card: set before the crate is settled")
    if (phase not in SETTLING or out in (st.OUT_PASSED, st.OUT_PASSED_SR)) and (
            v.fine or v.truthful):
        bad.append("negotiation.fine: a fine (and truthful) only for an opened crate, once it "
                   "is settled (4.4-B)")
    if phase in DEALS_RESERVED:
        if v.fund_paid:
            bad.append("negotiation.fund_paid: must be 0 before the deals are paid")
        if v.lawyer_to != -1:
            bad.append("negotiation.lawyer_to: must be null before the deals are paid")
    if phase == st.PH_FUND and v.fund_paid <= 0:
        bad.append("negotiation.fund_paid: the Fund is played on gold paid in deals (SF-1)")


def _border_parcels(v: _State, bad: list) -> None:
    """Each badge's offer, demand and deal (P-5.3)."""
    for g in range(2):
        _badge_parcels(v, g, bad)


def _badge_parcels(v: _State, g: int, bad: list) -> None:
    """Badge ``g``'s offer (the owner's, P-5.3a), demand (P-5.3b, P-5.3c) and deal (R-05)."""
    phase, name = v.phase, _phase(v.phase)
    if v.offer_lock[g] and (phase != st.PH_OFFER or g not in v.undecided):
        bad.append(f"{_badge(g, 'offer_lock')}: set only in the owner's offer turn, for an "
                   "undecided inspector")
    if v.offer_lock[g] & st.LOCK_WITHDRAWN and not _parcel_empty(v, g, "offer"):
        bad.append(f"{_badge(g, 'offer')}: withdrawn this turn, so it is empty")
    if phase == st.PH_BOUNTY or phase in AFTER_OPEN:
        if not _parcel_empty(v, g, "offer"):
            bad.append(f"{_badge(g, 'offer')}: must be empty in the {name} phase "
                       "(P-5.2, R-10)")
    elif phase in NEGOTIATING and v.offer_crate[g].sum() > v.crate_size[v.cur]:
        bad.append(f"{_badge(g, 'offer.crate')}: {int(v.offer_crate[g].sum())} crate cards, "
                   f"more than the {v.crate_size[v.cur]} packed (P-5.3a)")
    demand_ok = (phase == st.PH_RESPOND and g < v.pos) or (
        phase == st.PH_ANSWER_DEMAND and g >= v.pos)
    if v.demand[g] and (not demand_ok or g not in v.undecided):
        bad.append(f"{_badge(g, 'demand')}: {int(v.demand[g])}, but only an undecided "
                   "inspector's demand waits, from its answer in this exchange until the "
                   "owner answers it (P-5.3b, P-5.3c)")
    if g not in v.dealt and (not _parcel_empty(v, g, "deal") or v.deal_seq[g]):
        bad.append(f"{_badge(g, 'deal')}: only a 'committed' (or 'holding') inspector has "
                   "a deal (R-05, P-5.3(b'))")


def _border_deals(v: _State, bad: list) -> None:
    """The accepted deals: their order (R-08) and, until settlement, their contents (P-5.3)."""
    committed, cur = v.dealt, v.cur
    orders = sorted(int(v.deal_seq[g]) for g in committed)
    voidable = not v.config.accept_commits  # a voided deal leaves its order unused (P-5.3(b'))
    if orders != list(range(1, len(committed) + 1)) and not (
            voidable and len(set(orders)) == len(orders) and all(1 <= o <= 2 for o in orders)):
        bad.append(f"negotiation.inspectors[*].deal_order: the committed inspectors' deals are "
                   f"accepted 1st{' and 2nd' if len(committed) == 2 else ''} (R-08), got "
                   f"{orders}")
    if v.phase not in NEGOTIATING + KEEPING + AFTER_OPEN:
        return
    for g in committed:
        if _parcel_empty(v, g, "deal"):
            bad.append(f"{_badge(g, 'deal')}: a 'committed' inspector's deal cannot be "
                       "empty (P-5.3b)")
        if v.deal_crate[g].sum() > v.crate_size[cur]:
            bad.append(f"{_badge(g, 'deal.crate')}: more crate cards than the "
                       f"{v.crate_size[cur]} packed (P-5.3a)")


def _border_crate(v: _State, bad: list) -> None:
    """What is left in the crate at the settlement step (R-16, R-08, R-17d)."""
    phase, cur = v.phase, v.cur
    if phase == st.PH_LAWYER:  # the crate's cards have moved (R-16 step 1)
        promised = v.deal_crate.sum(axis=0)
        if v.outcome in (st.OUT_PASSED, st.OUT_PASSED_SR):
            if not np.array_equal(promised, v.crate[cur]):
                bad.append(f"{_pl(cur, 'crate')}: after a pass the crate holds exactly the "
                           "deals' deliverable crate goods, negotiation.inspectors[*].deal.crate "
                           "(R-08)")
        elif promised.any() or v.crate[cur].any():
            bad.append(f"{_pl(cur, 'crate')}: an opened crate is emptied and the deals' crate "
                       "goods lapse (R-08, 4.4-B)")
    elif phase == st.PH_LAWYER_GOODS:
        _lawyer_pool(v, bad)
    elif phase in (st.PH_FUND, st.PH_BOUNTY_LAWYER) and v.crate[cur].any():
        bad.append(f"{_pl(cur, 'crate')}: empty once the deals are paid (R-16)")


def _border_bounties(v: _State, bad: list) -> None:
    """Bounties and gifts: made by the other smugglers in their turn, accepted by openers,
    paid in turn (P-5.2, R-07, R-06c)."""
    phase, cur = v.phase, v.cur
    for x in range(v.n):
        if not (v.bounty_gold[x].any() or v.bounty_wh[x].any() or v.bounty_on[x].any()
                or v.gift_lock[x]):
            continue
        if x == cur or v.is_insp[x]:
            bad.append(f"negotiation.bounties / gold_gifts_made_by: {_seat(x)} is not another "
                       "smuggler of this border check (P-5.2)")
            continue
        if phase == st.PH_BOUNTY and v.where[x] > v.pos:
            bad.append(f"negotiation.bounties / gold_gifts_made_by: {_seat(x)}'s bounty turn "
                       "has not come yet (position.index, P-5.2)")
        for g in range(2):
            if not v.bounty_on[x, g]:
                continue
            if g not in v.opened:
                bad.append(f"{_bounty(x, g)}.accepted: only a bounty to an inspector who opened "
                           "is accepted (R-07)")
            elif phase == st.PH_BOUNTY_LAWYER and v.where[x] < v.pos or (
                    phase == st.PH_LAWYER_GOODS and v.pool_payer != cur
                    and v.where[x] <= v.pos):
                bad.append(f"{_bounty(x, g)}.accepted: {_seat(x)} has paid its bounties "
                           "(position.index, R-07)")


def _lawyer_pool(v: _State, bad: list) -> None:
    """R-17d: the Lawyer's player hands over cards from the halved deals' goods."""
    payer, cur = v.pool_payer, v.cur
    total = int(v.pool_wh.sum() + v.pool_crate.sum())
    if not 1 <= v.pool_left <= total:
        bad.append(f"negotiation.lawyer_pool.cards_left: {v.pool_left}, but the pool holds "
                   f"{total} cards and the phase hands over at least one")
    if not 0 <= v.lawyer_to < v.ni:
        bad.append("negotiation.lawyer_to: the badge receiving the half must be set (LW-2)")
    free = v.wh_up[payer] + v.wh_down[payer] - v.res_wh[payer]
    for t in np.flatnonzero(v.pool_wh > free):
        bad.append(f"negotiation.lawyer_pool.warehouse.{CARD_KEYS[t]}: {int(v.pool_wh[t])}, "
                   f"but {_seat(payer)} has {int(free[t])} free in the warehouse")
    if payer == cur:
        if not np.array_equal(v.pool_crate, v.crate[cur]):
            bad.append("negotiation.lawyer_pool.crate: the owner's pool holds exactly the crate "
                       f"goods left in {_pl(cur, 'crate')} (R-17d)")
    else:
        if v.is_insp[payer]:
            bad.append("negotiation.lawyer_pool.payer: the owner or a smuggler paying a bounty "
                       "hands over the goods (R-17d, R-17e)")
        if v.pos >= v.n or v.order[v.pos] != payer:
            bad.append("negotiation.lawyer_pool.payer: a bounty payer hands over in its own "
                       "turn of the bounty payments (position.index)")
        if v.pool_crate.any():
            bad.append("negotiation.lawyer_pool.crate: a bounty has no crate goods")
        if v.crate[cur].any():
            bad.append(f"{_pl(cur, 'crate')}: empty once the deals are paid (R-16)")


# --- the decision -------------------------------------------------------------------------------
#: Where the fields a seek may change live in the dict.
_PATHS = {"phase": "phase", "turn": "to_move", "pos": "position.index",
          "window_passes": "position.window_passes", "count": "position.market_discards",
          "crate_status": "players[*].crate_status", "round": "round"}


def _decision(states, bad: list) -> None:
    """One seek leaves the state as it is, and the decision has a legal action."""
    s = states[0]
    phase = int(s["phase"])
    look = states.copy()
    here = seek_at(look, 0)
    if not here or look.tobytes() != states.tobytes():
        changed = [_PATHS.get(f, f) for f in st.STATE_DTYPE.names
                   if not np.array_equal(look[0][f], s[f])]
        changed = [c for c in changed if c in _PATHS.values()] or ["the negotiation or cards"]
        bad.append(f"phase: {_phase(phase)} with to_move p{int(s['turn'])} is not a decision "
                   f"point: the engine would move on by itself (changing "
                   f"{', '.join(changed)})")
        return
    if phase == st.PH_GAME_OVER:
        return
    mask = new_mask()
    legal_mask_at(states, 0, mask)
    if count_legal(mask, PHASE_LO[phase], PHASE_HI[phase]) == 0:
        bad.append(f"to_move: p{int(s['turn'])} has no legal action in the {_phase(phase)} phase "
                   "(a card the play needs is missing or not active)")


#: The dict entries behind the invariants of :func:`~.invariants.check` that a loaded state can
#: break (the others are checked above), by the start of the invariant's message.
_INVARIANT_PATHS = (("gold not conserved", "players[*].gold, bank"),
                    ("know_hand", "knowledge.hand"), ("know_down", "knowledge.face_down"))


def _invariants(s) -> list[str]:
    """The invariants ``s`` violates, each named by its dict entries where a dict can break it
    (those only a real game's past keeps: ``reachable=False`` rebases them)."""
    out = []
    for x in check(s):
        path = next((p for start, p in _INVARIANT_PATHS if x.startswith(start)), None)
        out.append(f"invariant violated: {x}" if path is None
                   else f"{path}: invariant violated: {x}{UNREACHED}")
    return out


def problems(states: np.ndarray, config: GameConfig, reachable: bool = True) -> list[str]:
    """What keeps the engine from playing the one-element state array ``states`` (module
    docstring), each problem naming the dict path that causes it; empty when it can play it.

    ``config`` is the state's :class:`GameConfig`; the per-seat rows beyond the player count,
    names, seats and value ranges of single entries are the caller's to check
    (:func:`~.dict_format.state_from_dict` does it while reading the dict). With ``reachable``
    false the counters that only a real game's past bounds are bounded by the whole game
    instead (:func:`_whole_game`); the caller has rebased the rest (:mod:`.rebase`)."""
    v = _State(states[0], config)
    bad: list[str] = []
    _cards(v, bad)
    _seats(v, bad)
    _end_of_game(v, bad)
    _counters(v, bad)
    (_past if reachable else _whole_game)(v, bad)
    _position(v, bad)
    _crates(v, bad)
    _domains(v, bad)
    if v.phase in BORDER:
        _border(v, bad)
    else:
        _outside_border(v, bad)
    _escrow(v, bad)
    if (v.phase == st.PH_GAME_OVER) != (v.turn == -1):
        bad.append("to_move: must be null exactly when the phase is 'game over'")
    if not bad:  # the invariants back the checks above up (gold conservation is only there)
        bad += _invariants(states[0])
    if not bad:
        _decision(states, bad)
    return bad
