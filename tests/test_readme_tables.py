"""The tables of the README and of the pages that hold its old sections are at most 100 columns
wide, the generated ones included: every line of those files that starts with ``|``, and
the output of every writer of a generated table on wide inputs (7 bots, 8 players, 100% win
rates, a million games, the widest figures the measures give). A generated section is read from
whichever file holds its markers (``benchmarks/harness.py``)."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

from borders_sim.arena.deviators import DEFAULT_BOTS, Cell, DeviatorMatrix
from borders_sim.report import README_COLUMNS, markdown_tables
from borders_sim.cli.exploit import exploiters_text, matrix_text
from tests.bench_scripts import benchmark

ROOT = Path(__file__).resolve().parents[1]
WIDE_BOTS = DEFAULT_BOTS  # 7 bots, ppo:argmax the longest name


def assert_narrow(text: str) -> None:
    lines = [line for line in text.splitlines() if line.startswith("|")]
    assert lines, "no table"
    wide = [line for line in lines if len(line) > README_COLUMNS]
    assert not wide, "\n".join(wide)


def section_text(name: str) -> str:
    """The generated section ``name``, from the file of README.md and docs/*.md that holds it."""
    return benchmark("harness").section_text(name)


def readme_pages() -> list[Path]:
    """README.md and the pages that hold its old sections (``docs/readme_map.py``)."""
    spec = importlib.util.spec_from_file_location("readme_map", ROOT / "docs" / "readme_map.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [ROOT / "README.md", *(ROOT / "docs" / f"{page}.md"
                                  for page in sorted({page for _, page in module.MOVED}))]


@pytest.mark.parametrize("path", readme_pages(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_table_line_is_at_most_100_columns(path):
    text = path.read_text(encoding="utf-8")
    wide = [f"line {k}: {len(line)} columns" for k, line in enumerate(text.splitlines(), 1)
            if line.startswith("|") and len(line) > README_COLUMNS]
    assert not wide, "\n".join(wide)


def test_markdown_tables_split_by_columns_and_repeat_the_names():
    headers = ["name"] + [f"column {j}" for j in range(12)]
    rows = [[f"row {i}"] + [f"{i * j:>14}" for j in range(12)] for i in range(3)]
    text = markdown_tables(headers, rows)
    tables = text.split("\n\n")
    assert len(tables) == 3
    assert all(t.startswith("|  name |") for t in tables)
    assert_narrow(text)
    cells = [c.strip() for t in tables for c in t.splitlines()[2].split("|")[2:-1]]
    assert cells == [r.strip() for r in rows[0][1:]]  # every column once, in order
    assert markdown_tables(headers[:4], [r[:4] for r in rows]).count("\n\n") == 0


def wide_matrix(players: int) -> DeviatorMatrix:
    m = DeviatorMatrix(bots=WIDE_BOTS, players=players, games=1000, search_games=16,
                       seed=2 * 10**15)
    m.cells = [Cell(x, y, 1000, 1.0, (0.996, 1.0), 300.0, 1.0)
               for x in WIDE_BOTS for y in WIDE_BOTS if x != y]
    return m


@pytest.mark.parametrize("players", [4, 8])
def test_the_deviator_matrix_fits(players):
    text = matrix_text(wide_matrix(players))
    assert_narrow(text)
    assert text.count(f"| deviator vs {players - 1}x |") >= 2  # split
    assert "goes on in the next" in text
    assert text.count("100.0 [99.6, 100.0]") == len(WIDE_BOTS) * (len(WIDE_BOTS) - 1)


def test_the_exploiters_table_fits():
    found = [SimpleNamespace(target=t, start=s, minutes=10080.0, learner_steps=123.4e6,
                             win_rate=1.0, win_rate_ci95=(0.996, 1.0), greedy=1.0, sampled=1.0,
                             games=10**6)
             for t in ("ppo:argmax", "ppo:temp=0.5") for s in ("fresh", "init")]
    assert_narrow(exploiters_text(found, 8))


def bot_record(name: str) -> dict:
    return {"name": name, "win_rate": 1.0, "win_rate_ci95": (0.996, 1.0), "mean_score": 999.9,
            "sd_score": 99.9, "rating_mu": -99.99, "rating_sigma": 9.99,
            "behaviour": {"lies_when_opened": 1.0, "open_rate": 1.0, "bribed_rate": 1.0}}


def test_the_ladder_tables_fit():
    ladder = benchmark("ladder")
    assert_narrow(ladder.ladder_table([bot_record(b) for b in WIDE_BOTS]))
    spiel = "openspiel-ismcts:sims=5000:rollout=honest"
    rows = [[ladder.label(bot), other, "1000000", "100.0% [99.6%, 100.0%]", "999.9", "yes"]
            for bot in (spiel, "ppo:argmax") for other in WIDE_BOTS]
    text = ladder.matchup_table(rows, players=8)
    assert_narrow(text)
    assert "| openspiel-ismcts |" in text and "sims=" not in text


def test_the_performance_headline_fits():
    run_all = benchmark("run_all")
    n = run_all.HEADLINE_PLAYERS
    paired = [{"ours": ours, "players": n, "ratio": 12.34, "low": 10.01, "high": 99.99}
              for ours in ("rollout kernel, random play, deal included", "Game.step, Python loop",
                           "AEC env borders_v0, raw_env", "AEC env borders_v0, env() wrapped")]
    rows = [{"measure": "VectorEnv, 256 games", "players": n, "many": 123.4e6}]
    rows += [{"measure": m, "players": "-", "one": 1234.5}
             for m in ("cold start (empty numba cache): to first Game step",
                       "cold start (empty numba cache): to first random_games batch",
                       "warm start (numba cache filled): to first Game step")]
    data = {"headline": run_all.headline(rows, paired)}
    assert len(data["headline"]) == 8
    assert_narrow(run_all.headline_table(data))


def test_the_training_throughput_table_fits():
    pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    train = benchmark("train")
    split = "env 100%, inference 100%, update 100%"
    rows = [[f"training env, {n} players", "999k", "-"] for n in (3, 8)]
    rows += [["trainer, sparse first layer", "99.9k", split],
             ["MaskablePPO defaults, SingleSeatEnv", "999", "-"],
             ["MaskablePPO defaults, SB3VecEnv, 16", "999", "-"],
             ["MaskablePPO matched, SB3VecEnv, 128", "999", "-"]]
    assert_narrow(train.throughput_text(rows, train.TrainConfig()))


def test_the_first_screen_table_is_narrow_and_totals_each_command():
    first_screen = benchmark("first_screen")
    rows = [("(a)", first_screen.COMMAND_A[0], 130.4, ""),
            ("(a)", first_screen.COMMAND_A[1], 71.0, ""),
            *[("(b)", part, 3599.0, "") for part in first_screen.COMMAND_B[:2]],
            ("(b)", first_screen.COMMAND_B[2], 3599.0,
             first_screen.tests_of("==== 22062 passed, 1011 skipped, 3 xfailed, 2 warnings in "
                                   "263.51s (0:04:23) ====")),
            ("", first_screen.SLOW, 300.0, "30 passed")]
    text = first_screen.section(rows, "stamp")
    assert_narrow(text)
    assert "| (a) | **all of it** | **3 min 21 s** | |" in text
    assert "| (b) | **all of it** | **179 min 57 s** | |" in text
    assert "22062 passed, 1011 skipped, 3 xfailed" in text
    assert text.count("all of it") == 2 and text.endswith("\n\nstamp")


@pytest.mark.skipif(os.environ.get("BORDERS_FIRST_SCREEN") == "1",
                    reason="this run is benchmarks/first_screen.py's measurement, which "
                           "writes the section afterwards")
def test_the_readme_shows_the_first_screen_timings_it_made():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    inside = section_text("first-screen")
    assert inside in text, "the first-screen section belongs to the README's front page"
    assert "| (b) | `python -m pytest` |" in inside and "Made by `python benchmarks/" \
        "first_screen.py" in inside, "run python benchmarks/first_screen.py --write-docs"
    assert " failed" not in inside and " error" not in inside, inside
    first_screen = benchmark("first_screen")
    for part in (*first_screen.COMMAND_A, *first_screen.COMMAND_B):  # the commands of today
        assert f"| `{part}` |" in inside, f"{part!r} was not timed: run the script again"
    readme_b = " && ".join(first_screen.COMMAND_B)
    assert readme_b in text, "the README's command (b) is not the one the script times"


@pytest.mark.parametrize("name, script, zoo", [("population", "population", True),
                                               ("exploit", "exploit", False),
                                               ("ladder", "ladder", False)])
def test_the_strength_tables_describe_the_policy_files_of_this_tree(name, script, zoo):
    """A section that measures the shipped ``ppo`` (docs/bots.md, docs/exploitability.md)
    ends with the digest of the files it measured (the shipped policy; for the population,
    the zoo too): a new policy file makes it stale, and this test says so."""
    inside = section_text(name)
    digest = benchmark("harness").weights_digest(zoo)
    assert f"policy files {digest}." in inside, \
        f"the policy files changed: run python benchmarks/{script}.py --write-docs"


def test_the_readme_recipe_is_the_one_the_shipped_file_records():
    """The recipe section (docs/training.md) is read from the shipped policy file's meta (its
    ``init`` chain and the zoo's commands): regenerated here, it must equal the page's."""
    inside = section_text("recipe")
    recipe = benchmark("recipe")
    assert inside == recipe.recipe_text(), "run python benchmarks/recipe.py --write-docs"
    names = [name for name, _ in recipe.stages(recipe.policy_meta(recipe.SHIPPED_WEIGHTS))]
    assert names[-1] != names[0] and len(set(names)) == len(names), names
    assert_narrow(inside)
