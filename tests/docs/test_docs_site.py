"""The docs site's pieces that ``make docs`` runs (docs/conf.py): the internal-link check of the built site,
the docstrings' docs/X.md citations made links, the compiled modules' source pages, wrapped code lines;
and ``env()``'s API entry naming every keyword the env takes."""

from __future__ import annotations

import importlib.util
import inspect
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

import newmarket_env
from newmarket_env.docs.links import site_problems
from newmarket_env.engine.choice import compiled_available

DOCS = Path(__file__).resolve().parents[2] / "docs"


def _conf():
    pytest.importorskip("sphinx")
    spec = importlib.util.spec_from_file_location("docs_conf", DOCS / "conf.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _page(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"<html><body>{body}</body></html>")


def test_the_link_check_finds_missing_pages_and_anchors_and_passes_the_rest(tmp_path):
    _page(tmp_path / "index.html", '<a href="api/envs.html#env">ok</a> <a href="https://example.org/x">other site</a>')
    _page(
        tmp_path / "api" / "envs.html", '<dt id="env">env</dt> <a href="../index.html">up</a> <a href="#env">here</a>'
    )
    _page(tmp_path / "_modules" / "index.html", '<a href="newmarket_env/engine/_batch.html">a module</a>')
    _page(tmp_path / "_modules" / "rules.html", '<a href="../api/envs.html#newmarket_env.Variant">[docs]</a>')
    _page(tmp_path / "page.html", '<img src="picture.png"> <link href="_static/custom.css"> <a href="sub/">sub</a>')
    problems = site_problems(tmp_path)
    assert problems == [
        "_modules/index.html: newmarket_env/engine/_batch.html (no such file)",
        "_modules/rules.html: ../api/envs.html#newmarket_env.Variant (no anchor 'newmarket_env.Variant' in envs.html)",
        "page.html: picture.png (no such file)",
        "page.html: _static/custom.css (no such file)",
        "page.html: sub/ (no such file)",
    ]


def test_docstrings_cite_the_pages_as_links_relative_to_the_page_they_are_on():
    conf = _conf()
    app = SimpleNamespace(env=SimpleNamespace(docname="api/envs"), srcdir=str(DOCS))
    lines = [
        "rules of docs/rules.md; the ids of ``docs/contract.md#actions`` and docs/training/results.md.",
        "not a page: docs/nothing.md, nor mydocs/rules.md",
    ]
    conf._link_doc_paths(app, "function", "x", None, {}, lines)
    assert lines[0] == (
        "rules of `docs/rules.md <../rules.html>`__; the ids of "
        "`docs/contract.md#actions <../contract.html#actions>`__ and "
        "`docs/training/results.md <../training/results.html>`__."
    )
    assert lines[1] == "not a page: docs/nothing.md, nor mydocs/rules.md"


@pytest.mark.skipif(not compiled_available(), reason="the compiled engine is not built")
def test_a_compiled_module_gets_its_cython_source_page():
    conf = _conf()
    code, tags = conf._compiled_source(None, "newmarket_env.engine._batch")
    kind, start, end = tags["TableBatch"]
    lines = code.splitlines()
    assert kind == "class" and lines[start - 1].startswith("cdef class TableBatch") and end > start
    assert conf._compiled_source(None, "newmarket_env.game.rules") is None  # Python: viewcode reads it itself


def test_long_code_lines_wrap_in_the_column():
    conf = _conf()
    assert "custom.css" in conf.html_css_files and "_static" in conf.html_static_path
    css = (DOCS / "_static" / "custom.css").read_text()
    assert re.search(r"\.highlight pre[^{]*\{[^}]*white-space:\s*pre-wrap", css)


def test_env_names_and_documents_every_keyword_the_env_takes():
    takes = inspect.signature(newmarket_env.raw_env.__init__).parameters
    named = inspect.signature(newmarket_env.env).parameters
    keywords = [name for name, p in takes.items() if name != "self" and p.kind is not p.VAR_KEYWORD]
    assert keywords and all(named[name].default == takes[name].default for name in keywords)
    documented = re.findall(r"^ {4}(\*\*)?(\w+):", inspect.getdoc(newmarket_env.env) or "", re.M)  # Args: entries
    assert [name for _, name in documented] == [*keywords, "overrides"]
