"""The training rows of ``newmarket bench``: the vector env row and the two MaskablePPO rows run and report."""

from __future__ import annotations

import pytest

from newmarket_env.engine.choice import FastGame
from newmarket_env.eval.bench import training
from newmarket_env.eval.bench.suite import BenchConfig, BenchResult
from newmarket_env.eval.bench.timing import Measurement

compiled = pytest.mark.skipif(FastGame is None, reason="the compiled engine is not built (needs a C compiler)")


@compiled
def test_vector_row_counts_learner_steps_and_sessions():
    play, note = training.vector_control()
    decisions, sessions = play(0)
    assert decisions == training.TABLES * training.STEPS_PER_CALL
    assert 0 < sessions < decisions  # every table decides several times a session
    assert "control" in note


@pytest.mark.slow
@compiled
def test_ppo_rows_run_a_rollout_and_its_update(monkeypatch):
    pytest.importorskip("sb3_contrib")
    monkeypatch.setattr(training, "PPO_TABLES", 8)
    monkeypatch.setattr(training, "PPO_STEPS", 16)
    play, note = training.ppo_batch()
    assert play(0) == (128, 1) and play(1) == (128, 1)
    assert "8 tables x 16 steps" in note
    play, note = training.ppo_single_agent()
    assert play(0) == (8 * 256, 1)
    assert "8 SingleAgentEnv (dummy) x 256 steps" in note


def test_ppo_rows_say_why_they_are_skipped_away_from_the_repository(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    for factory in (training.ppo_batch, training.ppo_single_agent):
        play, why = factory()
        assert play is None and why.startswith("skipped: configs/newmarket_ppo.yaml not found")


def row(name, rates):
    return Measurement(name, "x", rates[len(rates) // 2], 1.0, 1.0, repeats=[(r, 1.0) for r in rates])


def test_targets_are_the_median_ratio_of_rounds_and_the_vector_rate():
    result = BenchResult(BenchConfig(peers=()))
    result.rows = [
        row("vector_env newmarket control", [90_000.0, 120_000.0, 130_000.0]),
        row("ppo newmarket batch", [3000.0, 2000.0, 2500.0]),
        row("ppo newmarket single_agent", [1000.0, 1000.0, 200.0]),
    ]
    vector, ppo = training.training_targets(result)
    assert vector.value == 120_000.0 and vector.met
    assert ppo.value == 3.0 and not ppo.met  # rounds: 3x, 2x, 12.5x -> median 3x
    result.rows = [row("ppo newmarket batch", [3000.0])]
    assert training.training_targets(result) == []


@pytest.mark.slow
@compiled
def test_ppo_split_times_collection_and_updates_apart():
    pytest.importorskip("sb3_contrib")
    split = training.ppo_split("batch", 8, 16, rollouts=1)
    assert split["collect_ms"] > 0 and split["train_ms"] > 0
    assert split["per_s"] == pytest.approx(1e3 / (split["collect_ms"] + split["train_ms"]))
