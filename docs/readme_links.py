"""Sphinx extension: the links of README.md, made to point into the site where a page
includes it.

On GitHub the README links to files beside it (``docs/RULINGS.md``, ``docs/img/x.png``,
``examples/quickstart.ipynb``) and to its own sections (``#rules-fidelity``). Included into a page
of ``docs/``, the same text is read with these rewritten (the README itself is not changed): a
path under ``docs/`` becomes the page or picture of the site, the notebook its page, and a
section's anchor the page that shows that section (:mod:`readme_map`) with the anchor.
"""

from __future__ import annotations

import re
from pathlib import Path

from sphinx.application import Sphinx

from readme_map import anchor_pages

#: README link targets whose page on the site is not the same path under docs/
TARGETS = {
    "docs/README.md": "rules.md#how-ids-are-written",
    "examples/quickstart.ipynb": "quickstart.ipynb",
}


def rewrite(text: str) -> str:
    """The README's text with its links pointing into the site (pages are all at the top of
    docs/)."""
    pages = anchor_pages()

    def target(match: re.Match) -> str:
        link = match[1]
        if link.startswith("#") and link[1:] in pages:
            link = f"{pages[link[1:]]}.md{link}"
        elif link in TARGETS:
            link = TARGETS[link]
        elif link.startswith("docs/"):
            link = link.removeprefix("docs/")
        return f"]({link})"

    return re.sub(r"\]\(([^)\s]+)\)", target, text)


def on_include_read(app: Sphinx, relative_path: Path, parent_docname: str,
                    content: list[str]) -> None:
    """Rewrite the links of the README when a page includes it."""
    if Path(relative_path).as_posix() == "../README.md":
        content[0] = rewrite(content[0])


def setup(app: Sphinx) -> dict[str, object]:
    """Register the hook on MyST's and Sphinx's ``include-read`` event."""
    app.connect("include-read", on_include_read)
    return {"parallel_read_safe": True}
