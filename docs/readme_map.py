"""Where each section of the old README went, and what the README keeps.

The README is the front page: what borders_sim is, the two commands of a fresh machine with
their measured times, a first game, a line for each page of this site, how to cite. The rest of
what it held moved into the pages of ``docs/``, each section under a heading of the same text
(so an anchor of the old README, ``#rules-fidelity``, is ``rules.md#rules-fidelity`` on the site
and ``docs/rules.md#rules-fidelity`` on GitHub).

:data:`MOVED` records every heading of the old README (``#`` to ``###``, in order) with the page
that holds its text now; :data:`FRONT_PAGE` lists the README's headings now, and
:data:`INCLUDES` the parts of the README that pages still show with MyST's ``{include}``
(``getting-started`` its opening and first game, ``index`` the citation)::

    ```{include} ../README.md
    :start-after: "## Quick start in Python"
    :end-before: "## What is inside"
    ```

``tests/test_docs_site.py`` checks them: every old heading on its page, the README's headings
exactly :data:`FRONT_PAGE`, each page's includes exactly its entries of :data:`INCLUDES`.
"""

from __future__ import annotations

import re

#: every heading of the old README.md, in order, and the page (a file of docs/ without .md) that
#: holds its text now; the first, the title, headed the lines before the first section (its
#: what-it-is, pictures and commands stay on the front page, the rest is on getting-started)
MOVED: list[tuple[str, str]] = [
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

#: the README's headings now, in order
FRONT_PAGE: list[str] = [
    "# borders_sim",
    "## Quick start in Python",
    "## What is inside",
    "## Licence and citation",
]

#: ``(page, start_after, end_before)``: the parts of the README a page shows, from just after a
#: heading of the README to just before the next one (``None``: the end)
INCLUDES: list[tuple[str, str, str | None]] = [
    ("getting-started", "# borders_sim", "## Quick start in Python"),
    ("getting-started", "## Quick start in Python", "## What is inside"),
    ("index", "## Licence and citation", None),
]


def slug(heading: str) -> str:
    """The anchor of a heading, as GitHub and MyST's ``myst_heading_anchors`` write it."""
    title = heading.lstrip("#").strip().lower()
    return re.sub(r"[^\w\- ]", "", title).replace(" ", "-")


def anchor_pages() -> dict[str, str]:
    """The page that shows each old README heading's anchor (``"rules-fidelity": "rules"``)."""
    return {slug(heading): page for heading, page in MOVED}
