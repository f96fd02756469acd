"""The first-use compile note (``borders_sim._compile.notice``).

* a block in which numba compiles prints the opening line when compiling starts and the time
  at the end; a block that only runs compiled (or cached) kernels prints nothing; a tqdm
  progress bar on stderr is cleared before each note and drawn again after it;
* ``BORDERS_SIM_QUIET=1`` and ``set_compile_messages(False)`` silence it, the switch overrides
  the variable, ``quiet()`` restores the setting after its block;
* ``Game`` and the whole-game batch helpers go through the note once per process, not per step;
* a fresh interpreter that loads the kernels from numba's cache prints nothing on stderr.

The compiling cases use tiny kernels defined here (no cache), so they take a fraction of a second.
"""

from __future__ import annotations

import io
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest
from numba import njit
from tqdm import tqdm

import borders_sim
from borders_sim._compile import notice
from borders_sim.game import game as game_module
from borders_sim.batch import rollouts as rollout

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def default_setting(monkeypatch):
    monkeypatch.delenv(notice.QUIET_ENV, raising=False)
    monkeypatch.setattr(notice, "_switch", None)


def fresh_kernel():
    """A kernel numba has not compiled yet."""
    @njit
    def twice(x):
        return 2 * x
    return twice


def test_a_block_that_compiles_says_so_and_how_long(capsys):
    kernel = fresh_kernel()
    with notice.compile_notice("the test kernels"):
        assert kernel(21) == 42
    err = capsys.readouterr().err.splitlines()
    assert err[0] == notice.opening_line("the test kernels")
    assert err[0].startswith("borders_sim: compiling the test kernels (first use; ")
    assert err[0].endswith("cached for later runs) ...")
    assert err[1].startswith("borders_sim: the test kernels compiled in ")
    assert err[1].endswith(" s") and len(err) == 2
    with notice.compile_notice("the test kernels"):
        assert kernel(1) == 2  # compiled already: silent
    assert capsys.readouterr().err == ""


def test_the_note_leaves_a_progress_bar_intact(monkeypatch):
    """With a tqdm bar on stderr (``borders-sim tournament``'s), each note gets a line of its
    own (the bar is cleared first, not written over) and the bar is drawn again after it."""
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    with tqdm(total=10, desc="tournament", file=sys.stderr, mininterval=0) as bar:
        bar.update(3)
        with notice.compile_notice("the test kernels"):
            fresh_kernel()(1)
        bar.update(3)
    lines = err.getvalue().split("\n")
    notes = [i for i, line in enumerate(lines) if "borders_sim: " in line]
    assert len(notes) == 2
    for i in notes:
        shown = lines[i].split("\r")[-1]  # what a terminal shows of that line
        assert shown.startswith("borders_sim: ") and "tournament" not in shown
        assert "tournament:" in lines[i + 1]  # the bar again, below the note


def test_nested_compiles_print_one_opening_line(capsys):
    inner = fresh_kernel()

    @njit
    def outer(x):
        return inner(x) + 1

    with notice.compile_notice("two kernels"):
        assert outer(1) == 3
    err = capsys.readouterr().err
    assert err.count("compiling two kernels") == 1 and err.count("compiled in") == 1


@pytest.mark.parametrize("value", ["1", "yes", "true"])
def test_environment_variable_silences(capsys, monkeypatch, value):
    monkeypatch.setenv(notice.QUIET_ENV, value)
    assert not notice.compile_messages_enabled()
    with notice.compile_notice("the test kernels"):
        fresh_kernel()(1)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("value", ["", "0", "false"])
def test_environment_variable_off_values_keep_the_note(monkeypatch, value):
    monkeypatch.setenv(notice.QUIET_ENV, value)
    assert notice.compile_messages_enabled()


def test_python_switch_silences_and_overrides_the_variable(capsys, monkeypatch):
    borders_sim.set_compile_messages(False)
    with notice.compile_notice("the test kernels"):
        fresh_kernel()(1)
    assert capsys.readouterr().err == ""
    monkeypatch.setenv(notice.QUIET_ENV, "1")
    borders_sim.set_compile_messages(True)
    with notice.compile_notice("the test kernels"):
        fresh_kernel()(1)
    assert "compiling the test kernels" in capsys.readouterr().err
    with pytest.raises(TypeError, match="takes True or False"):
        borders_sim.set_compile_messages("off")


def test_quiet_restores_the_previous_setting(capsys):
    with notice.quiet():
        with notice.compile_notice("the test kernels"):
            fresh_kernel()(1)
    assert notice._switch is None
    assert capsys.readouterr().err == ""


def test_a_failing_block_prints_no_time(capsys):
    with pytest.raises(RuntimeError):
        with notice.compile_notice("the test kernels"):
            fresh_kernel()(1)
            raise RuntimeError("boom")
    err = capsys.readouterr().err
    assert "compiling the test kernels" in err and "compiled in" not in err


@contextmanager
def recording(calls):
    calls.append(1)
    yield


@pytest.mark.parametrize("module,flag,first_use", [
    (game_module, "_kernels_ready", lambda: borders_sim.Game(seed=1)),
    (game_module, "_kernels_ready",
     lambda: borders_sim.Game.from_dict(borders_sim.Game(seed=2).to_dict())),
    (rollout, "_prepared", lambda: rollout.make_batch(borders_sim.GameConfig(), 0, 2)),
])
def test_first_use_goes_through_the_note_once(monkeypatch, module, flag, first_use):
    calls = []
    monkeypatch.setattr(module, "compile_notice", lambda what, family=None: recording(calls))
    monkeypatch.setattr(module, flag, False)
    first_use()
    first_use()
    assert calls == [1] and getattr(module, flag)


def test_no_note_when_the_kernels_load_from_the_cache():
    """This process has compiled (and so cached) the kernels; a new one only loads them."""
    code = ("import borders_sim\n"
            "from borders_sim.batch import rollouts as rollout\n"
            "g = borders_sim.Game(borders_sim.GameConfig(num_players=5), seed=3)\n"
            "g.step(g.legal_actions()[0]); g.scores()\n"
            "s, p = rollout.make_batch(g.config, 0, 2)\n"
            "rollout.play_batch(s, p, 10**6); rollout.final_scores(s)\n")
    borders_sim.Game(seed=0)
    rollout.final_scores(rollout.make_batch(borders_sim.GameConfig(), 0, 1)[0])
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
