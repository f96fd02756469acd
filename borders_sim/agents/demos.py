"""Demonstration data at kernel speed: the decisions of chosen seats, for behaviour cloning and
offline RL (``borders-sim demos``).

:func:`record_demos` plays seat-rotated games between compiled bots, as a tournament does
(game ``g`` dealt from ``seed + g``, lineup entry ``(p + g) % n`` in seat ``p``, the bot in seat
``p`` seeded ``bot_seed(seed + g, p)``), inside the whole-game kernel, and writes every decision
of the recorded seats: what the seat saw (its observation and legal mask), what it chose, and
how its game ended for it. Each game is played twice by the kernel: once to count the recorded
decisions, once to write them into arrays of exactly that size (the games are deterministic).

**Shards.** ``DIR/shard-NNNNNN.npz`` (compressed), ``shard_games`` games each:

=============  ======================  ==========================================================
array          dtype, shape            meaning
=============  ======================  ==========================================================
``obs``        int16[K, OBS_SIZE_V1]   the observation before its ``rates`` block (every entry is
                                       a small count or a one-hot, so int16 is exact;
                                       ``load_shard`` returns float32[K, OBS_SIZE], the rates
                                       filled from the history, ``fill_rates``)
``mask``       uint8[K, 65]            the legal mask, ``np.packbits(..., bitorder="little")``
                                       (``load_shard`` returns bool[K, NUM_ACTIONS])
``action``     int16[K]                the action the bot chose
``seat``       int8[K]                 the seat that decided
``bot``        int8[K]                 its bot, an index of ``meta["bots"]`` (the lineup's names)
``step``       int32[K]                the decision's index in its game (0-based)
``game``       int64[K]                the game's index ``g`` (its deal seed is ``seed + g``)
``reward``     float32[K]              the seat's final reward in that game (``meta["reward"]``)
``meta``       JSON string             format, config, lineup, recorded seats, seed, reward mode
=============  ======================  ==========================================================

Shards are written atomically (:func:`~borders_sim.npzfile.write_npz`) into a directory that holds
none yet: the shards of an earlier run are refused, or removed first with ``overwrite``, so two data
sets never mix. :func:`load_shard` reads a shard with bounds
(:class:`~borders_sim.npzfile.NpzFile`): the arrays' dtypes and shapes are checked on their headers
before any data is read, then the rows against the meta (a legal action id of the row's mask, a
recorded seat, a bot of the lineup, a finite reward); every problem is one ``ValueError`` naming the
file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .. import __version__
from .._compile.jit import kernel
from ..checks import as_bool, as_int, as_seed, is_int
from ..batch.chunks import run_chunks
from ..batch.loop import BOT_ILLEGAL, EXTERNAL, decide, play_seats
from ..batch.rollouts import make_batch
from ..batch.seeds import seed_bots
from ..npzfile import NpzFile, as_path, shown_path, write_npz
from ..policies.dispatch import BOT_RANDOM
from ..policies.network import NetStack
from ..rules.actions import NUM_ACTIONS
from ..rules.config import GameConfig
from ..rules.engine import MASK_SIZE, advance, step
from ..rules.limits import max_game_length
from ..rules.observation import OBS_SIZE, OBS_SIZE_V1, fill_rates, observe_kernel
from ..rules.rewards import final_rewards_at, reward_mode
from ..rules.state import MAX_PLAYERS
from .lineup import compiled_kinds

FORMAT = "borders_sim.demos/1"
MASK_BYTES = (NUM_ACTIONS + 7) // 8
#: Every array of a shard but ``meta``: its dtype and the shape of one row (module docstring).
COLUMNS = {"obs": (np.dtype(np.int16), (OBS_SIZE_V1,)), "mask": (np.dtype(np.uint8), (MASK_BYTES,)),
           "action": (np.dtype(np.int16), ()), "seat": (np.dtype(np.int8), ()),
           "bot": (np.dtype(np.int8), ()), "step": (np.dtype(np.int32), ()),
           "game": (np.dtype(np.int64), ()), "reward": (np.dtype(np.float32), ())}
_META_CHARS = 1 << 20  # the longest meta record read
_SHARDS = "shard-*.npz"


@kernel(nogil=True)
def demo_chunk(lo, hi, states, kinds, seeds, record, max_steps, offsets, count_only, counts,
               obs_out, mask_out, action_out, seat_out, step_out, nets):
    """Play games ``lo .. hi - 1`` (as :func:`~borders_sim.batch.games.play_bot_game`, the
    recorded seats as external seats of :func:`~borders_sim.batch.loop.play_seats`) and, for the
    seats with ``record[p]``, count their decisions into ``counts[g]`` (``count_only``) or write
    them from row ``offsets[g]`` on. A chunk kernel (:mod:`borders_sim.batch.chunks`); a game whose
    bot chose an illegal id stops there (``counts[g]`` becomes -1)."""
    mask = np.zeros(MASK_SIZE, dtype=np.uint8)
    words = mask.view(np.uint64)
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    rngs = np.zeros((MAX_PLAYERS, 2), dtype=np.uint64)
    seats = np.empty(MAX_PLAYERS, dtype=np.int64)  # the recorded seats played as external
    for g in range(lo, hi):
        s = states[g]
        for p in range(MAX_PLAYERS):
            seats[p] = EXTERNAL if record[p] else kinds[g, p]
        seed_bots(rngs, seeds[g])
        count, steps = advance(s, mask), 0
        row = offsets[g]
        recorded = 0
        while True:
            count, steps = play_seats(s, seats, rngs, count, mask, words, obs, nets, steps,
                                      max_steps)
            if count <= 0 or steps >= max_steps:
                break
            p = s.turn  # a recorded seat: its bot decides here, and the decision is written
            kind = kinds[g, p]
            a = decide(s, kind, obs, mask, words, count, rngs[p], nets)
            if a < 0:
                count = BOT_ILLEGAL
                break
            if not count_only:
                if kind == BOT_RANDOM:  # decide() observed for every other bot
                    observe_kernel(s, p, obs)
                for i in range(OBS_SIZE_V1):
                    obs_out[row, i] = np.int16(obs[i])
                for b in range(MASK_BYTES):
                    byte = 0
                    for k in range(8):
                        if 8 * b + k < NUM_ACTIONS and mask[8 * b + k] != 0:
                            byte |= 1 << k
                    mask_out[row, b] = byte
                action_out[row] = a
                seat_out[row] = p
                step_out[row] = steps
            row += 1
            recorded += 1
            count = step(s, a, mask)
            steps += 1
        if count == BOT_ILLEGAL:
            recorded = -1
        if count_only:
            counts[g] = recorded


def record_demos(out: str | os.PathLike, bots: Sequence[str], games: int, seed: int = 0,
                 seats: Sequence[int] | None = None, reward: str = "win",
                 config: GameConfig | None = None, shard_games: int = 256,
                 progress=None, overwrite: bool = False) -> list[Path]:
    """Play ``games`` games of the lineup ``bots`` (compiled bots and ``ppo`` specs, one per
    seat) and write the decisions of ``seats`` (default: every seat) as shards into the
    directory ``out`` (module docstring); returns the shard paths. ``progress`` is called with
    the games of each finished shard. ``out`` may hold no shards yet, unless ``overwrite``:
    then its shards are removed first (after every argument is checked).

    Raises:
        ValueError: a bot without a compiled twin, a bad seat or count; shards in ``out``
            without ``overwrite``; a bot that chose an illegal action (a bug in it).
    """
    players = len(bots)
    config = config or GameConfig(num_players=players)
    if config.num_players != players:
        raise ValueError(f"{players} bots for a config of {config.num_players} players")
    games = as_int(games, "games", 1)
    seed = as_seed(seed, span=games)
    shard_games = as_int(shard_games, "shard_games", 1)
    found = compiled_kinds(bots)
    if found is None:
        raise ValueError(f"demonstrations come from compiled bots; {list(bots)} has one without "
                         "a compiled twin (or ppo networks of different shapes)")
    by_name, nets = found
    seats = list(range(players)) if seats is None else [as_int(p, "seat", 0, players - 1)
                                                         for p in seats]
    record = np.zeros(MAX_PLAYERS, dtype=np.bool_)
    record[seats] = True
    mode = reward_mode(reward)
    overwrite = as_bool(overwrite, "overwrite")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    _clear(out, overwrite)
    names = list(dict.fromkeys(bots))
    meta = {"format": FORMAT, "borders_sim": __version__, "config": config.to_dict(),
            "bots": names, "lineup": list(bots), "seats": seats, "seed": seed,
            "reward": reward, "seat_rotation": "game g puts bots[(p + g) % players] in seat p"}
    paths = []
    for lo in range(0, games, shard_games):
        count = min(shard_games, games - lo)
        paths.append(_shard(out / f"shard-{lo // shard_games:06d}.npz", config, bots, by_name,
                            nets, record, mode, seed, lo, count, meta))
        if progress is not None:
            progress(count)
    return paths


def _clear(out: Path, overwrite: bool) -> None:
    """Refuse a directory holding shards (a run would replace the first ones and keep the rest,
    mixing two data sets), or with ``overwrite`` remove them."""
    old = sorted(out.glob(_SHARDS))
    if old and not overwrite:
        raise ValueError(f"{shown_path(out)} already holds {len(old)} shard(s) of an earlier "
                         f"run ({old[0].name}, ...): choose another directory, or remove them "
                         "first with --overwrite (overwrite=True)")
    for path in old:
        path.unlink()


def _shard(path: Path, config: GameConfig, bots: Sequence[str], by_name: dict[str, int],
           nets: NetStack, record: np.ndarray, mode: int, seed: int, lo: int, count: int,
           meta: dict) -> Path:
    n = len(bots)
    states, _ = make_batch(config, seed + lo, count)
    kinds = np.zeros((count, MAX_PLAYERS), dtype=np.int64)
    entry = np.zeros((count, MAX_PLAYERS), dtype=np.int8)
    names = meta["bots"]
    for i in range(count):
        g = lo + i
        lineup = [bots[(p + g) % n] for p in range(n)]
        kinds[i, :n] = [by_name[b] for b in lineup]
        entry[i, :n] = [names.index(b) for b in lineup]
    seeds = np.arange(seed + lo, seed + lo + count, dtype=np.uint64)
    cap = max_game_length(config)
    counts = np.zeros(count, dtype=np.int64)
    empty = (np.zeros((0, OBS_SIZE_V1), np.int16), np.zeros((0, MASK_BYTES), np.uint8),
             np.zeros(0, np.int16), np.zeros(0, np.int8), np.zeros(0, np.int32))
    run_chunks(demo_chunk, count, states.copy(), kinds, seeds, record, cap,
               np.zeros(count, dtype=np.int64), True, counts, *empty, nets)
    if (counts < 0).any():
        raise ValueError(f"a bot chose an illegal action in game {lo + int(np.argmax(counts < 0))}")
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    k = int(counts.sum())
    obs = np.zeros((k, OBS_SIZE_V1), np.int16)
    mask = np.zeros((k, MASK_BYTES), np.uint8)
    action = np.zeros(k, np.int16)
    seat = np.zeros(k, np.int8)
    steps = np.zeros(k, np.int32)
    run_chunks(demo_chunk, count, states, kinds, seeds, record, cap, offsets, False, counts,
               obs, mask, action, seat, steps, nets)
    game = np.repeat(np.arange(lo, lo + count, dtype=np.int64), counts)
    local = game - lo
    rewards = np.zeros((count, MAX_PLAYERS))
    for i in range(count):
        final_rewards_at(states, i, mode, rewards[i])
    return write_npz(path, obs=obs, mask=mask, action=action, seat=seat,
                     bot=entry[local, seat], step=steps, game=game,
                     reward=rewards[local, seat].astype(np.float32),
                     meta=np.array(json.dumps(meta)))


def load_shard(path: str | os.PathLike) -> dict:
    """A shard's arrays (:data:`COLUMNS`), read with bounds and checked (module docstring),
    with ``obs`` as float32 and ``mask`` as bool[K, NUM_ACTIONS], and its ``meta`` as a dict.

    Raises:
        ValueError: not a shard, or a damaged one (the message names the file and the problem).
    """
    with NpzFile(as_path(path, "the shard"), "demonstration shard") as npz:
        meta = _shard_meta(npz)
        _check_columns(npz)
        out = {name: npz.array(name) for name in COLUMNS}
        _check_rows(npz, out, meta)
    obs = np.zeros((len(out["obs"]), OBS_SIZE), np.float32)
    obs[:, :OBS_SIZE_V1] = out["obs"]
    out["obs"] = fill_rates(obs)
    out["mask"] = np.unpackbits(out["mask"], axis=1, count=NUM_ACTIONS,
                                bitorder="little").astype(np.bool_)
    out["meta"] = meta
    return out


def shard_decisions(path: str | os.PathLike) -> int:
    """The number of decisions a shard holds, from its meta and array headers (its data is not
    read).

    Raises:
        ValueError: as :func:`load_shard`, for the problems found without the data.
    """
    with NpzFile(as_path(path, "the shard"), "demonstration shard") as npz:
        _shard_meta(npz)
        return _check_columns(npz)


def _shard_meta(npz: NpzFile) -> dict:
    """A shard's meta, checked: the format, and the lineup and seats its rows refer to."""
    if "meta" not in npz.names:
        raise npz.refuse(f"not a {FORMAT} shard (it has no meta record)")
    meta = npz.json("meta", _META_CHARS)
    if meta.get("format") != FORMAT:
        raise npz.refuse(f"not a {FORMAT} shard (its meta says format "
                         f"{meta.get('format')!r})")
    bots, seats = meta.get("bots"), meta.get("seats")
    if not isinstance(bots, list) or not all(isinstance(b, str) for b in bots):
        raise npz.refuse("its meta has no list of bot names 'bots'")
    if not isinstance(seats, list) or not all(is_int(p) and 0 <= p < MAX_PLAYERS for p in seats):
        raise npz.refuse("its meta has no list of recorded seats 'seats'")
    return meta


def _check_columns(npz: NpzFile) -> int:
    """Every array of :data:`COLUMNS` present with its dtype and row shape, all with one number
    of rows, checked on the headers; returns that number."""
    missing = [name for name in COLUMNS if name not in npz.names]
    if missing:
        raise npz.refuse(f"missing arrays {missing}")
    rows = {name: npz.header(name).shape[:1] for name in COLUMNS}
    if len(rows["action"]) != 1 or len(set(rows.values())) != 1:
        counts = ", ".join(f"{name} {shape[0] if shape else 'none'}"
                           for name, shape in rows.items())
        raise npz.refuse(f"its arrays disagree on the number of decisions: {counts}")
    k = rows["action"][0]
    for name, (dtype, row) in COLUMNS.items():
        header = npz.header(name)
        if header.dtype != dtype or header.shape != (k, *row):
            raise npz.refuse(f"array {name!r} is {header.dtype} of shape {header.shape}, "
                             f"expected {dtype} of shape {(k, *row)}")
    return k


def _check_rows(npz: NpzFile, out: dict[str, np.ndarray], meta: dict) -> None:
    """Each row names a legal action of its mask, a recorded seat and a bot of the lineup, and
    has a finite reward."""
    action = out["action"].astype(np.int64)
    known = (action >= 0) & (action < NUM_ACTIONS)
    _first_bad(npz, "action", ~known, out["action"], f"an action id (0 to {NUM_ACTIONS - 1})")
    rows = np.arange(len(action))
    legal = (out["mask"][rows, action >> 3] >> (action & 7)) & 1
    _first_bad(npz, "action", legal == 0, out["action"], "legal under the row's mask")
    _first_bad(npz, "seat", ~np.isin(out["seat"], meta["seats"]), out["seat"],
               f"a recorded seat {meta['seats']}")
    _first_bad(npz, "bot", (out["bot"] < 0) | (out["bot"] >= len(meta["bots"])), out["bot"],
               f"a bot of the lineup (0 to {len(meta['bots']) - 1})")
    _first_bad(npz, "reward", ~np.isfinite(out["reward"]), out["reward"], "finite")


def _first_bad(npz: NpzFile, name: str, bad: np.ndarray, values: np.ndarray, what: str) -> None:
    if bad.any():
        row = int(np.argmax(bad))
        raise npz.refuse(f"array {name!r} holds {values[row]} in row {row}, which is not {what}")
