"""The results of a tournament: its games in game order and the statistics per bot
(:mod:`.stats`, :mod:`.ratings`), as a table, JSON or CSV."""

from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import __version__
from ..rules import state as st
from .ratings import rate_games
from .schedule import Tournament
from .stats import BEHAVIOUR, DECEPTION, finishing_ranks, summarize


@dataclass
class Results:
    """The games of a tournament (in game order) and their statistics per bot.

    ``bots`` holds one dict per bot name (order of first appearance in the lineup) with the
    keys of :func:`borders_sim.arena.stats.summarize` plus ``rating_mu`` and ``rating_sigma``
    (:func:`borders_sim.arena.ratings.rate_games`), and for a bot that counts figures of its own
    (a language model's seat: decisions, replies legal at the first try, retries, fallbacks,
    requests, seconds waited, tokens) ``figures``, summed over its games
    (:func:`seat_figures`). :meth:`to_dict` is the JSON document of ``borders-sim tournament
    --json``.
    """

    tournament: Tournament
    path: str
    backend: str
    entry: np.ndarray  # int64[G, n]: bot index (into names) of each seat
    scores: np.ndarray  # int64[G, n]
    winners: np.ndarray  # int8[G, n]
    steps: np.ndarray  # int64[G]
    rounds: np.ndarray  # int64[G]
    hist_totals: np.ndarray  # int64[len(names), NUM_HIST]
    truth_totals: np.ndarray  # int64[len(names), NUM_TRUTH]: the private truth counters
    interrupted: bool = False
    records_written: int = 0  # game traces written (with record_dir), in any game order
    figures: dict[str, dict] = field(default_factory=dict)  # a bot's own counters, by name
    names: list[str] = field(init=False)
    bots: list[dict] = field(init=False)

    def __post_init__(self) -> None:
        self.names = list(dict.fromkeys(self.tournament.lineup))
        rows = summarize(self.names, self.entry, self.scores, self.winners, self.hist_totals,
                         self.truth_totals)
        mu, sigma = rate_games(len(self.names), self.entry,
                               finishing_ranks(self.scores, self.winners))
        self.bots = []
        for row, m, s in zip(rows, mu, sigma):
            kept = {key: row.pop(key) for key in ("behaviour", "deception", "history", "truth")}
            row.update(rating_mu=m, rating_sigma=s, **kept)
            if row["name"] in self.figures:
                row["figures"] = seat_figures(self.figures[row["name"]])
            self.bots.append(row)

    @property
    def games_played(self) -> int:
        """The games played: all of them, or those finished before an interruption."""
        return int(self.entry.shape[0])

    def config_dict(self) -> dict:
        """What was played: players, lineup, games, seed, backend, and the seating and seeding
        rules in words."""
        t = self.tournament
        played = self.games_played
        return {
            "players": t.players, "bots": list(t.lineup), "games": t.games,
            "games_played": played, "seed": t.seed, "interrupted": self.interrupted,
            "seat_rotation": "game g puts bots[(p + g) % players] in seat p",
            "seeds": "game g is dealt from seed + g; the bot in seat p is seeded "
                     "bot_seed(seed + g, p)",
            "path": self.path, "backend": self.backend,
            "game_config": t.config.to_dict(),
            "decisions_per_game": float(self.steps.mean()) if played else None,
            "rounds_per_game": float(self.rounds.mean()) if played else None,
            "win_rate_ci95": "Wilson score interval on the per-game mean win share (games as "
                             "units; a shared win counts 1/k for each of the k winners)",
            "rating": "openskill PlackettLuce over finishing orders (winners first, then by "
                      "score), games rated in order; mu=25, sigma=25/3 at the start",
            "borders_sim": __version__,
        }

    def to_dict(self) -> dict:
        """``{"config": ..., "bots": [...]}``, JSON-ready."""
        return {"config": self.config_dict(), "bots": self.bots}

    def write_json(self, path: str | os.PathLike) -> None:
        """Write :meth:`to_dict` to ``path`` as indented JSON."""
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")

    def csv_rows(self) -> tuple[list[str], list[list]]:
        """Header and one flat row per bot (the CI as two columns, behaviour metrics and
        history counters as columns of their own)."""
        header = ["name", "seats", "games", "wins", "win_rate", "win_rate_ci95_lo",
                  "win_rate_ci95_hi", "mean_score", "sd_score", "rating_mu", "rating_sigma"]
        header += list(BEHAVIOUR) + list(DECEPTION)
        header += [f"history_{key}" for key, _ in st.HISTORY_COUNTERS]
        header += [f"truth_{key}" for key, _ in st.TRUTH_COUNTERS]
        rows = []
        for b in self.bots:
            row = [b[k] for k in header[:5]] + list(b["win_rate_ci95"])
            row += [b[k] for k in header[7:11]]
            row += [b["behaviour"][k] for k in BEHAVIOUR]
            row += [b["deception"][k] for k in DECEPTION]
            row += [b["history"][key] for key, _ in st.HISTORY_COUNTERS]
            row += [b["truth"][key] for key, _ in st.TRUTH_COUNTERS]
            rows.append(row)
        return header, rows

    def write_csv(self, path: str | os.PathLike) -> None:
        """Write :meth:`csv_rows` to ``path``: a header, then one row per bot."""
        header, rows = self.csv_rows()
        with open(path, "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(header)
            writer.writerows(["" if v is None else v for v in row] for row in rows)


def seat_figures(counts: dict) -> dict:
    """A bot's own counters summed over its games, with the shares they give where they are a
    language model's: ``legal_first_pct`` (decisions whose first reply named a legal action)
    and ``mean_seconds`` (a request's wait)."""
    out = dict(counts)
    if out.get("decisions"):
        out["legal_first_pct"] = round(100 * out.get("legal_first", 0) / out["decisions"], 2)
    if out.get("requests"):
        out["mean_seconds"] = round(out.get("seconds", 0.0) / out["requests"], 4)
    return out


def results_from_chunks(t: Tournament, chunks: list[dict], path: str, backend: str,
                        interrupted: bool = False) -> Results:
    """:class:`Results` of the games in ``chunks`` (consecutive, from game 0)."""
    n = t.players
    names = list(dict.fromkeys(t.lineup))
    played = sum(len(c["steps"]) for c in chunks)
    entry = np.array([[names.index(nm) for nm in t.seat_names(g)] for g in range(played)],
                     dtype=np.int64).reshape(played, n)
    hist_totals = np.zeros((len(names), st.NUM_HIST), dtype=np.int64)
    truth_totals = np.zeros((len(names), st.NUM_TRUTH), dtype=np.int64)
    start = 0
    for c in chunks:
        k = len(c["steps"])
        seats = entry[start:start + k].ravel()
        np.add.at(hist_totals, seats, c["hist"].reshape(k * n, -1))
        np.add.at(truth_totals, seats, c["truth"].reshape(k * n, -1))
        start += k

    def cat(key: str, shape: tuple, dtype) -> np.ndarray:
        return np.concatenate([c[key] for c in chunks]) if chunks else np.zeros(shape, dtype)

    figures: dict[str, dict] = {}
    for c in chunks:
        for name, counts in c.get("figures", {}).items():
            into = figures.setdefault(name, {})
            for key, value in counts.items():
                into[key] = into.get(key, 0) + value
    return Results(t, path, backend, entry, cat("scores", (0, n), np.int64),
                   cat("winners", (0, n), np.int8), cat("steps", (0,), np.int64),
                   cat("rounds", (0,), np.int64), hist_totals, truth_totals, interrupted,
                   figures=figures)

