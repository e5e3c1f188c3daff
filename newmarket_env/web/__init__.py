"""The web app of ``newmarket serve``: play, watch and replay sessions in a browser.

Needs the ``web`` extra (``pip install "newmarket-env[web]"``: FastAPI and uvicorn);
nothing else in the package imports it. The page is one self-contained HTML file
(``static/index.html``, inline CSS and JS), so it works without internet.
"""

from __future__ import annotations

from typing import Any

WEB_EXTRA_HINT = 'pip install "newmarket-env[web]"'


def create_app(*args: Any, **kwargs: Any):
    """The FastAPI app (see :mod:`newmarket_env.web.app`); a clear error when the ``web`` extra is missing."""
    try:
        from newmarket_env.web.app import create_app as _create_app  # optional: needs FastAPI (web extra)
    except ModuleNotFoundError as err:
        raise ModuleNotFoundError(f"the web app needs {err.name!r}: {WEB_EXTRA_HINT}", name=err.name) from None
    return _create_app(*args, **kwargs)
