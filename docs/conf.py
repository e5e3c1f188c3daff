"""Sphinx configuration of the newmarket-env docs site (``make docs``: docs/_build/html).

Pages are MyST Markdown, as in Farama's PettingZoo and Gymnasium sites; the theme is Furo. The API
reference is generated from the docstrings by autodoc, so the package must be importable (``make docs``
builds in the project's ``.venv``). Warnings are errors (``-W`` in the Makefile): a broken link,
reference or include fails the build.
"""

from __future__ import annotations

import newmarket_env

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
html_static_path: list[str] = []
copybutton_prompt_text = r"^\$ |^>>> |^\.\.\. "
copybutton_prompt_is_regexp = True
