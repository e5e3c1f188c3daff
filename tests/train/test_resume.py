"""``--resume`` continues the run: the checkpoint's weights and step count, and logs that follow on.

A tiny real MaskablePPO run (configs/tiny_test.yaml: 2 envs x 64 steps = 128 steps a rollout, 256 in
all, a checkpoint every 128) is resumed twice through the command line:

1. with ``--total-steps`` equal to the checkpoint's steps: nothing is left to learn, so the saved agent
   must hold exactly the checkpoint's weights and step count, and no new training rows are logged;
2. with one rollout more: the first row the resumed run logs is at checkpoint + 128 steps, never a
   count restarted from zero, and every later row follows it.

Expected weights come from the checkpoint zip loaded by sb3-contrib itself, not from the run code.
"""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from newmarket_env.agents.saved import read_saved
from newmarket_env.train.cli import main

pytest.importorskip("sb3_contrib")

TINY = Path(__file__).resolve().parents[2] / "configs" / "tiny_test.yaml"
ROLLOUT = 2 * 64  # run.n_envs * ppo.n_steps of tiny_test.yaml
STEPS_COLUMN = "time/total_timesteps"


def _steps_rows(path: Path) -> list[int]:
    if not path.is_file():
        return []
    with open(path, newline="") as handle:
        return [int(float(row[STEPS_COLUMN])) for row in csv.DictReader(handle) if row.get(STEPS_COLUMN)]


def _eval_steps(path: Path) -> list[int]:
    if not path.is_file():
        return []
    with open(path, newline="") as handle:
        return [int(row["steps"]) for row in csv.DictReader(handle)]


def _newest_checkpoint(run: Path) -> tuple[int, Path]:
    found = [
        (int(m.group(1)), p)
        for p in (run / "checkpoints").glob("ppo_*_steps.zip")
        if (m := re.fullmatch(r"ppo_(\d+)_steps", p.stem))
    ]
    return max(found)


def _checkpoint_layers(path: Path) -> list[np.ndarray]:
    """The actor's weights in the checkpoint zip, as sb3-contrib loads them."""
    import torch
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(path, device="cpu")
    linears = [m for m in model.policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)]
    linears.append(model.policy.action_net)
    arrays = []
    for m in linears:
        arrays += [m.weight.detach().numpy(), m.bias.detach().numpy()]
    return arrays, int(model.num_timesteps)


def _new_rows(before: list[int], after: list[int]) -> list[int]:
    """The rows the resumed run logged: after the old ones when appended, all of them when rewritten."""
    return after[len(before) :] if after[: len(before)] == before else after


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("resume") / "run"
    assert main([str(TINY), "--out-dir", str(out), "--no-progress"]) == 0
    return out


def _resume(run: Path, total: int, copy_to: Path) -> Path:
    """Resume a copy of ``run`` (the fixture stays as trained) up to ``total`` steps."""
    shutil.copytree(run, copy_to)
    assert main([str(TINY), "--out-dir", str(copy_to), "--no-progress", "--resume", "--total-steps", str(total)]) == 0
    return copy_to


def test_resume_with_nothing_left_keeps_the_checkpoint_weights_and_steps(run, tmp_path):
    steps, checkpoint = _newest_checkpoint(run)
    assert steps == 256
    expected, saved_steps = _checkpoint_layers(checkpoint)
    assert saved_steps == steps
    progress_before = _steps_rows(run / "progress.csv")
    assert progress_before and max(progress_before) == steps

    resumed = _resume(run, steps, tmp_path / "resumed")
    metadata, layers = read_saved(resumed / "final.npz")
    assert metadata["training"]["steps"] == steps
    got = [a for layer in layers for a in layer]
    assert len(got) == len(expected)
    for a, b in zip(got, expected, strict=True):
        np.testing.assert_array_equal(a, b)
    # Nothing was learned, so the resumed run logged no training row of its own.
    assert _new_rows(progress_before, _steps_rows(resumed / "progress.csv")) == []


def test_the_first_logged_step_after_resume_follows_the_checkpoint(run, tmp_path):
    steps, _ = _newest_checkpoint(run)
    progress_before = _steps_rows(run / "progress.csv")
    evals_before = _eval_steps(run / "eval.csv")

    resumed = _resume(run, steps + ROLLOUT, tmp_path / "resumed")
    new = _new_rows(progress_before, _steps_rows(resumed / "progress.csv"))
    assert new == [steps + ROLLOUT]
    new_evals = _eval_steps(resumed / "eval.csv")[len(evals_before) :]
    assert new_evals and all(s > steps for s in new_evals)
    metadata, _ = read_saved(resumed / "final.npz")
    assert metadata["training"]["steps"] == steps + ROLLOUT
    final = json.loads((resumed / "final.json").read_text())
    assert final["training"]["steps"] == steps + ROLLOUT


def _counts(checkpoint: Path) -> tuple[int, int]:
    """The step and update counts in an SB3 zip's data (read as SB3 writes them)."""
    import zipfile

    with zipfile.ZipFile(checkpoint) as archive:
        data = json.loads(archive.read("data"))
    return data["num_timesteps"], data["_n_updates"]


def test_a_resumed_run_equals_an_uninterrupted_one(tmp_path):
    """``whole`` trains 384 steps with a checkpoint every 128; ``parts`` stops at 128 and is resumed to 384.
    At each checkpoint the tables start new sessions and every stream is seeded from (run.seed, steps)
    (train/ppo/learner.py), so the resumed run does what the whole one did after its checkpoint of 128:
    the same weights, bit for bit, the same step and update counts, against the same self-play snapshots."""
    common = [str(TINY), "--no-progress", "--set", "eval.every=0", "--set", "eval.final_sessions=1"]
    assert main([*common, "--out-dir", str(tmp_path / "whole"), "--total-steps", "384"]) == 0
    assert main([*common, "--out-dir", str(tmp_path / "parts"), "--total-steps", "128"]) == 0
    assert main([*common, "--out-dir", str(tmp_path / "parts"), "--total-steps", "384", "--resume"]) == 0
    whole, parts = (read_saved(tmp_path / d / "final.npz")[1] for d in ("whole", "parts"))
    for (w1, b1), (w2, b2) in zip(whole, parts, strict=True):
        np.testing.assert_array_equal(w1, w2)
        np.testing.assert_array_equal(b1, b2)
    for name in ("ppo_256_steps.zip", "ppo_384_steps.zip"):
        assert _counts(tmp_path / "whole" / "checkpoints" / name) == _counts(tmp_path / "parts" / "checkpoints" / name)
    assert _counts(tmp_path / "parts" / "checkpoints" / "ppo_384_steps.zip") == (384, 3)  # 3 rollouts, 1 epoch each
    snapshots = [sorted(p.name for p in (tmp_path / d / "snapshots").iterdir()) for d in ("whole", "parts")]
    assert snapshots[0] == snapshots[1] == ["snapshot_128.npz", "snapshot_256.npz", "snapshot_384.npz"]
