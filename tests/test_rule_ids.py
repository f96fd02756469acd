"""Every rule id cited in the code, tests, benchmarks and docs is defined in ``docs/RULINGS.md``.

Pure text, no numba and no import of ``borders_sim``: the test reads the spec's definitions, then
every citation in ``README.md``, in ``docs/`` (but the spec itself) and in the ``*.py`` and
``*.md`` files of ``borders_sim/``, ``tests/`` and ``benchmarks/`` (of Python, the comments and
string literals, docstrings included; not this module, whose examples cite undefined ids on
purpose), and fails naming the file, line and id of each citation the spec does not define.

Id grammar
----------
These *strong* forms are citations wherever they stand as a word:

* rulings ``R-NN`` (``R-05``); protocol steps ``P-N`` and ``P-N.M`` (``P-6``, ``P-5.3``);
* card rules ``SR-N``, ``NR-N``, ``FB-N``, ``SF-N``, ``RB-N``, ``LW-N`` and ``LW-SF``;
* lettered rules ``N.M-XK`` (``4.4-B1``, ``4.4-H7``); ``4.4-B`` is the group ``4.4-B1``...;
* test vectors ``TV-XK`` (``TV-A5``, ``TV-E10``); ``TV-A`` is the group;
* rulebook sections ``§N`` and ``§N.M`` (``§8``, ``§12.5``);
* card-rule groups ``SR-*``, ``FB-*``, ...;
* parts and numbered sections of the spec: ``Part 2``, ``Appendix A``, ``RULINGS 1.7``.

Numeric rules ``N-K`` and ``N.M-K`` (``9-9``, ``3.4-2``) look like ranges ("3-8 players",
``2**63-1``), so they are citations only in an *id list*: text between two of the delimiters
``(`` ``)`` ``,`` ``;`` ``:`` and a line end that holds ids and nothing else (but markup such as
bullets, quotes and comment signs), when the list

* stands inside parentheses: "(6-4)", "(the badges move together, 3.4-2, 4.5-5)";
* is a label, ended by a colon: "5-12: at most one ...", "... refill; 7.2-2: cards drawn";
* is in a comment: "x = 10  # 5-12", "# 4.1-2, 7.1-2";
* holds the word RULINGS, rule(s), ruling(s) or see, or a strong form: "RULINGS 5-4..5-12",
  "rules 4-3", "P-2/4.1-2";
* or is chained to such a list by commas, semicolons or line ends: "rules 4-3,\\n4.5-5",
  "5-12, R-26".

Elsewhere a numeric form is a number ("after the 9-9 tie-breaks" cites nothing; write "after
the tie-breaks (9-9)"). A bare section number such as ``7.2`` is always a number: write
``§7.2``. In a list, ids are joined by ``..`` (a range; both ends must resolve), ``/``, "and" or
"or", and a tail after ``/`` or ``..`` is the id before it with its last part replaced:
``R-26c/e/f`` is ``R-26c``, ``R-26e``, ``R-26f``; ``TV-A1..A3`` is ``TV-A1..TV-A3``;
``3.1-1..3`` is ``3.1-1..3.1-3``.

Sub-items: an id directly followed by a lower-case letter or a parenthesised one (``R-17d``,
``P-5.3a``, ``P-5.3(b')``, ``9-3(a)``) resolves when its base id is defined and has that list
item (``- (d) ...``) in its definition.

Definitions in the spec
-----------------------
* ``- **4.4-B1 [T]**``, ``- **SR-3 [T]**`` (Part 1), ``**R-05: ...**`` (Part 3),
  ``**P-5 ...**`` and ``- P-5.3 ...`` (Part 4) define an id; the list items ``- (a) ...`` that
  follow, up to the next definition or heading, are its sub-items;
* ``### TV-A: ...`` defines a test-vector group, and each table row ``| A5 | ...`` under it
  ``TV-A5``;
* ``## Part 2: ...`` and ``## Appendix A: ...`` define those; ``### 1.0 ...`` ``RULINGS 1.0``;
* a rulebook section is defined when Part 1 restates it: a heading or bold title names it
  (``#### §4.4 Border check``, ``### 1.7 Action cards (§7, §12.5)``, ``**Legal goods (Table
  12.1).**``), or rules are numbered in it (``3.2-1`` defines ``§3.2``).
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "docs" / "RULINGS.md"
SOURCES = ("borders_sim", "tests", "benchmarks")

# --- the spec's definitions ------------------------------------------------------------------
RULE_DEF = re.compile(r"- \*\*([0-9.]+-\w+|[A-Z]{2}-\w+) \[")  # - **4.4-B1 [T]**, - **SR-3 [T]**
RULING_DEF = re.compile(r"\*\*(R-\d+):")
STEP_DEF = re.compile(r"(?:\*\*|- )(P-\d+(?:\.\d+)?)[ *]")      # **P-5 Border check.**, - P-5.3
SUB_DEF = re.compile(r"\s+- \(([a-z]'*)\)")                    # "  - (b') With ..."
TV_HEADING = re.compile(r"### (TV-[A-Z]\d*)\b")
TV_ROW = re.compile(r"\| ([A-Z]\d+) \|")
PART_HEADING = re.compile(r"## (Part \d+|Appendix [A-Z])\b")
NUMBERED_HEADING = re.compile(r"#+ (\d+\.\d+) ")
SECTION_NAME = re.compile(r"(?:§|Table )(\d+(?:\.\d+)?)(?![.\d])")


def read_spec(text: str) -> dict[str, set[str]]:
    """Every id the spec ``text`` defines, with its sub-items (see "Definitions in the spec")."""
    ids: dict[str, set[str]] = {}
    current = ""  # the id whose sub-items the next list items are
    tv_group = ""  # the test-vector group of the table rows
    part_1 = False  # in Part 1, which restates the rulebook
    for line in text.splitlines():
        if line.startswith("#"):
            current, tv_group = "", _heading(ids, line)
            part_1 = line.startswith("## Part 1:") or part_1 and not line.startswith("## ")
        elif m := RULE_DEF.match(line) or RULING_DEF.match(line) or STEP_DEF.match(line):
            current = m.group(1)
            ids[current] = set()
            if section := re.match(r"[0-9.]+(?=-)", current):
                ids.setdefault("§" + section.group(), set())
        elif (m := SUB_DEF.match(line)) and current:
            ids[current].add(m.group(1))
        elif tv_group and (m := TV_ROW.match(line)):
            ids[f"TV-{m.group(1)}"] = set()
        if part_1 and line.startswith(("#", "**")):
            title = line if line.startswith("#") else line.split("**")[1]
            ids.update((f"§{s}", set()) for s in SECTION_NAME.findall(title))
    return ids


def _heading(ids: dict[str, set[str]], line: str) -> str:
    """Record the part, appendix or numbered section the heading ``line`` defines; return the
    test-vector group it opens, or ""."""
    if m := PART_HEADING.match(line):
        ids[m.group(1)] = set()
    if m := NUMBERED_HEADING.match(line):
        ids[f"RULINGS {m.group(1)}"] = set()
    if m := TV_HEADING.match(line):
        ids[m.group(1)] = set()
        return m.group(1)
    return ""


SPLIT_SUB = re.compile(r"(.*?)(?:\(([a-z]'*)\)|([a-z]'*))?")


def undefined(ids: dict[str, set[str]], ident: str) -> str:
    """Why the spec's ``ids`` do not define the cited ``ident``; "" when they do."""
    base, paren, letter = SPLIT_SUB.fullmatch(ident).groups()
    sub = paren or letter
    if base in ids:
        return f"{base} has no sub-item ({sub})" if sub and sub not in ids[base] else ""
    group = re.fullmatch(r"([0-9.]+-[A-Z])|([A-Z]{2}-)\*", base)  # 4.4-B, SR-*
    if group and not sub:
        prefix = group.group(1) or group.group(2)
        if any(k.startswith(prefix) and k[len(prefix):].isdigit() for k in ids):
            return ""
    return "not defined"


# --- citations in a text ---------------------------------------------------------------------
# An id is a strong form (always a citation) or a weak one (numeric, a citation only in an id
# list), then an optional sub-item and shorthand tails (/e, ..A3, ..3).
NOT_AFTER = r"(?<![\w-])(?<!\d\.)"  # not the middle of a word, a number or a range
STRONG = (NOT_AFTER + r"(?:R-\d+|P-\d+(?:\.\d+)?|(?:SR|NR|FB|SF|RB|LW)-(?:\d+|SF|\*)|TV-[A-Z]\d*"
          r"|\d+(?:\.\d+)?-[A-Z]\d*|Part \d+|Appendix [A-Z]|RULINGS \d+\.\d+(?!-))|§\d+(?:\.\d+)?")
WEAK = NOT_AFTER + r"\d+(?:\.\d+)?-\d+(?![.-]\d)"
SUB = r"(?:[a-z]'*|\([a-z]'*\))"
TAIL = r"(?:/|\.\.)(?:[a-z]'*|[A-Z]\d*|\d+)(?![\w.-]*\w)"
ID = re.compile(rf"(?P<id>(?P<strong>{STRONG})|{WEAK})(?P<sub>{SUB})?(?P<tails>(?:{TAIL})*)"
                r"(?![\w'])")
KEYWORD = r"(?:RULINGS|[Rr]ul(?:e|ing)s?|[Ss]ee)\b"
GAP = re.compile(rf"\s*(?:\.\.|/|and|or)?\s*(?:{KEYWORD}\s*)?")  # between two ids of a list
MARKUP = " *-`#\t"  # allowed around an id list: bullets, bold, code quotes, comment signs
DELIMITERS = "(),;:\n"
LIST_GLUE = ",;\n"  # delimiters that continue a list
STRONG_MASK, WEAK_MASK = "\1", "\0"


def expand(m: re.Match) -> list[str]:
    """The ids an ``ID`` match stands for: itself, then one per shorthand tail."""
    base, sub = m.group("id"), m.group("sub") or ""
    out = [base + sub]
    for tail in re.findall(r"(?:/|\.\.)([^/.]+)", m.group("tails")):
        if tail[0].islower():
            out.append(base + tail)  # another sub-item
        else:
            out.append(base.rsplit("-", 1)[0] + "-" + tail)  # another rule or row
    return out


def list_kind(text: str) -> str:
    """"blank", "ids" (an id list) or "text", of ``text`` with its ids masked."""
    parts = re.split(f"[{STRONG_MASK}{WEAK_MASK}]+", text)
    if len(parts) == 1:
        return "blank" if not text.strip(MARKUP) else "text"
    first = re.sub(KEYWORD, "", parts[0]).strip(MARKUP)
    pure = not first and not parts[-1].strip(MARKUP + ".") and all(
        GAP.fullmatch(p) for p in parts[1:-1])
    return "ids" if pure else "text"


def cited_spans(masked: str, comment: bool) -> list[tuple[int, int]]:
    """Spans of ``masked`` (ids replaced by STRONG_MASK / WEAK_MASK) whose numeric ids are
    citations: the id lists in a citation context, and the lists they continue or that continue
    them (module docstring); ``comment``: ``masked`` is a comment."""
    spans: list[tuple[int, int]] = []
    run: list[tuple[int, int]] = []  # the id lists of the list in progress
    run_cited = False
    depth, start = 0, 0
    for i, ch in enumerate(masked + "\n"):
        if ch not in DELIMITERS:
            continue
        text = masked[start:i]
        kind = list_kind(text)
        if kind == "ids":
            run.append((start, i))
            run_cited |= (depth > 0 or comment or ch == ":" or STRONG_MASK in text
                          or re.search(KEYWORD, text) is not None)
        if kind == "text" or ch not in LIST_GLUE:
            spans += run if run_cited else []
            run, run_cited = [], False
        depth = depth + 1 if ch == "(" else max(depth - 1, 0) if ch == ")" else depth
        if masked.startswith("\n\n", i):
            depth = 0  # a paragraph ends: a parenthesis left open does not run on
        start = i + 1
    return spans + (run if run_cited else [])


def citations(text: str, comment: bool = False) -> list[tuple[int, str]]:
    """(offset, id) of every citation in the prose ``text`` (a comment when ``comment``)."""
    matches = list(ID.finditer(text))
    masked = list(text)
    for m in matches:
        mark = STRONG_MASK if m.group("strong") else WEAK_MASK
        masked[m.start():m.end()] = mark * (m.end() - m.start())
    spans = cited_spans("".join(masked), comment)
    return [(m.start(), ident) for m in matches
            if m.group("strong") or any(a <= m.start() < b for a, b in spans)
            for ident in expand(m)]


# --- citations in the files ------------------------------------------------------------------
STRING_QUOTES = re.compile(r"""^[rRbBuUfF]*("{3}|'{3}|"|')|("{3}|'{3}|"|')$""")


def prose(path: Path) -> list[tuple[int, str, bool]]:
    """(first line, text, is a comment) of each piece of prose in ``path``: of Python its
    comments and its string literals (quotes blanked; adjacent literals, which Python joins,
    as one piece), of Markdown the whole file."""
    source = path.read_text(encoding="utf-8")
    if path.suffix != ".py":
        return [(1, source, False)]
    pieces: list[tuple[int, str, bool]] = []
    joinable = False  # the last token was a string literal (only line breaks since)
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            pieces.append((tok.start[0], tok.string, True))
        elif tok.type == tokenize.STRING:
            text = STRING_QUOTES.sub(lambda m: " " * len(m.group()), tok.string)
            if joinable:
                line, before, _ = pieces.pop()
                text = before + "\n" * (tok.start[0] - line - before.count("\n")) + text
                pieces.append((line, text, False))
            else:
                pieces.append((tok.start[0], text, False))
        if tok.type not in (tokenize.NL, tokenize.COMMENT):
            joinable = tok.type == tokenize.STRING
    return pieces


def cited_files() -> list[Path]:
    """README.md, docs/ but the spec, and the Python and Markdown files of SOURCES but this
    module (its examples cite undefined ids on purpose) and the spec's own text a language
    model is given (``borders_sim/llm/rules.md``, generated from it)."""
    files = [ROOT / "README.md", *sorted((ROOT / "docs").iterdir())]
    for folder in SOURCES:
        files += sorted((ROOT / folder).rglob("*"))
    copied = ROOT / "borders_sim" / "llm" / "rules.md"
    return [p for p in files if p.suffix in (".py", ".md")
            and p not in (SPEC, copied, Path(__file__).resolve()) and "__pycache__" not in p.parts]


def file_citations(path: Path) -> list[tuple[int, str]]:
    """(line, id) of every citation in ``path``."""
    return [(line + text.count("\n", 0, offset), ident)
            for line, text, comment in prose(path)
            for offset, ident in citations(text, comment)]


# --- the tests -------------------------------------------------------------------------------
def test_every_cited_id_is_defined_in_the_spec():
    ids = read_spec(SPEC.read_text(encoding="utf-8"))
    bad = [f"{path.relative_to(ROOT)}:{line}: {ident}: {reason}"
           for path in cited_files() for line, ident in file_citations(path)
           if (reason := undefined(ids, ident))]
    assert not bad, "ids that docs/RULINGS.md does not define:\n" + "\n".join(bad)


@pytest.mark.parametrize("text, cited", [
    ("(6-4)", ["6-4"]),
    ("(the badges move together, 3.4-2, 4.5-5)", ["3.4-2", "4.5-5"]),
    ("5-12: at most one piece; 7.2-2: cards drawn", ["5-12", "7.2-2"]),
    ("rules 4-3,\n4.5-5, 6-1..6-6, R-03", ["4-3", "4.5-5", "6-1", "6-6", "R-03"]),
    ("P-2, 4.1-2; then", ["P-2", "4.1-2"]),
    ("R-26c/e/f, TV-A1..A3 (3.1-1..3)",
     ["R-26c", "R-26e", "R-26f", "TV-A1", "TV-A3", "3.1-1", "3.1-3"]),
    ("P-5.3(b') and P-5.3a, 9-3(a): x", ["P-5.3(b')", "P-5.3a", "9-3(a)"]),
    ("(RULINGS 4.4-A/B/P, SR-*, Appendix A, RULINGS 1.0 / §12)",
     ["4.4-A", "4.4-B", "4.4-P", "SR-*", "Appendix A", "RULINGS 1.0", "§12"]),
    ("(§12.1..§12.5, §7.2)", ["§12.1", "§12.5", "§7.2"]),
    ("3-8 players (6-8 players), tiers 3p / 4-5p", []),
    ("a seed from 0 to (2**63-1), 0.05-0.1 us (1-1.5 us) on 2026-12-01", []),
    ("after the 9-9 tie-breaks (7.2)", []),
])
def test_citation_grammar(text, cited):
    assert [ident for _offset, ident in citations(text)] == cited


def test_a_comment_is_a_citation_context():
    assert [i for _o, i in citations("# 4.1-2, 7.1-2", comment=True)] == ["4.1-2", "7.1-2"]
    assert citations("4.1-2, 7.1-2") == []


def test_python_prose_is_its_comments_and_string_literals(tmp_path):
    module = tmp_path / "module.py"
    module.write_text('x = f(3-1)  # 5-12\ns = ("(undecided, "\n     "4.4-2)")\n',
                      encoding="utf-8")
    assert file_citations(module) == [(1, "5-12"), (3, "4.4-2")]


def test_the_spec_defines_its_ids_and_sub_items():
    ids = read_spec(SPEC.read_text(encoding="utf-8"))
    assert {f"R-{k:02d}" for k in range(1, 42)} <= ids.keys()
    assert ids["P-5.3"] == {"a", "b", "b'", "c"} and ids["R-26"] == set("abcdef")
    assert {"4.4-B1", "9-9", "LW-SF", "P-0.6", "TV-A", "TV-A14", "TV-B9", "TV-E10", "§4.4",
            "§12.1", "§3.2", "Part 4", "Appendix A", "RULINGS 1.0"} <= ids.keys()


@pytest.mark.parametrize("ident, reason", [
    ("R-17d", ""), ("P-5.3(b')", ""), ("4.4-B", ""), ("SR-*", ""),
    ("R-42", "not defined"), ("R-17z", "R-17 has no sub-item (z)"), ("4.4-Q", "not defined"),
    ("§11", "not defined"), ("TV-C1", "not defined"),
])
def test_what_resolves(ident, reason):
    assert undefined(read_spec(SPEC.read_text(encoding="utf-8")), ident) == reason
