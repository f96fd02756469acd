"""Game records: one game as a JSON-lines trace, and its replay.

A trace has one JSON object per line:

1. the header: ``{"type": "header", "format": "borders-sim-trace", "version": 1,
   "borders_sim": ..., "config": GameConfig.to_dict(), "seed": S + g, "game": g,
   "lineup": [bot name by seat], "bot_seeds": [seed by seat]}``;
2. one line per decision: ``{"type": "action", "seat": p, "action": id, "string":
   "announce coffee"}``, and what the seat's bot noted (a language model's seat:
   ``"tries": n``, its ``"talk"``, or ``"fallback": "random"`` and the ``"failure"`` when its
   replies failed and the fallback bot played; :mod:`borders_sim.llm.seat`);
3. the result: ``{"type": "result", "scores": [...], "winners": [seats]}``.

The config and seed fix the deal (:class:`~borders_sim.Game` is deterministic), so the
decisions replay the whole game. :func:`read_trace` reads no more than a trace can hold (lines
of at most :data:`MAX_LINE` characters, integers of at most :data:`MAX_DIGITS` digits, the
header on line 1 and then at most ``max_game_length`` decisions of its config and the result),
and checks the header against what :func:`write_game` writes (a config, a seed, known bots and
their seeds), so a file that is not a trace fails at its first bad line. :func:`replay` checks every
decision (its seat is the player to move, its id and string agree and are legal at that point) and
that the game ends exactly after the last one with the recorded scores and winners; anything else
raises :class:`TraceError` naming the line.
"""

from __future__ import annotations

import functools
import json
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import __version__
from ..npzfile import write_whole
from ..batch.seeds import bot_seed
from ..game.game import Game
from ..game.turns import play_turns
from ..rules import state as st
from ..rules.actions import NUM_ACTIONS, action_to_string
from ..checks import ArgumentTypeError, as_int, as_seed, is_int, shown
from ..rules.config import GameConfig
from ..rules.limits import max_game_length
from .schedule import Tournament

FORMAT = "borders-sim-trace"
VERSION = 1


class TraceError(ValueError):
    """A trace that is unreadable, malformed or does not replay; the message names the file
    and the line."""


def prepare_dir(path: str | os.PathLike) -> Path:
    """The record directory ``path``, created (with its parents) if missing.

    Raises:
        ValueError: ``path`` exists and is not a directory, or cannot be created or written.
    """
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise ValueError(f"record directory {str(p)!r} exists and is not a directory")
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ValueError(f"cannot create record directory {str(p)!r}: {err.strerror}") from None
    if not os.access(p, os.W_OK | os.X_OK):
        raise ValueError(f"record directory {str(p)!r} is not writable")
    return p


def trace_name(g: int) -> str:
    return f"game-{g:06d}.jsonl"


def write_game(directory: Path, t: Tournament, g: int, actions: Sequence[tuple],
               scores: Sequence[int], winners: Sequence[int]) -> Path:
    """Write game ``g`` of tournament ``t`` as ``directory / game-NNNNNN.jsonl``: its
    decisions ``(seat, action id)`` in order (``(seat, action id, note)``: the note's entries
    join the decision's line), its final ``scores`` and ``winners`` flags (one per seat)."""
    return write_trace(directory, t.config, t.seed + g, g, t.seat_names(g), actions, scores,
                       winners)


def write_trace(directory: Path, config: GameConfig, seed: int, g: int, lineup: Sequence[str],
                actions: Sequence[tuple], scores: Sequence[int], winners: Sequence[int],
                **header: object) -> Path:
    """Write a game dealt from ``seed`` with the seats' names ``lineup`` as ``directory /
    game-NNNNNN.jsonl`` (``g``: its number), as :func:`write_game` describes; ``header``: more
    fields of the header line (a served study's seat kinds, its date)."""
    menu = config.gold_menu
    lines = [{"type": "header", "format": FORMAT, "version": VERSION,
              "borders_sim": __version__, "config": config.to_dict(), "seed": seed,
              "game": g, "lineup": list(lineup),
              "bot_seeds": [bot_seed(seed, p) for p in range(config.num_players)], **header}]
    for p, a, *note in actions:
        line = {"type": "action", "seat": p, "action": a, "string": action_to_string(a, menu)}
        lines.append({**line, **{k: v for k, v in (note[0] if note else {}).items()
                                 if k not in line}})
    lines.append({"type": "result", "scores": [int(x) for x in scores],
                  "winners": [int(p) for p in np.flatnonzero(np.asarray(winners))]})
    text = "".join(json.dumps(line) + "\n" for line in lines)
    return write_whole(directory / trace_name(g), lambda f: f.write(text.encode("utf-8")),
                       sync=False)  # (no half-written trace)


def write_transcript(directory: Path, g: int, seats: dict[int, dict]) -> Path:
    """Write the transcripts of game ``g``'s bots that keep one (``seats[p]``: a language
    model's requests and replies) as ``directory / game-NNNNNN.llm.jsonl`` beside its trace
    (:mod:`borders_sim.llm.transcript` says what it holds and replays from it)."""
    from ..llm.transcript import transcript_lines, transcript_name

    text = "".join(json.dumps(line) + "\n" for line in transcript_lines(g, seats))
    return write_whole(directory / transcript_name(g), lambda f: f.write(text.encode("utf-8")),
                       sync=False)


#: Characters a trace line may hold: a header (a config, eight bot names and seeds) takes
#: under a thousand, a decision under a hundred.
MAX_LINE = 16384
#: Digits an integer of a trace may have (seeds, the largest, have 20).
MAX_DIGITS = 30


@dataclass
class Trace:
    """A parsed trace: the header dict and its config, the decisions ``(line number, seat, id,
    string)``, and the result dict."""

    path: str
    header: dict
    config: GameConfig
    actions: list[tuple[int, int, int, str]]
    result: dict
    #: table talk by the index of the decision that carried it (a language model's seat)
    talk: dict[int, str] = field(default_factory=dict)


def read_trace(path: str | os.PathLike) -> Trace:
    """Parse and check the structure of a trace file, reading at most what a trace can hold:
    lines of at most :data:`MAX_LINE` characters, and after the header at most
    ``max_game_length`` decisions (of the header's config) and the result.

    Raises:
        TraceError: the file is missing or unreadable, a line is too long or not JSON (nested
            too deeply, an integer of more than :data:`MAX_DIGITS` digits), the header's config,
            seed, lineup or bot seeds are not those of a tournament game, there are more lines
            than such a game has, or a line lacks a field or has one of the wrong type (the
            message names the line).
    """
    name = str(path)
    try:
        with _open_regular(name) as f:
            return _read(name, f)
    except FileNotFoundError:
        raise TraceError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise TraceError(f"{name}: is a directory, not a trace file") from None
    except (OSError, UnicodeDecodeError) as err:
        raise TraceError(f"{name}: cannot read: {err}") from None


def _open_regular(name: str):
    """``name`` opened as text, refused (a TraceError) unless it is a regular file: it is
    opened without blocking and looked at first, so a named pipe or a device cannot hang the
    reader (docs/security.md)."""
    fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(name)
        if not stat.S_ISREG(mode):
            kind = ("a named pipe (FIFO)" if stat.S_ISFIFO(mode) else
                    "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else
                    "a socket" if stat.S_ISSOCK(mode) else "not a regular file")
            raise TraceError(f"{name}: is {kind}, not a trace file")
        os.set_blocking(fd, True)
        return os.fdopen(fd, encoding="utf-8")
    except BaseException:
        os.close(fd)
        raise


def _read(name: str, f) -> Trace:
    lines = _objects(name, f)
    first = next(lines, None)
    if first is None or first[1] is None or first[1]["type"] != "header":
        raise TraceError(f"{name}: the first line must be the header (type \"header\")")
    header = first[1]
    config = _header(name, header)
    most = max_game_length(config)
    actions: list[tuple[int, int, int, str]] = []
    talk: dict[int, str] = {}
    result = None
    for number, obj in lines:
        if number > most + 2:
            raise TraceError(f"{name} line {number}: more lines than a trace of this config "
                             f"has (the header, at most max_game_length = {most} decisions, "
                             "the result)")
        if obj is None:
            continue
        if result is not None:
            raise TraceError(f"{name} line {number}: a line of type {obj['type']!r} after the "
                             "result")
        if obj["type"] == "result":
            result = (number, obj)
            continue
        if obj["type"] != "action":
            raise TraceError(f"{name} line {number}: a {obj['type']} line among the actions")
        if len(actions) == most:
            raise TraceError(f"{name} line {number}: more decisions than a game of this config "
                             f"can have (max_game_length = {most})")
        if not (is_int(obj.get("seat")) and is_int(obj.get("action"))
                and isinstance(obj.get("string"), str)):
            raise TraceError(f"{name} line {number}: an action needs int \"seat\", int "
                             "\"action\" and string \"string\"")
        if "talk" in obj:
            if not isinstance(obj["talk"], str):
                raise TraceError(f"{name} line {number}: \"talk\" must be a string")
            talk[len(actions)] = obj["talk"]
        actions.append((number, obj["seat"], obj["action"], obj["string"]))
    if result is None:
        raise TraceError(f"{name}: the last line must be the result (type \"result\"); the "
                         "trace is truncated")
    number, obj = result
    for key in ("scores", "winners"):
        if not isinstance(obj.get(key), list) or not all(map(is_int, obj[key])):
            raise TraceError(f"{name} line {number}: result field {key!r} must be a list of "
                             "ints")
    return Trace(name, header, config, actions, obj, talk)


def _objects(name: str, f) -> Iterator[tuple[int, dict | None]]:
    """The lines of the open file ``f`` as trace objects with their line numbers (``None`` for
    a blank line), each read up to :data:`MAX_LINE` characters, until the end of the file (the
    caller stops earlier once a trace is too long)."""
    number = 0
    while True:
        raw = f.readline(MAX_LINE + 1)
        if not raw:
            return
        number += 1
        if len(raw.rstrip("\r\n")) > MAX_LINE:
            raise TraceError(f"{name} line {number}: longer than {MAX_LINE} characters, more "
                             "than any trace line")
        yield number, (_object(name, number, raw) if raw.strip() else None)


def _small_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise ValueError(f"an integer of {len(text.lstrip('-'))} digits, more than any trace "
                         f"holds ({MAX_DIGITS})")
    return int(text)


def _object(name: str, number: int, raw: str) -> dict:
    """Line ``number`` of a trace as its JSON object (with a known ``type``)."""
    try:
        obj = json.loads(raw, parse_int=_small_int)
    except RecursionError:
        raise TraceError(f"{name} line {number}: not valid JSON (nested too deeply)") from None
    except ValueError as err:  # json.JSONDecodeError, or an integer _small_int refused
        why = err.msg if isinstance(err, json.JSONDecodeError) else str(err)
        raise TraceError(f"{name} line {number}: not valid JSON ({why})") from None
    if not isinstance(obj, dict) or obj.get("type") not in ("header", "action", "result"):
        raise TraceError(f"{name} line {number}: expected an object with \"type\" header, "
                         "action or result")
    return obj


def _header(name: str, header: dict) -> GameConfig:
    """The config of a trace's header (line 1), after checking that the header is one
    :func:`write_game` writes: format, config, seed, game, lineup and bot seeds."""
    where = f"{name} line 1"
    if header.get("format") != FORMAT or header.get("version") != VERSION:
        raise TraceError(f"{where}: not a {FORMAT} version {VERSION} header")
    for key in ("config", "seed", "game", "lineup", "bot_seeds"):
        if key not in header:
            raise TraceError(f"{where}: header field {key!r} missing")
    try:
        if not isinstance(header["config"], dict):
            raise ArgumentTypeError(f"config must be an object, got "
                                    f"{type(header['config']).__name__}")
        config = GameConfig(**header["config"])
        seed = as_seed(header["seed"])
        as_int(header["game"], "game", lo=0)
    except (TypeError, ValueError) as err:
        raise TraceError(f"{where}: bad config, seed or game: {err}") from None
    lineup, seeds, n = header["lineup"], header["bot_seeds"], config.num_players
    if not isinstance(lineup, list) or len(lineup) != n:
        raise TraceError(f"{where}: header field 'lineup' must list {n} bot names, one per "
                         f"seat of the config, got {shown(lineup)}")
    unnamed = [bot for bot in lineup if not isinstance(bot, str) or not 0 < len(bot) <= 1000]
    if unnamed:  # any seat's name (a spec, MODULE:NAME): a replay makes no bot
        raise TraceError(f"{where}: {shown(unnamed[0])} in the lineup is not a bot's name (a "
                         f"text of 1 to 1000 characters)")
    if seeds != [bot_seed(seed, p) for p in range(n)]:
        raise TraceError(f"{where}: header field 'bot_seeds' must be the seeds of the bots of "
                         f"the game dealt from seed {seed} (bot_seed(seed, seat)), got "
                         f"{shown(seeds)}")
    return config


def _round_events(before: np.ndarray, after: np.ndarray, n: int) -> list[str]:
    """What each seat did in a round, from the change of its public history counters."""
    names = [key for key, _ in st.HISTORY_COUNTERS]
    out = []
    for p in range(n):
        delta = after[p] - before[p]
        parts = [f"{names[k].replace('_', ' ')} {int(delta[k])}" for k in np.flatnonzero(delta)]
        if parts:
            out.append(f"  p{p}: " + ", ".join(parts))
    return out


def replay(trace: Trace, echo: Callable[[str], None] = print, verbose: bool = False,
           on_step: Callable[[Game, int, int, str], None] | None = None) -> Game:
    """Replay ``trace`` from its config and seed, printing through ``echo`` each round's key
    events (the changes of every seat's public history counters, R-39) and its scores; with
    ``verbose`` every decision too, and always the table talk a decision carried;
    ``on_step(game, seat, action, phase)`` is called after each
    checked decision is applied (``phase``: the name of the phase it was taken in). Returns the
    finished game.

    Raises:
        TraceError: a decision is by the wrong seat, its id and string disagree, or it is
            illegal at its point; decisions remain after the game ended or the game did not
            end; the final scores or winners differ from the recorded ones.
    """
    name = trace.path
    config = trace.config
    game = Game(config, seed=trace.header["seed"])
    n = config.num_players
    lineup = trace.header["lineup"]
    echo(f"{name}: {n} players ({', '.join(f'p{p} {b}' for p, b in enumerate(lineup))}), "
         f"seed {trace.header['seed']}, {len(trace.actions)} decisions")

    def close_round(r: int, before: np.ndarray) -> None:
        echo(f"round {r}:")
        for line in _round_events(before, game.state[0]["hist"], n):
            echo(line)
        echo(f"  scores now: {game.scores()}")

    decisions = iter(enumerate(trace.actions))
    rounds = [game.round, game.state[0]["hist"].copy()]  # the open round and its counters

    def recorded(p: int, _observation: np.ndarray, mask: np.ndarray) -> int:
        """The trace's next decision, checked against the game: seat ``p`` is to move."""
        index, (number, seat, a, text) = next(decisions, (None, (None,) * 4))
        if number is None:
            raise TraceError(f"{name}: the trace ends before the game does (round "
                             f"{game.round}, phase {game.phase!r}, p{p} to move)")
        where = f"{name} line {number} (round {game.round}, phase {game.phase!r})"
        if seat != p:
            raise TraceError(f"{where}: the action is by p{shown(seat)}, but p{p} is to move")
        if not 0 <= a < NUM_ACTIONS or game.action_to_string(a) != text:
            raise TraceError(f"{where}: action id {shown(a)} does not match its string "
                             f"{shown(text)}")
        if not mask[a]:
            raise TraceError(f"{where}: action {shown(text)} (id {a}) is illegal for p{seat} "
                             f"here; legal: "
                             f"{[game.action_to_string(b) for b in game.legal_actions()]}")
        if verbose:
            echo(f"  p{seat}: {text}")
        if index in trace.talk:  # (table talk is shown always: it is rare and it is words)
            echo(f"  p{seat} says: {json.dumps(trace.talk[index], ensure_ascii=False)}")
        phase[0] = game.phase
        return a

    phase = [game.phase]  # where the last decision was taken

    def after(p: int, a: int) -> None:
        if on_step is not None:
            on_step(game, p, a, phase[0])
        if game.round != rounds[0] or game.is_terminal:
            close_round(rounds[0], rounds[1])
            rounds[:] = [game.round, game.state[0]["hist"].copy()]

    play_turns(game, [functools.partial(recorded, p) for p in range(n)], on_step=after)
    extra = next(decisions, None)
    if extra is not None:
        raise TraceError(f"{name} line {extra[1][0]}: the game is already over, yet the trace "
                         "goes on")
    scores, winners = game.scores(), game.winners()
    if scores != trace.result["scores"] or winners != trace.result["winners"]:
        raise TraceError(f"{name}: the replay ends with scores {scores} and winners "
                         f"{winners}, but the trace records scores {trace.result['scores']} "
                         f"and winners {trace.result['winners']}")
    echo(f"final scores {scores}, winners {['p%d' % p for p in winners]}: as recorded")
    return game
