"""The engine's public kernels: ``legal_mask``, ``step``, ``advance``, ``current_player``,
``is_terminal``.

A decision point is a phase plus the seat in ``s.turn``. After every action :func:`advance`
runs the automatic parts of the rules (draws, settlement, collection of the round's end) until
a player must decide; with ``skip_forced`` (P-0.3) a decision with a single legal action is
applied without asking. (The seek functions of the bounty, offer, crate-choice and collection
turns recognise their common forced moves before any mask is built, and apply them there:
``tests/test_forced_moves.py`` checks that the games stay the same.) Kernels assume a legal
action: the Python layer (:class:`borders_sim.Game`) checks the mask first and raises a clear
error otherwise.

**No kernel loops forever.** :func:`advance` is the only loop whose end depends on the rules
making progress; it gives up and returns :data:`ENGINE_ERROR` (instead of a count of legal
actions) on an unknown phase, when the round number passes the config's ``max_rounds``
(:func:`~borders_sim.rules.limits.rounds_limit`, P-0.4), or after :data:`ADVANCE_SPINS`
automatic steps within one round. Every other loop of the kernels moves an index or a count
toward a bound it checks (seats, card types, the cards in a pile, a hand, a crate or a
warehouse), so it ends. States that :func:`borders_sim.game.saved.dict_format.state_from_dict`
accepts never make :func:`advance` give up; a state built or edited by hand may, and the Python
layer turns :data:`ENGINE_ERROR` into :class:`EngineError`. :func:`step` counts decisions in
``s.steps`` and enforces ``max_game_length`` (P-0.4): a state that has taken that many
decisions and is still asked for one makes it give up too, before applying anything. No game
gets there (the bound is a proof, far above real lengths); a state whose ``steps`` was set near
the bound by hand may.

**Compile units.** The phase dispatchers ``_apply``, ``_seek`` and :func:`legal_mask`, which every
whole-game kernel calls, are registered here as compile units (:mod:`borders_sim._compile.units`)
with the argument types their callers pass, so that a helper process can compile each alone.
The owner registers its kernels because the registry sits below the rules and never imports
them.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.core import types
from numba.cpython.unsafe.numbers import trailing_zeros

from .actions import NUM_ACTIONS, PHASE_HI, PHASE_LO
from .config import GameConfig
from .phases.pack_announce import apply_announce, apply_pack, legal_announce, legal_pack, seek_announce, seek_pack
from .phases.collection import apply_collect, legal_collect, seek_collect
from .._compile import units
from .._compile.jit import kernel
from .limits import (game_length_limit, max_decisions_per_round, max_game_length, max_rounds,
                     rounds_limit)
from .phases.border_check import (apply_answer_demand, apply_bounty, apply_choose_crate, apply_join,
                         apply_keep_or_open, apply_offer, apply_react, apply_respond,
                         legal_answer_demand, legal_bounty, legal_choose_crate, legal_join,
                         legal_keep_or_open, legal_offer, legal_react, legal_respond,
                         seek_answer_demand, seek_bounty, seek_choose_crate, seek_join,
                         seek_keep_or_open, seek_offer, seek_react, seek_respond)
from .phases.market import (apply_market, apply_raid_discard, apply_window, legal_market,
                     legal_raid_discard, legal_window, seek_market, seek_raid_discard,
                     seek_window)
from .phases.settlement import (apply_fund, apply_lawyer, apply_lawyer_goods, legal_fund, legal_lawyer,
                         legal_lawyer_goods, seek_bounty_lawyer, seek_fund, seek_lawyer,
                         seek_lawyer_goods)
from .state import (CFG_SKIP_FORCED, MAX_PLAYERS, MIN_PLAYERS, PH_ANNOUNCE, PH_ANSWER_DEMAND,
                    PH_BOUNTY, PH_BOUNTY_LAWYER, PH_CHOOSE_CRATE, PH_COLLECT, PH_FUND,
                    PH_GAME_OVER, PH_JOIN, PH_KEEP_OR_OPEN, PH_LAWYER, PH_LAWYER_GOODS,
                    PH_MARKET, PH_OFFER,
                    PH_PACK, PH_RAID_DISCARD, PH_REACT, PH_RESPOND, PH_WINDOW, PHASE_NAMES,
                    state_type)

#: :func:`advance` and :func:`step` return this instead of a number of legal actions when they
#: give up on a state (module docstring); the Python layer raises :class:`EngineError`.
ENGINE_ERROR = -1
NUM_PHASES = len(PHASE_NAMES)


class EngineError(RuntimeError):
    """The kernels gave up on a state they cannot play (see :data:`ENGINE_ERROR`): an unknown
    phase, a game past ``max_rounds`` or ``max_game_length`` decisions, or an automatic advance
    that reaches no decision. Only a
    state built or edited by hand can cause it (``from_dict`` refuses such states); the state
    is left where the kernel stopped and cannot be played on. :class:`~borders_sim.Game` also
    raises it when asked to play a state that its ``refresh()`` refused."""


def _configs():
    """One config per player count and deck, with the most exchanges and decisions."""
    return [GameConfig(num_players=n, action_cards=ac, haggle_rounds=hr, lawyer_goods=lg)
            for n in range(MIN_PLAYERS, MAX_PLAYERS + 1) for ac in (False, True)
            for hr, lg in ((1, "auto_lowest"), (8, "player_choice"))]


#: The fewest rounds and decisions any config allows: below them :func:`advance` and
#: :func:`step` skip computing the config's own bound (no real game gets near either).
ROUNDS_FLOOR = min(max_rounds(c) for c in _configs())
STEPS_FLOOR = min(max_game_length(c) for c in _configs())
#: Automatic steps (a seek that moves on, or a forced action) :func:`advance` takes within one
#: round before it gives up: each decision of a round costs at most a few seeks, so 16 times the
#: most decisions of a round in any config is far above what a game needs.
ADVANCE_SPINS = 16 * max(max_decisions_per_round(c) for c in _configs()) + 64


@kernel(standalone=True)
def _seek(s):
    """Find who decides next, running automatic steps; False means 'look again'."""
    ph = s.phase
    if ph == PH_WINDOW:
        return seek_window(s)
    if ph == PH_RAID_DISCARD:
        return seek_raid_discard(s)
    if ph == PH_MARKET:
        return seek_market(s)
    if ph == PH_PACK:
        return seek_pack(s)
    if ph == PH_ANNOUNCE:
        return seek_announce(s)
    if ph == PH_CHOOSE_CRATE:
        return seek_choose_crate(s)
    if ph == PH_BOUNTY:
        return seek_bounty(s)
    if ph == PH_OFFER:
        return seek_offer(s)
    if ph == PH_RESPOND:
        return seek_respond(s)
    if ph == PH_ANSWER_DEMAND:
        return seek_answer_demand(s)
    if ph == PH_JOIN:
        return seek_join(s)
    if ph == PH_REACT:
        return seek_react(s)
    if ph == PH_LAWYER:
        return seek_lawyer(s)
    if ph == PH_FUND:
        return seek_fund(s)
    if ph == PH_BOUNTY_LAWYER:
        return seek_bounty_lawyer(s)
    if ph == PH_COLLECT:
        return seek_collect(s)
    if ph == PH_LAWYER_GOODS:
        return seek_lawyer_goods(s)
    if ph == PH_KEEP_OR_OPEN:
        return seek_keep_or_open(s)
    s.turn = -1
    return True


@kernel(standalone=True)
def legal_mask(s, out):
    """Fill ``out`` (uint8[NUM_ACTIONS] or longer) with 1 for every action legal now, else 0.

    The phases' ``legal_*`` functions write the outcome of a test into the mask
    (``out[a] = cond``) rather than branching on it: in play the tests come out at random, and
    each mispredicted branch costs more than the store. (It returns nothing: a returned array
    costs its reference count an atomic increment and decrement, per decision.) Padding after
    ``NUM_ACTIONS`` is left as it is: :func:`new_mask` zeroes it once."""
    for a in range(NUM_ACTIONS):  # a constant length, zeroed with inline stores
        out[a] = 0
    ph = s.phase
    if ph == PH_WINDOW:
        legal_window(s, out)
    elif ph == PH_RAID_DISCARD:
        legal_raid_discard(s, out)
    elif ph == PH_MARKET:
        legal_market(s, out)
    elif ph == PH_PACK:
        legal_pack(s, out)
    elif ph == PH_ANNOUNCE:
        legal_announce(s, out)
    elif ph == PH_CHOOSE_CRATE:
        legal_choose_crate(s, out)
    elif ph == PH_BOUNTY:
        legal_bounty(s, out)
    elif ph == PH_OFFER:
        legal_offer(s, out)
    elif ph == PH_RESPOND:
        legal_respond(s, out)
    elif ph == PH_ANSWER_DEMAND:
        legal_answer_demand(s, out)
    elif ph == PH_JOIN:
        legal_join(s, out)
    elif ph == PH_REACT:
        legal_react(s, out)
    elif ph == PH_LAWYER or ph == PH_BOUNTY_LAWYER:
        legal_lawyer(s, out)
    elif ph == PH_FUND:
        legal_fund(s, out)
    elif ph == PH_COLLECT:
        legal_collect(s, out)
    elif ph == PH_LAWYER_GOODS:
        legal_lawyer_goods(s, out)
    elif ph == PH_KEEP_OR_OPEN:
        legal_keep_or_open(s, out)


@kernel(standalone=True)
def _apply(s, a):
    ph = s.phase
    if ph == PH_WINDOW:
        apply_window(s, a)
    elif ph == PH_RAID_DISCARD:
        apply_raid_discard(s, a)
    elif ph == PH_MARKET:
        apply_market(s, a)
    elif ph == PH_PACK:
        apply_pack(s, a)
    elif ph == PH_ANNOUNCE:
        apply_announce(s, a)
    elif ph == PH_CHOOSE_CRATE:
        apply_choose_crate(s, a)
    elif ph == PH_BOUNTY:
        apply_bounty(s, a)
    elif ph == PH_OFFER:
        apply_offer(s, a)
    elif ph == PH_RESPOND:
        apply_respond(s, a)
    elif ph == PH_ANSWER_DEMAND:
        apply_answer_demand(s, a)
    elif ph == PH_JOIN:
        apply_join(s, a)
    elif ph == PH_REACT:
        apply_react(s, a)
    elif ph == PH_LAWYER or ph == PH_BOUNTY_LAWYER:
        apply_lawyer(s, a)
    elif ph == PH_FUND:
        apply_fund(s, a)
    elif ph == PH_COLLECT:
        apply_collect(s, a)
    elif ph == PH_LAWYER_GOODS:
        apply_lawyer_goods(s, a)
    elif ph == PH_KEEP_OR_OPEN:
        apply_keep_or_open(s, a)


@units.register("engine: apply")
def _apply_unit():
    return [(_apply, (state_type(), types.int64))]


@units.register("engine: seek")
def _seek_unit():
    return [(_seek, (state_type(),))]


@units.register("engine: legal mask")
def _legal_mask_unit():
    return [(legal_mask, (state_type(), types.uint8[::1]))]


#: Mask buffers are padded to whole 64-bit words so that :func:`kth_legal` can skip 8 actions
#: at a time through a uint64 view of the mask.
MASK_SIZE = (NUM_ACTIONS + 7) // 8 * 8
_ONES = np.uint64(0x0101010101010101)
_TOP = np.uint64(56)
_HIGH = np.uint64(0x8080808080808080)


@kernel
def count_legal(mask, lo, hi):
    """Number of legal actions in ``mask[lo:hi]`` (a 0/1 byte per action); a phase's legal ids
    lie in ``PHASE_LO[phase] .. PHASE_HI[phase]``. (The unsigned loop index spares numba's
    negative-index check, so the loop vectorises: ~8x faster on the 301 ids of a bounty.)"""
    total = np.uint64(0)
    for a in range(np.uint64(lo), np.uint64(hi)):
        total += mask[a]
    return np.int64(total)


@kernel
def last_legal(mask, lo, hi):
    """The highest legal action in ``mask[lo:hi]``, or -1. :func:`advance` finds a forced move
    (P-0.3) with it: that single legal action is most often the pass or done id that closes
    its phase's span (``bounty_done``, ``offer_done``, ``end_market``, ``skip_collect``)."""
    for a in range(hi - 1, lo - 1, -1):
        if mask[a]:
            return a
    return -1


@kernel
def first_legal(mask, lo, hi):
    for a in range(lo, hi):
        if mask[a]:
            return a
    return -1


@kernel
def kth_legal(words, k, lo):
    """The ``k``-th legal action (0-based) at or after ``lo`` of a mask viewed as uint64
    ``words`` (make the view once: creating it costs more than a scan).

    No branch on the bytes, for the processor to mispredict: ``w * 0x0101..01`` holds in each
    byte the legal ids up to it (at most 8, so no byte carries into the next), its top byte the
    word's count, which skips whole words. In the word that holds the answer, subtracting
    ``k + 1`` from every byte with its high bit set leaves that bit where the running count
    exceeds ``k``; the first such byte, found by its trailing zeros, is the answer."""
    for i in range(lo // 8, words.shape[0]):
        running = words[i] * _ONES
        c = np.int64(running >> _TOP)
        if k >= c:
            k -= c
            continue
        above = ((running | _HIGH) - np.uint64(k + 1) * _ONES) & _HIGH
        return 8 * i + (trailing_zeros(above) >> 3)
    return -1


@njit(inline="always")
def advance(s, mask):
    """Run the game forward to the next decision that needs a player. On return ``mask``
    (uint8[MASK_SIZE], see :func:`new_mask`) holds the legal mask of that decision; returns the
    number of legal actions (0 when the game is over), or :data:`ENGINE_ERROR` when it gives up
    on the state (module docstring; ``mask`` is then all 0)."""
    rnd = s.round
    spins = 0
    while True:
        if s.round != rnd:
            rnd = s.round
            spins = 0
        spins += 1
        if s.phase < 0 or s.phase >= NUM_PHASES or spins > ADVANCE_SPINS or (
                rnd > ROUNDS_FLOOR and rnd > rounds_limit(s.cfg)):
            mask[:] = 0
            return ENGINE_ERROR
        if not _seek(s):
            continue
        if s.phase == PH_GAME_OVER:
            mask[:] = 0
            return 0
        legal_mask(s, mask)
        lo = PHASE_LO[s.phase]
        hi = PHASE_HI[s.phase]
        count = count_legal(mask, lo, hi)
        if count != 1 or s.cfg[CFG_SKIP_FORCED] == 0:
            return count
        _apply(s, last_legal(mask, lo, hi))


@njit(inline="always")
def step(s, a, mask):
    """Apply the legal action ``a`` of ``s.turn`` and advance to the next decision; ``mask``
    then holds the next legal mask and the number of legal actions is returned (or
    :data:`ENGINE_ERROR`, see :func:`advance`). ``s.steps`` counts the decision; a state that
    has taken ``max_game_length`` decisions already gives up instead, unchanged and with
    ``mask`` all 0 (module docstring)."""
    if s.steps >= STEPS_FLOOR and s.steps >= game_length_limit(s.cfg):
        mask[:] = 0
        return ENGINE_ERROR
    _apply(s, a)
    s.steps += 1
    return advance(s, mask)


@kernel
def is_terminal(s):
    return s.phase == PH_GAME_OVER


@kernel
def current_player(s):
    """Seat to decide, or -1 when the game is over."""
    return -1 if s.phase == PH_GAME_OVER else s.turn


def new_mask() -> np.ndarray:
    """A zeroed uint8[MASK_SIZE] buffer for :func:`legal_mask`, :func:`advance`, :func:`step`
    (ids from NUM_ACTIONS on are padding and always 0)."""
    return np.zeros(MASK_SIZE, dtype=np.uint8)


# --- entry points for Python callers ----------------------------------------------------------
# Numba types a record argument slowly (~40 us a call) but an array quickly (~3 us), so Python
# code passes the state array and an index.
@kernel
def legal_mask_at(states, i, out):
    legal_mask(states[i], out)
    return out


#: Size of the buffer of :func:`game_op`: the mask (``MASK_SIZE`` bytes), then the legal ids
#: as native int16 (room for every action).
LISTED_SIZE = MASK_SIZE + 2 * NUM_ACTIONS
#: :func:`game_op`'s answer to an action that is not legal now (nothing changed).
ILLEGAL = -2
#: What :func:`game_op` does: apply a legal action and advance (:func:`step`); advance a new
#: state to its first decision (:func:`advance`); only compute the legal mask of the current
#: decision (a loaded or edited state, nothing changes).
OP_STEP, OP_ADVANCE, OP_LIST = 0, 1, 2


@kernel
def list_legal(words, ids, lo, hi):
    """Write the legal ids of ``mask[lo:hi]`` into ``ids`` in increasing order and return how
    many there are; ``words`` is the mask (``MASK_SIZE`` bytes of 0/1, no legal id outside
    ``lo:hi``) viewed as uint64. Each word's set bytes are found with a count of trailing zeros,
    not by testing its 8 bytes, whose branches the processor mispredicts at random."""
    count = 0
    for w in range(lo // 8, (hi + 7) // 8):
        x = words[w]
        while x != 0:
            ids[count] = 8 * w + (trailing_zeros(x) >> 3)
            count += 1
            x &= x - np.uint64(1)
    return count


@njit(inline="always")
def game_op(s, op, a, mask, words, ids):
    """What the Python :class:`~borders_sim.Game` asks of the engine, ``op`` (``OP_*``):

    * ``OP_STEP``: :func:`step` with action ``a``, refused if ``mask`` does not allow it
      (returns :data:`ILLEGAL`, changing nothing);
    * ``OP_ADVANCE``: :func:`advance` (a new game);
    * ``OP_LIST``: the legal mask of the current decision, nothing else (an unknown phase has
      no legal action).

    Then the legal ids of ``mask`` go into ``ids`` (int16[NUM_ACTIONS]) by :func:`list_legal`
    (``words``: ``mask`` as uint64), and their count is returned (0 once the game is over) or
    :data:`ENGINE_ERROR`. One function for the three, so that :class:`~borders_sim.Game`
    compiles one entry point over the engine, not three (each takes seconds on a fresh
    install). Inlined into :func:`game_op_at` and the builtin of
    :func:`borders_sim.game.fastpath.game_call`, which make the views of one buffer differently
    (``.view`` here, costly in numba; addresses there)."""
    if op == OP_STEP:
        if a < 0 or a >= NUM_ACTIONS or mask[a] == 0:
            return ILLEGAL
        count = step(s, a, mask)
    elif op == OP_ADVANCE:
        count = advance(s, mask)
    elif s.phase < 0 or s.phase >= NUM_PHASES or s.phase == PH_GAME_OVER:
        mask[:] = 0
        count = 0
    else:
        legal_mask(s, mask)
        count = count_legal(mask, PHASE_LO[s.phase], PHASE_HI[s.phase])
    if count > 0:
        list_legal(words, ids, PHASE_LO[s.phase], PHASE_HI[s.phase])
    return count


@kernel
def game_op_at(states, i, op, a, buf):
    """:func:`game_op` on ``states[i]``, with ``buf`` (uint8[LISTED_SIZE]) holding the legal
    mask and then the legal ids as int16; called through numba's dispatcher (any state
    array)."""
    mask = buf[:MASK_SIZE]
    return game_op(states[i], op, a, mask, mask.view(np.uint64),
                   buf[MASK_SIZE:].view(np.int16))


@kernel
def seek_at(states, i):
    """One look for the next decision (what :func:`advance` repeats): True when ``s.turn``
    decides now in ``s.phase``; a state at a decision point is left unchanged. Used to check
    loaded states."""
    return _seek(states[i])


def engine_error(state, what: str) -> EngineError:
    """The :class:`EngineError` for a kernel that gave up on the one-element ``state`` array."""
    s = state[0]
    phase = int(s["phase"])
    name = repr(PHASE_NAMES[phase]) if 0 <= phase < NUM_PHASES else f"number {phase}"
    return EngineError(f"{what}: the engine gave up on this state (phase {name}, round "
                       f"{int(s['round'])}, seat to move {int(s['turn'])}, {int(s['steps'])} "
                       "decisions): the phase is unknown, the game ran past max_rounds or "
                       "max_game_length decisions, or the automatic advance reached no decision. "
                       "States loaded with from_dict do this only when their steps count was "
                       "set near max_game_length; was the state built or edited by hand?")
