"""The learning curve of a run as a picture (``borders-sim train --plot``): the learner's win
share over its last games against each pool member (a member starts to be drawn once it has
games), the evaluations against the heuristics, and the single deviators' win rates against
copies of the policy, with their 95% intervals; an evaluation panel of a run that has none yet
says so, and when the first comes. Needs matplotlib (the ``plot`` extra)."""

from __future__ import annotations

import os

import numpy as np

from ..install_hints import needs
from .league import RECENT_GAMES


def no_evaluation_text(eval_every: int | None) -> str:
    """What an evaluation panel without evaluations says: when the first comes (``eval_every``
    updates; 0: never; None: after a quarter of the budget, the trainer's default)."""
    if eval_every == 0:
        return "no evaluations in this run (eval_every 0)"
    if eval_every is None:
        return "no evaluation yet (first after a quarter of the budget)"
    return f"no evaluation yet (first at update {eval_every})"


def plot_curve(curve: list[dict], path: str | os.PathLike, title: str = "",
               eval_every: int | None = None) -> None:
    """Draw ``curve`` (the rows of ``curve.json``) into ``path`` (.png, .pdf or .svg);
    ``eval_every``: the run's evaluation interval (None: the budget's quarters), which an
    empty evaluation panel names."""
    try:
        from matplotlib.figure import Figure  # no pyplot: no GUI backend, no global state
    except ModuleNotFoundError as err:
        raise ModuleNotFoundError(needs("the learning curve's figure", "plot", "matplotlib"),
                                  name="matplotlib") from err

    fig = Figure(figsize=(16, 4.5), layout="constrained")
    left, middle, right = fig.subplots(1, 3)
    steps = np.array([row["learner_steps"] for row in curve]) / 1e6
    members = [k[len("win_vs_"):] for k in curve[-1] if k.startswith("win_vs_")] if curve else []
    drawn = False
    for name in members:
        shares = [row.get(f"win_vs_{name}") for row in curve]
        if any(w is not None for w in shares):  # (a slot never filled has no line)
            left.plot(steps, [np.nan if w is None else w for w in shares], label=name)
            drawn = True
    left.axhline(0.25, color="grey", linewidth=0.8, linestyle=":")
    left.set(title=f"win share in training (its last {RECENT_GAMES} games against each)",
             xlabel="learner steps (millions)", ylabel="win share", ylim=(0, 1))
    if drawn:
        left.legend(fontsize=8)
    for axes, key, heading in (
            (middle, "eval", "the policy against 3 copies [95% CI], unseen seeds"),
            (right, "deviators", "one deviator against 3 copies of the policy [95% CI]")):
        evals = [row for row in curve if key in row]
        for bot in (evals[0][key] if evals else {}):
            x = np.array([row["learner_steps"] for row in evals]) / 1e6
            rate = np.array([row[key][bot]["win_rate"] for row in evals])
            lo = np.array([row[key][bot]["win_rate_ci95"][0] for row in evals])
            hi = np.array([row[key][bot]["win_rate_ci95"][1] for row in evals])
            axes.errorbar(x, rate, yerr=np.maximum(0, [rate - lo, hi - rate]), marker="o",
                          capsize=3, label=bot)
        axes.axhline(0.25, color="grey", linewidth=0.8, linestyle=":")
        axes.set(title=heading, xlabel="learner steps (millions)", ylabel="win rate",
                 ylim=(0, 1))
        if evals:
            axes.legend(fontsize=8)
        else:
            axes.text(0.5, 0.5, no_evaluation_text(eval_every), transform=axes.transAxes,
                      ha="center", va="center", color="grey")
    if title:
        fig.suptitle(title)
    fig.savefig(path, dpi=120)
