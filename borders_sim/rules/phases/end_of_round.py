"""The end of a round after the collection (§4.5 in its strict order, 4.5-7): expiry of action
cards (7.2-5), the end-of-game check (§6, R-28, R-29), refill and badge movement; and the start
of the next round (the round order, 4-3; action-card activation, §7.2)."""

from __future__ import annotations

from ..._compile.jit import kernel
from ..cards import CYCLE_LENGTH, FIRST_ACTION, NUM_ACTION, NUM_GOODS
from ..piles import (discard_from_hand, draw_up_to_limit, is_deferred_for_inspector,
                     is_inspector, num_inspectors, num_players)
from ..state import (CFG_ACTION_CARDS, CRATE_NONE, CRATE_PACKING, PH_GAME_OVER, PH_MARKET,
                     PH_WINDOW)


@kernel(standalone=True)
def start_round(s):
    """Round order starts left of the left-most inspector (4-3, R-04); cards waiting for this
    round become active unless their holder is an inspector and they are #1/#3/#4/#6 (7.2-3)."""
    n = num_players(s)
    start = (s.insp[num_inspectors(s) - 1] + 1) % n
    for i in range(n):
        s.order[i] = (start + i) % n
    for p in range(n):
        insp = is_inspector(s, p)
        for k in range(NUM_ACTION):
            if not (insp and is_deferred_for_inspector(FIRST_ACTION + k)):
                s.hand_later[p, k] = 0
        s.collected[p] = 0
        s.seen_hidden[p] = 0
        s.raid_taken[p] = -1
        for t in range(NUM_GOODS):
            s.seen[p, t] = 0
        s.crate_size[p] = 0
        s.announced[p] = -1
        s.crate_status[p] = CRATE_NONE if insp else CRATE_PACKING
    s.cur = -1
    s.raid_thief = -1
    s.pos = 0
    s.count = 0
    s.window_passes = 0
    s.phase = PH_WINDOW if s.cfg[CFG_ACTION_CARDS] != 0 else PH_MARKET


# --- 4.5-2 .. 4.5-5 ---------------------------------------------------------------------------
@kernel(standalone=True)
def end_round(s):
    n = num_players(s)
    for p in range(n):  # 4.5-2: active action cards not used expire
        for k in range(NUM_ACTION):
            t = FIRST_ACTION + k
            for _ in range(s.hand[p, t] - s.hand_later[p, k]):
                discard_from_hand(s, p, t)
    if s.trigger_round > 0:  # 4.5-3, 6-4: the game ends after round L * ceil(r / L)
        cycle = CYCLE_LENGTH[n]
        s.end_round = cycle * ((s.trigger_round + cycle - 1) // cycle)
        if s.round >= s.end_round:
            s.phase = PH_GAME_OVER
            s.turn = -1
            return
    for i in range(n):  # 4.5-4: refill in round order; the cards belong to the next round
        draw_up_to_limit(s, s.order[i], True, s.round + 1)
    step = 1 if num_inspectors(s) == 1 else 2  # 4.5-5
    s.insp[0] = (s.insp[0] + step) % n
    if num_inspectors(s) == 2:
        s.insp[1] = (s.insp[1] + step) % n
    s.round += 1
    start_round(s)
