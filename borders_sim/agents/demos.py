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
``obs``        int16[K, OBS_SIZE]      the observation (every entry is a small count or a one-hot,
                                       so int16 is exact; ``load_shard`` returns float32)
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
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .. import __version__
from .._compile.batch import run_chunks
from .._compile.jit import kernel
from ..rules.actions import NUM_ACTIONS
from ..rules.args import as_int, as_seed
from ..rules.config import GameConfig
from ..rules.engine import MASK_SIZE, advance, step
from ..rules.limits import max_game_length
from ..rules.observation import OBS_SIZE, observe_kernel
from ..rules.piles import seed_rng
from ..rules.rewards import final_rewards_at, reward_mode
from ..rules.rollout import make_batch
from ..rules.state import MAX_PLAYERS
from .lineup import compiled_kinds
from .play import bot_decision, bot_seed_kernel
from .network import NetStack

FORMAT = "borders_sim.demos/1"
MASK_BYTES = (NUM_ACTIONS + 7) // 8


@kernel(nogil=True)
def demo_chunk(lo, hi, states, kinds, seeds, record, max_steps, offsets, count_only, counts,
               obs_out, mask_out, action_out, seat_out, step_out, nets):
    """Play games ``lo .. hi - 1`` (as :func:`~.play.play_bot_game`) and, for the seats with
    ``record[p]``, count their decisions into ``counts[g]`` (``count_only``) or write them from
    row ``offsets[g]`` on. A chunk kernel (:mod:`borders_sim._compile.batch`); a game whose bot
    chose an illegal id stops there (``counts[g]`` becomes -1)."""
    mask = np.zeros(MASK_SIZE, dtype=np.uint8)
    words = mask.view(np.uint64)
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    rngs = np.zeros((MAX_PLAYERS, 2), dtype=np.uint64)
    for g in range(lo, hi):
        s = states[g]
        for p in range(MAX_PLAYERS):
            seed_rng(rngs[p], bot_seed_kernel(seeds[g], p))
        count = advance(s, mask)
        steps = 0
        row = offsets[g]
        recorded = 0
        while count > 0 and steps < max_steps:
            p = s.turn
            if record[p]:
                observe_kernel(s, p, obs)
            a = bot_decision(s, kinds[g, p], obs, mask, words, count, rngs[p], nets)
            if a < 0:
                recorded = -1
                break
            if record[p]:
                if not count_only:
                    for i in range(OBS_SIZE):
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
        if count_only:
            counts[g] = recorded


def record_demos(out: str | os.PathLike, bots: Sequence[str], games: int, seed: int = 0,
                 seats: Sequence[int] | None = None, reward: str = "win",
                 config: GameConfig | None = None, shard_games: int = 256,
                 progress=None) -> list[Path]:
    """Play ``games`` games of the lineup ``bots`` (compiled bots and ``ppo`` specs, one per
    seat) and write the decisions of ``seats`` (default: every seat) as shards into the
    directory ``out`` (module docstring); returns the shard paths. ``progress`` is called with
    the games of each finished shard.

    Raises:
        ValueError: a bot without a compiled twin, a bad seat or count; a bot that chose an
            illegal action (a bug in it).
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
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
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
    empty = (np.zeros((0, OBS_SIZE), np.int16), np.zeros((0, MASK_BYTES), np.uint8),
             np.zeros(0, np.int16), np.zeros(0, np.int8), np.zeros(0, np.int32))
    run_chunks(demo_chunk, count, states.copy(), kinds, seeds, record, cap,
               np.zeros(count, dtype=np.int64), True, counts, *empty, nets)
    if (counts < 0).any():
        raise ValueError(f"a bot chose an illegal action in game {lo + int(np.argmax(counts < 0))}")
    offsets = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    k = int(counts.sum())
    obs = np.zeros((k, OBS_SIZE), np.int16)
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
    with open(path, "wb") as f:
        np.savez_compressed(f, obs=obs, mask=mask, action=action, seat=seat,
                            bot=entry[local, seat], step=steps, game=game,
                            reward=rewards[local, seat].astype(np.float32),
                            meta=np.array(json.dumps(meta)))
    return path


def load_shard(path: str | os.PathLike) -> dict:
    """A shard's arrays with ``obs`` as float32 and ``mask`` as bool[K, NUM_ACTIONS], and its
    ``meta`` as a dict."""
    with np.load(path, allow_pickle=False) as data:
        out = {key: data[key] for key in data.files}
    meta = json.loads(str(out.pop("meta")))
    if meta.get("format") != FORMAT:
        raise ValueError(f"{path}: not a {FORMAT} shard")
    out["obs"] = out["obs"].astype(np.float32)
    out["mask"] = np.unpackbits(out["mask"], axis=1, count=NUM_ACTIONS,
                                bitorder="little").astype(np.bool_)
    out["meta"] = meta
    return out
