"""The learning curve of a run as a picture (``borders-sim train --plot``): the learner's win
share against each pool member over the learner's steps, the evaluations against the
heuristics, and the single deviators' win rates against copies of the policy, with their 95%
intervals. Needs matplotlib (the ``plot`` extra)."""

from __future__ import annotations

import os

import numpy as np

from ..rules.extras import needs


def plot_curve(curve: list[dict], path: str | os.PathLike, title: str = "") -> None:
    """Draw ``curve`` (the rows of ``curve.json``) into ``path`` (.png, .pdf or .svg)."""
    try:
        from matplotlib.figure import Figure  # no pyplot: no GUI backend, no global state
    except ModuleNotFoundError as err:
        raise ModuleNotFoundError(needs("the learning curve's figure", "plot", "matplotlib"),
                                  name="matplotlib") from err

    fig = Figure(figsize=(16, 4.5), layout="constrained")
    left, middle, right = fig.subplots(1, 3)
    steps = np.array([row["learner_steps"] for row in curve]) / 1e6
    members = [k[len("win_vs_"):] for k in curve[-1] if k.startswith("win_vs_")] if curve else []
    for name in members:
        left.plot(steps, [row.get(f"win_vs_{name}", np.nan) for row in curve], label=name)
    left.axhline(0.25, color="grey", linewidth=0.8, linestyle=":")
    left.set(title="win share in training (average of the last ~500 games)",
             xlabel="learner steps (millions)", ylabel="win share", ylim=(0, 1))
    if members:
        left.legend(fontsize=8)
    for axes, key, title in (
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
        axes.set(title=title, xlabel="learner steps (millions)", ylabel="win rate", ylim=(0, 1))
        if evals:
            axes.legend(fontsize=8)
    if title:
        fig.suptitle(title)
    fig.savefig(path, dpi=120)
