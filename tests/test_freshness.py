"""``benchmarks/freshness.py``: a generated speed table is stale once the code it measures
changes after its commit (a docstring or a comment does not count), and every generated
section is declared. Run on a throwaway git repository with one table."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.bench_scripts import benchmark

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@pytest.fixture
def freshness(monkeypatch):
    freshness = benchmark("freshness")  # a module of its own, whose tables this test sets
    monkeypatch.setattr(freshness, "TABLES", {"speed": ("engine", "bench.py")})
    monkeypatch.setattr(freshness, "NOT_BY_COMMIT", {"play": "pinned games"})
    return freshness


def git(root: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def commit(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", message)
    return git(root, "rev-parse", "--short", "HEAD")


ENGINE = '"""The engine."""\n\n\ndef step(x):\n    """One step."""\n    return x + 1\n'


def page(stamp: str) -> str:
    return (f"# Speed\n\n<!-- speed:start -->\n| a | b |\n\n{stamp}\n<!-- speed:end -->\n\n"
            f"<!-- play:start -->\nwins\n<!-- play:end -->\n")


@pytest.fixture
def repo(tmp_path, freshness):
    git(tmp_path, "init", "-q")
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "core.py").write_text(ENGINE)
    (tmp_path / "bench.py").write_text("print('time it')\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text("# x\n")
    first = commit(tmp_path, "engine")
    (tmp_path / "docs" / "speed.md").write_text(page(freshness.measured_at("speed", tmp_path)))
    commit(tmp_path, "table")
    assert first in (tmp_path / "docs" / "speed.md").read_text()
    return tmp_path


def test_a_table_newer_than_its_code_is_fresh(freshness, repo):
    assert freshness.problems(repo) == []
    assert freshness.main(["--repo", str(repo)]) == 0


def test_docstrings_comments_and_other_files_leave_it_fresh(freshness, repo):
    core = repo / "engine" / "core.py"
    core.write_text(core.read_text().replace('"""One step."""', '"""One step, documented."""')
                    .replace("return x + 1", "return x + 1  # the next one"))
    (repo / "elsewhere.py").write_text("x = 1\n")
    commit(repo, "words")
    assert freshness.problems(repo) == []


def test_a_code_change_after_the_table_makes_it_stale(freshness, repo, capsys):
    core = repo / "engine" / "core.py"
    core.write_text(core.read_text().replace("x + 1", "x + 2"))
    assert "engine/core.py" in " ".join(freshness.problems(repo))  # uncommitted counts too
    commit(repo, "faster")
    [line] = freshness.problems(repo)
    assert line.startswith("speed: measured at") and "engine/core.py" in line
    assert freshness.main(["--repo", str(repo)]) == 1
    assert "STALE speed" in capsys.readouterr().out


def test_a_new_or_removed_file_counts(freshness, repo):
    (repo / "engine" / "more.py").write_text("y = 2\n")
    commit(repo, "a new kernel")
    assert "engine/more.py" in freshness.problems(repo)[0]


def test_a_peer_harness_change_counts(freshness, repo):
    (repo / "bench.py").write_text("print('time it twice')\n")
    assert "bench.py" in freshness.problems(repo)[0]


def test_a_table_made_on_local_changes_is_stale(freshness, repo):
    core = repo / "engine" / "core.py"
    core.write_text(core.read_text().replace("x + 1", "x + 3"))
    stamp = freshness.measured_at("speed", repo)
    assert stamp.endswith("with local changes")
    (repo / "docs" / "speed.md").write_text(page(stamp))
    commit(repo, "both at once")
    assert "no commit holds" in freshness.problems(repo)[0]


def test_unstamped_undeclared_and_unknown_commits_fail(freshness, repo):
    speed = repo / "docs" / "speed.md"
    speed.write_text(page("no stamp") + "<!-- new:start -->\nx\n<!-- new:end -->\n")
    found = " ".join(freshness.problems(repo))
    assert "speed: 0 stamps" in found and "new: a generated section" in found
    speed.write_text(page("measured at commit 0123456789abcdef"))
    assert "not in this branch's history" in freshness.problems(repo)[0]


def test_this_repository_declares_every_section_and_path():
    real = benchmark("freshness")
    root = BENCHMARKS.parent
    texts = real.generated_texts(root)
    assert set(texts) <= set(real.TABLES) | set(real.NOT_BY_COMMIT)
    assert set(real.TABLES) <= set(texts), "a declared table that no page holds"
    for name, paths in real.TABLES.items():
        for path in paths:
            assert (root / path).exists(), f"{name} measures {path}, which does not exist"


def test_the_engine_names_every_module_of_game_but_the_pictures():
    real = benchmark("freshness")
    game = BENCHMARKS.parent / "borders_sim" / "game"
    modules = {p.relative_to(BENCHMARKS.parent).as_posix() for p in game.iterdir()
               if p.name != "__pycache__" and (p.suffix == ".py" or p.is_dir())}
    assert modules - {"borders_sim/game/drawing"} == set(real.ENGINE) & modules


def test_outside_a_checkout_the_stamp_names_no_commit(freshness, tmp_path):
    """A generator run from a copy without git (CI's --quick runs) still runs; a table it
    wrote would carry no stamp, which the check refuses."""
    assert freshness.measured_at("speed", tmp_path) == "measured outside a git checkout"
    assert not freshness.STAMP.search(freshness.measured_at("speed", tmp_path))


def test_a_shallow_clone_notes_what_it_cannot_check(freshness, repo, tmp_path, capsys):
    core = repo / "engine" / "core.py"
    core.write_text(core.read_text().replace("x + 1", "x + 4"))
    commit(repo, "after the table")
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow)],
                   check=True)
    assert freshness.problems(shallow) == []
    assert "beyond this shallow clone's history" in capsys.readouterr().out
