"""A player's view of a :class:`~borders_sim.Game`: the vector, JSON and text forms.

:func:`observe` is the vector every environment hands to a player (layout:
:data:`~borders_sim.rules.observation.OBSERVATION_LAYOUT`); :func:`observe_json` and
:func:`observe_text` say the same knowledge in words, for logs, humans and language-model agents
(the text is rendered from the JSON by :mod:`.text_view`). All three read only what the player
may know (RULINGS R-39).
"""

from __future__ import annotations

import functools

import numpy as np

from .game import Game
from ..rules import actions as act
from ..checks import ArgumentTypeError, as_seat
from ..rules.cards import CARD_KEYS, MAIN_NAMES, NUM_GOODS
from ..rules.config import GameConfig
from ..rules.observation import OBS_SIZE, OBSERVATION_LAYOUT, observe_at, offset_of
from .saved.dict_format import (ACTION_KEYS, BADGES, CRATE_STATUS_NAMES, GOODS_KEYS, HISTORY_KEYS,
                               INSPECTOR_STATUS_NAMES, LEGAL_KEYS, OUTCOME_NAMES)
from ..rules.state import MIN_PLAYERS, PHASE_NAMES
from .text_view import json_to_text


def check_seat(game: Game, player) -> int:
    """``player`` as an int seat of ``game`` (:func:`~borders_sim.checks.as_seat`);
    ``ValueError`` naming it otherwise (and the EngineError of a state ``refresh()`` refused)."""
    if not isinstance(game, Game):
        raise ArgumentTypeError(f"game must be a borders_sim.Game, got {type(game).__name__}")
    game._require_playable()
    return as_seat(player, game.num_players, "player")


def observe(game: Game, player: int) -> np.ndarray:
    """float32[OBS_SIZE]: everything ``player`` knows of ``game`` now (R-39), seat-relative
    (row 0 of every per-seat block is ``player``). See
    :data:`~borders_sim.rules.observation.OBSERVATION_LAYOUT` for the meaning of each index."""
    out = np.empty(OBS_SIZE, dtype=np.float32)
    observe_at(game.state, 0, check_seat(game, player), out)
    return out


# --- the same knowledge in words -----------------------------------------------------------------
# observe_json and observe_text are built FROM the observation vector (decode(observe(...))):
# every fact they state is read from a block of that vector (the rules and gold menu too, from
# its config and gold_menu blocks), so by construction they cannot say more than the vector does
# . The only other inputs are the viewer's own seat number (which turns the seat-relative
# rows into absolute seats) and, when the viewer is to move, its legal actions: exactly the
# action mask every environment hands to that player beside the vector.


def observe_json(game: Game, player: int) -> dict:
    """What ``player`` knows of ``game`` now (the knowledge of :func:`observe`), in game words.

    A JSON-ready dict (plain ``dict``/``list``/``str``/``int``/``bool``/``None``): seats are
    ``"p0"`` .. ``"p7"`` (absolute, the viewer marked with ``"viewer": true``), cards are
    :data:`~borders_sim.rules.cards.CARD_KEYS`, badges ``"A"``/``"B"``, history counters
    :data:`~borders_sim.rules.state.HISTORY_COUNTERS`. When ``player`` is to move,
    ``legal_actions`` lists ``{"id", "action"}`` of its legal actions
    (:meth:`~borders_sim.Game.action_to_string`); otherwise it is empty.

    Raises:
        ValueError: ``player`` is not a seat of ``game``.
    """
    seat = check_seat(game, player)
    obs = observe(game, seat)
    to_move = obs[offset_of("to_move")] == 1  # row 0 is the viewer
    return describe(obs, seat, game.legal_actions() if to_move else [])


def observe_text(game: Game, player: int) -> str:
    """:func:`observe_json` as a readable text: the table, the viewer's cards and private
    knowledge, the border check in progress, the public history and the legal actions with
    their ids (for humans, logs and language-model agents; ``render()`` of the environments).

    Raises:
        ValueError: ``player`` is not a seat of ``game``.
    """
    return json_to_text(observe_json(game, player))


def describe(obs: np.ndarray, seat: int, legal_actions: list[int]) -> dict:
    """The dict of :func:`observe_json`, from an observation vector alone.

    Args:
        obs: float32[OBS_SIZE], the observation of the player sitting at ``seat``.
        seat: the viewer's absolute seat (the vector is seat-relative).
        legal_actions: the viewer's legal action ids (empty unless it is to move).
    """
    rd = _Reader(obs, seat)
    d = rd.d
    badges = _inspectors(rd)
    return {
        **_round_facts(rd, badges),
        "seats": [_seat_entry(rd, p) for p in range(rd.n)],
        "own": {"hand": _counts(d["own_hand"], CARD_KEYS),
                "active_action_cards": _counts(d["own_active"], ACTION_KEYS),
                "crate": _counts(d["own_crate"], GOODS_KEYS),
                "warehouse_face_down": _counts(d["own_face_down"], GOODS_KEYS)},
        "night_raid_by": rd.one(d["raid_thief"]),
        "border_check": _border_check(rd, badges),
        "legal_actions": [{"id": int(a), "action": act.action_to_string(a, rd.config.gold_menu)}
                          for a in legal_actions],
    }


class _Reader:
    """An observation vector decoded for its viewer at ``seat``: its blocks ``d`` as lists of
    Python ints (so a count is written as it is), the
    player count ``n``, the rules ``config`` and ``rows[p]``, the row of absolute seat ``p``."""

    def __init__(self, obs: np.ndarray, seat: int):
        self.d = d = _as_lists(np.rint(obs).astype(np.int64).tolist())  # read as lists: fast
        self.n = MIN_PLAYERS + d["num_players"].index(max(d["num_players"]))
        self.seat = seat
        self.config = _config(tuple(self.d["config"]), tuple(self.d["gold_menu"]))
        self.rows = [(p - seat) % self.n for p in range(self.n)]

    def one(self, block) -> str | None:
        """The absolute name of the seat marked in a one-hot per-seat block (None if none)."""
        marked = _marked(block[:self.n])
        return f"p{(self.seat + marked[0]) % self.n}" if marked else None


def _as_lists(flat: list[int]) -> dict[str, list]:
    """The blocks of an observation read as a list of ints (:func:`decode`'s, as nested lists)."""
    return {name: cut(flat) for name, cut in _CUTS}


def _cutter(offset: int, shape: tuple[int, ...]):
    """The function taking block ``(offset, shape)`` out of a flat list, nested by ``shape``."""
    end = offset + int(np.prod(shape))
    if len(shape) == 1:
        return lambda flat: flat[offset:end]
    step = int(np.prod(shape[1:]))
    starts = range(offset, end, step)
    if len(shape) == 2:
        return lambda flat: [flat[at:at + step] for at in starts]
    inner = _cutter(0, shape[1:])
    return lambda flat: [inner(flat[at:at + step]) for at in starts]


_CUTS = [(e.name, _cutter(e.offset, e.shape)) for e in OBSERVATION_LAYOUT]


@functools.lru_cache(maxsize=64)
def _config(cfg: tuple[int, ...], menu: tuple[int, ...]) -> GameConfig:
    """The rules of a ``config`` and ``gold_menu`` block (a few per process: kept)."""
    return GameConfig.unpack(np.array(cfg), np.array(menu))


def _counts(row, keys) -> dict:
    """``{key: count}`` of the nonzero counts of ``row``, in the order of ``keys``."""
    return {k: c for k, c in zip(keys, row) if c}


def _named(onehot, names):
    """The name of the entry marked in ``onehot`` (None if none is)."""
    k = _marked(onehot)
    return names[k[0]] if k else None


def _marked(row) -> list[int]:
    """The indices of the nonzero entries of ``row``."""
    return [i for i, x in enumerate(row) if x]


def _parcel(v) -> dict:
    """An offer or deal block: gold, warehouse and crate goods, a promised pass."""
    return {"gold": v[0], "warehouse": _counts(v[1:1 + NUM_GOODS], GOODS_KEYS),
            "crate": _counts(v[1 + NUM_GOODS:1 + 2 * NUM_GOODS], GOODS_KEYS),
            "promise": bool(v[1 + 2 * NUM_GOODS])}


def _round_facts(rd: _Reader, badges: list[dict]) -> dict:
    """The dict's keys before ``"seats"``: the viewer, the rules, the round, the phase, who is
    to move, the inspectors' seats (from ``badges``), the round order and the piles."""
    d = rd.d
    order = sorted(range(rd.n), key=lambda p: d["round_order"][rd.rows[p]])
    return {
        "viewer": f"p{rd.seat}",
        "config": rd.config.to_dict(),
        "round": d["round"][0],
        "round_in_cycle": d["round_in_cycle"][0] + 1,
        "cycle_length": d["cycle_length"][0],
        "end_triggered": bool(d["end_triggered"][0]),
        "last_round": d["last_round"][0] or None,
        "phase": _named(d["phase"], PHASE_NAMES),
        "to_move": rd.one(d["to_move"]),
        "inspectors": {b["badge"]: b["seat"] for b in badges},
        "round_order": [f"p{p}" for p in order],
        "window_passes": d["window_passes"][0],
        "market_discards": d["market_discards"][0],
        "draw_pile": d["draw_pile_size"][0],
        "runouts": d["runouts"][0],
        "discard_pile": _counts(d["discard_pile"], CARD_KEYS),
        "main_resources_in_middle": [MAIN_NAMES[m] for m in _marked(d["main_in_middle"])],
    }


def _seat_entry(rd: _Reader, p: int) -> dict:
    """The entry of absolute seat ``p`` in ``"seats"``: its public table and what the viewer
    knows of its hidden cards."""
    d, r, rows = rd.d, rd.rows[p], rd.rows
    return {
        "seat": f"p{p}",
        "viewer": p == rd.seat,
        "gold": d["gold"][r],
        "reserved_gold": d["reserved_gold"][r],
        "hand_size": d["hand_size"][r],
        "warehouse_face_up": _counts(d["face_up"][r], LEGAL_KEYS),
        "warehouse_face_down": d["face_down_count"][r],
        "reserved_warehouse": _counts(d["reserved_warehouse"][r], GOODS_KEYS),
        "main_resources": [MAIN_NAMES[m] for m in _marked(d["main_held"][r])],
        "collected_this_round": bool(d["collected"][r]),
        "crate_status": _named(d["crate_status"][r], CRATE_STATUS_NAMES),
        "crate_count": d["crate_count"][r],
        "announced": _named(d["announced"][r], LEGAL_KEYS),
        "seen_this_round": _counts(d["seen"][r], GOODS_KEYS),
        "hidden_this_round": d["seen_hidden"][r],
        "history": dict(zip(HISTORY_KEYS, d["history"][r])),
        "owes_passes_to": {f"p{q}": int(d["promises"][r][rows[q]])
                           for q in range(rd.n) if d["promises"][r][rows[q]]},
        "known_hand": _counts(d["known_hand"][r], CARD_KEYS),
        "known_face_down": _counts(d["known_face_down"][r], GOODS_KEYS),
        "night_raid_took": _named(d["raid_taken"][r], CARD_KEYS),
    }


def _inspectors(rd: _Reader) -> list[dict]:
    """One entry per badge in play: its seat, status, offer, demand and deal."""
    d = rd.d
    return [{
        "badge": BADGES[g],
        "seat": rd.one(d["inspector_a" if g == 0 else "inspector_b"]),
        "status": _named(d["inspector_status"][g], INSPECTOR_STATUS_NAMES),
        "offer": _parcel(d["offer"][g]),
        "offer_lock": {"gold_set": bool(d["offer_lock"][g][0]),
                       "withdrawn": bool(d["offer_lock"][g][1])},
        "demand": d["demand"][g],
        "deal": _parcel(d["deal"][g]),
        "deal_order": d["deal_order"][g],
    } for g in range(rd.config.num_inspectors)]


def _bounties(rd: _Reader) -> list[dict]:
    """The bounties on the table, by absolute seat then badge."""
    out = []
    for p in range(rd.n):
        for g in range(rd.config.num_inspectors):
            b = rd.d["bounties"][rd.rows[p]][g]
            if any(b):
                out.append({"from": f"p{p}", "to": BADGES[g], "gold": b[0],
                            "warehouse": _counts(b[1:1 + NUM_GOODS], GOODS_KEYS),
                            "accepted": bool(b[1 + NUM_GOODS])})
    return out


def _border_check(rd: _Reader, badges: list[dict]) -> dict:
    """The ``"border_check"`` block: the crate, the inspectors' ``badges``, the bounties, the
    outcome and the settlement (the Lawyer's pool of goods still to hand over)."""
    d = rd.d
    pool = d["lawyer_pool"]
    return {
        "crate_of": rd.one(d["crate_under_check"]),
        "exchange": d["exchange"][0],
        "inspectors": badges,
        "bounties": _bounties(rd),
        "gold_gifts_made_by": [f"p{p}" for p in range(rd.n) if d["gifts_made"][rd.rows[p]]],
        "outcome": _named(d["outcome"], OUTCOME_NAMES),
        "truthful": bool(d["truthful"][0]),
        "fine": d["fine"][0],
        "lawyer_to": _named(d["lawyer_to"], BADGES),
        "fund_paid": d["fund_paid"][0],
        "lawyer_pool": None if not pool[2 * NUM_GOODS] else {
            "payer": rd.one(d["lawyer_payer"]),
            "cards_left": pool[2 * NUM_GOODS],
            "warehouse": _counts(pool[:NUM_GOODS], GOODS_KEYS),
            "crate": _counts(pool[NUM_GOODS:2 * NUM_GOODS], GOODS_KEYS)},
    }
