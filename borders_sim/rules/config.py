"""Game configuration: player count and the rule variants of RULINGS P-7.

Every default is the rulebook as settled by RULINGS.md; every other value is a documented
variant. A :class:`GameConfig` is validated on construction and packed into the ``cfg`` and
``menu`` fields of the state, so a state carries its own rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields

import numpy as np

from . import state as st
from ..checks import ArgumentTypeError, as_bool, as_choice, as_int, shown

_HAGGLING = {"full": st.HAGGLE_FULL, "gold_only": st.HAGGLE_GOLD_ONLY, "none": st.HAGGLE_NONE}
_CHOICES = {
    "haggling": tuple(_HAGGLING),
    "robbery_timing": ("window", "own_turn"),
    "tiebreak_legal": ("cards", "pieces"),
    "first_inspector": ("seat0", "random"),
    "collect_order_2inspectors": ("b_plus_1", "a_plus_1"),
    "crate_order": ("inspector", "announcement"),
    "lawyer_goods": ("auto_lowest", "player_choice"),
}
DEFAULT_GOLD_MENU = (1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 20, 25, 30)
GOLD_AMOUNT_MAX = 1000  # largest gold_menu amount (P-0.5)
_INT_RANGES = {"num_players": (st.MIN_PLAYERS, st.MAX_PLAYERS), "haggle_rounds": (1, 8)}


def _normalised(name: str, value: object, default: object) -> object:
    """``value`` of flag ``name`` as a plain Python value (numpy scalars converted), checked by
    :mod:`~borders_sim.checks`. The kind of a flag is the type of its default: bool, int (a
    range in ``_INT_RANGES``), str (a choice in ``_CHOICES``) or the gold-menu tuple."""
    if isinstance(default, bool):
        return as_bool(value, name)
    if isinstance(default, int):
        return as_int(value, name, *_INT_RANGES[name])
    if isinstance(default, str):
        return as_choice(value, name, _CHOICES[name])
    return _gold_menu(name, value)


def _gold_menu(name: str, value: object) -> tuple[int, ...]:
    """A gold menu: a tuple, list, range or 1-d numpy array of increasing ints."""
    what = (f"an increasing tuple or list of 1 to {st.MENU_MAX} ints from 1 to "
            f"{GOLD_AMOUNT_MAX}")
    if isinstance(value, np.ndarray) and value.ndim == 1:
        items = list(value)
    elif isinstance(value, Sequence) and not isinstance(value, (str, bytes, bytearray,
                                                                memoryview)):
        items = list(value)
    else:
        raise ArgumentTypeError(f"{name} must be {what}, got {shown(value)} "
                                f"({type(value).__name__})")
    if not 1 <= len(items) <= st.MENU_MAX:
        raise ValueError(f"{name} must be {what}, got {len(items)} amounts: {shown(value)}")
    menu = tuple(as_int(g, f"{name}[{i}]", 1, GOLD_AMOUNT_MAX) for i, g in enumerate(items))
    if any(a >= b for a, b in zip(menu, menu[1:])):
        raise ValueError(f"{name} must be increasing, got {menu}")
    return menu


@dataclass(frozen=True, init=False)
class GameConfig:
    """Rules of one game. Defaults are the rulebook (RULINGS P-7).

    Args:
        num_players: 3..8 (§3).
        haggling: ``"full"`` (P-5.3), ``"gold_only"`` (offers, demands and bounties in gold
            only) or ``"none"`` (no negotiation: inspectors only open or pass).
        haggle_rounds: exchanges per crate, 1..8 (P-5.3, R-37).
        gold_menu: the gold amounts offers, demands, bounties and gifts choose from (P-0.5), an
            increasing tuple of 1..16 ints from 1 to 1000.
        bounties: inspection deals on other players' crates (P-5.2, R-07).
        bounty_goods: bounties may include warehouse goods (P-5.2).
        smuggler_transfers: unconditional gifts of gold or warehouse goods between smugglers
            during the bounty turn (R-06c).
        action_cards: the 22 action cards are in the deck (§7); off: goods only.
        skip_forced: a decision with exactly one legal action is applied without asking (P-0.3).
        robbery_timing: ``"window"`` (R-01) or ``"own_turn"`` (§12.5's reading).
        tiebreak_legal: ``"cards"`` or ``"pieces"`` for the win tie-break (R-32).
        first_inspector: ``"seat0"`` (the youngest is seat 0) or ``"random"`` (seeded, 3.4-2).
        collect_order_2inspectors: with two inspectors, round order starts at ``"b_plus_1"``
            (R-04) or ``"a_plus_1"``.
        crate_order: the next crate is chosen by ``"inspector"`` A (R-11) or taken in
            ``"announcement"`` order.
        allow_tobacco_announce_3p: tobacco may be announced with 3 players (R-24).
        midround_2_5_rollover: a Night Raid or Robbery drawn in the market waits for the next
            round instead of expiring unused at this round's end (R-19's flag).
        lawyer_goods: the goods half of a Lawyer's payment is the lowest-value cards
            (``"auto_lowest"``, §7.4) or picked one by one by the Lawyer's player
            (``"player_choice"``, §7.3; R-17d).
        accept_commits: accepting a let-through deal commits the inspector not to open (R-05);
            ``False``: §4.4's literal reading, the inspector holds the deal and, when the
            negotiation would end without an open, keeps it or opens and voids it (P-5.3(b')).

    Numpy scalars are accepted and stored as plain Python values (``np.int8(8)`` becomes
    ``8``, ``np.bool_(True)`` becomes ``True``, a gold menu of numpy ints a tuple of ints), so
    :meth:`to_dict` is JSON-ready and the arithmetic on a config cannot overflow. A gold menu
    is a tuple, list, range or 1-d array; sets, dicts, strings, bytes and iterators are refused.

    Raises:
        ValueError: an unknown flag, or a value of the wrong type or out of range (by the rules
            of :mod:`borders_sim.checks`; a wrong type is its ``ArgumentTypeError``, also a
            ``TypeError``); the message names the flag and what it takes (a bool flag takes
            only ``True``/``False``, not ``1`` or ``"yes"``).
    """

    num_players: int = 4
    haggling: str = "full"
    haggle_rounds: int = 3
    gold_menu: tuple = DEFAULT_GOLD_MENU
    bounties: bool = True
    bounty_goods: bool = False
    smuggler_transfers: bool = False
    action_cards: bool = True
    skip_forced: bool = True
    robbery_timing: str = "window"
    tiebreak_legal: str = "cards"
    first_inspector: str = "seat0"
    collect_order_2inspectors: str = "b_plus_1"
    crate_order: str = "inspector"
    allow_tobacco_announce_3p: bool = True
    midround_2_5_rollover: bool = False
    lawyer_goods: str = "auto_lowest"
    accept_commits: bool = True

    def __init__(self, **flags) -> None:
        known = [f.name for f in fields(self)]
        unknown = sorted(set(flags) - set(known))
        if unknown:
            raise ValueError(f"unknown GameConfig flag(s) {unknown}; known flags: {known}")
        for f in fields(self):
            value = _normalised(f.name, flags.get(f.name, f.default), f.default)
            object.__setattr__(self, f.name, value)

    @property
    def num_inspectors(self) -> int:
        """1 with 3-5 players, 2 with 6-8 (3.4-1)."""
        return 1 if self.num_players <= 5 else 2

    def to_dict(self) -> dict:
        """The flags as a JSON-ready dict (``gold_menu`` a list); ``GameConfig(**d)`` reads it
        back."""
        d = {f.name: getattr(self, f.name) for f in fields(self)}  # every value a scalar
        d["gold_menu"] = list(self.gold_menu)
        return d

    def pack(self) -> tuple[np.ndarray, np.ndarray]:
        """The ``cfg`` and ``menu`` arrays stored in the state."""
        cfg = np.zeros(st.CFG_SIZE, dtype=np.int32)
        cfg[st.CFG_NUM_PLAYERS] = self.num_players
        cfg[st.CFG_NUM_INSPECTORS] = self.num_inspectors
        cfg[st.CFG_HAGGLING] = _HAGGLING[self.haggling]
        cfg[st.CFG_HAGGLE_ROUNDS] = self.haggle_rounds
        cfg[st.CFG_MENU_LEN] = len(self.gold_menu)
        cfg[st.CFG_BOUNTIES] = self.bounties
        cfg[st.CFG_BOUNTY_GOODS] = self.bounty_goods
        cfg[st.CFG_TRANSFERS] = self.smuggler_transfers
        cfg[st.CFG_ACTION_CARDS] = self.action_cards
        cfg[st.CFG_SKIP_FORCED] = self.skip_forced
        cfg[st.CFG_ROBBERY_OWN_TURN] = self.robbery_timing == "own_turn"
        cfg[st.CFG_TIEBREAK_PIECES] = self.tiebreak_legal == "pieces"
        cfg[st.CFG_FIRST_INSPECTOR] = self.first_inspector == "random"
        cfg[st.CFG_COLLECT_A_PLUS_1] = self.collect_order_2inspectors == "a_plus_1"
        cfg[st.CFG_CRATE_ORDER_AUTO] = self.crate_order == "announcement"
        cfg[st.CFG_TOBACCO_3P] = self.allow_tobacco_announce_3p
        cfg[st.CFG_ROLLOVER_2_5] = self.midround_2_5_rollover
        cfg[st.CFG_LAWYER_CHOICE] = self.lawyer_goods == "player_choice"
        cfg[st.CFG_ACCEPT_HOLDS] = not self.accept_commits
        menu = np.zeros(st.MENU_MAX, dtype=np.int32)
        menu[: len(self.gold_menu)] = self.gold_menu
        return cfg, menu

    @classmethod
    def unpack(cls, cfg: np.ndarray, menu: np.ndarray) -> "GameConfig":
        """Inverse of :meth:`pack`.

        Raises:
            ValueError: ``cfg`` and ``menu`` are not the packing of a config (the message names
                the flag).
        """
        inv = {v: k for k, v in _HAGGLING.items()}
        code = int(cfg[st.CFG_HAGGLING])
        if code not in inv:
            raise ValueError(f"haggling must be one of the codes {sorted(inv)} in cfg, got {code}")
        return cls(
            num_players=int(cfg[st.CFG_NUM_PLAYERS]),
            haggling=inv[code],
            haggle_rounds=int(cfg[st.CFG_HAGGLE_ROUNDS]),
            gold_menu=tuple(int(g) for g in menu[: int(cfg[st.CFG_MENU_LEN])]),
            bounties=bool(cfg[st.CFG_BOUNTIES]),
            bounty_goods=bool(cfg[st.CFG_BOUNTY_GOODS]),
            smuggler_transfers=bool(cfg[st.CFG_TRANSFERS]),
            action_cards=bool(cfg[st.CFG_ACTION_CARDS]),
            skip_forced=bool(cfg[st.CFG_SKIP_FORCED]),
            robbery_timing="own_turn" if cfg[st.CFG_ROBBERY_OWN_TURN] else "window",
            tiebreak_legal="pieces" if cfg[st.CFG_TIEBREAK_PIECES] else "cards",
            first_inspector="random" if cfg[st.CFG_FIRST_INSPECTOR] else "seat0",
            collect_order_2inspectors="a_plus_1" if cfg[st.CFG_COLLECT_A_PLUS_1] else "b_plus_1",
            crate_order="announcement" if cfg[st.CFG_CRATE_ORDER_AUTO] else "inspector",
            allow_tobacco_announce_3p=bool(cfg[st.CFG_TOBACCO_3P]),
            midround_2_5_rollover=bool(cfg[st.CFG_ROLLOVER_2_5]),
            lawyer_goods="player_choice" if cfg[st.CFG_LAWYER_CHOICE] else "auto_lowest",
            accept_commits=not cfg[st.CFG_ACCEPT_HOLDS],
        )
