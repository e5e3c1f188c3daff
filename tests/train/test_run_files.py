"""Issue 17: the files a run folder, ``measure`` and ``ship`` write, checked on disk.

``config.yaml`` keeps the config's own key order (as a user wrote it, not sorted); ``run.json``
names the run; ``--overwrite`` removes the run's outputs and nothing else; ``measure``'s seconds
column is the time the evaluation took; ``ship`` writes the registered files where its help says.
"""

from __future__ import annotations

import functools
import json
import re
import shutil
import sys
import time
from pathlib import Path

import pytest
import yaml

from newmarket_env.train import rundir

# Keys in an order that is not alphabetical, at both levels.
CONFIG = {
    "name": "ordered",
    "run": {"total_steps": 10, "seed": 3, "out_dir": "x"},
    "env": {"variant": "newmarket", "num_players": 4},
    "ppo": {"net_arch": [64, 32], "activation": "tanh"},
}


def test_config_yaml_keeps_the_config_key_order(tmp_path):
    run = rundir.start_fresh(tmp_path / "r", CONFIG, overwrite=False)
    text = (tmp_path / "r" / "config.yaml").read_text()
    written = yaml.safe_load(text)
    assert written == CONFIG
    assert list(written) == ["name", "run", "env", "ppo"]
    assert list(written["run"]) == ["total_steps", "seed", "out_dir"]
    assert list(written["env"]) == ["variant", "num_players"]
    assert text.index("name:") < text.index("run:") < text.index("env:") < text.index("ppo:")
    saved = json.loads((tmp_path / "r" / "run.json").read_text())
    assert saved == run
    assert re.fullmatch(r"[0-9a-f]{32}", run["run_id"])
    assert run["name"] == "ordered" and run["resumed"] == []
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}", run["started"])
    assert sorted(p.name for p in (tmp_path / "r").iterdir()) == ["config.yaml", "run.json"]  # no temporary left


@pytest.mark.parametrize("name", ["tiny_test", "tiny_dmc", "tiny_exit"])
def test_a_run_folder_written_before_the_methods_were_plug_ins_resumes(name, tmp_path):
    """Such a folder's config.yaml held the ppo and pretrain sections for every method (at their defaults
    for the others: a dmc run's `ppo:` was PPOSection()), and a PPO run's held no `method`. Written here as
    those versions wrote it, it continues under today's config; a changed key is still named."""
    import dataclasses

    from newmarket_env.train.config import load_config
    from newmarket_env.train.ppo.method import PPOSection, PretrainSection

    config = load_config(Path(__file__).resolve().parents[2] / "configs" / f"{name}.yaml")
    old = config.to_dict()
    if config.method == "ppo":
        del old["method"]
    else:
        old["pretrain"], old["ppo"] = dataclasses.asdict(PretrainSection()), dataclasses.asdict(PPOSection())
    out = tmp_path / "r"
    rundir.start_fresh(out, old, overwrite=False)
    assert rundir.start_resume(out, config.to_dict())["name"] == config.name
    changed = config.to_dict()
    changed["run"] = {**changed["run"], "seed": 7}
    with pytest.raises(ValueError, match=r"--resume: the config differs .*run\.seed \(run 0, now 7\)"):
        rundir.start_resume(out, changed)
    # and the old config.yaml loads as today's config (curve and leaderboard read it)
    assert load_config(out / "config.yaml") == config


def test_record_resume_appends_the_step_and_writes_the_new_config(tmp_path):
    out = tmp_path / "r"
    run = rundir.start_fresh(out, CONFIG, overwrite=False)
    longer = {**CONFIG, "run": {**CONFIG["run"], "total_steps": 99}}
    again = rundir.start_resume(out, longer)
    assert again == run
    rundir.record_resume(out, again, longer, 64)
    saved = json.loads((out / "run.json").read_text())
    assert saved["run_id"] == run["run_id"]
    assert [entry["at_steps"] for entry in saved["resumed"]] == [64]
    assert yaml.safe_load((out / "config.yaml").read_text())["run"]["total_steps"] == 99
    rundir.record_resume(out, saved, longer, 80)
    assert [e["at_steps"] for e in json.loads((out / "run.json").read_text())["resumed"]] == [64, 80]


def test_a_second_fresh_run_is_refused_naming_four_outputs_then_overwrite_keeps_other_files(tmp_path):
    out = tmp_path / "r"
    first = rundir.start_fresh(out, CONFIG, overwrite=False)
    for name in ("progress.csv", "eval.csv", "final.npz"):
        (out / name).write_text("old")
    (out / "checkpoints").mkdir()
    (out / "checkpoints" / "ppo_8_steps.zip").write_text("old")
    (out / "events.out.tfevents.1.host").write_text("old")
    (out / "notes.txt").write_text("mine")
    found = rundir.previous_outputs(out)
    assert found == [
        "run.json",
        "config.yaml",
        "progress.csv",
        "eval.csv",
        "final.npz",
        "checkpoints",
        "events.out.tfevents.1.host",
    ]
    message = (
        f"run.out_dir {str(out)!r} already holds a run (run.json, config.yaml, progress.csv, eval.csv, ...); "
        "continue it with --resume, train into another folder (--out-dir), or give --overwrite to replace it"
    )
    with pytest.raises(ValueError) as err:
        rundir.start_fresh(out, CONFIG, overwrite=False)
    assert str(err.value) == message
    assert rundir.previous_outputs(out) == found  # refused: nothing removed
    second = rundir.start_fresh(out, CONFIG, overwrite=True)
    assert second["run_id"] != first["run_id"]
    assert sorted(p.name for p in out.iterdir()) == ["config.yaml", "notes.txt", "run.json"]
    assert (out / "notes.txt").read_text() == "mine"


def test_previous_outputs_of_a_missing_folder_is_empty(tmp_path):
    assert rundir.previous_outputs(tmp_path / "none") == []


def test_an_out_dir_under_a_file_is_not_writable_in_one_line(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError) as err:
        rundir.start_fresh(tmp_path / "file" / "run", CONFIG, overwrite=False)
    assert str(err.value).startswith(f"run.out_dir {str(tmp_path / 'file' / 'run')!r} is not writable (")
    assert "\n" not in str(err.value)


def test_write_atomic_replaces_and_leaves_no_temporary_even_when_writing_fails(tmp_path):
    target = tmp_path / "a.txt"
    rundir.write_atomic(target, "one")
    rundir.write_atomic(target, "two")
    assert target.read_text() == "two"
    with pytest.raises(TypeError):
        rundir.write_atomic(target, 3)  # not text: the write fails
    assert target.read_text() == "two"
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]


def test_resume_refuses_a_folder_without_a_run_and_damaged_files(tmp_path):
    out = tmp_path / "r"
    out.mkdir()
    with pytest.raises(ValueError, match=r"^--resume: .* holds no run to continue \(no run.json and config.yaml\)"):
        rundir.start_resume(out, CONFIG)
    rundir.start_fresh(out, CONFIG, overwrite=False)
    (out / "run.json").write_text("[1]")
    with pytest.raises(ValueError, match="cannot be read"):
        rundir.start_resume(out, CONFIG)
    (out / "run.json").write_text('{"run_id": 5}')
    with pytest.raises(ValueError, match="is damaged"):
        rundir.start_resume(out, CONFIG)
    (out / "run.json").write_text('{"run_id": "abc"}')
    (out / "config.yaml").write_text("- 1\n")
    with pytest.raises(ValueError, match="is damaged"):
        rundir.start_resume(out, CONFIG)


def test_config_differences_names_only_the_keys_a_resume_may_not_change():
    before = {
        "env": {"rules": {"num_deals": 2}, "variant": "newmarket"},
        "run": {"seed": 1, "total_steps": 5},
        "opponents": {"baselines": ["random"]},
        "evalx": 1,
        "expert": {"workers": 1, "iterations": 3},
    }
    after = {
        "env": {"rules": {"num_deals": 3}, "variant": "newmarket"},
        "run": {"seed": 2, "total_steps": 9},
        "opponents": {"baselines": ["control"]},
        "evalx": 2,
        "expert": {"workers": 2, "iterations": 4},
    }
    from newmarket_env.train.expert.method import METHOD

    keys = (*rundir.RESUMABLE_KEYS, *METHOD.resumable_keys)  # what a resumed expert-iteration run may change
    assert rundir.config_differences(before, after, keys=keys) == [
        "env.rules (run {'num_deals': 2}, now {'num_deals': 3})",
        "evalx (run 1, now 2)",
        "expert.iterations (run 3, now 4)",
        "run.seed (run 1, now 2)",
    ]
    assert "expert.workers (run 1, now 2)" in rundir.config_differences(before, after)  # another method's: not
    assert rundir.config_differences(before, before) == []


# ---------------------------------------------------------------- measure


def test_measure_seconds_is_the_time_each_evaluation_took(tmp_path, capsys):
    from newmarket_env.train.measure import main

    out = tmp_path / "rows.json"
    began = time.time()
    assert main(["random", "--opponents", "random,greedy", "--boards", "2", "--json", str(out), "--seed", "4"]) == 0
    took = time.time() - began
    rows = json.loads(out.read_text())
    assert [row["opponent"] for row in rows] == ["random", "greedy"]
    assert sum(row["seconds"] for row in rows) <= took + 0.1  # each rounded to 0.1 s
    for row in rows:
        assert row["seconds"] >= 0
        assert row["agent"] == "random" and row["variant"] == "newmarket"
        assert row["boards"] == 2 and row["games"] == 8  # 4 players by default: 2 boards x 4 seats
        assert row["margin"] is not None  # the reference is played unless --no-reference
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("| agent | variant | vs |") and len(lines) == 4
    assert lines[2].startswith("| random | newmarket | random | ") and lines[2].endswith(
        f"| 2 | {rows[0]['seconds']} |"
    )


def test_measure_defaults_and_a_saved_agent_s_own_table(tmp_path):
    from newmarket_env.agents.saved import TRAINED_DIR
    from newmarket_env.train.measure import _table, build_parser

    args = build_parser().parse_args(["random"])
    assert (args.opponents, args.boards, args.seed, args.no_reference, args.json) == (
        "random,control",
        300,
        2026,
        False,
        None,
    )
    assert _table(args) == ("newmarket", 4, {})
    assert _table(build_parser().parse_args(["random", "--variant", "michigan", "--players", "5"])) == (
        "michigan",
        5,
        {},
    )
    saved = str(TRAINED_DIR / "ppo-michigan.npz")
    variant, players, rules = _table(build_parser().parse_args([saved]))
    assert (variant, players) == ("michigan", 4)
    assert "num_players" not in rules and rules["num_deals"] >= 1
    assert _table(build_parser().parse_args([saved, "--players", "3"]))[1] == 3


def test_measure_bad_opponent_is_exit_2_in_one_line(tmp_path, capsys):
    from newmarket_env.train.measure import main

    assert main(["random", "--opponents", "nobody", "--boards", "1", "--no-reference"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "nobody" in err and "\n" not in err


# ---------------------------------------------------------------- ship


def _run_folder(tmp_path: Path) -> Path:
    from newmarket_env.agents.saved import TRAINED_DIR

    run = tmp_path / "run"
    run.mkdir()
    shutil.copyfile(TRAINED_DIR / "ppo-newmarket.npz", run / "final.npz")
    (run / "learning_curve.png").write_bytes(b"\x89PNG curve")
    (run / "final_eval.json").write_text(json.dumps([{"opponent": "random", "mean": 1.5}]))
    return run


def test_ship_main_writes_the_curve_to_docs_training_by_default(tmp_path, monkeypatch, capsys):
    from newmarket_env.agents.saved import read_saved
    from newmarket_env.train import ship

    run = _run_folder(tmp_path)
    trained = tmp_path / "trained"
    trained.mkdir()
    monkeypatch.setattr(ship, "ship", functools.partial(ship.ship, trained_dir=trained))  # not the package's folder
    monkeypatch.chdir(tmp_path)
    assert ship.main([str(run), "mine"]) == 0
    assert capsys.readouterr().out.strip() == str(trained / "mine.npz")
    assert (tmp_path / "docs" / "training" / "mine_curve.png").read_bytes() == b"\x89PNG curve"
    sidecar = json.loads((trained / "mine.json").read_text())
    assert sidecar["final_eval"] == [{"opponent": "random", "mean": 1.5}]
    metadata, layers = read_saved(trained / "mine.npz")
    original, original_layers = read_saved(run / "final.npz")
    assert metadata["variant"] == original["variant"] and metadata["training"] == original["training"]
    assert metadata["rules"] == original["rules"] and metadata["activation"] == original["activation"]
    assert [w.shape for w, _ in layers] == [w.shape for w, _ in original_layers]


def test_ship_docs_option_and_a_missing_run_is_exit_2(tmp_path, monkeypatch, capsys):
    from newmarket_env.train import ship

    run = _run_folder(tmp_path)
    (run / "final_eval.json").unlink()
    trained = tmp_path / "trained"
    trained.mkdir()
    monkeypatch.setattr(ship, "ship", functools.partial(ship.ship, trained_dir=trained))
    assert ship.main([str(run), "other", "--docs", str(tmp_path / "d")]) == 0
    assert (tmp_path / "d" / "other_curve.png").exists()
    assert "final_eval" not in json.loads((trained / "other.json").read_text())
    capsys.readouterr()
    assert ship.main([str(tmp_path / "nothing"), "x", "--docs", str(tmp_path / "d")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "final.npz" in err and "\n" not in err
    assert not (trained / "x.npz").exists()


def test_ship_module_runs_as_a_script_help():
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "newmarket_env.train.ship", "--help"], capture_output=True, text=True, check=True
    )
    assert "usage: python -m newmarket_env.train.ship" in done.stdout
