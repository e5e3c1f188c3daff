"""The Python examples of README.md run as written (in a fresh process, so the registry stays clean)."""

from __future__ import annotations

import re
import subprocess
import sys

from newmarket_env.docs import REPO_ROOT


def test_readme_python_examples_run():
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", readme, re.S)
    # A block that is a fragment of a larger file (e.g. one entry of VARIANTS) does not start with an import.
    runnable = [b for b in blocks if b.startswith(("from ", "import "))]
    assert len(runnable) >= 4
    script = "\n\n".join(runnable)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=REPO_ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
