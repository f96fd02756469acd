"""Worlds a player cannot tell from the real one, for search and belief research.

:func:`sample_consistent_state` deals the cards ``player`` cannot see anew: the draw pile (order
and contents), other players' hands, their crates that nobody has seen yet, and their face-down
warehouse cards, keeping everything ``player`` knows (RULINGS R-39): its own cards, every public
count and every card it knows to be somewhere (``know_hand``, ``know_down``, escrowed warehouse
cards named by public deals). The result is a :class:`~borders_sim.Game` with exactly the
player's observation, every card present exactly once, and a fresh random generator (so the
real game's future chance events do not leak either); it plays to the end like any game.

This is a determinization for information-set search (IS-MCTS, PIMC): a random deal consistent
with the player's information, not an exact posterior (opponents' past choices are not used to
weight the deal).
"""

from __future__ import annotations

import numpy as np

from ..game import Game
from ..rules import state as st
from ..rules.cards import CARD_CLASS, CLASS_LEGAL, FIRST_ACTION, NUM_ACTION, NUM_CARD_TYPES, \
    NUM_GOODS
from ..rules.engine import seek_at
from ..rules.invariants import check
from ..rules.observation import OBS_SIZE, observe_at
from ..rules.piles import is_deferred_for_inspector, seed_words
from .observations import check_seat

_HIDDEN_CRATES = (st.CRATE_PACKING, st.CRATE_CLOSED, st.CRATE_ANNOUNCED)
_LEGAL = np.array([CARD_CLASS[t] == CLASS_LEGAL for t in range(NUM_GOODS)])


def _crate_hidden(s, o: int) -> bool:
    """A crate whose cards nobody but its owner has seen: not yet settled (a crate in
    settlement holds only cards promised in public deals, R-08)."""
    if s["crate_status"][o] not in _HIDDEN_CRATES:
        return False
    return not (o == s["cur"] and s["outcome"] != st.OUT_PENDING)


def _take(pool: list, allowed, rng) -> int:
    """Remove and return a random card of ``pool`` whose type passes ``allowed``."""
    idx = [i for i, t in enumerate(pool) if allowed(t)]
    i = idx[int(rng.integers(len(idx)))]
    pool[i], pool[-1] = pool[-1], pool[i]
    return pool.pop()


def _deal(s, viewer: int, rng, keep: int = -1) -> None:
    """Re-deal the cards hidden from ``viewer`` in the state record ``s`` (in place); the hand
    of seat ``keep`` stays as it is."""
    n = int(s["cfg"][st.CFG_NUM_PLAYERS])
    others = [o for o in range(n) if o != viewer]
    pool = [int(t) for t in s["draw"][: s["draw_len"]]]
    hand_slots, crate_slots, down_slots = {}, {}, {}
    for o in others:
        fixed = s["hand"][o].copy() if o == keep else s["know_hand"][viewer, o].astype(np.int64)
        loose = s["hand"][o] - fixed
        pool += np.repeat(np.arange(NUM_CARD_TYPES), loose).tolist()
        hand_slots[o] = int(loose.sum())
        s["hand"][o] = fixed
        if _crate_hidden(s, o):
            pool += np.repeat(np.arange(NUM_GOODS), s["crate"][o]).tolist()
            crate_slots[o] = int(s["crate"][o].sum())
            s["crate"][o] = 0
        reserved_down = np.maximum(s["res_wh"][o] - s["wh_up"][o], 0)
        fixed = np.maximum(s["know_down"][viewer, o].astype(np.int64), reserved_down)
        loose = s["wh_down"][o] - fixed
        pool += np.repeat(np.arange(NUM_GOODS), loose).tolist()
        # face-down legal goods come only from False Bottom (FB-4): keep each class's count
        down_slots[o] = (int(loose[_LEGAL].sum()), int(loose[~_LEGAL].sum()))
        s["wh_down"][o] = fixed
    # the most constrained slots first: each class has enough cards, as the real deal shows
    for o, (legal, other) in down_slots.items():
        for _ in range(legal):
            s["wh_down"][o, _take(pool, lambda t: t < NUM_GOODS and _LEGAL[t], rng)] += 1
        for _ in range(other):
            s["wh_down"][o, _take(pool, lambda t: t < NUM_GOODS and not _LEGAL[t], rng)] += 1
    for o, k in crate_slots.items():
        for _ in range(k):
            s["crate"][o, _take(pool, lambda t: t < NUM_GOODS, rng)] += 1
    for o, k in hand_slots.items():
        for _ in range(k):
            s["hand"][o, _take(pool, lambda t: True, rng)] += 1
    rng.shuffle(pool)
    s["draw"][: len(pool)] = pool
    s["draw_len"] = len(pool)
    for o in others:
        _fit_private_records(s, o, n)


def _fit_private_records(s, o: int, n: int) -> None:
    """Hidden records that describe ``o``'s re-dealt cards are made true of the new deal:
    waiting action cards (7.2), what third players know of ``o`` (kept as lower bounds) and the
    False Bottom card. None of them is visible to the viewer."""
    for k in range(NUM_ACTION):
        t = FIRST_ACTION + k
        if s["insp"][0] == o or s["insp"][1] == o:
            if is_deferred_for_inspector(t):
                s["hand_later"][o, k] = s["hand"][o, t]
                continue
        s["hand_later"][o, k] = min(s["hand_later"][o, k], s["hand"][o, t])
    s["know_hand"][:n, o] = np.minimum(s["know_hand"][:n, o], s["hand"][o][None])
    s["know_down"][:n, o] = np.minimum(s["know_down"][:n, o], s["wh_down"][o][None])
    fb = int(s["fb_hidden"])
    if fb >= 0 and o == s["cur"] and s["wh_down"][o, fb] == 0:
        same = [t for t in range(NUM_GOODS) if _LEGAL[t] == _LEGAL[fb] and s["wh_down"][o, t]]
        s["fb_hidden"] = same[0]


#: Deals tried before keeping the mover's hand (see :func:`_same_decision`).
_MAX_DEALS = 64


def _same_decision(states, real) -> bool:
    """The re-dealt state stops at the real decision: the same seat is asked in the same phase.
    A player who is asked because of hidden cards (an active Night Raid in the action window,
    goods to pack, a Lawyer in settlement, ...) must still hold such cards."""
    probe = states.copy()
    return bool(seek_at(probe, 0)) and probe[0]["phase"] == real[0]["phase"] \
        and probe[0]["turn"] == real[0]["turn"]


def sample_consistent_state(game: Game, player: int, seed: int = 0) -> Game:
    """A :class:`~borders_sim.Game` that ``player`` cannot tell from ``game``.

    Args:
        game: the real game (not changed).
        player: the seat whose information is kept.
        seed: seeds the deal of the hidden cards and the new game's random generator.

    Returns:
        A new game with ``observe(new, player) == observe(game, player)``, every card exactly
        once, and ``player``'s legal actions unchanged when it is to move.
    """
    viewer = check_seat(game, player)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an int, got {seed!r}")
    rng = np.random.default_rng(np.random.SeedSequence([int(seed) & (2**63 - 1), viewer]))
    for _ in range(_MAX_DEALS):
        states = game.state.copy()
        s = states[0]
        _deal(s, viewer, rng)
        if _same_decision(states, game.state):
            break
    else:  # the mover is asked for a reason only a rare deal reproduces: keep its hand
        states = game.state.copy()
        s = states[0]
        _deal(s, viewer, rng, keep=int(game.state[0]["turn"]))
    s["rng"] = seed_words(int(rng.integers(2**63)))
    new = Game.from_state(states)
    before, after = np.empty(OBS_SIZE, np.float32), np.empty(OBS_SIZE, np.float32)
    observe_at(game.state, 0, viewer, before)
    observe_at(new.state, 0, viewer, after)
    problems = check(s)
    if problems or not np.array_equal(before, after):
        raise RuntimeError(f"sample_consistent_state broke the state: {problems or 'observation'}"
                           " (a bug: please report it with the game's to_dict())")
    return new

