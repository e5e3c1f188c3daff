"""Sphinx configuration of the newmarket-env docs site (``make docs``: docs/_build/html).

Pages are MyST Markdown, as in Farama's PettingZoo and Gymnasium sites; the theme is Furo. The API
reference is generated from the docstrings by autodoc, so the package must be importable (``make docs``
builds in the project's ``.venv``). Warnings are errors (``-W`` in the Makefile): a broken link,
reference or include fails the build.
"""

from __future__ import annotations

import importlib.util
import posixpath
import re
from pathlib import Path

import newmarket_env
from newmarket_env.docs.links import site_problems

project = "newmarket-env"
author = "the newmarket-env developers"
copyright = "2026, the newmarket-env developers"
release = newmarket_env.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "sphinx_copybutton",
]

# Generated files, run outputs and pages that are not part of the site.
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
root_doc = "index"
source_suffix = {".md": "markdown"}

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3  # links like page.md#a-heading work as on GitHub

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": False, "show-inheritance": False}
napoleon_google_docstring = True
napoleon_numpy_docstring = False

html_theme = "furo"
html_title = f"newmarket-env {release}"
html_static_path = ["_static"]
html_css_files = ["custom.css"]  # long code lines wrap inside the column
copybutton_prompt_text = r"^\$ |^>>> |^\.\.\. "
copybutton_prompt_is_regexp = True


# ---------------------------------------------------------------- docstrings: docs/X.md as links to the page
# Docstrings cite the site's pages by their repository paths (docs/rules.md, ``docs/contract.md#...``), which
# read well in an editor; on the site each becomes a link to the page (anchors kept).
_DOC_PATH = re.compile(r"(``)?\bdocs/((?:[\w-]+/)*[\w.-]+?)\.md(#[\w-]+)?(``)?")


def _link_doc_paths(app, what, name, obj, options, lines: list[str]) -> None:
    here = posixpath.dirname(app.env.docname)

    def link(match: re.Match) -> str:
        page, anchor = match.group(2), match.group(3) or ""
        if not (Path(app.srcdir) / f"{page}.md").is_file():
            return match.group(0)
        url = posixpath.relpath(f"{page}.html", here or ".") + anchor
        return f"`docs/{page}.md{anchor} <{url}>`__"  # anonymous: one page may cite a path twice

    for i, line in enumerate(lines):
        lines[i] = _DOC_PATH.sub(link, line)


# ---------------------------------------------------------------- viewcode: the compiled modules' sources
# viewcode reads Python source; a compiled module has none, yet Sphinx still lists it in the module index,
# a link to a page it never writes. Its Cython source (.pyx beside the module) is given instead, with the
# top-level classes and functions as tags, so the page exists and its [docs] links work.
_TOP_LEVEL = re.compile(r"^(?:cdef |cpdef )?(class|def) (\w+)", re.M)


def _compiled_source(app, modname: str):
    spec = importlib.util.find_spec(modname)
    origin = Path(spec.origin) if spec and spec.origin else None
    if origin is None or origin.suffix not in (".so", ".pyd"):
        return None
    source = origin.parent / (origin.name.split(".")[0] + ".pyx")
    if not source.is_file():
        return None
    code = source.read_text(encoding="utf-8")
    starts = [(m.group(1), m.group(2), code.count("\n", 0, m.start()) + 1) for m in _TOP_LEVEL.finditer(code)]
    ends = [start - 1 for _, _, start in starts[1:]] + [code.count("\n") + 1]
    tags = {name: (kind, start, end) for (kind, name, start), end in zip(starts, ends, strict=True)}
    return code, tags


# ---------------------------------------------------------------- the built site's links
def _check_links(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    from sphinx.util import logging

    log = logging.getLogger("newmarket_env.docs.links")
    for problem in site_problems(app.outdir):
        log.warning("broken internal link: %s", problem)


def setup(app):
    app.connect("autodoc-process-docstring", _link_doc_paths)
    app.connect("viewcode-find-source", _compiled_source)
    app.connect("build-finished", _check_links)
