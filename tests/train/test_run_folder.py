"""A run folder belongs to one run; --resume continues that run and loses nothing.

Real tiny trainings (configs/tiny_test.yaml, no warm start): a run killed with SIGKILL, a truncated
checkpoint, a foreign checkpoint, a changed config, a second run into the same folder.
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from newmarket_env import env, load_agent
from newmarket_env.train.cli import PROG, main
from tests.train.tiny_run import FAST, HANG_GUARD_S, TINY, folder_files, train_tiny

pytestmark = pytest.mark.slow  # about 1.5 minutes of tiny trainings


def _one_error(capsys, *words):
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"{PROG}: error: "), err
    for word in words:
        assert word in err, err
    return err


def test_a_second_run_into_the_folder_is_refused_unless_overwrite(run, capsys):
    before = folder_files(run)
    assert train_tiny(run) == 2
    _one_error(capsys, "already holds a run", "--resume", "--overwrite")
    assert folder_files(run) == before
    old_id = json.loads((run / "run.json").read_text())["run_id"]
    (run / "notes.txt").write_text("mine")  # not a run output: --overwrite leaves it alone
    assert train_tiny(run, "--overwrite", "--total-steps", "128") == 0
    assert json.loads((run / "run.json").read_text())["run_id"] != old_id
    assert sorted(p.name for p in (run / "checkpoints").glob("*.zip")) == ["ppo_128_steps.zip"]
    assert (run / "notes.txt").read_text() == "mine"


@pytest.mark.parametrize(
    "change,words",
    [
        (["--set", "ppo.net_arch=[16]"], ["ppo.net_arch (run [32], now [16])"]),
        (["--set", "env.variant=michigan"], ["env.variant (run 'newmarket', now 'michigan')"]),
    ],
)
def test_resume_with_another_config_is_refused_naming_the_differences(run, capsys, change, words):
    before = folder_files(run)
    assert train_tiny(run, "--resume", "--total-steps", "384", *change) == 2
    _one_error(capsys, "--resume: the config differs from the run", *words)
    assert folder_files(run) == before  # config.yaml not rewritten


def test_resume_in_a_folder_without_a_run_or_unwritable_is_one_line(tmp_path, capsys):
    assert train_tiny(tmp_path / "empty", "--resume") == 2
    _one_error(capsys, "holds no run to continue")
    assert not (tmp_path / "empty").exists()
    assert train_tiny("/proc/newmarket-run") == 2
    _one_error(capsys, "run.out_dir '/proc/newmarket-run' is not writable")


def test_a_truncated_newest_checkpoint_falls_back_to_the_previous_one(run, capsys):
    newest = run / "checkpoints" / "ppo_256_steps.zip"
    newest.write_bytes(newest.read_bytes()[:1000])  # killed while saving, in an old version: cut short
    assert train_tiny(run, "--resume", "--total-steps", "384") == 0
    out = capsys.readouterr().out
    assert "--resume: skipped ppo_256_steps.zip is damaged" in out
    assert "resuming from ppo_128_steps.zip (128 learner decisions)" in out
    assert json.loads((run / "run.json").read_text())["resumed"][0]["at_steps"] == 128


def test_a_checkpoint_of_another_run_is_never_resumed(run, finished, tmp_path, capsys):
    other = tmp_path / "other"
    assert train_tiny(other, "--total-steps", "512", "--set", "run.checkpoint_every=512") == 0
    for suffix in (".zip", ".json"):  # the other run's newer checkpoint, copied in
        shutil.copy(other / "checkpoints" / f"ppo_512_steps{suffix}", run / "checkpoints")
    capsys.readouterr()
    assert train_tiny(run, "--resume", "--total-steps", "384") == 0
    out = capsys.readouterr().out
    assert "skipped ppo_512_steps.zip belongs to another run" in out and "resuming from ppo_256_steps.zip" in out


def _progress_rows(folder: Path) -> list[dict[str, str]]:
    with open(folder / "progress.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def _steps_logged(folder: Path) -> list[int]:
    try:
        return [int(row["time/total_timesteps"]) for row in _progress_rows(folder)]
    except (OSError, KeyError, ValueError):  # not written yet, or a row being written
        return []


def _checkpoint_steps(folder: Path) -> list[int]:
    return [json.loads(p.read_text())["steps"] for p in (folder / "checkpoints").glob("ppo_*_steps.json")]


def test_resume_after_kill_9_keeps_every_log_row_up_to_its_checkpoint(tmp_path):
    out = tmp_path / "killed"
    # A log row every 128 steps (one rollout), a checkpoint every 256: killed once a row was logged after
    # the newest checkpoint, the folder holds rows the resumed run must replace.
    settings = ["--set", "eval.every=0", "--set", "run.checkpoint_every=256"]
    command = [
        sys.executable,
        "-m",
        "newmarket_env.train",
        str(TINY),
        "--out-dir",
        str(out),
        *FAST,
        "--total-steps",
        "100000",
        *settings,
    ]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        waited = 0.0
        while True:  # an ordering wait, not a speed check
            stamps = _checkpoint_steps(out) if (out / "checkpoints").is_dir() else []
            if len(stamps) >= 2 and max(_steps_logged(out) or [0]) > max(stamps):
                break
            assert process.poll() is None and waited < HANG_GUARD_S
            time.sleep(0.1)
            waited += 0.1
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    before = _progress_rows(out)
    resumed_at = max(_checkpoint_steps(out))
    kept = [row for row in before if int(row["time/total_timesteps"]) <= resumed_at]
    assert len(kept) >= 2 and len(kept) < len(before)  # rows on both sides of the checkpoint

    assert (
        main([str(TINY), "--out-dir", str(out), *FAST, "--resume", "--total-steps", str(resumed_at + 256), *settings])
        == 0
    )
    after = _progress_rows(out)
    steps = [int(row["time/total_timesteps"]) for row in after]
    assert steps == sorted(set(steps)) and steps[-1] >= resumed_at + 256  # one run: no repeated or lost steps
    assert after[: len(kept)] == kept  # every row up to the checkpoint, as it was


def test_the_run_says_what_it_did_and_names_its_agent(tmp_path, capsys):
    out = tmp_path / "run"
    assert train_tiny(out, "--max-minutes", "0.00001") == 0
    printed = capsys.readouterr().out
    assert "stopped by run.max_minutes = 1e-05 after" in printed and "of 256 learner decisions" in printed
    assert "final evaluation of tiny_test vs random: " in printed and "over 2 deal sets, seats rotated" in printed
    # The final evaluation is not one more periodic point of eval.csv (sessions=1 there, 2 in the final).
    with open(out / "eval.csv", newline="") as handle:
        assert {row["boards"] for row in csv.DictReader(handle)} == {"1"}
    assert json.loads((out / "final_eval.json").read_text())[0]["boards"] == 2
    agent = load_agent(str(out / "final.npz"), env=env(variant="newmarket", num_players=4, num_deals=1))
    assert agent.name == "tiny_test"
    from newmarket_env.eval.tournament.entrants import make_entrants

    assert make_entrants([str(out / "final.npz")], {})[0].label == "tiny_test"  # a tournament shows it so too


def test_set_overrides_config_keys_and_refuses_unknown_ones(tmp_path, capsys):
    assert train_tiny(tmp_path / "a", "--set", "ppo.nope=1") == 2
    _one_error(capsys, "unknown config key 'ppo.nope'")
    assert train_tiny(tmp_path / "b", "--set", "ppo.net_arch=[0]") == 2
    _one_error(capsys, "ppo.net_arch = [0] is not allowed")
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_the_documented_fine_tuning_stage_is_a_resume_of_the_same_run():
    from newmarket_env.train.config import load_config
    from newmarket_env.train.rundir import config_differences

    configs = TINY.parent
    for variant in ("newmarket", "michigan"):
        first = load_config(configs / f"{variant}_ppo.yaml").to_dict()
        second = load_config(configs / f"{variant}_ppo_finetune.yaml").to_dict()
        assert first != second and config_differences(first, second) == []
