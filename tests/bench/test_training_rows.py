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


@pytest.mark.slow
@compiled
def test_the_tutorial_row_trains_as_the_script_does():
    """One call: one rollout of the script's full size and its update, at the script's torch threads, whatever
    another row set before it."""
    pytest.importorskip("sb3_contrib")
    import torch

    script = training.tutorial_script()
    assert script is not None and script.__file__.endswith(training.TUTORIAL)
    play, note = training.ppo_tutorial()
    before = torch.get_num_threads()
    try:
        torch.set_num_threads(3)  # as if the row before had left torch at 3 threads
        assert play(0) == (script.FULL.tables * script.FULL.n_steps, 1)
        assert torch.get_num_threads() == script.TORCH_THREADS
    finally:
        torch.set_num_threads(before)
    assert f"{script.FULL.tables} tables x {script.FULL.n_steps} steps" in note


def test_the_tutorial_row_says_why_it_is_skipped_without_the_script(monkeypatch):
    monkeypatch.setattr(training, "TUTORIAL", "examples/tutorials/no_such_script.py")
    play, why = training.ppo_tutorial()
    assert play is None and why.startswith("skipped: examples/tutorials/no_such_script.py is not beside")


def test_the_naive_row_keeps_every_sb3_default():
    """Built, not timed here (one call is a 2048-step rollout and 320 gradient steps): the defaults it times
    are SB3's own, read from MaskablePPO's signature."""
    import inspect

    sb3_contrib = pytest.importorskip("sb3_contrib")
    defaults = {name: p.default for name, p in inspect.signature(sb3_contrib.MaskablePPO.__init__).parameters.items()}
    play, note = training.ppo_sb3_defaults()
    assert callable(play)
    assert f"{defaults['n_steps']} steps a rollout, minibatch {defaults['batch_size']}" in note
    assert f"{defaults['n_epochs']} epochs, torch {training.torch_default_threads()} threads" in note


def test_the_tutorial_targets_are_paired_ratios_of_the_same_rounds():
    result = BenchResult(BenchConfig(peers=()))
    result.rows = [
        row("ppo newmarket batch", [2000.0, 2500.0, 3000.0]),
        row("ppo newmarket tutorial", [3000.0, 2000.0, 6000.0]),
        row("ppo newmarket sb3 defaults", [100.0, 400.0, 500.0]),
    ]
    project, naive = training.training_targets(result)
    assert project.name.endswith("/ ppo newmarket batch") and project.value == 1.5 and project.met  # 1.5, 0.8, 2
    assert naive.value == 12.0 and naive.met  # 30, 5, 12 -> 12
    result.rows = [row("ppo newmarket tutorial", [3000.0])]
    assert training.training_targets(result) == []


def test_rows_can_be_chosen_and_the_naive_row_only_by_name():
    from newmarket_env.eval.bench.suite import _workloads, run_benchmark

    def names(**options):
        return [name for name, *_ in _workloads(BenchConfig(peers=(), **options))]

    assert "ppo newmarket tutorial" in names() and "ppo newmarket sb3 defaults" not in names()
    assert "ppo newmarket sb3 defaults" in names(rows=("ppo newmarket sb3 defaults",))
    with pytest.raises(ValueError, match=r"unknown row 'ppo'; allowed: engine newmarket, .*ppo newmarket sb3 defaults"):
        BenchConfig(rows=("ppo",))
    result = run_benchmark(BenchConfig(rows=("engine michigan",), seconds=0.001, repeats=1, memory_envs=0, peers=()))
    assert [r.name for r in result.rows] == ["engine michigan"] and result.notes == []


def test_the_command_refuses_an_unknown_row(capsys):
    from newmarket_env.eval.bench.cli import main

    assert main(["--rows", "ppo newmarket fast"]) == 2
    assert "unknown row 'ppo newmarket fast'; allowed:" in capsys.readouterr().err


def test_the_scaling_targets_are_paired_ratios_of_their_rows():
    """Each issue-39 figure is the median of per-round ratios of its two rows; the absolute MaskablePPO
    figure is twice the rate measured before sparse input."""
    from newmarket_env.eval.bench import scaling

    result = BenchResult(BenchConfig(peers=()))
    result.rows = [
        row("vector_env newmarket control, 1 thread", [100.0, 100.0, 100.0]),
        row("vector_env newmarket control, 2 threads", [150.0, 170.0, 190.0]),  # 1.5, 1.7, 1.9 -> 1.7
        row("ppo newmarket batch sparse", [9_000.0, 11_000.0, 12_000.0]),
        row("ppo newmarket batch dense", [5_000.0, 5_000.0, 5_000.0]),  # 1.8, 2.2, 2.4 -> 2.2 (rate: the middle one)
    ]
    threads, ppo, rate = scaling.scaling_targets(result)
    assert threads.value == pytest.approx(1.7) and threads.met and threads.goal == ">= 1.6x"
    assert ppo.value == pytest.approx(2.2) and ppo.met
    assert rate.value == 11_000.0 and rate.met and rate.goal == ">= 10,396"  # 2 x 5,198
    result.rows = result.rows[:1]
    assert scaling.scaling_targets(result) == []


@compiled
def test_the_cores_ceiling_runs_the_vector_workload_in_each_process_at_once(capsys):
    from newmarket_env.eval.bench import cores

    rates = cores.together(2, 0.3)
    assert len(rates) == 2 and all(rate > 0 for rate in rates)
    assert cores.main(["--seconds", "0.3", "--rounds", "1", "--processes", "2"]) == 0
    printed = capsys.readouterr().out
    assert "round 1: one process" in printed and "median: 2 processes at once =" in printed
    with pytest.raises(SystemExit):
        cores.main(["--processes", "1"])
