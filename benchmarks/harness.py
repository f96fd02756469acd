"""What every script of ``benchmarks/`` shares: its common options, the machine it ran on, the
stamp of the policy files it measured, and the generated sections it writes.

A script runs as ``python benchmarks/NAME.py`` (Python puts ``benchmarks/`` on its path, so it
imports this module by name) and measures the ``borders_sim`` that Python imports: this
checkout's with the README's editable install (:func:`parse` says so when it is another).

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    add_shared(parser, quick={"games": 20}, docs="the table of docs/speed.md", json=True)
    run(parser, measure, render, section="replay")

``measure(args)`` returns the figures (JSON-able), ``render(figures, args)`` the text:
:func:`run` parses the options (``--quick`` applied, ``--quick --write-docs`` refused),
measures, prints the text and writes it and the figures where the options say.

**Options.** ``--quick``: the smallest setting (CI runs every script once with it, so a moved
function breaks the run, not a reader's first try; its figures mean nothing and it never
writes the docs). ``--write-docs``: put the script's section into the README or ``docs/``
(each section lives in the one file that holds its markers). ``--json FILE``: also write the
figures as JSON.

**Sections.** A generated section is the text between ``<!-- NAME:start -->`` and
``<!-- NAME:end -->`` in the one file of README.md and ``docs/*.md`` holding them.

**Stamp.** A section that measures the shipped ``ppo`` (the exploit table, the ladder) ends with
``policy files DIGEST.``, a short digest of the shipped file (the population section's also
covers every zoo member); ``tests/test_readme_tables.py`` recomputes it and fails when a file
changed after its section was made.
"""

from __future__ import annotations

import argparse
import hashlib
import json as json_module
import math
import os
import platform
import sys
from pathlib import Path
from collections.abc import Callable
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def add_shared(parser: argparse.ArgumentParser, quick: dict[str, Any] | None = None,
               docs: str | None = None, json: bool = False) -> None:
    """Add the shared options to ``parser``: ``--quick``, which sets each option named in
    ``quick`` (by its ``dest``) to the value given there; with ``docs`` (what the script
    writes, for the help) ``--write-docs``; with ``json`` ``--json FILE``."""
    small = quick or {}
    settings = ", ".join(f"--{name.replace('_', '-')} {value}" for name, value in small.items())
    parser.add_argument("--quick", action="store_true",
                        help="the smallest setting, as CI runs it: every part once, no figure "
                             "meant" + (f" ({settings})" if settings else ""))
    parser.set_defaults(quick_settings=small, write_docs=False, json=None)
    if docs is not None:
        parser.add_argument("--write-docs", action="store_true", help=docs)
    if json:
        parser.add_argument("--json", type=Path, metavar="FILE",
                            help="also write the figures as JSON")


def parse(parser: argparse.ArgumentParser, argv: list[str] | None = None
          ) -> argparse.Namespace:
    """``parser.parse_args(argv)`` with the quick settings applied under ``--quick`` (an error
    with ``--write-docs``: a quick run's figures mean nothing); says which ``borders_sim`` is
    measured when it is not this checkout's."""
    args = parser.parse_args(argv)
    if args.quick:
        if args.write_docs:
            parser.error("--quick is a smoke run: its figures do not go into the README or "
                         "the docs")
        for name, value in args.quick_settings.items():
            setattr(args, name, value)
    import borders_sim

    package = Path(borders_sim.__file__).resolve().parent
    if package != ROOT / "borders_sim":
        print(f"note: measuring the borders_sim installed at {package}, not this checkout's "
              f"(pip install -e . measures the checkout)", file=sys.stderr, flush=True)
    return args


def run(parser: argparse.ArgumentParser, measure: Callable[[argparse.Namespace], Any],
        render: Callable[[Any, argparse.Namespace], str | dict[str | Path | None, str]],
        argv: list[str] | None = None, section: str | None = None,
        check: Callable[[argparse.ArgumentParser, argparse.Namespace], None] | None = None
        ) -> Any:
    """A benchmark's run, the same for every script: its options parsed (:func:`parse`; then
    ``check(parser, args)``, which may settle defaults or call ``parser.error``), the figures
    measured (``measure(args)``: JSON-able data, its progress on stderr), the text rendered
    from them (``render(figures, args)``) and printed; with ``--write-docs`` the text goes into
    ``section``, with ``--json FILE`` the figures into FILE. Returns the figures (for the
    script's exit status).

    ``render`` may give several texts, ``{key: text}``: a section's name (printed and written
    into that section), a :class:`~pathlib.Path` (a whole generated page, written only), or
    ``None`` (printed only; then the sections are not printed)."""
    args = parse(parser, argv)
    if check is not None:
        check(parser, args)
    figures = measure(args)
    text = render(figures, args)
    texts = text if isinstance(text, dict) else {section: text}
    sections = {k: v for k, v in texts.items() if not isinstance(k, Path)}
    shown = [sections[None]] if None in sections else list(sections.values())
    print("\n\n".join(shown), flush=True)
    if args.write_docs:
        for key, body in texts.items():
            if key is None and len(texts) == 1:
                raise SystemExit("this script names no section to write")
            if isinstance(key, Path):
                key.write_text(body, encoding="utf-8")
                print(f"{key.relative_to(ROOT)} written", file=sys.stderr)
            elif key is not None:
                print(f"{replace_section(key, body).relative_to(ROOT)} updated",
                      file=sys.stderr)
    write_json(args.json, figures)
    return figures


def write_json(path: Path | None, data: Any) -> None:
    """Write ``data`` as JSON to ``path`` (``--json``), if given."""
    if path is not None:
        path.write_text(json_module.dumps(data, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {path}", file=sys.stderr)


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo`` on Linux; else what ``platform`` says)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def load() -> float:
    """The one-minute load average (NaN where the system has none)."""
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else math.nan


def usable_cores() -> int:
    """The cores this process may run on (its affinity), else all of them."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def machine() -> str:
    """The machine, as every table names it: system, architecture, CPU model, cores (and the
    usable ones, where fewer)."""
    cores, usable = os.cpu_count() or 1, usable_cores()
    return (f"{platform.system()} {platform.machine()}, {cpu_model()}, {cores} cores"
            + (f" ({usable} usable)" if usable != cores else ""))


def machine_line(start: float, end: float | None = None) -> str:
    """:func:`machine` and the load average at the start (and end) of the measurement
    (:func:`load`)."""
    def shown(value: float) -> str:
        return "n/a" if math.isnan(value) else f"{value:.1f}"
    ends = "" if end is None else f", {shown(end)} at the end"
    return f"{machine()}, load average {shown(start)} at the start{ends}"


def weights_digest(zoo: bool = False) -> str:
    """The first 16 hex digits of the SHA-256 of the shipped policy file, then (``zoo``) every
    zoo member's file in :data:`~borders_sim.policies.zoo.ZOO`'s order."""
    from borders_sim.policies.network import SHIPPED_WEIGHTS
    from borders_sim.policies.zoo import ZOO, zoo_path

    digest = hashlib.sha256(SHIPPED_WEIGHTS.read_bytes())
    for name in ZOO if zoo else ():
        digest.update(zoo_path(name).read_bytes())
    return digest.hexdigest()[:16]


def stamp(zoo: bool = False) -> str:
    """The sentence a section ends with: ``policy files DIGEST.``"""
    return f"policy files {weights_digest(zoo)}."


def markers(name: str) -> tuple[str, str]:
    """The start and end markers of section ``name``."""
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


def holds(path: Path, name: str) -> bool:
    """Whether the file ``path`` holds section ``name``'s markers, in order."""
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
