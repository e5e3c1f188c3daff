"""Tutorial 2, examples/tutorials/train_maskable_ppo.py, run as a user runs it, at its ``--quick`` size.

Real SB3 training on the vector env, a real export and a real duplicate tournament against ``greedy``; the
outputs are then read back by other means: SB3's own ``MaskablePPO.load``, the project's ``load_agent``, and a
fresh vector env whose observations both must answer alike.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from newmarket_env.engine.choice import FastGame

pytestmark = pytest.mark.skipif(FastGame is None, reason="the compiled engine is not built (needs a C compiler)")
sb3_contrib = pytest.importorskip("sb3_contrib")

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "examples" / "tutorials" / "train_maskable_ppo.py"
PLAYERS = 4  # the tutorial's table: the agent and three greedy seats, every rotation of them per deal block


def script_module():
    spec = importlib.util.spec_from_file_location("tutorial_train_maskable_ppo", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("tutorial")
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--out", str(out)], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return out, done


def test_the_quick_run_trains_and_plays_the_tournament(quick_run):
    out, done = quick_run
    quick = script_module().QUICK
    results = json.loads((out / "results.json").read_text())
    assert json.loads(done.stdout[done.stdout.index("{") :]) == results  # what it prints is what it saved
    training = results["training"]
    rollout = quick.tables * quick.n_steps
    assert training["decisions"] == quick.steps and quick.steps % rollout == 0  # whole rollouts, as many as asked
    assert training["decisions_per_s"] > 0
    match = results["vs_greedy"]
    assert match["sessions"] == quick.blocks * PLAYERS  # every block replayed in the 4 rotations
    assert match["deals"] > 0
    chips = match["chips_per_deal"]
    assert chips["low"] <= chips["mean"] <= chips["high"]
    assert len(match["minus_each_greedy"]) == PLAYERS - 1


def test_the_fast_path_does_not_warn_about_threads(quick_run):
    """The script sets torch's threads before building the env, so ``sb3_vec_env`` has nothing to warn about."""
    assert "torch runs" not in quick_run[1].stderr


def test_the_exported_agent_plays_as_the_saved_model(quick_run):
    """agent.npz (the project's format) and model.zip (SB3's) choose the same actions on fresh observations."""
    from newmarket_env import load_agent, vector_env

    out, _ = quick_run
    record = json.loads((out / "model.rules.json").read_text())  # save_model's record of the rules it learned
    assert record["variant"] == "newmarket" and record["rules"]["num_players"] == PLAYERS
    model = sb3_contrib.MaskablePPO.load(out / "model.zip", device="cpu")
    envs = vector_env(variant="newmarket", num_players=PLAYERS, num_envs=64, opponents=["random"], seed=3)
    agent = load_agent(str(out / "agent.npz"), env=envs)
    assert agent.metadata["activation"] == "tanh"  # SB3's MlpPolicy default, read from the model
    assert agent.metadata["training"]["decisions"] > 0
    obs, _ = envs.reset(seed=3)
    chosen = []
    for _ in range(4):
        masks = envs.action_masks()
        expected, _ = model.predict(obs, action_masks=masks, deterministic=True)
        mine = [
            agent.act({"observation": o, "action_mask": m.astype(np.int8)}) for o, m in zip(obs, masks, strict=True)
        ]
        assert mine == expected.tolist()
        chosen += mine
        obs, *_ = envs.step(expected)
    assert len(set(chosen)) > 3  # many different decisions were compared, not one repeated answer
