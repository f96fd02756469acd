"""The documentation site (``docs/``) shows every line of README.md once: ``docs/readme_map.py``
lists the README's headings with the page that includes each section, and each page includes
exactly its sections, from the heading to the next one, under a heading of the same text (the
target of the README's ``#section`` links). So a section moved out of the README into its page,
or a new one, cannot be lost: the map must change with it. The build itself (``python -m sphinx
-W docs ...``) runs in CI (``.ci/run``), not here."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
README = (ROOT / "README.md").read_text(encoding="utf-8")


def readme_map():
    spec = importlib.util.spec_from_file_location("readme_map", DOCS / "readme_map.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


MAP = readme_map()


def readme_headings() -> list[str]:
    """The README's heading lines (``#`` to ``###``), code blocks left out."""
    headings, fenced = [], False
    for line in README.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,3} ", line):
            headings.append(line)
    return headings


def includes(page: str) -> list[tuple[str, str | None]]:
    """``(start_after, end_before)`` of each ``{include} ../README.md`` of ``docs/PAGE.md``."""
    text = (DOCS / f"{page}.md").read_text(encoding="utf-8")
    found = []
    for block in re.findall(r"```\{include\} \.\./README\.md\n(.*?)```", text, re.S):
        options = dict(re.findall(r'^:([\w-]+): "(.*)"$', block, re.M))
        found.append((options.get("start-after"), options.get("end-before")))
    return found


def test_every_readme_section_is_mapped_to_a_page_in_order():
    assert [heading for heading, _ in MAP.SECTIONS] == readme_headings(), \
        "README.md's headings changed: update docs/readme_map.py and the pages"
    for _, page in MAP.SECTIONS:
        assert (DOCS / f"{page}.md").is_file(), page


def test_each_boundary_is_found_at_its_heading():
    # MyST cuts at the first occurrence of the text: it must be the heading's own line
    for heading in readme_headings():
        at = README.find(heading)
        assert at == 0 or README[at - 1] == "\n", heading
        assert README[at + len(heading)] == "\n", heading


@pytest.mark.parametrize("page", sorted({page for _, page in MAP.SECTIONS}))
def test_each_page_includes_exactly_its_sections(page):
    wanted = [(start, end) for start, end, where in MAP.spans() if where == page]
    assert includes(page) == wanted


def test_no_other_page_includes_the_readme():
    mapped = {page for _, page in MAP.SECTIONS}
    for path in DOCS.glob("*.md"):
        if path.stem not in mapped:
            assert includes(path.stem) == [], path.name


@pytest.mark.parametrize("heading", [h for h, _ in MAP.SECTIONS[1:]])
def test_each_section_is_under_a_heading_of_its_text_on_its_page(heading):
    # the anchor of the README's [...](#slug) links, rewritten to PAGE.md#slug on the site
    page = dict(MAP.SECTIONS)[heading]
    title = heading.lstrip("#").strip()
    text = (DOCS / f"{page}.md").read_text(encoding="utf-8")
    assert re.search(rf"^#+ {re.escape(title)}$", text, re.M), (page, title)


def test_every_anchor_link_of_the_readme_names_a_section():
    anchors = MAP.anchor_pages()
    for link in re.findall(r"\]\(#([^)]+)\)", README):
        assert link in anchors, link
