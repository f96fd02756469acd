"""The rules a language model is given, generated from the rules' own text.

``docs/RULINGS.md`` Part 1 restates the rulebook rule by rule; :func:`summary_of` takes the
sections a player needs to play (:data:`SECTIONS`: the goal, the round's five phases, the end of
the game and scoring) and drops the rule ids and marks, so the prompt says what the engine
implements and cannot drift from it. The result ships as ``rules.md`` beside this module (the
docs are not in the wheel): ``python -m borders_sim.llm.rules_text docs/RULINGS.md`` writes it
again, and a test checks it is what the rulings give.
"""

from __future__ import annotations

import re
import sys
from functools import cache
from pathlib import Path

#: The sections of RULINGS.md Part 1 the prompt holds, by their number.
SECTIONS = ("1.2", "1.4", "1.6", "1.9")
#: The shipped summary.
SHIPPED = Path(__file__).with_name("rules.md")

_HEADING = re.compile(r"^(#{3,4}) ")
_RULE_ID = re.compile(r"^(\s*- )\*\*[0-9A-Z.§-]+ \[[TDP]\]\*\* ")
_REFERENCE = re.compile(r" ?\(→[^)]*\)|,? →R-[0-9]+")


def summary_of(rulings: str) -> str:
    """The sections :data:`SECTIONS` of ``rulings`` (RULINGS.md's text), their rule ids,
    marks and cross-references to rulings removed.

    Raises:
        ValueError: a section is missing (the rulings were renumbered: update SECTIONS).
    """
    lines = rulings.splitlines()
    out: list[str] = []
    for number in SECTIONS:
        start = next((i for i, line in enumerate(lines)
                      if line.startswith(f"### {number} ")), None)
        if start is None:
            raise ValueError(f"RULINGS.md has no section {number} (SECTIONS in {__name__})")
        out.append(lines[start].replace("### ", "## ", 1))
        for line in lines[start + 1:]:
            if line.startswith(("### ", "## ", "---")):
                break
            if _HEADING.match(line):
                line = "###" + line.lstrip("#")
            line = _REFERENCE.sub("", _RULE_ID.sub(r"\1", line))
            out.append(line.rstrip())
        while out and not out[-1]:
            out.pop()
        out.append("")
    return "\n".join(out)


@cache
def rules_summary() -> str:
    """The shipped summary (:data:`SHIPPED`)."""
    return SHIPPED.read_text(encoding="utf-8")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m borders_sim.llm.rules_text docs/RULINGS.md")
    SHIPPED.write_text(summary_of(Path(sys.argv[1]).read_text(encoding="utf-8")),
                       encoding="utf-8")
    print(f"wrote {SHIPPED}")
