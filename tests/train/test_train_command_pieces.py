"""Issue 17: the train command's pieces (``--set``, the repeat command line, overrides), the warm
start's table draw, the run loop's evaluations and PPO's snapshots, on a tiny real MaskablePPO.
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
    from newmarket_env.train.ppo.imitate import _table

    rng = np.random.default_rng(0)
    tables = [_table(rng, 4, "control", ["random", "greedy"]) for _ in range(200)]
    assert all(len(t) == 4 and "control" in t for t in tables)
    seen = {name for t in tables for name in t}
    assert seen == {"control", "random", "greedy"}
    share = np.mean([name == "control" for t in tables for name in t])
    assert 0.5 < share < 0.8  # half the seats by chance, plus one forced: 0.5 + 0.5 / 4 = 0.625 expected


def test_collect_records_the_teacher_decisions_with_legal_actions():
    from newmarket_env.train.ppo.imitate import collect

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
    from newmarket_env.train.ppo.imitate import collect

    built = []

    def factory(spec, *, env, seed):
        built.append((spec, seed))
        return load_agent(spec, env=env, seed=seed)

    seat = LearnerSeat(opponents=["random", "lowest"], agent_factory=factory)
    demos = collect("control", 10, learner_seat=seat, variant="michigan", num_players=3, num_deals=1, seed=4)
    assert len(demos.actions) >= 10
    assert sorted(built) == [(name, 4 + s) for name in ("control", "lowest", "random") for s in range(3)]


# ---------------------------------------------------------------- the loop's evaluations, PPO's snapshots


def _eval_rows(folder):
    with open(folder / "eval.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def test_the_loops_evaluation_rows_are_an_evaluation_of_the_network_saved_at_that_step(finished):
    """The run evaluated its in-memory policy at 0, 128 and 256 steps; the self-play snapshot of 128 steps
    is the same policy written to a file: evaluated here on its own, it gives the row of 128."""
    from newmarket_env.agents.saved import load_saved_agent
    from newmarket_env.game.rules import make_rules
    from newmarket_env.train.evaluate import EVAL_FIELDS, duplicate_eval, saved_agent_maker

    rows = _eval_rows(finished)
    assert list(rows[0]) == EVAL_FIELDS
    assert [(r["steps"], r["opponent"]) for r in rows] == [("0", "random"), ("128", "random"), ("256", "random")]
    rules = make_rules("newmarket", 4, num_deals=1)
    snapshot = load_saved_agent(finished / "snapshots" / "snapshot_128.npz", rules, 0)
    expected = duplicate_eval(
        saved_agent_maker(snapshot), "random", "newmarket", 4, boards=1, seed=12345, rules={"num_deals": 1}
    )
    assert float(rows[1]["mean"]) == pytest.approx(expected.mean, abs=1e-12)
    assert (rows[1]["boards"], rows[1]["games"]) == ("1", "4")
    assert float(rows[1]["wall_s"]) >= 0
    assert (finished / "learning_curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def tiny(tmp_path):
    pytest.importorskip("sb3_contrib")
    from newmarket_env.game.rules import make_rules
    from newmarket_env.train.config import config_from_dict
    from newmarket_env.train.methods import RunContext

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
    return cfg, RunContext(tmp_path, "r", make_rules("michigan", 3, num_deals=1))


def test_snapshots_every_period_keep_the_newest_and_reach_the_envs(tiny, tmp_path):
    """Snapshots at each multiple of opponents.snapshot_every passed (8 steps an iteration, every 16), the
    newest max_snapshots (by step, not by name) in the pool; a resumed learner drops those a killed process
    saved after its checkpoint and plays against the newest before it."""
    from newmarket_env.agents.saved import read_saved
    from newmarket_env.train.ppo.learner import PPOLearner

    cfg, context = tiny
    learner = PPOLearner(cfg, context)
    learner.begin()
    for _ in range(4):  # 8, 16, 24, 32 steps
        learner.iterate()
    learner.save(tmp_path / "checkpoint.zip")
    for _ in range(8):  # on to 96: the process "dies" here, past its checkpoint at 32
        learner.iterate()
    names = sorted(int(p.stem.split("_")[1]) for p in (tmp_path / "snapshots").iterdir())
    assert names == [16, 32, 48, 64, 80, 96]
    newest = [str(tmp_path / "snapshots" / f"snapshot_{s}.npz") for s in (80, 96)]
    assert learner.vec_env.get_attr("snapshots") == [newest]
    assert learner.model.logger.name_to_value["selfplay/snapshots"] == 2
    metadata = read_saved(newest[1])[0]
    assert metadata["training"] == {"steps": 96, "run": "tiny"} and metadata["variant"] == "michigan"
    learner.close()
    again = PPOLearner(cfg, context)
    again.resume(tmp_path / "checkpoint.zip", 32)
    assert again.steps == 32
    assert sorted(int(p.stem.split("_")[1]) for p in (tmp_path / "snapshots").iterdir()) == [16, 32]
    assert again.vec_env.get_attr("snapshots") == [
        [str(tmp_path / "snapshots" / f"snapshot_{s}.npz") for s in (16, 32)]
    ]
    assert again.snapshots.clock.next == 48
    again.close()
