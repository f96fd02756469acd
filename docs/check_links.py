"""Check every internal link of the built documentation site.

Sphinx's ``-W`` catches a broken cross-reference in the sources, but not every link of the pages
it writes (the module index once linked a page that was never built). This reads every ``.html``
file under the built site, and for each ``href`` and ``src`` that stays inside the site (no
scheme, no ``//``, not ``mailto:``) checks that the file it names exists and, where it names an
anchor (``page.html#anchor``), that the page holds an element with that ``id``. Prints one line
per broken link and exits 1 if there is any::

    python -m sphinx -W -b html docs docs/_build/html
    python docs/check_links.py docs/_build/html
"""

from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class _Page(HTMLParser):
    """The links (``href``, ``src``) and the element ids of one HTML page."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name in ("href", "src"):
                self.links.append(value)
            elif name == "id" or (name == "name" and tag == "a"):
                self.ids.add(value)


def _internal(link: str) -> bool:
    parts = urlsplit(link)
    return not (parts.scheme or parts.netloc or link.startswith("//")) and bool(
        parts.path or parts.fragment)


def broken_links(site: Path) -> list[str]:
    """``"page: link (why)"`` for every internal link of the built ``site`` that does not
    resolve to a built file, or to an id of the page it names."""
    pages: dict[Path, _Page] = {}
    for path in sorted(site.rglob("*.html")):
        page = _Page()
        page.feed(path.read_text(encoding="utf-8", errors="replace"))
        pages[path.resolve()] = page
    broken = []
    for path, page in pages.items():
        for link in page.links:
            if not _internal(link):
                continue
            parts = urlsplit(link)
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if target.is_dir():
                target = target / "index.html"
            where = f"{path.relative_to(site.resolve())}: {link}"
            if not target.exists():
                broken.append(f"{where} (no such file)")
            elif parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else set()
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{where} (no id {parts.fragment!r} there)")
    return broken


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1 or not Path(args[0]).is_dir():
        print("usage: python docs/check_links.py BUILT_SITE_DIR", file=sys.stderr)
        return 2
    site = Path(args[0])
    broken = broken_links(site)
    for line in broken:
        print(f"broken link: {line}")
    pages = sum(1 for _ in site.rglob("*.html"))
    print(f"{len(broken)} broken internal link(s) in {pages} pages of {site}")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
