"""Whole games between compiled bots inside one compiled call: the compiled path of a
tournament.

:func:`play_bot_games` plays a batch of dealt states to the end, in parallel over games (the
chunk kernel :func:`bot_chunk` run by :func:`~.chunks.run_chunks`), each decision taken by the
compiled policy of the bot in that seat (``kinds[g, seat]``) through the one game loop
(:func:`~.loop.play_seats`). The bot in seat ``p`` of game ``g`` draws from its own generator
seeded with :func:`~.seeds.bot_seed` ``(seeds[g], p)``, exactly as ``make(name,
bot_seed(seeds[g], p))`` seeds the Python bot, so a game played here and the same game played
through :class:`~borders_sim.Game` with Python bots take the same actions, and results do not
depend on the batch size or the thread count.

A bot that returns an id its legal mask does not allow stops its game before the action is
applied (the state stays valid, at that decision) and the game's entry of ``out_steps`` becomes
``-1 - decision``; :func:`run_bot_games`, the checked entry point, raises
:class:`IllegalBotAction` naming the bot, its seat and the game.
"""

from __future__ import annotations

import numpy as np

from .._compile.jit import kernel
from ..checks import as_seed_array
from ..policies.dispatch import BOT_NET, COMPILED_BOTS
from ..policies.network import NO_NETS, NetStack
from ..rules.config import GameConfig
from ..rules.engine import MASK_SIZE, advance
from ..rules.observation import OBS_SIZE
from ..rules.state import MAX_PLAYERS, STATE_DTYPE
from .chunks import run_chunks
from .loop import BOT_ILLEGAL, deal_states, play_seats
from .seeds import seed_bots


class IllegalBotAction(RuntimeError):
    """A compiled bot chose an action its legal mask does not allow (a bug in that bot)."""


@kernel
def play_bot_game(s, kinds, seed, mask, obs, rngs, max_steps, nets):
    """Play state ``s`` to the end with the bots ``kinds[seat]``; returns the decisions taken
    (``max_steps`` caps them), or ``-1 - k`` if the bot to move at decision ``k`` chose an
    illegal id (the game stops there, the id not applied)."""
    seed_bots(rngs, seed)
    count, steps = play_seats(s, kinds, rngs, advance(s, mask), mask, mask.view(np.uint64), obs,
                              nets, 0, max_steps)
    return -1 - steps if count == BOT_ILLEGAL else steps


@kernel(nogil=True)
def bot_chunk(lo, hi, states, kinds, seeds, max_steps, out_steps, nets):
    """Play ``states[lo:hi]`` to the end, game ``g`` with bots ``kinds[g]`` seeded from
    ``seeds[g]``; ``out_steps[g]`` gets its decisions (negative: a bot's illegal choice stopped
    the game, see :func:`play_bot_game`). A chunk kernel (:mod:`borders_sim.batch.chunks`)."""
    mask = np.zeros(MASK_SIZE, dtype=np.uint8)
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    rngs = np.zeros((MAX_PLAYERS, 2), dtype=np.uint64)
    for g in range(lo, hi):
        out_steps[g] = play_bot_game(states[g], kinds[g], seeds[g], mask, obs, rngs, max_steps,
                                     nets)


def play_bot_games(states: np.ndarray, kinds: np.ndarray, seeds: np.ndarray, max_steps: int,
                   out_steps: np.ndarray, nets: NetStack = NO_NETS) -> None:
    """Play every state of ``states`` to the end, game ``g`` with bots ``kinds[g]``
    (int64[G, MAX_PLAYERS]) seeded from ``seeds[g]`` (uint64); ``out_steps[g]`` gets its decisions
    (unchecked: :func:`run_bot_games` checks the arguments and the bots' choices)."""
    run_chunks(bot_chunk, states.shape[0], states, kinds, seeds, max_steps, out_steps, nets)


def run_bot_games(states: np.ndarray, kinds: np.ndarray, seeds: np.ndarray,
                  max_steps: int, nets: NetStack = NO_NETS) -> np.ndarray:
    """Play ``states`` in place with :func:`play_bot_games`, checked: returns the decisions
    of each game (int64[G]).

    Args:
        states: dealt states (:data:`~borders_sim.rules.state.STATE_DTYPE`, shape ``(G,)``).
        kinds: int64-convertible ``(G, MAX_PLAYERS)``, indices of
            :data:`~borders_sim.policies.dispatch.COMPILED_BOTS` per seat, or ``BOT_NET + j`` for
            network ``j`` of ``nets`` (seats past the player count ignored).
        seeds: ``(G,)`` game seeds (ints from 0 to ``2**64 - 1``, taken as uint64); the bot
            in seat ``p`` is seeded with :func:`~.seeds.bot_seed` ``(seeds[g], p)``.
        max_steps: cap on the decisions per game.
        nets: the networks of the ``BOT_NET`` kinds
            (:func:`~borders_sim.policies.network.stack_nets`).

    Raises:
        ValueError: arrays of the wrong dtype or shape, or an unknown bot kind.
        IllegalBotAction: a bot chose an illegal action; the message names the bot, its seat,
            the game and the decision (that game stops there, the others are played out).
    """
    if not isinstance(states, np.ndarray) or states.dtype != STATE_DTYPE or states.ndim != 1:
        raise ValueError("states must be a 1-d array of STATE_DTYPE records")
    return _play_checked(states, kinds, as_seed_array(seeds), max_steps, nets)


def play_games(config: GameConfig, seeds: np.ndarray, kinds: np.ndarray, max_steps: int,
               nets: NetStack = NO_NETS) -> np.ndarray:
    """Deal the games of ``seeds`` under ``config`` (:func:`~.loop.deal_states`) and play them
    to the end with the bots ``kinds``, as :func:`run_bot_games` does (same arguments and
    errors); returns the finished states. The compiled path of a tournament."""
    seeds = as_seed_array(seeds)
    states = deal_states(config, seeds)
    _play_checked(states, kinds, seeds, max_steps, nets)
    return states


def _play_checked(states: np.ndarray, kinds: np.ndarray, seeds: np.ndarray, max_steps: int,
                  nets: NetStack) -> np.ndarray:
    """:func:`run_bot_games` once ``states`` and ``seeds`` are known to be arrays of records
    and of uint64."""
    g = states.shape[0]
    kinds = np.ascontiguousarray(kinds, dtype=np.int64)
    if kinds.shape != (g, MAX_PLAYERS) or seeds.shape != (g,):
        raise ValueError(f"kinds must have shape ({g}, {MAX_PLAYERS}) and seeds ({g},), got "
                         f"{kinds.shape} and {seeds.shape}")
    top = BOT_NET + nets.temp.shape[0] - 1 if nets is not NO_NETS else BOT_NET - 1
    if kinds.size and (kinds.min() < 0 or kinds.max() > top):
        raise ValueError(f"bot kinds must be 0..{top} ({', '.join(COMPILED_BOTS)}, then one per "
                         f"network), got {kinds.min()}..{kinds.max()}")
    out = np.zeros(g, dtype=np.int64)
    play_bot_games(states, kinds, seeds, int(max_steps), out, nets)
    bad = np.flatnonzero(out < 0)
    if bad.size:
        game = int(bad[0])
        seat = int(states[game]["turn"])
        kind = int(kinds[game, seat])
        name = COMPILED_BOTS[kind] if kind < BOT_NET else f"network {kind - BOT_NET}"
        raise IllegalBotAction(
            f"bot {name!r} in seat {seat} of game {game} (seed "
            f"{int(seeds[game])}) chose an action its legal mask does not allow at decision "
            f"{-1 - int(out[game])}; {bad.size} game(s) stopped")
    return out
