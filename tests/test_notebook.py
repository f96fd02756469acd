"""``examples/quickstart.ipynb``, the notebook of a researcher's first hour: the committed file is
what ``examples/make_quickstart.py`` writes (no outputs stored), and it runs top to bottom in a
Jupyter kernel of this interpreter on a small budget (``BORDERS_NOTEBOOK_MINUTES``,
``BORDERS_NOTEBOOK_GAMES``), its cells printing the tables and drawing the figures they promise.
About a minute on 2 idle cores with the kernels compiled; nothing here is timed."""

from __future__ import annotations

import importlib.util
import os
import re
import time
from pathlib import Path

import pytest

import borders_sim

nbformat = pytest.importorskip("nbformat")

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
NOTEBOOK = EXAMPLES / "quickstart.ipynb"
MINUTES = "0.2"  # the notebook's training budget here
GAMES = 40       # games of each of its tournaments (a multiple of its 4 players)


def generator():
    path = EXAMPLES / "make_quickstart.py"
    spec = importlib.util.spec_from_file_location("make_quickstart", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_notebook_is_what_its_generator_writes():
    text = NOTEBOOK.read_text(encoding="utf-8")
    assert text == generator().render(), \
        "examples/quickstart.ipynb differs: run python examples/make_quickstart.py"
    nb = nbformat.reads(text, as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code and all(not c.outputs and c.execution_count is None for c in code)
    for before, cell in zip(nb.cells, nb.cells[1:]):  # each step says what it costs
        if cell.cell_type == "code":
            assert before.cell_type == "markdown" and "cost" in before.source.lower(), cell.id


def table_bots(text: str) -> list[str]:
    """The first column of the markdown table in ``text`` (its header and rule left out)."""
    rows = [line for line in text.splitlines() if line.startswith("|")]
    return [row.split("|")[1].strip() for row in rows[2:]]


def table_rates(text: str) -> list[str]:
    """The win-rate column (the third) of the markdown table in ``text``."""
    rows = [line for line in text.splitlines() if line.startswith("|")]
    return [row.split("|")[3].strip() for row in rows[2:]]


@pytest.mark.slow
def test_the_notebook_runs_end_to_end(tmp_path, monkeypatch):
    nbclient = pytest.importorskip("nbclient")
    kernelspec = pytest.importorskip("ipykernel.kernelspec")
    pytest.importorskip("torch")
    pytest.importorskip("matplotlib")
    # A kernel of this interpreter, found before any user's or system's "python3" spec, and no
    # user's IPython profile or runtime files.
    jupyter = tmp_path / "jupyter"
    kernelspec.write_kernel_spec(jupyter / "kernels" / "python3")
    monkeypatch.setenv("JUPYTER_PATH", str(jupyter))
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    monkeypatch.delenv("MPLBACKEND", raising=False)
    # The kernel imports the borders_sim these tests import (a checkout or the installed one).
    source = str(Path(borders_sim.__file__).resolve().parents[1])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(
        [source] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    monkeypatch.setenv("BORDERS_NOTEBOOK_MINUTES", MINUTES)
    monkeypatch.setenv("BORDERS_NOTEBOOK_GAMES", str(GAMES))
    work = tmp_path / "work"
    work.mkdir()

    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(work)}})
    start = time.perf_counter()
    client.execute()  # raises CellExecutionError, with the cell and its traceback, on an error
    print(f"the notebook ran in {time.perf_counter() - start:.0f} s")

    cells = {cell.id: cell for cell in nb.cells}

    def stream(cell_id: str, name: str = "stdout") -> str:
        return "".join(o.text for o in cells[cell_id].outputs
                       if o.output_type == "stream" and o.name == name)

    assert f"training {MINUTES} min" in stream("settings")
    assert "A cut budget (the defaults: 3 min, 4200 games)" in stream("settings")
    assert f"borders_sim {borders_sim.__version__} is installed" in stream("install")
    assert "winners: p" in stream("play")
    assert "Your legal actions" in stream("play")  # the inspector's view, in words
    assert "win rate [95% CI]" in stream("tournament")
    assert sorted(table_bots(stream("tournament"))) == ["bluffer", "collector", "honest", "random"]

    runs = list((work / "runs").glob("notebook-*"))
    assert len(runs) == 1
    policy = runs[0] / "policy.npz"
    assert policy.is_file() and (runs[0] / "curve.json").is_file()
    assert re.search(r"update \d+ \| .* left \| .*last 200", stream("train", "stderr"))  # its bar
    assert re.search(r"\d+ updates, [\d,]+ learner steps .* policy: ", stream("train"))
    assert re.search(r"win share in training, last 200 games: honest \d+%", stream("train"))
    # the comparison is this run's: its figures are the table's, its verdict follows them
    said = re.search(r"won ([\d.]+)% \[.*\] of the games, the shipped ppo ([\d.]+)%",
                     stream("evaluate"))
    assert said, stream("evaluate")
    mine, shipped = float(said[1]), float(said[2])
    rates = {b: float(r.split("%")[0]) for b, r in
             zip(table_bots(stream("evaluate")), table_rates(stream("evaluate")))}
    assert rates[f"ppo@{runs[0].name}"] == round(mine, 1) and \
        rates["ppo"] == round(shipped, 1)
    verdict = "The trained policy won more" if mine > shipped else "The shipped ppo won more"
    assert verdict in stream("evaluate")
    bots = table_bots(stream("evaluate"))
    assert len(bots) == 4 and {"ppo", "honest", "bluffer"} < set(bots)
    assert [b for b in bots if b.startswith("ppo@")] == [f"ppo@{runs[0].name}"]  # short
    assert f"ppo@{runs[0].name}: ppo@{policy.relative_to(work)}" in stream("evaluate")

    images = [o for o in cells["plots"].outputs
              if o.output_type == "display_data" and "image/png" in o.data]
    assert len(images) == 2  # the training curve, the two tournaments
