"""The generated sections of the README and the documentation pages: the text between
``<!-- NAME:start -->`` and ``<!-- NAME:end -->``, replaced by the benchmark that makes it
(``--write-readme``). A section lives in the one file of README.md and ``docs/*.md`` that holds
its markers (``first-screen`` on the front page, ``recipe`` in ``docs/training.md``, ...), so a
section moved with its text is still found."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def markers(name: str) -> tuple[str, str]:
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


def holds(path: Path, name: str) -> bool:
    start, end = markers(name)
    text = path.read_text(encoding="utf-8")
    return start in text and end in text.split(start, 1)[1]


def section_file(name: str, root: Path = ROOT) -> Path:
    """The one file of ``root``'s README.md and ``docs/*.md`` that holds section ``name``;
    ``SystemExit`` naming the markers when none or several do."""
    found = [path for path in [root / "README.md", *sorted((root / "docs").glob("*.md"))]
             if holds(path, name)]
    if len(found) != 1:
        start, end = markers(name)
        where = ", ".join(p.relative_to(root).as_posix() for p in found) or "none of them"
        raise SystemExit(f"{start} ... {end}: one of README.md and docs/*.md must hold the "
                         f"section, {where} does")
    return found[0]


def section_text(name: str, root: Path = ROOT) -> str:
    """The text between the markers of section ``name`` (without the newlines next to them)."""
    start, end = markers(name)
    text = section_file(name, root).read_text(encoding="utf-8")
    return text.split(start + "\n", 1)[1].split("\n" + end, 1)[0]


def replace_section(name: str, text: str, readme: Path | None = None) -> Path:
    """Put ``text`` between the markers of section ``name`` of ``readme`` (by default the file
    of README.md and docs/*.md that holds them, :func:`section_file`); ``SystemExit`` naming
    the markers when there is no such section. Returns the file written."""
    start, end = markers(name)
    path = section_file(name) if readme is None else readme
    if not holds(path, name):
        raise SystemExit(f"{path.name} has no {start} ... {end} section")
    head, rest = path.read_text(encoding="utf-8").split(start, 1)
    tail = rest.split(end, 1)[1]
    path.write_text(f"{head}{start}\n{text}\n{end}{tail}", encoding="utf-8")
    return path
