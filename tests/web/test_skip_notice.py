"""``make test`` says at its very end when the browser tests were skipped for want of chromium (conftest.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HANG_GUARD_S = 300  # only so a hung run fails instead of hanging; never an assertion on speed


def test_a_run_without_chromium_ends_by_saying_so_and_how_to_enable_it():
    environment = {**os.environ, "NEWMARKET_CHROMIUM": str(ROOT / "no-such-chromium")}
    # -n 2 as make test runs it: the skip happens in a worker and must reach the summary of the controller.
    # A quick module beside it, so that the run has a test that passes (a run of skips only exits with 5).
    modules = ["tests/web/test_browser.py", "tests/test_changelog.py"]
    command = [sys.executable, "-m", "pytest", "-n", "2", "-p", "no:cacheprovider", *modules]
    done = subprocess.run(command, cwd=ROOT, env=environment, capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    tail = done.stdout.strip().splitlines()[-4:]
    assert "browser tests skipped" in tail[0], tail
    assert "no-such-chromium" in tail[1] and "SKIPPED" in tail[1], tail
    assert tail[2] == "Enable them: apt-get install -y chromium (as root, or with sudo), then run make test again."
    assert "1 skipped" in tail[3], tail
