"""Playing a chunk of a tournament's games, on either of the two paths that give the same
games: the compiled path (every bot compiled: one whole-game kernel call,
:func:`~borders_sim.batch.games.play_games`) and the Python path (any bots: a loop over
:class:`~borders_sim.Game`, :func:`~borders_sim.game.turns.play_turns`, each seat's bot
choosing with ``bot.act(observation, legal_mask)``).
"""

from __future__ import annotations

import numpy as np

from .._compile.notice import compile_notice
from ..policies.network import NetStack
from ..batch.games import play_games
from ..game.game import Game
from ..game.drawing.scene import seen_action
from ..game.turns import GameTooLong, IllegalChoice, play_turns
from ..rules import state as st
from ..rules.limits import max_game_length
from ..batch.rollouts import final_scores
from .schedule import Tournament, compiled_seats

COMPILED_CHUNK = 256  # games per compiled call (~1.5 MB of states)
PYTHON_CHUNK_MAX = 16  # at most this many games per Python task


def _entry_kinds(t: Tournament, start: int, count: int) -> tuple[np.ndarray, NetStack]:
    """The compiled kind of every seat of the games, and the networks of the ``ppo`` seats."""
    found = compiled_seats(t.seats)
    if found is None:
        raise ValueError(f"the lineup {t.lineup} does not play on the compiled path")
    by_name, nets = found
    kinds = np.zeros((count, st.MAX_PLAYERS), dtype=np.int64)
    for i in range(count):
        kinds[i, : t.players] = [by_name[seat.name] for seat in t.seats_at(start + i)]
    return kinds, nets


_bots_prepared = False  # the bot kernels have run once in this process


def play_compiled(t: Tournament, start: int, count: int) -> dict:
    """Games ``start .. start + count - 1`` of ``t`` in one compiled call (every bot of the
    lineup must be compiled); returns the chunk arrays (see :func:`play_chunk`)."""
    global _bots_prepared
    kinds, nets = _entry_kinds(t, start, count)
    seeds = np.arange(t.seed + start, t.seed + start + count, dtype=np.uint64)
    cap = max_game_length(t.config)
    if _bots_prepared:
        states = play_games(t.config, seeds, kinds, cap, nets)
    else:
        with compile_notice("the bot kernels", "bots"):
            states = play_games(t.config, seeds, kinds, cap, nets)
        _bots_prepared = True
    unfinished = np.flatnonzero(states["phase"] != st.PH_GAME_OVER)
    if unfinished.size:
        raise RuntimeError(f"game {start + int(unfinished[0])} did not end within "
                           f"max_game_length = {cap} decisions (P-0.4): an engine bug")
    sc, win = final_scores(states)
    n = t.players
    return {"scores": sc[:, :n].copy(), "winners": win[:, :n].astype(np.int8),
            "hist": states["hist"][:, :n].astype(np.int64),
            "truth": states["truth"][:, :n].astype(np.int64),
            "steps": states["steps"].astype(np.int64), "rounds": states["round"].astype(np.int64)}


def play_python_game(t: Tournament, g: int, record: bool = False,
                     figures: dict[str, dict] | None = None
                     ) -> tuple[Game, list[tuple], dict[int, dict]]:
    """Game ``g`` of ``t`` through the Python loop; returns the finished game and, with
    ``record``, its decisions and the transcripts of its bots that keep one (a language
    model's requests and replies, by seat: :mod:`borders_sim.llm.transcript`). The decisions are
    ``(seat, action id)`` pairs, or ``(seat, action id, note)``
    where the bot left a note on its decision (its ``last_note`` dict: a language model's
    tries, and the fallback that played when its replies failed, :mod:`borders_sim.llm`).
    A bot with ``figures()`` (counters of its own: a language model's requests, retries,
    fallbacks, tokens) adds them into ``figures[name]``, summed by bot name. Table talk: a
    note's ``"talk"`` is said to every other bot with ``hear(seat, text)`` (a language model's
    seat shows it in its next prompt; the game itself never sees it), and every decision is
    shown to the other bots with ``witness(seat, text)``, as their seat saw it (a language
    model's next prompt lists the decisions since its last one).

    Raises:
        RuntimeError: a bot chose an illegal action, or the game did not end within the
            proven bound on decisions (both bugs).
    """
    game = Game(t.config, seed=t.seed + g)
    names = t.seat_names(g)
    bots = [seat.make(s) for seat, s in zip(t.seats_at(g), t.bot_seeds(g))]
    actions: list[tuple] = []

    listeners = [(q, bot.hear) for q, bot in enumerate(bots)
                 if callable(getattr(bot, "hear", None))]
    witnesses = [(q, bot.witness) for q, bot in enumerate(bots)
                 if callable(getattr(bot, "witness", None))]
    menu = t.config.gold_menu

    def note(p: int, a: int) -> None:  # (a bot's note on its decision: an llm seat's tries)
        extra = getattr(bots[p], "last_note", None)
        if record:
            actions.append((p, a, dict(extra)) if extra else (p, a))
        if extra and extra.get("talk"):  # table talk: said to every other seat that listens
            for q, hear in listeners:
                if q != p:
                    hear(p, extra["talk"])
        for q, witness in witnesses:  # the decision as seat q saw it (a packed card hidden)
            if q != p:
                witness(p, seen_action(p, a, q, menu)["action"])

    try:
        play_turns(game, [bot.act for bot in bots],
                   on_step=note if record or listeners or witnesses else None,
                   max_steps=max_game_length(t.config))
    except IllegalChoice as err:
        raise RuntimeError(f"bot {names[err.seat]!r} in game {g} chose an illegal action: "
                           f"{err}") from None
    except GameTooLong as err:
        raise GameTooLong(f"game {g}: {err}") from None
    transcripts = {p: bot.transcript for p, bot in enumerate(bots)
                   if record and isinstance(getattr(bot, "transcript", None), dict)}
    if figures is not None:
        for name, bot in zip(names, bots):
            if callable(getattr(bot, "figures", None)):
                into = figures.setdefault(name, {})
                for key, value in bot.figures().items():
                    into[key] = into.get(key, 0) + value
    return game, actions, transcripts


def play_python(t: Tournament, start: int, count: int, record: bool = False) -> dict:
    """Games ``start .. start + count - 1`` of ``t`` through the Python loop (any bots);
    returns the chunk arrays (see :func:`play_chunk`)."""
    n = t.players
    out = {"scores": np.zeros((count, n), dtype=np.int64),
           "winners": np.zeros((count, n), dtype=np.int8),
           "hist": np.zeros((count, n, st.NUM_HIST), dtype=np.int64),
           "truth": np.zeros((count, n, st.NUM_TRUTH), dtype=np.int64),
           "steps": np.zeros(count, dtype=np.int64), "rounds": np.zeros(count, dtype=np.int64)}
    if record:
        out["actions"], out["transcripts"] = [], []
    out["figures"] = {}
    for i in range(count):
        game, actions, transcripts = play_python_game(t, start + i, record, out["figures"])
        out["scores"][i] = game.scores()
        out["winners"][i, game.winners()] = 1
        out["hist"][i] = game.state[0]["hist"][:n]
        out["truth"][i] = game.state[0]["truth"][:n]
        out["steps"][i] = game.state[0]["steps"]
        out["rounds"][i] = game.round
        if record:
            out["actions"].append(actions)
            out["transcripts"].append(transcripts)
    return out


def play_chunk(t: Tournament, start: int, count: int, path: str, record: bool = False) -> dict:
    """Play games ``start .. start + count - 1`` of ``t`` on ``path`` (``"compiled"`` or
    ``"python"``). Returns ``scores`` int64[count, n], ``winners`` int8[count, n] (1 = won),
    ``hist`` int64[count, n, NUM_HIST] (the final history counters), ``steps`` and ``rounds``
    int64[count], and with ``record`` ``actions``: per game the ``(seat, action id)`` list."""
    if path == "compiled":
        if record:
            raise ValueError("game records come from the Python path")
        return play_compiled(t, start, count)
    return play_python(t, start, count, record)

