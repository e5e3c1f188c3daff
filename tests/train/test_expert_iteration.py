"""Expert iteration (train/expert): labels, parallel labelling, a run from a config, resume, value targets."""

from pathlib import Path

import numpy as np
import pytest

from newmarket_env import env, load_agent
from newmarket_env.engine.choice import compiled_available
from newmarket_env.game.rules import make_rules
from newmarket_env.train.cli import main

pytestmark = pytest.mark.skipif(not compiled_available(), reason="expert iteration needs the compiled engine")

TINY = Path(__file__).resolve().parents[2] / "configs" / "tiny_exit.yaml"
RULES = make_rules("newmarket", 4)


@pytest.fixture(scope="module")
def states():
    from newmarket_env.train.collect import collect_states

    return collect_states(RULES, None, "control", [], 0.0, tables=4, count=40, seed=3, reward_scale=0.1)


def test_labels_are_what_search_chooses_on_the_same_positions(states):
    """Each label is the action a SearchAgent seeded with the label's seed takes through its own act()."""
    from newmarket_env.agents.search import SearchAgent
    from newmarket_env.train.expert.label import Teacher, label_states

    seeds = list(range(100, 100 + len(states.returns)))
    actions, means = label_states(Teacher(RULES, "search", budget=4, max_candidates=3), states.obs, states.masks, seeds)
    for k, seed in enumerate(seeds):
        agent = SearchAgent(RULES, seed=seed, budget=4, max_candidates=3, engine="compiled")
        assert actions[k] == agent.act({"observation": states.obs[k], "action_mask": states.masks[k]}), k
        compared = ~np.isnan(means[k])
        assert compared[actions[k]] and means[k, actions[k]] == means[k][compared].max()
        assert states.masks[k][compared].all()  # only legal actions are compared
    assert (~np.isnan(means)).sum(axis=1).max() == 3  # max_candidates


def test_labels_do_not_depend_on_the_worker_count(states):
    from newmarket_env.train.expert.label import Teacher, label_states

    teacher = Teacher(RULES, "search", budget=3, max_candidates=3)
    seeds = [7 * k + 1 for k in range(len(states.returns))]
    one = label_states(teacher, states.obs, states.masks, seeds, workers=1)
    two = label_states(teacher, states.obs, states.masks, seeds, workers=2)  # two spawned processes
    np.testing.assert_array_equal(one[0], two[0])
    np.testing.assert_array_equal(one[1], two[1])
    other = label_states(teacher, states.obs, states.masks, [s + 1 for s in seeds])
    assert not np.array_equal(np.nan_to_num(one[1]), np.nan_to_num(other[1]))  # the seeds do matter


def test_value_targets_are_the_chips_won_to_the_end_of_the_deal():
    """Replayed by hand on the reference engine: a one-deal session of four ``lowest`` seats (no randomness
    in their play), every decision's target is (balance at the session's end - balance before it) * scale."""
    from newmarket_env.agents.policy import PolicyAgent
    from newmarket_env.envs.aec import raw_env
    from newmarket_env.train.collect import collect_states

    rules = make_rules("newmarket", 4, num_deals=1)
    got = collect_states(rules, None, "lowest", [], 0.0, tables=1, count=30, seed=5, reward_scale=0.5)
    from newmarket_env.eval.tournament.schedule import derive_seed

    aec = raw_env(variant="newmarket", num_players=4, num_deals=1)
    expected, session = [], 0
    while len(expected) < 30:
        session += 1
        aec.reset(seed=derive_seed(5, 1, session))  # collect's seed of the table's session-th game
        agent = PolicyAgent(rules, 0)
        game, taken = aec.game, []
        while not game.over:
            seat = game.to_act
            observation = aec.observe(f"player_{seat}")
            if observation["action_mask"].sum() > 1:
                taken.append((seat, game.balances[seat]))
            aec.step(agent.act(observation))
        expected += [(game.balances[s] - before) * 0.5 for s, before in taken]
    np.testing.assert_allclose(got.returns, np.asarray(expected[:30], dtype=np.float32))


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("exit")
    assert main([str(TINY), "--out-dir", str(out), "--no-progress"]) == 0
    return out


def test_a_tiny_run_saves_an_agent_that_loads_and_plays_a_tournament(tiny_run):
    from newmarket_env.eval.tournament import TournamentConfig, run_tournament

    for name in (
        "final.npz",
        "final_value.npz",
        "final.json",
        "final_eval.json",
        "progress.csv",
        "eval.csv",
        "labels/iter_0000.npz",
        "labels/iter_0001.npz",
        "checkpoints/exit_96_steps.pt",
    ):
        assert (tiny_run / name).is_file(), name
    path = str(tiny_run / "final.npz")
    agent = load_agent(path, env=env(variant="newmarket", num_players=4, num_deals=1))
    assert agent.name == "tiny_exit"
    config = TournamentConfig(
        agents=(path, "control", "control", "control"), rules={"num_deals": 1}, blocks=2, resamples=20
    )
    result = run_tournament(config)  # an illegal action would stop the tournament with an error
    games = {row["agent"]: row["games"] for row in result.standings}
    # 2 blocks, each line-up in its 4 rotations: every entrant (the controls are three) sits 8 sessions
    assert games == {"tiny_exit": 8, "control": 8, "control#2": 8, "control#3": 8}


def _rows(path: Path) -> list[list[str]]:
    """progress.csv without its timing columns (the only part that may differ between runs)."""
    import csv

    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    return [
        [
            row[k]
            for k in (
                "iteration",
                "steps",
                "labels",
                "mean_return",
                "prior_agreement",
                "policy_loss",
                "value_loss",
                "agreement",
            )
        ]
        for row in rows
    ]


def test_a_resumed_run_equals_an_uninterrupted_one(tmp_path):
    from newmarket_env.agents.saved import read_saved

    common = [str(TINY), "--no-progress", "--set", "eval.every=0", "--set", "eval.final_sessions=1"]
    assert main([*common, "--out-dir", str(tmp_path / "whole"), "--total-steps", "144"]) == 0
    assert main([*common, "--out-dir", str(tmp_path / "parts"), "--total-steps", "48"]) == 0
    (tmp_path / "parts" / "labels" / "iter_0001.npz").write_bytes(b"a killed process left this")
    assert main([*common, "--out-dir", str(tmp_path / "parts"), "--total-steps", "144", "--resume"]) == 0
    whole, parts = (read_saved(tmp_path / d / "final.npz")[1] for d in ("whole", "parts"))
    for (w1, b1), (w2, b2) in zip(whole, parts, strict=True):
        np.testing.assert_array_equal(w1, w2)
        np.testing.assert_array_equal(b1, b2)
    assert _rows(tmp_path / "whole" / "progress.csv") == _rows(tmp_path / "parts" / "progress.csv")
    with np.load(tmp_path / "whole" / "final_value.npz") as a, np.load(tmp_path / "parts" / "final_value.npz") as b:
        np.testing.assert_array_equal(a["layer0.weight"], b["layer0.weight"])


def test_config_errors_are_one_line(tmp_path, capsys):
    cases = {
        "expert.first_states=search": "expert.first_states = 'search' is not allowed",
        "pretrain.teacher=control": "pretrain.teacher is for method ppo",
        "expert.teacher=oracle": "expert.teacher = 'oracle' is not allowed; allowed: search, guided_search",
    }
    for setting, message in cases.items():
        assert main([str(TINY), "--out-dir", str(tmp_path / "x"), "--set", setting]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "x").exists()


def test_guided_teacher_iterations_run(tmp_path):
    """From iteration 1 the labels come from guided_search with the current network (and its value cut-off)."""
    out = tmp_path / "guided"
    args = [
        str(TINY),
        "--out-dir",
        str(out),
        "--no-progress",
        "--set",
        "expert.teacher=guided_search",
        "--set",
        "expert.guided_cutoff=2",
        "--set",
        "eval.every=0",
        "--set",
        "eval.final_sessions=1",
    ]
    from newmarket_env.train.expert import learner as loop

    teachers, targets = [], []
    label, make_targets = loop.label_states, loop.policy_targets

    def label_seen(teacher, *rest, **options):
        teachers.append(teacher)
        return label(teacher, *rest, **options)

    def targets_seen(actions, means, target, temperature):
        targets.append((target, temperature))
        return make_targets(actions, means, target, temperature)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(loop, "label_states", label_seen)
        patch.setattr(loop, "policy_targets", targets_seen)
        assert main([*args, "--set", "expert.target=choice", "--set", "expert.temperature=2.5"]) == 0
    with np.load(out / "labels" / "iter_0001.npz") as data:
        assert len(data["actions"]) == 48 and data["masks"][np.arange(48), data["actions"]].all()
    # iteration 0 has no network yet: plain search; then guided_search with the network and its value cut-off
    assert [(t.kind, t.budget, t.max_candidates, t.cutoff) for t in teachers] == [
        ("search", 2, 3, 0),
        ("guided_search", 2, 3, 2),
    ]
    assert teachers[1].policy is not None and teachers[1].value is not None
    assert targets == [("choice", 2.5), ("choice", 2.5)]  # the configured target reaches every fit


def test_a_lost_label_file_of_the_window_stops_the_resumed_run(tmp_path):
    common = [str(TINY), "--no-progress", "--set", "eval.every=0", "--set", "eval.final_sessions=1"]
    assert main([*common, "--out-dir", str(tmp_path), "--total-steps", "48"]) == 0
    (tmp_path / "labels" / "iter_0000.npz").unlink()
    with pytest.raises(RuntimeError, match=r"iter_0000.npz is missing or damaged, and iteration 1 fits on it"):
        main([*common, "--out-dir", str(tmp_path), "--total-steps", "96", "--resume"])
    assert not (tmp_path / "checkpoints" / "exit_96_steps.pt").exists()


def test_the_curve_measures_each_checkpoint_as_the_saved_agent_of_that_point(tiny_run, capsys):
    """``train.curve`` rebuilds each checkpoint's network: its point at the last checkpoint equals a duplicate
    evaluation of ``final.npz`` (the same weights, written by the run through another path)."""
    from newmarket_env.agents.saved import load_saved_agent
    from newmarket_env.train.curve import main as curve
    from newmarket_env.train.curve import read_rows
    from newmarket_env.train.evaluate import duplicate_eval, saved_agent_maker

    assert curve([str(tiny_run), "--opponents", "random,control", "--every", "1", "--boards", "3", "--seed", "5"]) == 0
    rows = read_rows(tiny_run / "curve.csv")
    assert [(r["steps"], r["opponent"]) for r in rows] == [
        ("48", "random"),
        ("48", "control"),
        ("96", "random"),
        ("96", "control"),
    ]
    final = load_saved_agent(tiny_run / "final.npz", make_rules("newmarket", 4, num_deals=1))
    for row in rows[2:]:
        expected = duplicate_eval(
            saved_agent_maker(final), row["opponent"], "newmarket", 4, boards=3, seed=5, rules={"num_deals": 1}
        )
        assert float(row["mean"]) == pytest.approx(expected.mean, abs=1e-12), row
    assert rows[0]["mean"] != rows[2]["mean"] or rows[1]["mean"] != rows[3]["mean"]  # two networks, not one
    assert (tiny_run / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    capsys.readouterr()

    # Resumed: only the missing point is measured again, the others are kept as they were.
    from newmarket_env.train.curve import write_rows

    write_rows(tiny_run / "curve.csv", rows[:3])
    assert curve([str(tiny_run), "--opponents", "random,control", "--every", "1", "--boards", "3", "--seed", "5"]) == 0
    printed = [line for line in capsys.readouterr().out.splitlines() if "labels" in line]
    assert len(printed) == 1 and "96 labels  vs control" in printed[0]
    assert read_rows(tiny_run / "curve.csv") == rows
    # Another seed is another curve: every point is measured again.
    assert curve([str(tiny_run), "--opponents", "random", "--every", "1", "--boards", "3", "--seed", "6"]) == 0
    again = read_rows(tiny_run / "curve.csv")
    assert [(r["steps"], r["seed"]) for r in again] == [("48", "6"), ("96", "6")]


def test_the_guided_curve_measures_the_shipped_settings_on_each_checkpoints_network(tiny_run):
    """``--guided exit-newmarket-search``: the last point equals a duplicate evaluation of a guided search with
    the shipped entry's options on ``final.npz``; the network-alone curve's files are left alone."""
    import functools

    from newmarket_env.agents.guided_search import GuidedSearchAgent, shipped_guided
    from newmarket_env.agents.saved import load_saved_agent
    from newmarket_env.train.curve import main as curve
    from newmarket_env.train.curve import read_rows
    from newmarket_env.train.evaluate import duplicate_eval

    alone = (tiny_run / "curve.csv").read_bytes() if (tiny_run / "curve.csv").exists() else None
    arguments = ["--guided", "exit-newmarket-search", "--opponents", "random", "--every", "1", "--boards", "2"]
    assert curve([str(tiny_run), *arguments]) == 0
    rows = read_rows(tiny_run / "guided_curve.csv")
    assert [(r["steps"], r["opponent"]) for r in rows] == [("48", "random"), ("96", "random")]
    rules = make_rules("newmarket", 4, num_deals=1)
    options = shipped_guided()["exit-newmarket-search"]["options"]

    def guided(network, env, seed):
        return GuidedSearchAgent(env.unwrapped.rules, seed, network, **options)

    final = load_saved_agent(tiny_run / "final.npz", rules)
    expected = duplicate_eval(
        functools.partial(guided, final), "random", "newmarket", 4, boards=2, seed=2026, rules={"num_deals": 1}
    )
    assert float(rows[1]["mean"]) == pytest.approx(expected.mean, abs=1e-12)
    assert (tiny_run / "guided_curve.png").is_file()
    assert ((tiny_run / "curve.csv").read_bytes() if (tiny_run / "curve.csv").exists() else None) == alone


def _exit_code(command, arguments):
    try:
        return command(arguments)
    except SystemExit as stop:  # argparse's errors
        return stop.code


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--opponents", "control,wizard"], "error: unknown opponent 'wizard'; allowed: "),
        (["--every", "0"], "--every 0 is not allowed; allowed: 1 or more"),
        (["--boards", "1"], "--boards 1 is not allowed; allowed: 2 or more"),
        (["--opponents", " , "], "--opponents is empty; give agent names separated by commas, e.g. control,search"),
    ],
)
def test_curve_errors_are_one_line_and_change_nothing(tiny_run, capsys, arguments, message):
    from newmarket_env.train.curve import main as curve

    def state():
        return {p.name: p.read_bytes() for p in tiny_run.iterdir() if p.is_file()}

    before = state()
    assert _exit_code(curve, [str(tiny_run), *arguments]) == 2
    assert message in capsys.readouterr().err.strip().splitlines()[-1]
    assert state() == before


def test_a_folder_without_checkpoints_is_refused_in_one_line(tiny_run, tmp_path, capsys):
    from newmarket_env.train.curve import main as curve

    (tmp_path / "config.yaml").write_bytes((tiny_run / "config.yaml").read_bytes())
    assert curve([str(tmp_path), "--opponents", "random"]) == 2
    assert (
        capsys.readouterr().err.strip()
        == f"error: {tmp_path / 'checkpoints'} holds no exit_<steps>_steps.pt checkpoint"
    )
