"""Issue 17: checkpoints (schedule, stamps, which one a resume takes), the logs a resume trims and
continues, the learning curve's input, and the duplicate evaluation's statistics, worked by hand.
"""

from __future__ import annotations

import csv
import json
import math

import pytest

from newmarket_env.engine.choice import FastGame
from newmarket_env.game.rules import make_rules

pytest.importorskip("sb3_contrib")
needs_compiled = pytest.mark.skipif(FastGame is None, reason="the compiled engine is not built (needs a C compiler)")


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    from newmarket_env.train.config import config_from_dict
    from newmarket_env.train.ppo.learner import build_model, build_vec_env

    out = tmp_path_factory.mktemp("model")
    cfg = config_from_dict(
        {
            "ppo": {"n_steps": 8, "batch_size": 8, "net_arch": [8]},
            "run": {"n_envs": 1, "vec_env": "dummy", "out_dir": str(out)},
            "eval": {"every": 0},
        }
    )
    return build_model(cfg, build_vec_env(cfg))


def test_save_checkpoint_stamps_run_steps_size_and_digest(model, tmp_path):
    import hashlib

    from newmarket_env.train.ppo.checkpoints import save_checkpoint
    from newmarket_env.train.ppo.method import METHOD

    find_checkpoint = METHOD.find_checkpoint

    model.num_timesteps = 40
    path = save_checkpoint(model, tmp_path / "c", "run-a")
    assert path == tmp_path / "c" / "ppo_40_steps.zip"
    stamp = json.loads(path.with_suffix(".json").read_text())
    assert stamp == {
        "run_id": "run-a",
        "steps": 40,
        "bytes": path.stat().st_size,
        "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
    }
    listed = sorted(p.name for p in (tmp_path / "c").iterdir())
    assert listed == ["ppo_40_steps.json", "ppo_40_steps.rules.json", "ppo_40_steps.zip"]
    # Beside it, the rules it learned (the config's defaults: newmarket's preset), for newmarket export to check.
    record = json.loads((tmp_path / "c" / "ppo_40_steps.rules.json").read_text())
    assert record["variant"] == "newmarket" and record["rules"] == make_rules("newmarket").to_dict()
    assert record["sha256"] == stamp["sha256"]
    found = find_checkpoint(tmp_path / "c", "run-a")
    assert (found.path, found.steps, found.skipped) == (path, 40, [])


def test_find_checkpoint_takes_the_newest_intact_one_of_its_run_and_says_why_others_were_skipped(model, tmp_path):
    from newmarket_env.train.ppo.checkpoints import save_checkpoint
    from newmarket_env.train.ppo.method import METHOD

    find_checkpoint = METHOD.find_checkpoint

    folder = tmp_path / "c"
    for steps in (8, 16, 24, 32, 100):
        model.num_timesteps = steps
        save_checkpoint(model, folder, "run-a")
    (folder / "ppo_100_steps.json").unlink()  # killed while saving
    stamp = json.loads((folder / "ppo_32_steps.json").read_text())
    (folder / "ppo_32_steps.json").write_text(json.dumps({**stamp, "run_id": "run-b"}))
    with open(folder / "ppo_24_steps.zip", "ab") as handle:
        handle.write(b"x")  # damaged later
    stamp = json.loads((folder / "ppo_16_steps.json").read_text())
    (folder / "ppo_16_steps.json").write_text(json.dumps({**stamp, "steps": 8}))  # a stamp of another step
    (folder / "ppo_9_steps.zip.bak").write_text("")
    (folder / "ppo_x_steps.zip").write_text("")
    found = find_checkpoint(folder, "run-a")
    assert found.path == folder / "ppo_8_steps.zip" and found.steps == 8
    assert found.skipped == [
        "ppo_100_steps.zip has no readable stamp (it was not finished, or is from an older version)",
        "ppo_32_steps.zip belongs to another run",
        "ppo_24_steps.zip is damaged (its size or checksum differs from when it was saved)",
        "ppo_16_steps.zip belongs to another run",
    ]
    none = find_checkpoint(folder, "run-c")
    assert none.path is None and none.steps == 0 and len(none.skipped) == 5
    assert find_checkpoint(tmp_path / "missing", "run-a").path is None


def test_a_checkpoint_of_the_same_size_but_other_bytes_is_damaged(model, tmp_path):
    from newmarket_env.train.ppo.checkpoints import save_checkpoint
    from newmarket_env.train.ppo.method import METHOD

    find_checkpoint = METHOD.find_checkpoint

    model.num_timesteps = 8
    path = save_checkpoint(model, tmp_path, "r")
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))
    assert find_checkpoint(tmp_path, "r").skipped == [
        "ppo_8_steps.zip is damaged (its size or checksum differs from when it was saved)"
    ]


# ---------------------------------------------------------------- logs


def _write(path, rows):
    with open(path, "w", newline="") as handle:
        csv.writer(handle, lineterminator="\n").writerows(rows)


def _read(path):
    with open(path, newline="") as handle:
        return list(csv.reader(handle))


def test_keep_rows_up_to_drops_later_and_cut_rows_only(tmp_path):
    from newmarket_env.train.logs import keep_rows_up_to

    path = tmp_path / "p.csv"
    _write(path, [["a", "steps"], ["x", "10"], ["y", "20"], ["z", "30"], ["w", "20.5"], ["cut"]])
    keep_rows_up_to(path, "steps", 20)
    assert _read(path) == [["a", "steps"], ["x", "10"], ["y", "20"]]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.csv"]  # no temporary left
    before = path.read_bytes()
    keep_rows_up_to(path, "steps", 20)  # nothing to drop: untouched
    keep_rows_up_to(path, "other", 0)  # no such column: untouched
    assert path.read_bytes() == before
    keep_rows_up_to(tmp_path / "missing.csv", "steps", 0)
    assert not (tmp_path / "missing.csv").exists()
    (tmp_path / "empty.csv").write_text("")
    keep_rows_up_to(tmp_path / "empty.csv", "steps", 0)
    assert (tmp_path / "empty.csv").read_text() == ""


def test_a_resumed_logger_continues_progress(tmp_path):
    from newmarket_env.train.logs import keep_rows_up_to
    from newmarket_env.train.ppo.logs import STEPS_COLUMN, configure_logger

    first = configure_logger(tmp_path, resumed=False)
    for steps in (8, 16, 24):
        first.record("time/total_timesteps", steps)
        first.record("train/loss", steps / 8)
        first.dump(steps)
    first.close()
    _write(tmp_path / "eval.csv", [["steps", "mean"], ["0", "1"], ["16", "2"], ["24", "3"]])
    keep_rows_up_to(tmp_path / "progress.csv", STEPS_COLUMN, 16)  # what the run loop does on --resume at 16
    keep_rows_up_to(tmp_path / "eval.csv", "steps", 16)
    again = configure_logger(tmp_path, resumed=True)
    again.record("time/total_timesteps", 24)
    again.record("train/loss", 9.0)
    again.dump(24)
    again.close()
    rows = _read(tmp_path / "progress.csv")
    header = rows[0]
    assert sorted(header) == ["time/total_timesteps", "train/loss"]  # SB3 orders new keys as a set does
    assert all(len(row) == 2 for row in rows)  # continued under its header, no column added
    steps = [row[header.index("time/total_timesteps")] for row in rows[1:]]
    loss = [row[header.index("train/loss")] for row in rows[1:]]
    assert steps == ["8", "16", "24"] and loss == ["1.0", "2.0", "9.0"]
    assert _read(tmp_path / "eval.csv") == [["steps", "mean"], ["0", "1"], ["16", "2"]]
    assert list(tmp_path.glob("events.out.tfevents.*"))


def test_appending_csv_on_a_new_file_writes_its_header(tmp_path):
    from newmarket_env.train.ppo.logs import AppendingCSV

    table = AppendingCSV(str(tmp_path / "n.csv"))
    assert table.keys == []
    table.write({"a": 1, "b": 2}, {"a": None, "b": None})
    table.close()
    with open(tmp_path / "n.csv", newline="") as handle:
        assert list(csv.DictReader(handle)) == [{"a": "1", "b": "2"}]


# ---------------------------------------------------------------- curve input and statistics


def test_read_eval_csv_groups_rows_by_opponent(tmp_path):
    from newmarket_env.train.plot import plot_curve, read_eval_csv

    path = tmp_path / "eval.csv"
    _write(
        path,
        [
            ["steps", "opponent", "mean", "ci95"],
            ["0", "random", "-0.5", "0.25"],
            ["0", "control", "-1", "0.5"],
            ["64", "random", "1.5", "0.125"],
        ],
    )
    assert read_eval_csv(path) == {"random": [(0, -0.5, 0.25), (64, 1.5, 0.125)], "control": [(0, -1.0, 0.5)]}
    png = tmp_path / "c.png"
    final = [{"opponent": "random", "steps": 64, "mean": 1.0, "ci95": 0.5, "boards": 9}]
    plot_curve(path, png, title="t", references={"random": 0.25}, final=final)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.png", "eval.csv"]


def test_mean_and_interval_by_hand():
    from newmarket_env.train.evaluate import Z95, EvalResult, _mean_ci

    assert abs(Z95 - 1.959964) < 1e-6  # the 97.5% normal quantile
    mean, ci = _mean_ci([1.0, 3.0])  # sd (n-1) = sqrt(2); half-width 1.96 * sqrt(2) / sqrt(2)
    assert mean == 2.0 and ci == pytest.approx(1.959964, abs=1e-6)
    mean, ci = _mean_ci([2.0, 4.0, 9.0])  # mean 5, sd sqrt(13), half-width 1.96 * sqrt(13 / 3)
    assert mean == 5.0 and ci == pytest.approx(1.959964 * math.sqrt(13 / 3), rel=1e-6)
    assert _mean_ci([7.0]) == (7.0, 0.0)
    result = EvalResult("random", 1.0, 0.25, 3, 12, margin=0.5, margin_ci95=0.1)
    assert (result.low, result.high) == (0.75, 1.25)
    assert result.as_row() == {
        "opponent": "random",
        "mean": 1.0,
        "ci95": 0.25,
        "boards": 3,
        "games": 12,
        "margin": 0.5,
        "margin_ci95": 0.1,
        "low": 0.75,
        "high": 1.25,
    }


def test_duplicate_eval_counts_games_per_seat_of_the_table():
    from newmarket_env.agents import load_agent
    from newmarket_env.train.evaluate import duplicate_eval

    result = duplicate_eval(
        lambda e, s: load_agent("greedy", env=e, seed=s), "random", "michigan", 3, boards=2, rules={"num_deals": 1}
    )
    assert (result.opponent, result.boards, result.games) == ("random", 2, 6)
    assert result.margin is None and result.margin_ci95 is None
    with pytest.raises(ValueError, match="backend"):
        duplicate_eval(lambda e, s: load_agent("greedy", env=e, seed=s), "random", "michigan", 3, boards=1, backend="x")
