"""Every tutorial script runs, at a small size, and its figures hold what the rules say they must.

The pages under docs/tutorials/ include these scripts whole and show their full-size output; here they
run with real engines, real torch and a real tournament, only smaller.
"""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from newmarket_env import make_rules
from newmarket_env.engine.choice import compiled_available


def test_the_environment_in_ten_lines(tutorial, tmp_path, capsys):
    won = tutorial("env_in_ten_lines").main(["--picture", str(tmp_path / "table.png")])
    # Newmarket only moves chips between players: what the seats won sums to zero, and someone won.
    assert sum(won.values()) == 0 and max(won.values()) > 0
    picture = np.asarray(Image.open(tmp_path / "table.png"))
    assert picture.shape == (640, 960, 3) and len(np.unique(picture.reshape(-1, 3), axis=0)) > 10
    assert "chips won over the session" in capsys.readouterr().out


def test_the_heuristic_agent_leads_the_card_it_can_follow_longest(tutorial):
    module = tutorial("heuristic_agent")
    agent = module.RunAgent(make_rules("newmarket"), seed=0)
    hand = np.zeros(52, dtype=np.float32)
    # Worked by hand: it holds the 2, 3 and 4 of clubs (ids 1-3) and the 9 and 10 of hearts (ids 34, 35).
    # Of the legal leads 2C, 9H and 10H, the 2C has two cards of its own above it, the 9H one, the 10H none.
    hand[[1, 2, 3, 34, 35]] = 1
    mask = np.zeros(79, dtype=np.int8)
    mask[[1, 34, 35]] = 1
    assert agent.act({"observation": hand, "action_mask": mask}) == 1
    mask[1] = 0
    assert agent.act({"observation": hand, "action_mask": mask}) == 34
    only_keep = np.zeros(79, dtype=np.int8)
    only_keep[[52, 53]] = 1  # a widow decision: not a card, the first legal action (keep)
    assert agent.act({"observation": hand, "action_mask": only_keep}) == 52


def test_the_heuristic_agent_enters_a_tournament(tutorial, capsys):
    standings = tutorial("heuristic_agent").main(["--blocks", "3"])
    assert sorted(row["agent"] for row in standings) == ["greedy", "lowest", "random", "run"]
    assert all(row["games"] == 12 for row in standings)  # 3 blocks x 4 rotations, every agent in every game
    assert sum(row["chips_per_deal"]["mean"] for row in standings) == pytest.approx(0.0, abs=1e-9)
    assert "run" in capsys.readouterr().out


def test_the_heuristic_agent_enters_from_the_command_line_by_reference(tmp_path):
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    folder = Path(__file__).resolve().parents[2] / "examples" / "tutorials"
    command = [sys.executable, "-m", "newmarket_env.cli", "tournament", "--agents"]
    command += [
        "heuristic_agent:RunAgent,greedy,random,lowest",
        "--blocks",
        "2",
        "--out",
        str(tmp_path / "t"),
        "--quiet",
    ]
    done = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(folder)})
    assert done.returncode == 0, done.stderr
    standings = json.loads((tmp_path / "t" / "results.json").read_text())["standings"]
    assert "heuristic_agent:RunAgent" in {row["agent"] for row in standings}


@pytest.mark.skipif(not compiled_available(), reason="the batch API needs the compiled engine")
def test_self_play_on_the_batch(tutorial, capsys):
    figures = tutorial("self_play_batch").main(
        ["--tables", "16", "--iterations", "2", "--decisions", "8", "--eval-sessions", "32"]
    )
    assert figures["decisions per second"] > 0
    for key in ("before vs random", "after vs random", "before vs greedy", "after vs greedy"):
        mean, half_width = figures[key]
        assert abs(mean) < 40 and 0 < half_width < 40  # chips per deal of a 40-chip player
    assert "self-play:" in capsys.readouterr().out
