"""Tutorial 6 (examples/tutorials/scale_out.py) on a real two-node Ray cluster, at a small size."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ray", reason="Ray is not installed (pip install 'newmarket-env[ray]')")

from newmarket_env.engine.choice import compiled_available

pytestmark = pytest.mark.skipif(not compiled_available(), reason="labelling needs the compiled engine")

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "tutorials" / "scale_out.py"


def test_the_scale_out_tutorial_runs_on_the_cluster(ray_cluster, capsys):
    spec = importlib.util.spec_from_file_location("tutorial_scale_out", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    # The script asserts itself that the Ray standings and labels equal the local ones.
    out = module.main(["--blocks", "2", "--states", "40", "--iterations", "1", "--batch-size", "128"])
    assert sorted(out["standings"]) == ["control", "greedy", "random", "random#2"]
    assert abs(sum(out["standings"].values())) < 1e-9  # chips only move between the seats
    assert len(out["labels"]) >= 40 and np.all((out["labels"] >= 0) & (out["labels"] < 79))
    assert out["rllib"][0]["illegal_actions"] == 0 and out["rllib"][0]["env_steps"] > 0
    assert "tournament on Ray" in capsys.readouterr().out
