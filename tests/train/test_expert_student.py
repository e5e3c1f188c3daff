"""How much of its teacher a student keeps (``python -m newmarket_env.train.expert.student``): a network's
agreement and regret on a run's labels, and the teacher labelling the same states again."""

import numpy as np
import pytest

from newmarket_env.engine.choice import compiled_available
from newmarket_env.train.cli import main as train
from newmarket_env.train.expert.student import main, score
from tests.train.tiny_exit_run import PRIOR, QUIET, TINY_EXIT

pytestmark = pytest.mark.skipif(not compiled_available(), reason="expert iteration needs the compiled engine")


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A tiny guided_prior run started from a first tiny run's network: its labels and both networks."""
    first = tmp_path_factory.mktemp("first")
    assert train([str(TINY_EXIT), "--out-dir", str(first), *QUIET]) == 0
    second = tmp_path_factory.mktemp("second")
    init = ["--set", f"expert.init={first}/final.npz"]
    assert train([str(TINY_EXIT), "--out-dir", str(second), *QUIET, *PRIOR, *init]) == 0
    return first / "final.npz", second


def test_regret_is_the_best_score_minus_the_chosen_one_worked_by_hand():
    means = np.full((4, 79), np.nan)
    means[0, [1, 2]] = [3.0, 1.0]  # chose 2: regret 2
    means[1, [1, 2]] = [3.0, 1.0]  # chose 1, the teacher's choice: regret 0
    means[2, [4, 5, 6]] = [-1.0, -0.5, -2.0]  # chose 6: regret 1.5
    means[3, [7, 8]] = [0.0, 0.0]  # chose 9, which the teacher did not score: outside, no regret counted
    report = score(np.array([2, 1, 6, 9]), np.array([1, 1, 5, 7]), means)
    assert report.agreement == 0.25
    assert report.regret == pytest.approx((2 + 0 + 1.5) / 3)
    assert report.outside == 0.25


def test_the_score_of_a_network_is_that_of_its_own_act_on_each_decision(run, capsys):
    """The command's agreement is recomputed here decision by decision with the saved agent's ``act``."""
    from newmarket_env.agents.saved import load_saved_agent
    from newmarket_env.game.rules import make_rules

    start, second = run
    labels = second / "labels" / "iter_0000.npz"
    assert main([str(labels), "--network", str(start)]) == 0
    line = capsys.readouterr().out.strip()
    with np.load(labels) as data:
        obs, masks, actions = data["obs"], data["masks"], data["actions"]
    agent = load_saved_agent(start, make_rules("newmarket", 4, num_deals=1))
    chosen = np.array([agent.act({"observation": o, "action_mask": m}) for o, m in zip(obs, masks, strict=True)])
    assert f"agreement {np.mean(chosen == actions):.3f}" in line, line


def test_the_teacher_of_a_run_labels_as_the_run_did(run):
    """``teacher_of`` (the ``--relabel`` teacher) is the run's own: a teacher built here from the settings
    written by hand (tiny_exit.yaml and PRIOR, defaults elsewhere) equals it and gives iteration 0's labels
    back, seed by seed."""
    from newmarket_env.agents.saved import read_saved
    from newmarket_env.execution.seeds import derive_seed
    from newmarket_env.game.rules import make_rules
    from newmarket_env.train.config import load_config
    from newmarket_env.train.expert.label import Teacher, label_states
    from newmarket_env.train.expert.learner import LABEL_TAG, network_metadata, teacher_of

    start, second = run
    config = load_config(second / "config.yaml")
    rules = make_rules("newmarket", 4, num_deals=1)
    layers = read_saved(start)[1]
    policy = {"metadata": network_metadata(config, rules), "layers": layers}
    by_hand = Teacher(rules, "guided_prior", 4, 3, prior_weight=1.0, racing_worlds=2, racing_z=1.5, policy=policy)
    assert teacher_of(config, rules, layers) == by_hand
    with np.load(second / "labels" / "iter_0000.npz") as data:
        obs, masks, actions, means = data["obs"], data["masks"], data["actions"], data["means"]
    seeds = [derive_seed(0, LABEL_TAG, 0, k) for k in range(len(actions))]
    again, again_means = label_states(by_hand, obs, masks, seeds)
    np.testing.assert_array_equal(again, actions)
    np.testing.assert_array_equal(again_means, means)


def test_relabel_scores_a_second_labelling(run, capsys):
    start, second = run
    labels = second / "labels" / "iter_0000.npz"
    args = [str(labels), "--network", str(start), "--relabel", "20", "--config", str(second / "config.yaml")]
    assert main([*args, "--workers", "1"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[1].startswith("the teacher labelling again: agreement") and "(20 decisions)" in lines[1]


def test_relabel_without_a_config_is_a_one_line_error(run, capsys):
    start, second = run
    with pytest.raises(SystemExit) as exit_:
        main([str(second / "labels" / "iter_0000.npz"), "--network", str(start), "--relabel", "5"])
    assert exit_.value.code == 2
    assert "--relabel needs --config" in capsys.readouterr().err


def test_a_file_that_is_not_labels_is_a_one_line_error(run, tmp_path, capsys):
    start, _ = run
    for path in (tmp_path / "missing.npz", start):  # no file at all; a saved agent, not labels
        with pytest.raises(SystemExit) as exit_:
            main([str(path), "--network", str(start)])
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        errors = [line for line in err.splitlines() if "error:" in line]  # argparse's usage, then one line
        assert len(errors) == 1 and f"{path}: not an expert-iteration labels file" in errors[0], err


def test_decision_kinds_agree_with_the_legal_actions():
    """Michigan asks three kinds of decision of a seat at 4 players; the legal actions tell them apart
    independently of the observation's decision piece: a bid offers PASS (54), the widow KEEP/EXCHANGE
    (52, 53), a lead only cards (0-51)."""
    from newmarket_env.game.rules import make_rules
    from newmarket_env.train.collect import collect_states
    from newmarket_env.train.expert.student import decision_kinds

    states = collect_states(
        make_rules("michigan", 4), None, "control", [], 0.0, tables=2, count=80, seed=3, reward_scale=1
    )
    index, names = decision_kinds(states.obs)
    kinds = np.array(names)[index]
    masks = states.masks.astype(bool)
    expected = np.where(masks[:, 54], "bid", np.where(masks[:, 52] | masks[:, 53], "widow", "lead"))
    assert (masks[expected == "lead"][:, 52:] == 0).all()
    np.testing.assert_array_equal(kinds, expected)
    assert {"bid", "lead"} <= set(kinds)  # more than one kind was met


def test_breakdown_shares_and_scores_worked_by_hand():
    from newmarket_env.train.expert.student import breakdown, gap_bins, teacher_gaps

    means = np.full((4, 79), np.nan)
    means[0, [1, 2]] = [3.0, 1.5]  # gap 1.5, chose 2: regret 1.5
    means[1, [1, 2]] = [3.0, 2.95]  # gap 0.05, chose 1: regret 0
    means[2, [4, 5, 6]] = [-1.0, -0.5, -2.0]  # gap 0.5, chose 6: regret 1.5
    means[3, [7]] = [0.0]  # one candidate, chose it
    choices, actions = np.array([2, 1, 6, 7]), np.array([1, 1, 5, 7])
    index, names = gap_bins(teacher_gaps(means))
    assert names[gap_bins(np.array([2.0]))[0][0]] == "gap 2 to 4"  # a bin holds its lower edge
    assert [names[k] for k in index] == ["gap 1 to 2", "gap 0 to 0.1", "gap 0.5 to 1", "one candidate"]
    lines = breakdown(choices, actions, means, np.array([0, 1, 0, 1]), ["first", "second"])
    assert lines[0].startswith("  first (0.500 of the decisions, 1.000 of the regret): agreement 0.000, regret 1.500")
    assert lines[1].startswith("  second (0.500 of the decisions, 0.000 of the regret): agreement 1.000, regret 0.000")
    assert len(breakdown(choices, actions, means, np.array([0, 0, 0, 0]), ["all", "none"])) == 1  # empty: no line


def test_a_checkpoint_scores_as_the_saved_network_of_the_same_weights(run, capsys):
    """The run's last checkpoint is its final network: ``--checkpoint`` gives the ``--network final.npz`` score;
    a checkpoint the run does not have is a one-line error that lists those it has."""
    _, second = run
    labels = second / "labels" / "iter_0000.npz"
    steps = sorted(int(p.stem.split("_")[1]) for p in (second / "checkpoints").glob("exit_*_steps.pt"))
    last = steps[-1]
    assert main([str(labels), "--network", str(second / "final.npz"), "--by-kind", "--by-gap"]) == 0
    saved = capsys.readouterr().out.splitlines()
    assert main([str(labels), "--checkpoint", str(last), "--by-kind", "--by-gap"]) == 0
    checkpoint = capsys.readouterr().out.splitlines()
    assert saved[0].split(": ", 1)[1] == checkpoint[0].split(": ", 1)[1]
    assert saved[1:] == checkpoint[1:] and "by the kind of decision:" in saved
    with pytest.raises(SystemExit) as exit_:
        main([str(labels), "--checkpoint", str(last + 1)])
    assert exit_.value.code == 2
    assert f"has no such checkpoint; it has: {', '.join(map(str, steps))}" in capsys.readouterr().err
