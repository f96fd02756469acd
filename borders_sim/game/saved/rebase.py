"""Research positions: the records ``Game.from_dict(d, reachable=False)`` rebases.

Some records of a state are the bookkeeping of the game's past: the bank's books, the crate
statistics, the public history, what players privately know of others' cards. A real game keeps
them consistent with the position; a position set up by hand (gold, hands, crates chosen by a
researcher) breaks them although the kernels can play it. :func:`rebase` makes them consistent
with the position again, changing an entry only where it does not fit (a dict made by
``to_dict()`` is left as it is):

* ``bank``: when the books do not balance (``sum(gold) != 50 players + paid_out - paid_in``) or
  an entry is above :data:`MAX_LEDGER`, the bank is said to have paid out the first inspectors'
  bonus (3.4-3) or all the gold above the start, whichever is more, and to have taken in the
  rest: ``paid_out = max(3 inspectors, sum(gold) - 50 players)``, ``paid_in = paid_out -
  (sum(gold) - 50 players)``.
* ``stats``: the totals of ``history.counters[*].crates_opened`` and ``crates_passed`` (zero
  for a dict of format 1, which records no history).
* ``history.counters[*].promises_made``: at least the promises still owed
  (``history.promises``); the engine takes a voided deal's promise back from both (P-5.3(b')).
* ``knowledge.hand``, ``knowledge.face_down``: each bound lowered to the cards of its type that
  are there (they are certain lower bounds, R-39).

Everything else is checked, by :func:`~.validate.problems` with ``reachable=False`` (its module
docstring says how the bounds of the past become bounds of the whole game).
"""

from __future__ import annotations

import numpy as np

from ...rules import state as st
from ...rules.cards import FIRST_INSPECTOR_BONUS, START_GOLD

#: The largest bank entry kept as loaded: the books grow by at most 10 gold per decision, so
#: they stay far below the int64 limit in any game.
MAX_LEDGER = 2 ** 40
_I32 = 2 ** 31 - 1


def rebase(states: np.ndarray) -> None:
    """Rebase the records of the past in the one-element state array ``states`` (in place) so
    that they fit its position (module docstring)."""
    s = states[0]
    n = int(s["cfg"][st.CFG_NUM_PLAYERS])
    _knowledge(s, n)
    _promises_made(s, n)
    _stats(s, n)
    _bank(s, n, int(s["cfg"][st.CFG_NUM_INSPECTORS]))


def _knowledge(s, n: int) -> None:
    """No bound above the truth: ``know_hand[v, o, t] <= hand[o, t]``, ``know_down[v, o, t] <=
    wh_down[o, t]``."""
    s["know_hand"][:n, :n] = np.minimum(s["know_hand"][:n, :n], s["hand"][None, :n])
    s["know_down"][:n, :n] = np.minimum(s["know_down"][:n, :n], s["wh_down"][None, :n])


def _promises_made(s, n: int) -> None:
    """Every promise still owed was made: ``hist[p, H_PROMISES_MADE] >= sum(promised[p])``."""
    owed = s["promised"][:n, :n].astype(np.int64).sum(axis=1)
    made = s["hist"][:n, st.H_PROMISES_MADE]
    s["hist"][:n, st.H_PROMISES_MADE] = np.maximum(made, owed)


def _stats(s, n: int) -> None:
    """The crate statistics are the totals of the history. A total beyond the int32 field is
    stored as its limit, which :func:`~.validate.problems` refuses."""
    for field, h in (("n_opened", st.H_CRATES_OPENED), ("n_passed", st.H_CRATES_PASSED)):
        s[field] = min(int(s["hist"][:n, h].sum()), _I32)


def _bank(s, n: int, inspectors: int) -> None:
    """Books that balance: ``sum(gold) == 50 n + bank_out - bank_in``."""
    surplus = int(s["gold"][:n].sum()) - START_GOLD * n
    paid_in, paid_out = int(s["bank_in"]), int(s["bank_out"])
    if paid_out - paid_in == surplus and max(paid_in, paid_out) <= MAX_LEDGER:
        return
    paid_out = max(FIRST_INSPECTOR_BONUS * inspectors, surplus)
    s["bank_out"] = paid_out
    s["bank_in"] = paid_out - surplus
