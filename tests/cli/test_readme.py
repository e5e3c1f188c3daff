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


def test_play_it_works_without_an_active_venv():
    """README's "Play it": make targets that need no activated venv, and the note that the commands do."""
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Play it", 1)[1].split("\n## ", 1)[0]
    assert "make play" in section and "make serve" in section
    assert ". .venv/bin/activate" in section and ".venv/bin/newmarket" in section
    # -o: never remake the venv here (a touched pyproject.toml would); PATH without the venv, as a fresh shell.
    environment = {"PATH": "/usr/bin:/bin", "HOME": str(REPO_ROOT)}
    make = ["make", "-s", "-o", ".venv/bin/.installed"]
    played = subprocess.run(
        [*make, "play"], input="q\n", capture_output=True, text=True, timeout=120, cwd=REPO_ROOT, env=environment
    )
    assert played.returncode == 0, played.stderr[-2000:]
    assert "You are" in played.stdout or "your choice" in played.stdout
    assert "session stopped in deal 1" in played.stdout
    served = subprocess.run([*make, "-n", "serve"], capture_output=True, text=True, cwd=REPO_ROOT, env=environment)
    assert served.stdout.strip() == ".venv/bin/newmarket serve", served.stdout
