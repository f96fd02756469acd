"""The README's generated sections: the text between ``<!-- NAME:start -->`` and
``<!-- NAME:end -->``, replaced by the benchmark that makes it (``--write-readme``)."""

from __future__ import annotations

from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def replace_section(name: str, text: str, readme: Path = README) -> None:
    """Put ``text`` between the markers of section ``name`` of ``readme``; ``SystemExit``
    naming the markers when the README has no such section."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    old = readme.read_text(encoding="utf-8")
    if start not in old or end not in old.split(start, 1)[1]:
        raise SystemExit(f"{readme.name} has no {start} ... {end} section")
    head, rest = old.split(start, 1)
    tail = rest.split(end, 1)[1]
    readme.write_text(f"{head}{start}\n{text}\n{end}{tail}", encoding="utf-8")
