"""Writes ``examples/quickstart.ipynb``, the notebook of a researcher's first hour, from the cells
below, so that the notebook's source is reviewable Python.

    python examples/make_quickstart.py           # (re)write the notebook beside this file
    python examples/make_quickstart.py --check   # exit 1 if the committed notebook differs

The notebook is committed without outputs; ``tests/test_notebook.py`` checks that it equals what
this script writes and executes it on a small budget (``BORDERS_NOTEBOOK_MINUTES``,
``BORDERS_NOTEBOOK_GAMES``). Cell ids are fixed (the test finds cells by them) so that the file
is the same on every run. Needs ``nbformat``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

NOTEBOOK = Path(__file__).with_name("quickstart.ipynb")

#: (cell id, "markdown" or "code", source), in notebook order.
CELLS: list[tuple[str, str, str]] = [
    ("intro", "markdown", """\
# borders_sim: a researcher's first hour

This notebook plays a game of BORDERS, runs a tournament of the bots, trains a policy with masked
PPO for a few minutes, puts it in a tournament against the heuristics and the shipped `ppo`
policy, and plots the training curve and the tournaments. It runs top to bottom in Jupyter or
Colab on a CPU: `MINUTES` of training (3 by default) plus the tournaments, after the install.

Each step has a note saying what it does and what it costs; each cell that takes more than a
moment prints its own time, so the figures below are always this run's. The command-line twins are
`borders-sim tournament`, `borders-sim train` and `borders-sim play` (docs/bots.md,
docs/training.md)."""),

    ("settings-md", "markdown", """\
## Settings

The training budget is `MINUTES` of wall clock (environment variable `BORDERS_NOTEBOOK_MINUTES`,
default 3); `GAMES` is the number of games of each tournament (`BORDERS_NOTEBOOK_GAMES`,
default 4200, a multiple of every player count from 3 to 8, so that the seats are balanced).
The training run writes into `OUT`, a new directory under `runs/`. The cell says when the budget
is below the defaults (the documentation site runs it on a cut one). Costs nothing."""),

    ("settings", "code", """\
import os
import time
from pathlib import Path

MINUTES = float(os.environ.get("BORDERS_NOTEBOOK_MINUTES", "3"))  # training budget, wall clock
GAMES = int(os.environ.get("BORDERS_NOTEBOOK_GAMES", "4200"))     # games of each tournament
PLAYERS = 4    # every game below has 4 players (each lineup names 4 bots)
SEED = 0       # the same seeds give the same games, tournaments and training run
OUT = Path("runs") / time.strftime("notebook-%Y%m%d-%H%M%S")      # the training run's outputs
print(f"training {MINUTES:g} min into {OUT}; {GAMES} games a tournament")
if MINUTES < 3 or GAMES < 4200:  # below the defaults: say so before any figure
    print(f"A cut budget (the defaults: 3 min, 4200 games), as the documentation site's build "
          f"runs this notebook: the policy below trains for {MINUTES:g} min and barely learns, "
          f"and {GAMES} games give wide intervals.")"""),

    ("install-md", "markdown", """\
## 1. Install (Colab or a fresh machine)

Does nothing where `borders_sim`, `torch` and `matplotlib` are already importable (as in CI, or
after `pip install ".[rl,plot]"`). Otherwise it installs them with pip, from this checkout when
the notebook sits in one, else from `SOURCE` (set it to a clone of the repository, or a
`git+https://...` address of it).

- **torch**: on this project's machines install the CPU build, `torch==2.13.0`, *before* the
  package (an unpinned torch would pull a CUDA build of several GB); off those machines add
  `--index-url https://download.pytorch.org/whl/cpu` for the CPU build. Colab's preinstalled
  torch also works (the `rl` extra accepts torch 2.1 to 2.14).
- **Cost**: minutes, once: pip builds the package and compiles the rules kernels into it
  (docs/speed.md, Start-up: the build's time on 2 cores). Restart the kernel afterwards if pip
  asks you to."""),

    ("install", "code", """\
import importlib.util
import sys

SOURCE = ""  # a clone of the repository or "git+https://..."; only read if the package is missing

missing = [m for m in ("borders_sim", "torch", "matplotlib") if importlib.util.find_spec(m) is None]
if missing:
    print("missing:", ", ".join(missing), "- installing with pip")
    if "torch" in missing:
        %pip install torch==2.13.0
    checkout = next((p for p in (Path.cwd(), *Path.cwd().parents)
                     if (p / "pyproject.toml").is_file() and (p / "borders_sim").is_dir()), None)
    source = str(checkout) if checkout is not None else SOURCE
    if not source:
        raise RuntimeError("borders_sim is not installed and this is no checkout: set SOURCE")
    spec = f"borders-sim[rl,plot] @ {source}" if "://" in source else f"{source}[rl,plot]"
    %pip install "{spec}"
    importlib.invalidate_caches()
    print("installed; if an import below fails, restart the kernel and run from the top")
else:
    import borders_sim
    print(f"borders_sim {borders_sim.__version__} is installed ({borders_sim.__path__[0]}); "
          f"python {sys.version.split()[0]}")"""),

    ("play-md", "markdown", """\
## 2. One game

A `Game` is one record and every rule a compiled kernel over it. Four bots play one game: each sees
only its own observation (`observe(game, seat)`) and the legal mask, and returns an action id.
`observe_text` shows what a seat knows, in words: here the inspector's view at the first border
check. **Cost**: seconds with the kernels compiled (the time is printed); the first use on a
machine whose kernels are not compiled yet compiles them (said on stderr) and caches them."""),

    ("play", "code", """\
from borders_sim import Game, GameConfig
from borders_sim.agents import make
from borders_sim.envs import observe, observe_text

started = time.perf_counter()
names = ["honest", "bluffer", "collector", "ppo"]     # the bot of each seat
game = Game(GameConfig(num_players=PLAYERS), seed=SEED)
bots = [make(name, seed=seat) for seat, name in enumerate(names)]
view = None
while not game.is_terminal:
    seat = game.current_player
    if view is None and game.phase == "respond":      # the first border check: the inspector's view
        view = observe_text(game, seat)
        moment, inspector = game.copy(), seat          # kept for the picture below
    game.step(bots[seat].act(observe(game, seat), game.legal_mask()))

print(f"{game.round} rounds; scores {dict(zip(names, game.scores()))}")
print("winners:", ", ".join(f"p{seat} ({names[seat]})" for seat in game.winners()))
print(f"({time.perf_counter() - started:.1f} s)")
print()
print(view)"""),

    ("picture-md", "markdown", """\
### The same moment as a picture

`game.svg(seat=p)` draws what seat `p` knows, from its observation alone (its own cards face up,
every other hidden card face down, the last move highlighted); `game.svg()` draws the whole
table, every card face up. Jupyter shows either as a picture; `game.save_svg(path, seat=p)` writes
it, and `borders-sim replay GAME --html out.html` makes a page to step through a recorded game.
**Cost**: a few milliseconds."""),

    ("picture", "code", """\
moment.svg(seat=inspector)   # the inspector's view at the first border check"""),

    ("tournament-md", "markdown", """\
## 3. A tournament of the bots

`run_tournament` plays `GAMES` seat-rotated games between the compiled bots (`random`, `honest`,
`bluffer`, `collector`) on all cores, as `borders-sim tournament` does, and the table is the
command's: win rate with its 95% Wilson interval, score, openskill rating and three behaviour
figures from the public history. **Cost**: the games' time, on the progress bar and printed
below the table."""),

    ("tournament", "code", """\
import sys

from tqdm import tqdm

from borders_sim.arena import default_lineup, run_tournament
from borders_sim.cli.tournament import tournament_table

lineup = default_lineup(PLAYERS)
started = time.perf_counter()
with tqdm(total=GAMES, unit="game", desc="tournament", file=sys.stderr) as bar:
    bots_results = run_tournament(PLAYERS, lineup, GAMES, seed=SEED, progress=bar.update)
sys.stderr.flush()  # the bar's last line before the table (Jupyter streams them apart)
print(tournament_table(bots_results))
print(f"{bots_results.games_played} games in {time.perf_counter() - started:.0f} s")"""),

    ("train-md", "markdown", """\
## 4. Train a policy

Masked PPO (`borders_sim.train.train`, the trainer of `borders-sim train`) trains one seat for
`MINUTES` of wall clock against the three heuristics, 64 games side by side, 64 decisions of each
per update. The progress line shows the updates, the time left, the learner's steps/s and its
win share over its last 200 games against each opponent. The outputs land in `OUT`: `policy.npz` (the policy, played without torch),
`curve.json` / `curve.csv` (a row per update) and a checkpoint. The cell prints how far the
budget went (updates, learner steps) and the win share against each opponent at the end.
This is not how the shipped `ppo` was made: that took a chain of longer runs against a league
with self-play, an exploiter and short-run learners like this one at mixed tables
(docs/training.md: every stage's command, read from the shipped file).
**Cost**: `MINUTES` plus the start (torch's import, the training env's kernels: seconds)."""),

    ("train", "code", """\
from borders_sim.train import TrainConfig, train

config = TrainConfig(players=PLAYERS, opponents=("honest", "bluffer", "collector"),
                     minutes=MINUTES, seed=SEED, num_envs=64, steps=64, eval_every=0)
run = train(config, OUT)   # the progress bar is on stderr
sys.stderr.flush()         # its last line before what follows
print(f"{run.updates} updates, {run.learner_steps:,} learner steps in {run.seconds:.0f} s of "
      f"updates; policy: {run.policy}")
last = run.curve[-1]
print("win share in training, last 200 games: " + ", ".join(
    f"{key[len('win_vs_'):]} {last[key]:.0%}" for key in last
    if key.startswith("win_vs_") and last[key] is not None))"""),

    ("evaluate-md", "markdown", """\
## 5. The trained policy against the heuristics and the shipped `ppo`

`ppo@PATH` plays a policy file inside the compiled tournament, sampled as it trained; the table
names it by its run's directory, with the whole path under the table. The games
are dealt from seeds no training run deals (`EVAL_SEED`, the trainer's evaluations' range).
A fair share is 25%. Below the table, the cell says which of the trained policy and the shipped
`ppo` won more of these games, with the figures of this run: the comparison is read from the
tournament, never written in advance.
**Cost**: the games' time, printed (two seats play a network, so slower than step 3)."""),

    ("evaluate", "code", """\
from borders_sim.train.trainer import EVAL_SEED

trained = f"ppo@{run.policy}"
lineup = (trained, "ppo", "honest", "bluffer")
started = time.perf_counter()
with tqdm(total=GAMES, unit="game", desc="tournament", file=sys.stderr) as bar:
    final = run_tournament(PLAYERS, lineup, GAMES, seed=EVAL_SEED, progress=bar.update)
sys.stderr.flush()
print(tournament_table(final))
print(f"{final.games_played} games in {time.perf_counter() - started:.0f} s")


def share(name):  # a bot's win rate in this tournament, and as text with its 95% interval
    bot = next(b for b in final.bots if b["name"] == name)
    lo, hi = bot["win_rate_ci95"]
    return bot["win_rate"], f"{bot['win_rate']:.1%} [{lo:.1%}, {hi:.1%}]"


(mine, mine_text), (shipped, shipped_text) = share(trained), share("ppo")
print(f"\\nThe policy trained here for {MINUTES:g} min won {mine_text} of the games, the shipped "
      f"ppo {shipped_text}.")
if mine > shipped:
    print("The trained policy won more: it learned to exploit honest and bluffer, who sit at "
          "this table; the shipped ppo was trained to be hard to exploit "
          "(docs/exploitability.md), not to exploit weak players.")
else:
    print("The shipped ppo won more: a policy trained for minutes against the heuristics "
          "does not out-play it at a table it shares with them.")"""),

    ("plots-md", "markdown", """\
## 6. Plots

Left: the learner's win share in training against each opponent (over its last 200 games
against it, from `curve.json`); right: the policy's entropy per update. Then both tournaments
as win rates with their 95% intervals; the dotted line is a fair share. **Cost**: a second."""),

    ("plots", "code", """\
%matplotlib inline
import json

import matplotlib.pyplot as plt
import numpy as np

curve = json.loads((OUT / "curve.json").read_text())
steps = np.array([row["learner_steps"] for row in curve]) / 1e3
fig, (wins, entropy) = plt.subplots(1, 2, figsize=(12, 3.5), layout="constrained")
for key in [k for k in curve[-1] if k.startswith("win_vs_")]:
    wins.plot(steps, [row[key] for row in curve], marker=".", label=key[len("win_vs_"):])
wins.axhline(1 / PLAYERS, color="grey", linestyle=":")
wins.set(title="win share in training", xlabel="learner steps (thousands)", ylim=(0, 1))
wins.legend()
entropy.plot(steps, [row["entropy"] for row in curve], marker=".")
entropy.set(title="policy entropy", xlabel="learner steps (thousands)")
plt.show()

fig, axes = plt.subplots(1, 2, figsize=(12, 3.5), layout="constrained", sharey=True)
for ax, res, title in ((axes[0], bots_results, "the compiled bots"),
                       (axes[1], final, "the trained policy, unseen seeds")):
    label = ["trained" if b["name"] == trained else b["name"] for b in res.bots]
    rate = np.array([b["win_rate"] for b in res.bots])
    lo, hi = np.array([b["win_rate_ci95"] for b in res.bots]).T
    ax.bar(label, rate, yerr=np.maximum(0, [rate - lo, hi - rate]), capsize=4)
    ax.axhline(1 / PLAYERS, color="grey", linestyle=":")
    ax.set(title=f"{title}: {res.games_played} games", ylabel="win rate [95% CI]", ylim=(0, 1))
plt.show()"""),

    ("next-md", "markdown", """\
## Next

- Train longer or against the league: `TrainConfig(opponents=("league",), minutes=30)` (the
  defaults); the shipped policy's recipe, stage by stage, is in docs/training.md;
  `borders-sim train --help` lists every setting.
- How exploitable a policy is: `borders-sim exploit --bots honest,strict,ppo@OUT` (one
  deviator against three copies of each bot).
- Environments for your own learner (PettingZoo, Gymnasium, a compiled vector env, OpenSpiel):
  docs/environments.md."""),
]


def build() -> nbformat.NotebookNode:
    """The notebook, without outputs."""
    cells = []
    for cell_id, kind, source in CELLS:
        cell = (new_markdown_cell if kind == "markdown" else new_code_cell)(source)
        cell.id = cell_id  # nbformat would draw a random id
        cells.append(cell)
    nb = new_notebook(cells=cells, metadata={
        "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
        "language_info": {"name": "python"},
    })
    nbformat.validate(nb)
    return nb


def render() -> str:
    """The notebook's file text."""
    return nbformat.writes(build()) + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if argv == ["--check"]:
        if NOTEBOOK.is_file() and NOTEBOOK.read_text(encoding="utf-8") == text:
            return 0
        print(f"{NOTEBOOK} differs from what {Path(__file__).name} writes: run "
              f"python examples/{Path(__file__).name}", file=sys.stderr)
        return 1
    if argv:
        print(__doc__, file=sys.stderr)
        return 2
    NOTEBOOK.write_text(text, encoding="utf-8")
    print(f"wrote {NOTEBOOK}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
