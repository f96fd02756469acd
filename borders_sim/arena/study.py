"""A study's games as demonstration data, with a data card (``borders-sim study DIR --out OUT``).

A study directory holds the records ``borders-sim serve --study DIR`` wrote
(:mod:`borders_sim.serve.study`): one trace per finished game with people in it, each seat's
kind in its header. :func:`export_study` replays every game from its seed and decisions
(checking each decision as a replay does) and writes every seat's decisions in the
demonstrations format of ``borders-sim demos`` (:mod:`borders_sim.agents.demos`: the seat's
observation and legal mask, its action, its final reward, the game's number), one shard per
game config, ``meta["bots"]`` the seats' names (``"person"`` for a person's seat, a bot's spec,
``llm:MODEL@URL``) so a loader can keep the people's decisions alone (``bot`` column), and a
data card beside them, ``data_card.json`` and ``DATA_CARD.md``: the games, the decisions, the
seats by kind, the bots and models, the player counts, the dates the games ended, the decisions
stand-in bots took for idle people, and the people's median decision time.
"""

from __future__ import annotations

import json
import os
import statistics
from collections import Counter
from pathlib import Path

import numpy as np

from .. import __version__
from ..agents.demos import FORMAT as DEMOS_FORMAT
from ..agents.demos import load_shard
from ..game.game import Game
from ..game.views import observe
from ..npzfile import write_npz
from ..rules.observation import OBS_SIZE_V1
from ..rules.rewards import final_rewards_at, reward_mode
from ..rules.state import MAX_PLAYERS
from .records import TraceError, read_trace, replay

_GAMES = "game-*.jsonl"
_SHARDS = "shard-*.npz"


def _notes(path: str, numbers: list[int]) -> list[dict]:
    """The JSON objects of the lines ``numbers`` (1-based) of the trace ``path``, read after
    :func:`~.records.read_trace` checked it."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [json.loads(lines[n - 1]) for n in numbers]


def _kinds(header: dict, n: int) -> list[dict]:
    seats = header.get("seats")
    if not isinstance(seats, list) or len(seats) != n or not all(
            isinstance(s, dict) and s.get("kind") in ("person", "bot", "llm") for s in seats):
        raise ValueError(f"{header.get('game')}: not a study's record (its header has no "
                         "'seats' list of kinds: person, bot, llm)")
    return seats


def export_study(directory: str | os.PathLike, out: str | os.PathLike,
                 overwrite: bool = False, reward: str = "win") -> dict:
    """Export the study in ``directory`` into ``out`` (module docstring); returns the data card.

    Raises:
        ValueError: no record in ``directory``, a record that is not a study's or does not
            replay (named), or shards in ``out`` already (unless ``overwrite``).
    """
    source = Path(directory)
    paths = sorted(source.glob(_GAMES)) if source.is_dir() else []
    if not paths:
        raise ValueError(f"{str(source)!r} holds no study records ({_GAMES})")
    mode = reward_mode(reward)
    target = Path(out)
    target.mkdir(parents=True, exist_ok=True)
    old = sorted(target.glob(_SHARDS))
    if old and not overwrite:
        raise ValueError(f"{str(target)!r} already holds {len(old)} shard(s): choose another "
                         "directory, or overwrite=True (--overwrite)")
    for path in old:
        path.unlink()
    groups: dict[str, list] = {}
    card = {"format": "borders_sim.study-card/1", "borders_sim": __version__,
            "source": str(source), "games": 0, "decisions": 0, "decisions_by_kind": Counter(),
            "seats_by_kind": Counter(), "bots": Counter(), "models": Counter(),
            "players": Counter(), "stand_in_decisions": 0, "ended": []}
    person_seconds: list[float] = []
    for path in paths:
        try:
            trace = read_trace(path)
        except TraceError as err:
            raise ValueError(str(err)) from None
        n = trace.config.num_players
        kinds = _kinds(trace.header, n)
        rows = _replay(trace, mode)
        notes = _notes(trace.path, [d[0] for d in trace.actions])
        key = json.dumps(trace.config.to_dict(), sort_keys=True)
        groups.setdefault(key, []).append((trace, rows))
        card["games"] += 1
        card["decisions"] += len(trace.actions)
        card["players"][n] += 1
        card["ended"].append(trace.header.get("study", {}).get("ended"))
        for seat in kinds:
            card["seats_by_kind"][seat["kind"]] += 1
            if seat["kind"] == "bot":
                card["bots"][seat["spec"]] += 1
            elif seat["kind"] == "llm":
                card["models"][seat["model"]] += 1
        for (_, seat, *_rest), note in zip(trace.actions, notes):
            card["decisions_by_kind"][kinds[seat]["kind"]] += 1
            card["stand_in_decisions"] += "stand_in" in note
            if kinds[seat]["kind"] == "person" and "stand_in" not in note and \
                    isinstance(note.get("seconds"), (int, float)):
                person_seconds.append(float(note["seconds"]))
    shards = [_write_shard(target / f"shard-{i:06d}.npz", games, reward)
              for i, games in enumerate(groups.values())]
    ended = sorted(e for e in card["ended"] if isinstance(e, str))
    card.update(ended={"first": ended[0] if ended else None,
                       "last": ended[-1] if ended else None},
                person_seconds_median=(round(statistics.median(person_seconds), 3)
                                       if person_seconds else None),
                shards=[p.name for p in shards], reward=reward,
                identifies="nothing: no token, address or name is recorded; a seat is a "
                           "person's only by its kind")
    for key in ("decisions_by_kind", "seats_by_kind", "bots", "models", "players"):
        card[key] = {str(k): v for k, v in sorted(card[key].items())}
    (target / "data_card.json").write_text(json.dumps(card, indent=2) + "\n", encoding="utf-8")
    (target / "DATA_CARD.md").write_text(card_text(card), encoding="utf-8")
    for path in shards:
        load_shard(path)  # (the shards read back as any demonstrations do)
    return card


def _replay(trace, mode: int) -> dict[str, np.ndarray]:
    """Every decision of ``trace``, replayed and checked as ``borders-sim replay`` checks it
    (:func:`~.records.replay`): what its seat saw, chose, and got at the end."""
    obs, masks, seats = [], [], []

    def seen(game: Game) -> None:  # (the position of the next decision, if any)
        if not game.is_terminal:
            seat = game.current_player
            obs.append(observe(game, seat)[:OBS_SIZE_V1].astype(np.int16))
            masks.append(np.packbits(game.legal_mask().astype(bool), bitorder="little"))
            seats.append(seat)

    seen(Game(trace.config, seed=trace.header["seed"]))  # (the deal replay starts from)
    try:
        game = replay(trace, echo=lambda _line: None, on_step=lambda g, *_: seen(g))
    except TraceError as err:
        raise ValueError(str(err)) from None
    rewards = np.zeros(MAX_PLAYERS)
    final_rewards_at(game.state, 0, mode, rewards)
    seat = np.array(seats, dtype=np.int8)
    return {"obs": np.array(obs, dtype=np.int16).reshape(-1, OBS_SIZE_V1),
            "mask": np.array(masks, dtype=np.uint8),
            "action": np.array([a for _, _, a, _ in trace.actions], np.int16),
            "seat": seat, "step": np.arange(len(seat), dtype=np.int32),
            "reward": rewards[seat].astype(np.float32)}


def _write_shard(path: Path, games: list, reward: str) -> Path:
    """The decisions of ``games`` (one config) as one demonstrations shard."""
    trace0 = games[0][0]
    names = list(dict.fromkeys(name for trace, _ in games for name in trace.header["lineup"]))
    columns: dict[str, list] = {k: [] for k in ("obs", "mask", "action", "seat", "bot", "step",
                                                "game", "reward")}
    for trace, rows in games:
        lineup = trace.header["lineup"]
        for key in ("obs", "mask", "action", "seat", "step", "reward"):
            columns[key].append(rows[key])
        columns["bot"].append(np.array([names.index(lineup[p]) for p in rows["seat"]],
                                       dtype=np.int8))
        columns["game"].append(np.full(len(rows["seat"]), trace.header["game"], np.int64))
    meta = {"format": DEMOS_FORMAT, "borders_sim": __version__,
            "config": trace0.config.to_dict(), "bots": names,
            "seats": list(range(trace0.config.num_players)), "seed": None,
            "source": "study", "games": [trace.header["game"] for trace, _ in games],
            "reward": reward}
    return write_npz(path, **{k: np.concatenate(v) for k, v in columns.items()},
                     meta=np.array(json.dumps(meta)))


def card_text(card: dict) -> str:
    """The data card as Markdown."""
    def listed(d: dict) -> str:
        return ", ".join(f"{k}: {v}" for k, v in d.items()) or "none"
    return "\n".join([
        "# Data card", "",
        f"- Games: {card['games']} (players: {listed(card['players'])}), ended from "
        f"{card['ended']['first']} to {card['ended']['last']} (UTC).",
        f"- Decisions: {card['decisions']} ({listed(card['decisions_by_kind'])}); "
        f"{card['stand_in_decisions']} taken by a stand-in bot for an idle person.",
        f"- Seats by kind: {listed(card['seats_by_kind'])}; bots: {listed(card['bots'])}; "
        f"language models: {listed(card['models'])}.",
        f"- A person's median decision time: {card['person_seconds_median']} s.",
        f"- Shards ({DEMOS_FORMAT}, every seat's decisions; the bot column names the seat's "
        f"kind): {', '.join(card['shards'])}; reward: the seat's final reward "
        f"({card['reward']}).",
        f"- Identifies: {card['identifies']}.", "",
        f"Made by borders-sim {card['borders_sim']} from {card['source']}.", ""])
