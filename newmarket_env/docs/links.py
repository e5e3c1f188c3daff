"""The built docs site's internal links: every page, source page and anchor a link names must exist.

``make docs`` runs :func:`site_problems` when Sphinx has written the site (``docs/conf.py``), each problem a
warning, and warnings fail the build: a link to a page that is not there (Sphinx's own module index links
the compiled modules' pages, which its viewcode extension does not write), or to an anchor that no page
element carries (viewcode's ``[docs]`` links name an object by the module it was documented under first),
is found when it is made. Links to other sites are not followed (no network here); the standard library
only.

>>> site_problems("no/such/site")
['no/such/site: no built site (run make docs)']
"""

from __future__ import annotations

import os
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

#: Tags whose ``href`` or ``src`` names a file of the site.
LINKING = {"a": "href", "link": "href", "img": "src", "script": "src", "source": "src"}


class _Page(HTMLParser):
    """The links of one page and the anchors (``id`` and ``name``) it carries."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.anchors: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for key in ("id", "name"):
            if values.get(key):
                self.anchors.add(str(values[key]))
        link = values.get(LINKING.get(tag, ""))
        if link:
            self.links.append(link)


def _read(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    return page


def site_problems(root: str | os.PathLike) -> list[str]:
    """One line per broken internal link of the site under ``root``: ``page: link (why)``."""
    root = Path(root)
    if not root.is_dir():
        return [f"{root}: no built site (run make docs)"]
    pages = {path.resolve(): _read(path) for path in sorted(root.rglob("*.html"))}
    problems = []
    for path, page in pages.items():
        for link in page.links:
            why = _broken(path, link, pages)
            if why:
                problems.append(f"{path.relative_to(root.resolve())}: {link} ({why})")
    return problems


def _broken(page: Path, link: str, pages: dict[Path, _Page]) -> str | None:
    parts = urlsplit(link)
    if parts.scheme or parts.netloc or link.startswith(("mailto:", "javascript:", "data:")):
        return None  # another site, or no file at all
    target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
    if parts.path.endswith("/"):
        target = target / "index.html"
    if not target.exists():
        return "no such file"
    if parts.fragment and target.suffix == ".html":
        anchors = pages[target].anchors if target in pages else _read(target).anchors
        if unquote(parts.fragment) not in anchors:
            return f"no anchor {parts.fragment!r} in {target.name}"
    return None


__all__ = ["site_problems"]
