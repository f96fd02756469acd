"""Which page of the documentation site shows each section of README.md.

The README holds the prose and the generated tables; the site's pages do not copy it, they
include it: a page shows a README section with MyST's ``{include}`` directive, from just after
the section's heading line to just before the next heading, under a heading of its own with the
same text (so the README's ``#section`` links have a target on the page)::

    ## Training

    ```{include} ../README.md
    :start-after: "## Training"
    :end-before: "## Bots and tournaments"
    ```

:data:`SECTIONS` lists every heading of the README (``#`` to ``###``, in order) with the page
that includes its section; ``tests/test_docs_site.py`` checks that the list is the README's
headings and that each page includes exactly its sections, so every line of the README is on
the site once. To move a section's text out of the README into its page, replace the page's
include with the text and delete the section from the README and from this list: the test then
checks the rest.
"""

from __future__ import annotations

import re

#: every heading of README.md, in order, and the page (a file of docs/ without .md) showing
#: the text under it; the first, the title, heads the lines before the first section
SECTIONS: list[tuple[str, str]] = [
    ("# borders_sim", "getting-started"),
    ("## Quick start in Python", "getting-started"),
    ("### Research positions", "getting-started"),
    ("## Environments", "environments"),
    ("### RLlib", "env-rllib"),
    ("## Training", "training"),
    ("## Bots and tournaments", "bots"),
    ("### Mixed tables: the population evaluation and the zoo", "bots"),
    ("### Exploitability", "exploitability"),
    ("## OpenSpiel", "env-openspiel"),
    ("## Rules fidelity", "rules"),
    ("## Architecture", "architecture"),
    ("## Performance", "speed"),
    ("### Start-up", "speed"),
    ("## Dependencies and why", "architecture"),
    ("## Security: which files are data", "security"),
    ("## Licence and citation", "index"),
]


def spans() -> list[tuple[str, str | None, str]]:
    """``(start_after, end_before, page)`` of every section: from its heading to the next one
    (``None``: the end of the README)."""
    headings = [heading for heading, _ in SECTIONS]
    ends: list[str | None] = [*headings[1:], None]
    return [(heading, end, page) for (heading, page), end in zip(SECTIONS, ends)]


def slug(heading: str) -> str:
    """The anchor of a heading, as GitHub and MyST's ``myst_heading_anchors`` write it."""
    title = heading.lstrip("#").strip().lower()
    return re.sub(r"[^\w\- ]", "", title).replace(" ", "-")


def anchor_pages() -> dict[str, str]:
    """The page that shows each README heading's anchor (``"rules-fidelity": "rules"``)."""
    return {slug(heading): page for heading, page in SECTIONS}
