"""The README is a front page and the documentation site (``docs/``) holds the rest of what it
held: ``docs/readme_map.py`` records where each section of the old README went (every old
heading is a heading of its page, so the old anchors have a target), which headings the README
keeps, and which parts of it pages still include. So no section can be lost or shown twice
without this test saying so. The build itself (``python -m sphinx -W docs ...``) runs in CI
(``.ci/run``), not here."""

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


def headings(text: str) -> list[str]:
    """The heading lines of a markdown text (``#`` to ``###``), code blocks left out."""
    found, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,3} ", line):
            found.append(line)
    return found


def page(name: str) -> str:
    return (DOCS / f"{name}.md").read_text(encoding="utf-8")


def includes(name: str) -> list[tuple[str, str | None]]:
    """``(start_after, end_before)`` of each ``{include} ../README.md`` of ``docs/NAME.md``."""
    found = []
    for block in re.findall(r"```\{include\} \.\./README\.md\n(.*?)```", page(name), re.S):
        options = dict(re.findall(r'^:([\w-]+): "(.*)"$', block, re.M))
        found.append((options.get("start-after"), options.get("end-before")))
    return found


def test_the_readme_keeps_only_the_front_pages_sections():
    assert headings(README) == MAP.FRONT_PAGE, \
        "README.md's headings changed: update docs/readme_map.py (FRONT_PAGE, INCLUDES)"


@pytest.mark.parametrize("heading, name", MAP.MOVED[1:])
def test_each_old_section_is_under_a_heading_of_its_text_on_its_page(heading, name):
    # the target of the old README's #slug links, PAGE.md#slug on the site
    title = heading.lstrip("#").strip()
    assert re.search(rf"^#+ {re.escape(title)}$", page(name), re.M), (name, title)


@pytest.mark.parametrize("name", sorted({name for name, _, _ in MAP.INCLUDES}))
def test_each_page_includes_exactly_its_parts_of_the_readme(name):
    assert includes(name) == [(start, end) for where, start, end in MAP.INCLUDES
                              if where == name]


def test_no_other_page_includes_the_readme():
    including = {name for name, _, _ in MAP.INCLUDES}
    for path in DOCS.glob("*.md"):
        if path.stem not in including:
            assert includes(path.stem) == [], path.name


def test_each_include_boundary_is_a_heading_of_the_readme():
    # MyST cuts at the first occurrence of the text: it must be the heading's own line
    for _, start, end in MAP.INCLUDES:
        for heading in filter(None, (start, end)):
            assert heading in MAP.FRONT_PAGE, heading
            at = README.find(heading)
            assert at == 0 or README[at - 1] == "\n", heading
            assert README[at + len(heading)] == "\n", heading


def test_every_link_of_the_readme_to_a_section_finds_it():
    front = {MAP.slug(h) for h in MAP.FRONT_PAGE}
    for link in re.findall(r"\]\(#([^)]+)\)", README):
        assert link in front, link
    for name, anchor in re.findall(r"\]\(docs/([\w-]+)\.md#([^)]+)\)", README):
        assert anchor in {MAP.slug(h) for h in headings(page(name))}, (name, anchor)
    for target in re.findall(r"\]\(((?:docs|examples)/[^)#\s]+)", README):
        assert (ROOT / target).is_file(), target


def test_the_old_anchors_name_their_pages():
    pages = MAP.anchor_pages()
    assert pages["rules-fidelity"] == "rules" and pages["exploitability"] == "exploitability"
    assert all((DOCS / f"{name}.md").is_file() for name in pages.values())


def test_the_api_reference_mocks_ray_itself_where_ray_is_missing(monkeypatch):
    """Built with the docs' own install line (no Ray), the API reference mocks ``ray`` as well
    as ``ray.rllib`` and ``ray.tune``: importing ``ray.rllib`` imports ``ray`` first."""
    pytest.importorskip("sphinx")
    spec = importlib.util.spec_from_file_location("api_reference", DOCS / "api_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    real = module.importlib.import_module

    def without_ray(name, *args, **kwargs):
        if name == "ray" or name.startswith("ray.") or name == "tianshou":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(module.importlib, "import_module", without_ray)
    mocked = module.mocked_modules()
    assert mocked[0] == "ray" and {"ray.rllib", "ray.tune", "tianshou"} <= set(mocked)


def test_the_link_check_finds_missing_pages_and_anchors(tmp_path):
    spec = importlib.util.spec_from_file_location("check_links", DOCS / "check_links.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    (tmp_path / "sub").mkdir()
    (tmp_path / "index.html").write_text(
        '<a href="sub/page.html#here">ok</a><a href="gone.html">gone</a>'
        '<a href="sub/page.html#nowhere">no anchor</a><a href="https://example.org/x">out</a>'
        '<img src="_static/pic.png"><a href="#top">self</a><h1 id="top">t</h1>')
    (tmp_path / "sub" / "page.html").write_text('<p id="here"></p><a href="../index.html">up</a>')
    assert module.broken_links(tmp_path) == [
        "index.html: gone.html (no such file)",
        "index.html: sub/page.html#nowhere (no id 'nowhere' there)",
        "index.html: _static/pic.png (no such file)"]
    assert module.main([str(tmp_path)]) == 1
    (tmp_path / "_static").mkdir()
    (tmp_path / "_static" / "pic.png").write_bytes(b"")
    (tmp_path / "index.html").write_text('<a href="sub/page.html#here">ok</a>')
    assert module.main([str(tmp_path)]) == 0


def test_ci_builds_the_site_with_the_install_line_the_docs_give():
    """docs/README.md's install line is what CI builds the site from, in a venv of its own."""
    readme = " ".join((ROOT / "docs" / "README.md").read_text(encoding="utf-8").split())
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    extras = re.search(r'^docs_extras="([\w,]+)"', ci, re.M)
    assert extras, "the CI's docs step names its extras"
    assert (f'pip install torch==2.13.0 && pip install ".[{extras[1]}]"' in readme)
    assert 'pip install --quiet "$src[$docs_extras]"' in ci and '-m venv "$work/docs-venv"' in ci
