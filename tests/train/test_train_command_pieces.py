"""Issue 17: the train command's pieces (``--set``, the repeat command line, overrides), the warm
start's table draw, and the callbacks that evaluate and snapshot, on a tiny real MaskablePPO.
"""

from __future__ import annotations

import csv

import numpy as np
import pytest

from newmarket_env.envs.learner_options import LearnerSeat
from newmarket_env.train.cli import PROG, apply_settings, build_parser, command_line


def test_apply_settings_reads_values_as_yaml_into_nested_sections():
    data = {"ppo": {"learning_rate": 1.0}, "run": {}}
    apply_settings(
        data,
        ["ppo.learning_rate=0.001", "ppo.net_arch=[64, 32]", "run.progress_bar=false", " eval . every = 5", "name="],
    )
    assert data == {
        "ppo": {"learning_rate": 0.001, "net_arch": [64, 32]},
        "run": {"progress_bar": False},
        "eval": {"every": 5},
        "name": "",
    }


@pytest.mark.parametrize(
    ("setting", "words"),
    [
        ("ppo.learning_rate", "is not KEY=VALUE, e.g. --set ppo.learning_rate=1e-4"),
        ("ppo..gamma=1", "is not KEY=VALUE"),
        ("=3", "is not KEY=VALUE"),
        ("ppo.net_arch=[1,", "the value is not valid YAML"),
        ("name.x=1", "'name' is not a config section"),
    ],
)
def test_apply_settings_refuses_bad_settings_in_one_line(setting, words):
    data = {"name": "a"}
    with pytest.raises(ValueError) as err:
        apply_settings(data, [setting])
    assert str(err.value).startswith(f"--set {setting!r}") and words in str(err.value)
    assert "\n" not in str(err.value)


def test_command_line_repeats_every_option_given():
    args = build_parser().parse_args(
        [
            "configs/x y.yaml",
            "--resume",
            "--overwrite",
            "--set",
            "ppo.gamma=0.9",
            "--total-steps",
            "64",
            "--max-minutes",
            "1.5",
            "--out-dir",
            "runs/o",
            "--seed",
            "7",
            "--no-progress",
        ]
    )
    assert command_line(args) == (
        f"{PROG} 'configs/x y.yaml' --resume --overwrite --set ppo.gamma=0.9 --total-steps 64 "
        "--max-minutes 1.5 --out-dir runs/o --seed 7 --no-progress"
    )
    assert command_line(build_parser().parse_args(["c.yaml"])) == f"{PROG} c.yaml"


def test_overrides_reach_the_config():
    from newmarket_env.train.cli import _apply_overrides
    from newmarket_env.train.config import TrainConfig

    args = build_parser().parse_args(
        [
            "c.yaml",
            "--set",
            "ppo.gamma=0.5",
            "--total-steps",
            "64",
            "--max-minutes",
            "2",
            "--out-dir",
            "o",
            "--seed",
            "9",
            "--no-progress",
        ]
    )
    config = _apply_overrides(TrainConfig(), args)
    assert config.ppo.gamma == 0.5
    assert (config.run.total_steps, config.run.max_minutes, config.run.out_dir, config.run.seed) == (64, 2.0, "o", 9)
    assert config.run.progress_bar is False
    plain = _apply_overrides(TrainConfig(), build_parser().parse_args(["c.yaml"]))
    assert plain == TrainConfig()


def test_the_command_without_a_config_or_with_describe(capsys):
    from newmarket_env.train.cli import main

    assert main([]) == 2
    assert "give a config file" in capsys.readouterr().err
    assert main(["--describe"]) == 0
    out = capsys.readouterr().out
    assert "\nppo:" in out and "  vf_coef: 0.5  # value loss weight" in out


def test_the_warm_start_table_always_seats_the_teacher():
    from newmarket_env.train.imitate import _table

    rng = np.random.default_rng(0)
    tables = [_table(rng, 4, "control", ["random", "greedy"]) for _ in range(200)]
    assert all(len(t) == 4 and "control" in t for t in tables)
    seen = {name for t in tables for name in t}
    assert seen == {"control", "random", "greedy"}
    share = np.mean([name == "control" for t in tables for name in t])
    assert 0.5 < share < 0.8  # half the seats by chance, plus one forced: 0.5 + 0.5 / 4 = 0.625 expected


def test_collect_records_the_teacher_decisions_with_legal_actions():
    from newmarket_env.train.imitate import collect

    table = dict(variant="michigan", num_players=3, num_deals=1, seed=2)
    demos = collect("control", 30, learner_seat=LearnerSeat(opponents=["random"], reward_scale=0.5), **table)
    assert len(demos.actions) >= 30
    assert demos.obs.shape[0] == demos.masks.shape[0] == demos.returns.shape[0] == len(demos.actions)
    assert all(demos.masks[i, a] for i, a in enumerate(demos.actions))
    assert demos.returns.dtype == np.float32
    again = collect("control", 30, learner_seat=LearnerSeat(opponents=["random"], reward_scale=0.5), **table)
    np.testing.assert_array_equal(demos.actions, again.actions)
    np.testing.assert_array_equal(demos.returns, again.returns)
    doubled = collect("control", 30, learner_seat=LearnerSeat(opponents=["random"], reward_scale=1.0), **table)
    np.testing.assert_allclose(doubled.returns, 2 * demos.returns)  # chips times reward_scale


def test_collect_builds_every_agent_with_the_seats_factory():
    """The teacher and the pool come from the learner seat's agent factory, one agent per name and seat."""
    from newmarket_env.agents import load_agent
    from newmarket_env.train.imitate import collect

    built = []

    def factory(spec, *, env, seed):
        built.append((spec, seed))
        return load_agent(spec, env=env, seed=seed)

    seat = LearnerSeat(opponents=["random", "lowest"], agent_factory=factory)
    demos = collect("control", 10, learner_seat=seat, variant="michigan", num_players=3, num_deals=1, seed=4)
    assert len(demos.actions) >= 10
    assert sorted(built) == [(name, 4 + s) for name in ("control", "lowest", "random") for s in range(3)]


# ---------------------------------------------------------------- the evaluating and snapshotting callbacks


def _eval_rows(folder):
    with open(folder / "eval.csv", newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture
def tiny(tmp_path):
    pytest.importorskip("sb3_contrib")
    from newmarket_env.game.rules import make_rules
    from newmarket_env.train.config import config_from_dict
    from newmarket_env.train.run import build_model, build_vec_env

    cfg = config_from_dict(
        {
            "name": "tiny",
            "env": {"variant": "michigan", "num_players": 3, "rules": {"num_deals": 1}},
            "ppo": {"n_steps": 8, "batch_size": 8, "net_arch": [8]},
            "run": {"n_envs": 1, "vec_env": "dummy", "out_dir": str(tmp_path)},
            "eval": {"every": 16, "sessions": 2, "opponents": ["random", "greedy"], "seed": 5},
            "opponents": {"snapshot_every": 16, "max_snapshots": 2},
        }
    )
    model = build_model(cfg, build_vec_env(cfg), tmp_path)
    from stable_baselines3.common.logger import Logger

    model.set_logger(Logger(None, []))
    return cfg, model, make_rules("michigan", 3, num_deals=1)


def test_duplicate_eval_callback_rows_match_an_evaluation_of_the_same_policy(tiny, tmp_path):
    from newmarket_env.train.callbacks import EVAL_FIELDS, DuplicateEval
    from newmarket_env.train.evaluate import duplicate_eval, saved_agent_maker
    from newmarket_env.train.export import memory_agent

    cfg, model, rules = tiny
    resumed = DuplicateEval(cfg, rules, tmp_path, start_steps=16)
    resumed.init_callback(model)
    model.num_timesteps = 16
    resumed.on_training_start({}, {})  # a resumed run evaluated step 16 before: not again
    assert not (tmp_path / "eval.csv").exists()
    callback = DuplicateEval(cfg, rules, tmp_path)
    callback.init_callback(model)
    model.num_timesteps = 0
    callback.on_training_start({}, {})  # step 0: evaluated before training
    rows = _eval_rows(tmp_path)
    assert [r["opponent"] for r in rows] == ["random", "greedy"] and [r["steps"] for r in rows] == ["0", "0"]
    assert list(rows[0]) == EVAL_FIELDS
    learner = saved_agent_maker(memory_agent(model, rules, "michigan", "tanh"))
    expected = duplicate_eval(learner, "greedy", "michigan", 3, boards=2, seed=5, rules={"num_deals": 1})
    assert float(rows[1]["mean"]) == pytest.approx(expected.mean)
    assert float(rows[1]["ci95"]) == pytest.approx(expected.ci95)
    assert (rows[1]["boards"], rows[1]["games"]) == ("2", "6")
    assert float(rows[1]["wall_s"]) >= 0
    assert model.logger.name_to_value["eval/chips_per_deal_vs_greedy"] == pytest.approx(expected.mean)
    assert (tmp_path / "learning_curve.png").exists()
    for steps in (8, 15, 17, 20, 33):
        model.num_timesteps = steps
        callback.on_step()
    steps_logged = [r["steps"] for r in _eval_rows(tmp_path)]
    assert steps_logged == ["0", "0", "17", "17", "33", "33"]  # header once, a pair per multiple of 16 passed
    final = callback.evaluate(3, final=True)
    assert [row["boards"] for row in final] == [3, 3]
    assert len(_eval_rows(tmp_path)) == 6  # the final one is apart


def test_snapshots_every_period_keep_the_newest_and_reach_the_envs(tiny, tmp_path):
    from newmarket_env.agents.saved import read_saved
    from newmarket_env.train.callbacks import SelfPlaySnapshots

    cfg, model, rules = tiny
    callback = SelfPlaySnapshots(cfg, rules, tmp_path, start_steps=0)
    callback.init_callback(model)
    model.num_timesteps = 0
    callback.on_training_start({}, {})
    assert callback.existing() == []
    for steps in (15, 16, 40, 48, 100):
        model.num_timesteps = steps
        callback.on_step()
    names = sorted(p.name for p in (tmp_path / "snapshots").iterdir())
    assert names == ["snapshot_100.npz", "snapshot_16.npz", "snapshot_40.npz", "snapshot_48.npz"]
    newest = [str(tmp_path / "snapshots" / f"snapshot_{s}.npz") for s in (48, 100)]
    assert callback.existing() == newest  # max_snapshots 2, by step (not by name)
    assert model.get_env().get_attr("snapshots") == [newest]
    assert model.logger.name_to_value["selfplay/snapshots"] == 2
    metadata = read_saved(newest[1])[0]
    assert metadata["training"] == {"steps": 100, "run": "tiny"} and metadata["variant"] == "michigan"
    again = SelfPlaySnapshots(cfg, rules, tmp_path, start_steps=100)  # a resumed run finds them
    again.init_callback(model)
    model.get_env().env_method("set_snapshots", [])
    again.on_training_start({}, {})
    assert model.get_env().get_attr("snapshots") == [newest]
    assert again.clock.next == 112
