"""Every figure in the docs' prose comes from code (issue 39, item 1): a measurement sits in a
generated section (``<!-- NAME:start -->`` ... ``<!-- NAME:end -->``, written by a benchmark's
``--write-docs`` through ``benchmarks/harness.py``) whose text names the command that
made it, or in a page a benchmark writes whole (``docs/performance.md``).

So: each generated section exists in one page and names its command; each writer's text, made
here from stand-in figures, names that command and keeps its tables narrow; and the prose of
README.md and ``docs/*.md`` outside generated sections and code holds no measurement-looking
figure (seconds, ms, µs, a ratio like ``1.8x``, a percentage, a rate like ``20k steps/s``, a
size in KB/MB/GB) but the few in :data:`ALLOWED`, each with the reason it is not a hand-typed
measurement. A new hand-typed figure fails here: put it in a generated section or drop it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from borders_sim.report import README_COLUMNS
from tests.bench_scripts import benchmark

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

#: Generated sections and the command that writes each (named in the section's text).
SECTIONS = {
    "startup": "python benchmarks/startup.py --write-docs",
    "openspiel-costs": "python benchmarks/openspiel.py --write-docs",
}
#: A command as a section names it: a benchmark script or a ``borders-sim`` command, in code.
COMMAND = re.compile(r"`(?:python [^`]*benchmarks/\w+\.py|borders-sim \w)[^`]*`")

#: Pages a benchmark writes whole (every figure in them generated), and the writer.
GENERATED_PAGES = {"performance.md": "python benchmarks/run_all.py --write-docs"}

#: ``(page, figure)`` pairs the scan lets pass, and why each is no hand-typed measurement. Keep
#: it short: a measurement belongs in a generated section, not here.
ALLOWED = {
    ("*", "95%"): "the confidence level of an interval, a setting",
    ("docs/exploitability.md", "25%"):
        "the fair share of a 4-player table, 1/4, a fact of the rules",
    ("docs/training.md", "about 500 GiB"):
        "the trainer's own memory estimate for the settings beside it "
        "(TrainConfig.memory_estimate: computed, not measured)",
}

NUMBER = r"(?:~|about )?\d[\d,]*(?:\.\d+)?"
SPAN = rf"{NUMBER}(?:\s?(?:-|–|to)\s?{NUMBER})?"
#: A figure with a unit of time, a ratio, a percentage, a rate or a size.
FIGURE = re.compile(
    rf"(?<![\w.\-/]){SPAN}(?:"
    r"\s(?:s|ms|µs|us|seconds?)\b"  # 131 s, 8-9 µs, 2.5 seconds
    r"|\smin \d+ s\b"  # 6 min 49 s
    r"|x\b|×"  # 1.80x, ~20x (not 256x256, not 720 x 1440)
    r"|\s?%"  # 10 to 20%, 95%
    r"|\s?[kM]?\s(?:learner\s)?(?:decisions|steps|games|calls|updates)/s\b"  # 20k steps/s
    r"|\s?(?:KB|MB|GB|GiB|MiB)\b"  # 400 KB
    r")")
#: A table cell that is a decimal figure (a pasted table of timings: ``| 65.6 |``); the tables
#: of rules and settings hold whole numbers.
DECIMAL_CELL = re.compile(r"^~?\d[\d,]*\.\d+\s?(?:x|s|%|[kM])?$")


def prose(text: str) -> str:
    """``text`` without its generated sections, code blocks, inline code, HTML comments and link
    targets, each replaced by as many newlines (so line numbers stay)."""
    blank = lambda m: "\n" * m.group(0).count("\n")  # noqa: E731
    text = re.sub(r"<!-- ([\w-]+):start -->.*?<!-- \1:end -->", blank, text, flags=re.S)
    text = re.sub(r"^(```|~~~).*?^\1", blank, text, flags=re.S | re.M)
    text = re.sub(r"<!--.*?-->", blank, text, flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    return re.sub(r"\]\([^)\n]*\)", "]", text)


def figures(text: str) -> list[tuple[int, str]]:
    """``(line, figure)`` of every measurement-looking figure in ``text``'s prose: a figure
    with a unit (:data:`FIGURE`) or a decimal table cell (:data:`DECIMAL_CELL`)."""
    found = []
    for k, line in enumerate(prose(text).splitlines(), 1):
        found += [(k, m.group(0).strip()) for m in FIGURE.finditer(line)]
        if line.startswith("|"):
            found += [(k, cell.strip()) for cell in line.strip().strip("|").split("|")
                      if DECIMAL_CELL.match(cell.strip())]
    return found


def allowed(page: str, figure: str) -> bool:
    return (page, figure) in ALLOWED or ("*", figure) in ALLOWED


PAGES = [ROOT / "README.md", *sorted(p for p in DOCS.glob("*.md")
                                     if p.name not in GENERATED_PAGES)]


def sections() -> list[tuple[str, str, str]]:
    """``(page, name, text)`` of every generated section of README.md and docs/*.md."""
    return [(path.name, m.group(1), m.group(2)) for path in PAGES
            for m in re.finditer(r"<!-- ([\w-]+):start -->\n?(.*?)\n?<!-- \1:end -->",
                                 path.read_text(encoding="utf-8"), re.S)]


@pytest.mark.parametrize("name, command", SECTIONS.items())
def test_each_new_section_is_in_one_page_and_names_its_command(name, command):
    text = benchmark("harness").section_text(name)  # SystemExit unless in one file
    assert command in " ".join(text.split()), f"the {name} section does not name {command!r}"


@pytest.mark.parametrize("page, name, text", sections(),
                         ids=[f"{page}:{name}" for page, name, _ in sections()])
def test_every_generated_section_names_the_command_that_made_it(page, name, text):
    if not text.strip():
        pytest.skip(f"{page}'s {name} section is empty (not generated yet)")
    assert COMMAND.search(" ".join(text.split())), \
        f"{page}'s {name} section names no command (`python benchmarks/...` or `borders-sim ...`)"


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_hand_typed_figure_outside_generated_sections(path):
    page = path.relative_to(ROOT).as_posix()
    found = [f"line {k}: {figure}" for k, figure in figures(path.read_text(encoding="utf-8"))
             if not allowed(page, figure)]
    assert not found, (
        f"{path.relative_to(ROOT)} has measurement-looking figures outside its generated "
        "sections: put each in a section a benchmark writes (--write-docs, "
        "benchmarks/harness.py) or drop it (tests/test_docs_figures.py's ALLOWED is for "
        "settings and facts of the rules, not measurements):\n" + "\n".join(found))


@pytest.mark.parametrize("text, found", [
    ("took 131 s and 8-9 µs", ["131 s", "8-9 µs"]),
    ("runs 1.26-1.34x and ~20x faster, 10 to 20% slower", ["1.26-1.34x", "~20x", "10 to 20%"]),
    ("about 400 KB, 20k learner steps/s, ~100,000 decisions/s, 6 min 49 s",
     ["about 400 KB", "20k learner steps/s", "~100,000 decisions/s", "6 min 49 s"]),
    ("a 256x256 MLP, 720 x 1440 pixels, 4 players, 30 minutes, seed 3, §4.4 and v0.1", []),
    ("`--minutes 2.5` in code, <!-- x:start -->\n3.5 s\n<!-- x:end -->, [a](b.md#c-2s)", []),
    ("| start | one process |\n|:--|--:|\n| first step | 65.6 |\n| copies | 3 / 4 |", ["65.6"]),
])
def test_the_scan_finds_measurements_and_not_settings(text, found):
    assert [figure for _, figure in figures(text)] == found


def narrow(text: str) -> None:
    wide = [line for line in text.splitlines()
            if line.startswith("|") and len(line) > README_COLUMNS]
    assert not wide, "\n".join(wide)


def startup_data(startup) -> dict:
    """Stand-in figures of every part of ``benchmarks/startup.py``, the widest it gives."""
    cold = {"marks": {"import": 0.5, "game_step": 65.6, "batch": 70.1, "tournament": 99.4,
                      "warmup": 131.0},
            "compiled": {"import": [0, 0.0], "game_step": [170, 59.7], "batch": [10, 3.0],
                         "tournament": [40, 20.0], "warmup": [75, 37.3]},
            "compiles": [{"function": f"borders_sim.rules.module{i}:kernel{i}", "count": 1,
                          "inclusive": 6.0 - i / 50, "self": 5.7 - i / 50} for i in range(244)],
            "phases": dict(zip(startup.PHASES, [11.2, 16.5, 8.9, 73.7, 9.6]))}
    speed = [{"random play": 1e6 + k, "heuristic bots": 5e5 + k} for k in range(5)]
    return {
        "jobs": 16, "target": "native", "machine": "MACHINE", "cold": cold,
        "warm": {"marks": {"import": 0.4, "game_step": 2.7}},
        "helpers": [{"jobs": 16, "tournament_only": False,
                     "marks": {"game_step": 37.4, "batch": 41.7, "tournament": 72.9}},
                    {"jobs": 1, "tournament_only": True, "marks": {"tournament": 95.5}},
                    {"jobs": 16, "tournament_only": True, "marks": {"tournament": 1071.2}}],
        "install": {"wheel": 1131.2, "install": 2.2, "files": 469, "MB": 14.2, "wheel_MB": 7.7,
                    "first": {"marks": {"game_step": 2.5, "tournament": 2.7},
                              "compiled": {"import": [0, 0.0], "game_step": [0, 0.0],
                                           "tournament": [0, 0.0]}}},
        "parallel": {1: 131.0, 16: 73.0},
        "portable": {"native": speed, "portable x86-64": speed, "x86-64-v3": speed,
                     "versus": speed},
        "pairs": 5, "games": 400, "versus": "../old"}


def test_the_startup_section_holds_every_part_of_a_run():
    startup = benchmark("startup")
    text = startup.startup_text(startup_data(startup))
    narrow(text)
    assert text.startswith("**Start-up**: one run of `python benchmarks/startup.py "
                           "--write-docs`, MACHINE.")
    assert "| 16 processes |" in text.splitlines()[2]
    assert "|         2.5 |" in text and "1131" in text and "1071" in text
    assert "(1) A 7.7 MB wheel: 469 cache files" in text and "compile nothing" in text
    assert "16 processes compiled every kernel 1.79x as fast as one" in text
    assert "**Portable build**" in text and "against `../old`" in text
    assert "244 compilations of 244 functions" in text and "`module0.kernel0` 5.7 s" in text
    assert "then 238 functions under" in text


def test_the_startup_section_of_a_part_run_leaves_the_rest_out():
    startup = benchmark("startup")
    data = startup_data(startup)
    text = startup.startup_text({"jobs": 2, "machine": "M", "cold": None, "warm": data["warm"]})
    narrow(text)
    rows = [line for line in text.splitlines() if line.startswith("| ")][1:]
    assert len(rows) == 10 and sum("|         2.7 |" in r for r in rows) == 1
    assert "(1) A" not in text and "- **" not in text


def test_startup_refuses_to_write_the_docs_from_a_quick_or_partial_run(capsys):
    startup = benchmark("startup")
    for argv in (["--quick", "--write-docs"], ["--only", "cold", "--write-docs"],
                 ["--no-warmup", "--write-docs"]):
        with pytest.raises(SystemExit):
            startup.main(argv)
    assert "smoke run" in capsys.readouterr().err


def test_the_openspiel_costs_section_names_its_command_and_fits():
    pytest.importorskip("pyspiel")
    openspiel = benchmark("openspiel")
    loops = [{"players": n, "game": 1234567.0, "adapter": 123456.0, "sheriff": 1234567.0,
              "vs_game": 0.1 * n, "vs_sheriff": 0.18, "extra": 8.5} for n in (3, 5, 8)]
    calls = [{"players": n, "clone": 54, "tensor": 62, "string": 1639, "resample": 17089,
              "serialize": 870, "rollout": 421, "rollout_openspiel": 10061 * n, "ismcts": 10.34}
             for n in (3, 5, 8)]
    text = openspiel.costs_text("MACHINE", 5, 1.0, 50, loops, calls)
    narrow(text)
    assert text.startswith("**Costs**: one run of `python benchmarks/openspiel.py "
                           "--write-docs`, MACHINE.")
    assert "runs at 0.30-0.80x of `Game`'s decisions/s" in text
    assert "a compiled rollout is 72-191x as fast as OpenSpiel's" in text
    with pytest.raises(SystemExit):
        openspiel.main(["--quick", "--write-docs"])
