"""docs/own_agents.md's stable-baselines3 example runs as written (at a small budget) on the fast path, and
``newmarket export`` of its model prints what the page shows, the rules taken from the record beside it."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from newmarket_env.engine.choice import compiled_available

PAGE = Path(__file__).resolve().parents[2] / "docs" / "own_agents.md"
NEWMARKET = Path(sys.executable).parent / "newmarket"
HANG_GUARD_S = 600  # only so a hung run fails instead of hanging; never an assertion on speed


def sb3_example() -> str:
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    (block,) = [b for b in blocks if "MaskablePPO(" in b]
    return block


def test_the_example_trains_on_the_vector_env_through_the_adapter():
    block = sb3_example()
    assert "gymnasium.make_vec(" in block and "sb3_vec_env(" in block and "gymnasium.make(" not in block
    assert "save_model(model" in block  # the rules beside the model


@pytest.mark.skipif(not compiled_available(), reason="the fast path needs the compiled engine")
def test_the_example_runs_and_exports_as_the_page_shows(tmp_path):
    block = sb3_example().replace("model.learn(100_000)", "model.learn(2_048)")
    assert "model.learn(2_048)" in block
    done = subprocess.run(
        [sys.executable, "-c", block], cwd=tmp_path, capture_output=True, text=True, timeout=HANG_GUARD_S
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "mine.zip").is_file() and (tmp_path / "mine.rules.json").is_file()
    shown = re.search(r"\$ newmarket export mine.zip mine.npz.*\n(wrote mine.npz: .*)\n", PAGE.read_text()).group(1)
    exported = subprocess.run(
        [str(NEWMARKET), "export", "mine.zip", "mine.npz"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
    )
    assert exported.returncode == 0 and exported.stderr == "", exported.stderr
    assert exported.stdout.strip() == shown
