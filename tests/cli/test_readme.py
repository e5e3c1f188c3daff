"""The Python examples of README.md and of the docs' guide pages run as written.

Each page's blocks run in one fresh process (so the registry stays clean), in order, as a reader who
copies them one after another would run them. A block that is a fragment of a larger file (e.g. one
entry of VARIANTS) does not start with an import and is skipped.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from newmarket_env.docs.generate import REPO_ROOT

PAGES = [
    "README.md",
    "docs/index.md",
    *sorted(str(p.relative_to(REPO_ROOT)) for p in (REPO_ROOT / "docs" / "guide").glob("*.md")),
]


def runnable_blocks(page: str) -> list[str]:
    text = (REPO_ROOT / page).read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    return [b for b in blocks if b.startswith(("from ", "import "))]


def test_the_pages_hold_examples():
    assert len(runnable_blocks("README.md")) >= 1
    assert sum(len(runnable_blocks(page)) for page in PAGES) >= 8


@pytest.mark.parametrize("page", [p for p in PAGES if runnable_blocks(p)])
def test_python_examples_run(page):
    script = "\n\n".join(runnable_blocks(page))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=REPO_ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
