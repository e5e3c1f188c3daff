"""End to end at a tiny budget: train, save, reload by path, evaluate, resume."""

from pathlib import Path

import pytest

from newmarket_env import env, load_agent
from newmarket_env.train.cli import main
from newmarket_env.train.evaluate import duplicate_eval

TINY = Path(__file__).resolve().parents[2] / "configs" / "tiny_test.yaml"


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    assert main([str(TINY), "--out-dir", str(out), "--no-progress"]) == 0
    return out


def test_run_folder_holds_every_output(trained):
    for name in ("final.npz", "final.json", "eval.csv", "progress.csv", "learning_curve.png", "final_eval.json"):
        assert (trained / name).is_file(), name
    assert list((trained / "checkpoints").glob("ppo_*_steps.zip"))
    assert list((trained / "snapshots").glob("snapshot_*.npz"))


def test_saved_agent_reloads_and_plays_an_evaluation(trained):
    path = str(trained / "final.npz")
    result = duplicate_eval(
        lambda e, s: load_agent(path, env=e, seed=s), "random", "newmarket", 4, boards=2, rules={"num_deals": 1}
    )
    assert result.games == 8
    with pytest.raises(ValueError, match="num_deals"):
        load_agent(path, env=env(variant="newmarket", num_players=4))


def test_saved_agent_plays_in_a_tournament(trained):
    from newmarket_env.eval.tournament import TournamentConfig, run_tournament

    path = str(trained / "final.npz")
    config = TournamentConfig(
        agents=(path, "random", "random", "random"), rules={"num_deals": 1}, blocks=1, resamples=20
    )
    result = run_tournament(config)
    assert sum(row["games"] for row in result.standings) > 0


def test_resume_continues_from_the_checkpoint(trained):
    assert main([str(TINY), "--out-dir", str(trained), "--no-progress", "--resume", "--total-steps", "384"]) == 0
    steps = [int(line.split(",")[0]) for line in (trained / "eval.csv").read_text().splitlines()[1:]]
    assert max(steps) >= 384


def test_resume_without_checkpoint_is_an_error(tmp_path, capsys):
    assert main([str(TINY), "--out-dir", str(tmp_path), "--no-progress", "--resume"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "holds no run to continue" in err
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_measure_command_reads_the_rules_from_the_file(trained, capsys):
    from newmarket_env.train.measure import main as measure

    assert measure([str(trained / "final.npz"), "--opponents", "random", "--boards", "2"]) == 0
    assert "| newmarket | random |" in capsys.readouterr().out


def test_warm_start_report(trained):
    """The imitation lowers its loss, and the policy agrees with its teacher well above chance: a uniform
    choice among the legal actions of the same decisions (collected again from the same seed) agrees at
    rate ``chance`` with standard deviation ``sd``; the report must be 4 sd above it."""
    import json

    import numpy as np

    from newmarket_env.train.config import load_config
    from newmarket_env.train.ppo.imitate import collect

    report = json.loads((trained / "pretrain.json").read_text())
    config = load_config(TINY)
    demos = collect(config.pretrain.teacher, config.pretrain.samples, seed=config.run.seed, **config.table_keywords())
    assert report["teacher"] == "greedy" and report["samples"] == len(demos.actions) >= 200
    p = 1.0 / demos.masks.sum(axis=1)
    chance, sd = float(p.mean()), float(np.sqrt((p * (1 - p)).sum()) / len(p))
    assert report["agreement"] > chance + 4 * sd
    assert report["losses"][-1] < report["losses"][0]


def test_ship_writes_a_half_size_agent_that_loads(trained, tmp_path):
    from newmarket_env.train.ship import ship

    path = ship(trained, "ppo-tiny", tmp_path / "docs", tmp_path)
    assert path.stat().st_size < (trained / "final.npz").stat().st_size
    assert (tmp_path / "ppo-tiny.json").is_file() and (tmp_path / "docs" / "ppo-tiny_curve.png").is_file()
    agent = load_agent(str(path), env=env(variant="newmarket", num_players=4, num_deals=1))
    assert agent.layers[0][0].dtype.name == "float32"


def test_train_from_python_refuses_a_folder_that_holds_a_run(trained):
    """``train(config)`` is a fresh run unless told to resume: it must not continue (or overwrite) a
    finished run that happens to be in its folder."""
    import dataclasses

    from newmarket_env.train.config import load_config
    from newmarket_env.train.run import train

    config = load_config(TINY)
    config = dataclasses.replace(config, run=dataclasses.replace(config.run, out_dir=str(trained)))
    before = sorted(p.name for p in trained.iterdir())
    with pytest.raises(ValueError, match="already holds a run"):
        train(config)
    assert sorted(p.name for p in trained.iterdir()) == before
