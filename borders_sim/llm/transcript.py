"""Transcripts: every request a language model's seat made and every reply it got, stored beside
the game's record, and a tournament replayed from them without any endpoint.

With ``--record DIR`` a game with a language model's seat gets ``DIR/game-NNNNNN.llm.jsonl``
beside its trace: a header line ``{"type": "header", "format": "borders-sim-llm-transcript",
"version": 1, "game": g, "seats": {"p": {"model", "base_url", "bot_seed", "system"}}}`` (the
system message once per seat), then one line per request, seat by seat, each seat's in the
order they were made:
``{"type": "request", "seat": p, "decision": d, "try": k, "messages": [...], "reply": "...",
"prompt_tokens": ..., "completion_tokens": ..., "seconds": ...}`` (``messages`` without the
system message; ``decision`` counts the seat's decisions in the game from 0, ``try`` its
requests for that decision from 0). No key is ever written.

**Replay** (``tournament --llm-replay DIR``, or the seat option ``replay=DIR``): each model seat
is answered from the transcripts of DIR instead of its endpoint, found by its bot seed (the
tournament's seed, seat and game fix it), each request checked against the recorded one. The
same tournament (lineup, games, seed, rules) then plays the same games, bit for bit; a request
that differs from the recorded one ends the run naming where (the run is not the recorded one).
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path

from .client import BackendError, Completion

FORMAT = "borders-sim-llm-transcript"
VERSION = 1
_RECORDED = ("replay the recorded tournament (its lineup, seed and games, as its traces' "
             "headers say)")


def transcript_name(g: int) -> str:
    """The transcript file of game ``g``, beside its trace ``game-NNNNNN.jsonl``."""
    return f"game-{g:06d}.llm.jsonl"


def transcript_lines(g: int, seats: dict[int, dict]) -> list[dict]:
    """The lines of game ``g``'s transcript from each model seat's record (``seats[p]``: its
    ``model``, ``base_url``, ``bot_seed``, ``system`` and ``requests``, :attr:`LLMBot.record
    <borders_sim.llm.seat.LLMBot.record>`)."""
    header = {"type": "header", "format": FORMAT, "version": VERSION, "game": g,
              "seats": {str(p): {k: v for k, v in s.items() if k != "requests"}
                        for p, s in sorted(seats.items())}}
    requests = [{"type": "request", "seat": p, **entry}
                for p, s in sorted(seats.items()) for entry in s["requests"]]
    return [header, *requests]


def _listing(directory: str) -> tuple:
    """The transcripts of ``directory`` with their sizes and times (the cache's key: a file
    written again is read again)."""
    return tuple((str(p), p.stat().st_size, p.stat().st_mtime_ns)
                 for p in sorted(Path(directory).glob("game-*.llm.jsonl")))


@functools.lru_cache(maxsize=4)
def _recorded(listing: tuple) -> dict[int, dict]:
    """Every model seat's record in the transcripts of ``listing``, by bot seed."""
    found: dict[int, dict] = {}
    for path, _, _ in listing:
        with open(path, encoding="utf-8") as f:
            lines = [json.loads(line) for line in f if line.strip()]
        if not lines or lines[0].get("format") != FORMAT or lines[0].get("version") != VERSION:
            raise ValueError(f"{path}: not a transcript of this borders_sim ({FORMAT} "
                             f"version {VERSION})")
        for p, seat in lines[0]["seats"].items():
            found[int(seat["bot_seed"])] = {
                **seat, "path": str(path),
                "requests": [x for x in lines[1:] if x.get("seat") == int(p)]}
    return found


def recordings(directory: str | os.PathLike) -> dict[int, dict]:
    """Every model seat's record in the transcripts of ``directory``, by bot seed.

    Raises:
        ValueError: ``directory`` is not one, holds no transcript, or one of another format.
    """
    directory = os.fspath(directory)
    if not Path(directory).is_dir():
        raise ValueError(f"--llm-replay {directory}: no such directory")
    found = _recorded(_listing(directory))
    if not found:
        raise ValueError(f"--llm-replay {directory}: no transcript (game-*.llm.jsonl) there: "
                         "record one with tournament --record DIR")
    return found


class ReplayClient:
    """A client that answers the model seat of ``bot_seed`` (``llm:model@base_url``) from its
    recorded requests in ``directory``, in order, each request checked against the recorded
    one (module docstring).

    Raises:
        ValueError: ``directory`` holds no transcript (:func:`recordings`).
    """

    def __init__(self, directory: str | os.PathLike, bot_seed: int, model: str,
                 base_url: str) -> None:
        recordings(directory)  # (checked at the door)
        self.directory, self.bot_seed = os.fspath(directory), bot_seed
        self.spec = f"llm:{model}@{base_url}"
        self.seat: dict | None = None
        self.next = 0
        self.tokens_used = 0

    def _recorded(self) -> dict:
        """The seat's record (found on the first request: a seat made to check its options
        has no game)."""
        if self.seat is None:
            found = recordings(self.directory).get(self.bot_seed)
            if found is None:
                raise BackendError(f"replay: {self.directory} has no recorded model seat of "
                                   f"bot seed {self.bot_seed}: {_RECORDED}")
            if f"llm:{found['model']}@{found['base_url']}" != self.spec:
                raise BackendError(f"replay: {found['path']}: the seat of bot seed "
                                   f"{self.bot_seed} was llm:{found['model']}@"
                                   f"{found['base_url']}, not {self.spec}: {_RECORDED}")
            self.seat = found
        return self.seat

    def complete(self, messages: list[dict], response_format: dict | None = None,
                 tools: list[dict] | None = None) -> Completion:
        """The recorded reply to ``messages`` (``response_format`` and ``tools`` are the
        request's, as recorded: they follow from the messages).

        Raises:
            BackendError: no recorded seat of this bot seed and spec, the request is not the
                recorded one, or the recording has no more.
        """
        seat = self._recorded()
        requests = seat["requests"]
        where = f"{seat['path']} (model {seat['model']!r}, request {self.next + 1})"
        if self.next >= len(requests):
            raise BackendError(f"replay: {where}: the recording has no more requests; this "
                               "run is not the recorded one")
        entry = requests[self.next]
        if messages[0].get("content") != seat["system"] or messages[1:] != entry["messages"]:
            raise BackendError(f"replay: {where}: the request differs from the recorded one; "
                               "this run is not the recorded one")
        self.next += 1
        self.tokens_used += entry["prompt_tokens"] + entry["completion_tokens"]
        return Completion(entry["reply"], entry["prompt_tokens"], entry["completion_tokens"],
                          entry["seconds"], 1)  # (the recorded wait: the same figures)
