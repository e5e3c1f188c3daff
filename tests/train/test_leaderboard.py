"""The algorithm leaderboard (train/leaderboard.py): runs of two methods compared at one wall-clock budget."""

import json
import os
import re
import shutil
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from newmarket_env.engine.choice import compiled_available
from newmarket_env.game.rules import make_rules
from newmarket_env.train.cli import main as train
from newmarket_env.train.leaderboard import main as leaderboard

from .tiny_run import train_tiny

pytestmark = pytest.mark.skipif(not compiled_available(), reason="Deep Monte-Carlo plays on the compiled engine")

TINY_DMC = Path(__file__).resolve().parents[2] / "configs" / "tiny_dmc.yaml"
RULES = make_rules("newmarket", 4, num_deals=1)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A tiny PPO run (snapshots at 128 and 256 decisions) and a tiny DMC run (checkpoints at 64 and 128)."""
    root = tmp_path_factory.mktemp("leaderboard")
    assert train_tiny(root / "ppo") == 0
    assert train([str(TINY_DMC), "--out-dir", str(root / "dmc"), "--no-progress"]) == 0
    return root


def _started(run_dir):
    text = json.loads((run_dir / "run.json").read_text())["started"]
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S%z").timestamp()


def _saved_at(path, run_dir, minutes):
    """Stamp ``path`` as saved ``minutes`` after its run started."""
    when = _started(run_dir) + 60 * minutes
    os.utime(path, (when, when))


@pytest.fixture
def timed(runs, tmp_path):
    """Copies of the runs whose checkpoints were saved at set minutes: PPO at 2 and 7, DMC at 4 and 12."""
    for name in ("ppo", "dmc"):
        shutil.copytree(runs / name, tmp_path / name)
    _saved_at(tmp_path / "ppo" / "snapshots" / "snapshot_128.npz", tmp_path / "ppo", 2)
    _saved_at(tmp_path / "ppo" / "snapshots" / "snapshot_256.npz", tmp_path / "ppo", 7)
    _saved_at(tmp_path / "dmc" / "checkpoints" / "dmc_64_steps.pt", tmp_path / "dmc", 4)
    _saved_at(tmp_path / "dmc" / "checkpoints" / "dmc_128_steps.pt", tmp_path / "dmc", 12)
    return tmp_path


def _arguments(timed, budget="10"):
    return [
        "--run",
        f"ppo={timed / 'ppo'}",
        "--run",
        f"dmc={timed / 'dmc'}",
        "--budget",
        budget,
        "--opponents",
        "random",
        "--points",
        "2",
        "--boards",
        "2",
        "--seed",
        "5",
        "--out",
        str(timed / "board"),
    ]


def test_each_method_is_measured_and_exported_at_its_last_checkpoint_within_the_budget(timed, capsys):
    from newmarket_env.agents.saved import load_saved_agent
    from newmarket_env.train.curve import network_at
    from newmarket_env.train.evaluate import duplicate_eval, saved_agent_maker

    assert leaderboard(_arguments(timed)) == 0
    summary = json.loads((timed / "board" / "leaderboard.json").read_text())
    # By hand: 10 minutes in 2 points = by 5 and by 10 minutes. PPO saved at 2 and 7: both; DMC saved at 4
    # and 12: only the first, which is also its network at the budget.
    assert [(r["label"], r["method"], r["steps"], r["minutes"]) for r in summary["runs"]] == [
        ("ppo", "ppo", 256, 7.0),
        ("dmc", "dmc", 64, 4.0),
    ]
    ppo_rows = (timed / "ppo" / "leaderboard.csv").read_text().splitlines()
    assert [line.split(",")[:2] for line in ppo_rows[1:]] == [["128", "random"], ["256", "random"]]
    # the PPO point is the snapshot file itself, measured independently of the leaderboard's code
    snapshot = load_saved_agent(timed / "ppo" / "snapshots" / "snapshot_256.npz", RULES)
    expected = duplicate_eval(
        saved_agent_maker(snapshot), "random", "newmarket", 4, boards=2, seed=5, rules={"num_deals": 1}
    )
    assert summary["runs"][0]["final"]["random"] == pytest.approx(expected.mean, abs=1e-12)
    # the exported DMC agent is the checkpoint's network: same logits on real observations
    from newmarket_env.train.config import load_config

    exported = load_saved_agent(timed / "board" / "dmc.npz", RULES)
    network = network_at(timed / "dmc", 64, load_config(timed / "dmc" / "config.yaml"))
    observations = np.random.default_rng(0).integers(0, 2, size=(20, exported.layers[0][0].shape[1]))
    np.testing.assert_allclose(
        exported.logits(observations.astype(np.float32)), network.logits(observations.astype(np.float32)), atol=1e-6
    )
    assert (timed / "board" / "leaderboard.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    out = capsys.readouterr().out
    assert f"--agents {timed / 'board' / 'ppo.npz'},{timed / 'board' / 'dmc.npz'}" in out


def test_a_second_call_measures_nothing_again(timed, capsys):
    measured = re.compile(r"^ +\d+ decisions  vs random", re.MULTILINE)  # the line of each new measurement
    assert leaderboard(_arguments(timed)) == 0
    assert len(measured.findall(capsys.readouterr().out)) == 3  # PPO at 2 points, DMC at 1
    before = (timed / "dmc" / "leaderboard.csv").read_bytes()
    assert leaderboard(_arguments(timed)) == 0
    assert measured.findall(capsys.readouterr().out) == []
    assert (timed / "dmc" / "leaderboard.csv").read_bytes() == before


@pytest.mark.parametrize(
    "change, message",
    [
        ("resumed", "was resumed; its checkpoint times would count the pause"),
        ("late", "saved no checkpoint within 3 minutes of its start"),
        ("rules", "the runs play different games"),
    ],
)
def test_runs_that_cannot_be_compared_are_refused_in_one_line_and_nothing_is_written(timed, capsys, change, message):
    budget = "10"
    if change == "resumed":
        run = json.loads((timed / "dmc" / "run.json").read_text())
        (timed / "dmc" / "run.json").write_text(json.dumps({**run, "resumed": ["2026-01-01T00:00:00+0000"]}))
    elif change == "late":
        budget = "3"
    else:
        config = (timed / "dmc" / "config.yaml").read_text()
        (timed / "dmc" / "config.yaml").write_text(config.replace("num_deals: 1", "num_deals: 2"))
    assert leaderboard(_arguments(timed, budget)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    assert not (timed / "board").exists()
    assert not (timed / "ppo" / "leaderboard.csv").exists() and not (timed / "dmc" / "leaderboard.csv").exists()


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--run", "ppo", "--budget", "5", "--out", "x"], "--run 'ppo' is not LABEL=RUN_DIR"),
        (["--run", "a=x", "--run", "a=y", "--budget", "5", "--out", "x"], "--run labels repeat (a, a)"),
        (["--run", "a=x", "--budget", "0", "--out", "x"], "--budget 0 is not allowed; allowed: more than 0 minutes"),
        (
            ["--run", "a=x", "--budget", "5", "--points", "0", "--out", "x"],
            "--points 0 is not allowed; allowed: 1 or more",
        ),
        (
            ["--run", "a=x", "--budget", "5", "--opponents", "wizard", "--out", "x"],
            "unknown opponent 'wizard'; allowed:",
        ),
    ],
)
def test_command_line_errors_are_one_line(tmp_path, capsys, monkeypatch, arguments, message):
    monkeypatch.chdir(tmp_path)
    try:
        code = leaderboard(arguments)
    except SystemExit as stop:  # argparse's own errors
        code = stop.code
    assert code == 2
    assert message in capsys.readouterr().err.strip().splitlines()[-1]
    assert list(tmp_path.iterdir()) == []


def test_the_curve_measures_a_ppo_run_at_its_snapshots(runs, tmp_path, capsys):
    from newmarket_env.train.curve import main as curve
    from newmarket_env.train.curve import read_rows

    run = tmp_path / "ppo"
    shutil.copytree(runs / "ppo", run)
    assert curve([str(run), "--opponents", "random", "--every", "1", "--boards", "2", "--seed", "5"]) == 0
    assert [(r["steps"], r["opponent"]) for r in read_rows(run / "curve.csv")] == [("128", "random"), ("256", "random")]
    shutil.rmtree(run / "snapshots")
    (run / "snapshots").mkdir()
    capsys.readouterr()
    assert curve([str(run), "--opponents", "random"]) == 2
    assert (
        capsys.readouterr().err.strip()
        == f"error: {run / 'snapshots'} holds no snapshot_<steps>.npz (PPO's self-play snapshots)"
    )


def test_the_runs_script_trains_each_method_for_the_budget_without_periodic_evaluation(tmp_path):
    import subprocess
    import sys

    import yaml

    root = Path(__file__).resolve().parents[2]
    environment = {**os.environ, "LEADERBOARD_OUT": str(tmp_path), "PYTHON": sys.executable}
    script = [str(root / "scripts" / "leaderboard_runs.sh"), "0.05", "tiny:dmc", "tiny:exit"]
    done = subprocess.run(script, cwd=root, env=environment, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert sorted(done.stdout.split("\n")) == ["", "done: tiny_dmc", "done: tiny_exit"]
    for name in ("tiny_dmc", "tiny_exit"):
        config = yaml.safe_load((tmp_path / name / "config.yaml").read_text())
        assert (config["run"]["max_minutes"], config["eval"]["every"]) == (0.05, 0)
        assert (tmp_path / name / "final.npz").is_file()
    wrong = subprocess.run([*script[:2], "tiny:wizard"], cwd=root, env=environment, capture_output=True, text=True)
    assert wrong.returncode == 2
    assert (
        wrong.stderr
        == "error: no config configs/tiny_wizard.yaml for tiny:wizard; give VARIANT:METHOD, e.g. newmarket:dmc\n"
    )
