"""A picture of tournament results (``borders-sim tournament --plot FILE.png``): the score
distribution of each bot and its rating. Needs matplotlib, the optional extra ``plot``
(``pip install ".[plot]"`` in the source checkout; the message when it is missing is
:func:`~borders_sim.install_hints.install_hint`'s)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np

from ..install_hints import needs

if TYPE_CHECKING:
    from .results import Results

FORMATS = (".png", ".pdf", ".svg")


def require_matplotlib() -> None:
    """Raise a RuntimeError saying how to install matplotlib if it is missing."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise RuntimeError(needs("--plot", "plot", "matplotlib")) from None


def plot_results(results: "Results", path: str | os.PathLike) -> None:
    """Write a figure of ``results`` to ``path`` (.png, .pdf or .svg): left, a histogram of
    each bot's final scores (seat-games); right, each bot's rating ``mu`` with ``± 2 sigma``
    bars and its win rate."""
    require_matplotlib()
    from matplotlib.figure import Figure  # no pyplot: no GUI backend, no global state

    fig = Figure(figsize=(11, 4.5), layout="constrained")
    left, right = fig.subplots(1, 2)
    t = results.tournament
    played = results.games_played
    if played:
        lo, hi = int(results.scores.min()), int(results.scores.max())
        bins = np.linspace(lo, hi + 1, min(60, hi - lo + 2))
        for b, name in enumerate(results.names):
            left.hist(results.scores[results.entry == b], bins=bins, histtype="step",
                      density=True, linewidth=1.5, label=name)
        left.legend()
    left.set(title="final scores", xlabel="score", ylabel="density")
    names = results.names
    mu = [row["rating_mu"] for row in results.bots]
    sigma = [row["rating_sigma"] for row in results.bots]
    y = np.arange(len(names))
    right.errorbar(mu, y, xerr=2 * np.asarray(sigma), fmt="o", capsize=4)
    right.set_yticks(y, [f"{row['name']}\nwin {row['win_rate']:.1%}" if row["win_rate"]
                         is not None else row["name"] for row in results.bots])
    right.invert_yaxis()
    right.set(title="rating (openskill Plackett-Luce), mu ± 2 sigma", xlabel="mu")
    fig.suptitle(f"{played} games, {t.players} players: {', '.join(t.lineup)} (seed {t.seed})")
    fig.savefig(path, dpi=120)
