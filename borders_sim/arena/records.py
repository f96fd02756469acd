"""Game records: one game as a JSON-lines trace, and its replay.

A trace has one JSON object per line:

1. the header: ``{"type": "header", "format": "borders-sim-trace", "version": 1,
   "borders_sim": ..., "config": GameConfig.to_dict(), "seed": S + g, "game": g,
   "lineup": [bot name by seat], "bot_seeds": [seed by seat]}``;
2. one line per decision: ``{"type": "action", "seat": p, "action": id, "string":
   "announce coffee"}``;
3. the result: ``{"type": "result", "scores": [...], "winners": [seats]}``.

The config and seed fix the deal (:class:`~borders_sim.Game` is deterministic), so the
decisions replay the whole game. :func:`replay` checks every decision (its seat is the player
to move, its id and string agree and are legal at that point) and that the game ends exactly
after the last one with the recorded scores and winners; anything else raises
:class:`TraceError` naming the line.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import __version__
from ..game.game import Game
from ..rules import state as st
from ..rules.actions import NUM_ACTIONS, action_to_string
from ..rules.args import is_int
from ..rules.config import GameConfig
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


def write_game(directory: Path, t: Tournament, g: int, actions: Sequence[tuple[int, int]],
               scores: Sequence[int], winners: Sequence[int]) -> Path:
    """Write game ``g`` of tournament ``t`` as ``directory / game-NNNNNN.jsonl``: its
    decisions ``(seat, action id)`` in order, its final ``scores`` and ``winners`` flags (one
    per seat)."""
    menu = t.config.gold_menu
    lines = [{"type": "header", "format": FORMAT, "version": VERSION,
              "borders_sim": __version__, "config": t.config.to_dict(), "seed": t.seed + g,
              "game": g, "lineup": t.seat_names(g), "bot_seeds": t.bot_seeds(g)}]
    lines += [{"type": "action", "seat": p, "action": a, "string": action_to_string(a, menu)}
              for p, a in actions]
    lines.append({"type": "result", "scores": [int(x) for x in scores],
                  "winners": [int(p) for p in np.flatnonzero(np.asarray(winners))]})
    path = directory / trace_name(g)
    part = path.with_suffix(".part")  # renamed once complete: no half-written trace
    part.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    os.replace(part, path)
    return path


@dataclass
class Trace:
    """A parsed trace: the header dict, the decisions ``(line number, seat, id, string)``,
    and the result dict."""

    path: str
    header: dict
    actions: list[tuple[int, int, int, str]]
    result: dict


def read_trace(path: str | os.PathLike) -> Trace:
    """Parse and check the structure of a trace file.

    Raises:
        TraceError: the file is missing or unreadable, a line is not JSON, or a line lacks a
            field or has one of the wrong type (the message names the line).
    """
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TraceError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise TraceError(f"{name}: is a directory, not a trace file") from None
    except (OSError, UnicodeDecodeError) as err:
        raise TraceError(f"{name}: cannot read: {err}") from None
    lines = []
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except json.JSONDecodeError as err:
            raise TraceError(f"{name} line {number}: not valid JSON ({err.msg})") from None
        if not isinstance(obj, dict) or obj.get("type") not in ("header", "action", "result"):
            raise TraceError(f"{name} line {number}: expected an object with \"type\" header, "
                             "action or result")
        lines.append((number, obj))
    if not lines or lines[0][1]["type"] != "header":
        raise TraceError(f"{name}: the first line must be the header (type \"header\")")
    if len(lines) < 2 or lines[-1][1]["type"] != "result":
        raise TraceError(f"{name}: the last line must be the result (type \"result\"); the "
                         "trace is truncated")
    number, header = lines[0]
    if header.get("format") != FORMAT or header.get("version") != VERSION:
        raise TraceError(f"{name} line {number}: not a {FORMAT} version {VERSION} header")
    for key, ok in (("config", lambda v: isinstance(v, dict)), ("seed", is_int),
                    ("lineup", lambda v: isinstance(v, list))):
        if key not in header or not ok(header[key]):
            raise TraceError(f"{name} line {number}: header field {key!r} missing or malformed")
    actions = []
    for number, obj in lines[1:-1]:
        if obj["type"] != "action":
            raise TraceError(f"{name} line {number}: a {obj['type']} line among the actions")
        if not (is_int(obj.get("seat")) and is_int(obj.get("action"))
                and isinstance(obj.get("string"), str)):
            raise TraceError(f"{name} line {number}: an action needs int \"seat\", int "
                             "\"action\" and string \"string\"")
        actions.append((number, obj["seat"], obj["action"], obj["string"]))
    number, result = lines[-1]
    for key in ("scores", "winners"):
        if not isinstance(result.get(key), list) or not all(map(is_int, result[key])):
            raise TraceError(f"{name} line {number}: result field {key!r} must be a list of "
                             "ints")
    return Trace(name, header, actions, result)


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


def replay(trace: Trace, echo: Callable[[str], None] = print, verbose: bool = False) -> Game:
    """Replay ``trace`` from its config and seed, printing through ``echo`` each round's key
    events (the changes of every seat's public history counters, R-39) and its scores; with
    ``verbose`` every decision too. Returns the finished game.

    Raises:
        TraceError: the header's config is invalid; a decision is by the wrong seat, its id and
            string disagree, or it is illegal at its point; decisions remain after the game
            ended or the game did not end; the final scores or winners differ from the
            recorded ones.
    """
    name = trace.path
    try:
        config = GameConfig(**trace.header["config"])
        game = Game(config, seed=trace.header["seed"])
    except (TypeError, ValueError) as err:
        raise TraceError(f"{name} line 1: bad config or seed: {err}") from None
    n = config.num_players
    lineup = trace.header["lineup"]
    echo(f"{name}: {n} players ({', '.join(f'p{p} {b}' for p, b in enumerate(lineup))}), "
         f"seed {trace.header['seed']}, {len(trace.actions)} decisions")

    def close_round(r: int, before: np.ndarray) -> None:
        echo(f"round {r}:")
        for line in _round_events(before, game.state[0]["hist"], n):
            echo(line)
        echo(f"  scores now: {game.scores()}")

    r, before = game.round, game.state[0]["hist"].copy()
    for number, seat, a, text in trace.actions:
        if game.is_terminal:
            raise TraceError(f"{name} line {number}: the game is already over, yet the trace "
                             "goes on")
        where = f"{name} line {number} (round {game.round}, phase {game.phase!r})"
        if seat != game.current_player:
            raise TraceError(f"{where}: the action is by p{seat}, but p{game.current_player} "
                             "is to move")
        if not 0 <= a < NUM_ACTIONS or game.action_to_string(a) != text:
            raise TraceError(f"{where}: action id {a} does not match its string {text!r}")
        if not game.legal_mask()[a]:
            raise TraceError(f"{where}: action {text!r} (id {a}) is illegal for p{seat} here; "
                             f"legal: {[game.action_to_string(b) for b in game.legal_actions()]}")
        if verbose:
            echo(f"  p{seat}: {text}")
        game.step(a)
        if game.round != r or game.is_terminal:
            close_round(r, before)
            r, before = game.round, game.state[0]["hist"].copy()
    if not game.is_terminal:
        raise TraceError(f"{name}: the trace ends before the game does (round {game.round}, "
                         f"phase {game.phase!r}, p{game.current_player} to move)")
    scores, winners = game.scores(), game.winners()
    if scores != trace.result["scores"] or winners != trace.result["winners"]:
        raise TraceError(f"{name}: the replay ends with scores {scores} and winners "
                         f"{winners}, but the trace records scores {trace.result['scores']} "
                         f"and winners {trace.result['winners']}")
    echo(f"final scores {scores}, winners {['p%d' % p for p in winners]}: as recorded")
    return game
