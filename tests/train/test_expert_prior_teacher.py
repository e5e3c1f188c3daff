"""Expert iteration whose teacher improves with the student: the ``guided_prior`` teacher (the network's
candidates and logit bonus over control's rollouts, in a race) and ``expert.init`` (a saved network to start from)."""

import numpy as np
import pytest

from newmarket_env.engine.choice import compiled_available
from newmarket_env.game.rules import make_rules
from newmarket_env.train.cli import main
from tests.train.tiny_exit_run import PRIOR, QUIET, TINY_EXIT

pytestmark = pytest.mark.skipif(not compiled_available(), reason="expert iteration needs the compiled engine")

RULES = make_rules("newmarket", 4)


@pytest.fixture(scope="module")
def start(tmp_path_factory):
    """A tiny run's network: the file later runs start from."""
    out = tmp_path_factory.mktemp("start")
    assert main([str(TINY_EXIT), "--out-dir", str(out), *QUIET]) == 0
    return out / "final.npz"


def test_a_prior_label_is_what_the_guided_search_agent_decides(start):
    """Each label is the action the shipped kind of guided search (network prior, control rollouts, a race)
    takes through its own ``act`` (the race in C), seeded with the label's seed; its row holds the scores."""
    from newmarket_env.agents.guided_search import GuidedSearchAgent
    from newmarket_env.agents.saved import SavedAgent, read_saved
    from newmarket_env.train.collect import collect_states
    from newmarket_env.train.expert.label import Teacher, label_states

    rules = make_rules("newmarket", 4, num_deals=1)
    metadata, layers = read_saved(start)
    states = collect_states(rules, None, "control", [], 0.0, tables=4, count=40, seed=11, reward_scale=0.1)
    options = {"budget": 6, "max_candidates": 3, "prior_weight": 0.5, "racing_worlds": 2, "racing_z": 1.0}
    teacher = Teacher(rules, "guided_prior", policy={"metadata": metadata, "layers": layers}, **options)
    seeds = list(range(500, 500 + len(states.returns)))
    actions, scores = label_states(teacher, states.obs, states.masks, seeds)
    searched = 0
    for k, seed in enumerate(seeds):
        policy = SavedAgent(rules, seed, metadata, layers)
        agent = GuidedSearchAgent(rules, seed, policy, prior="network", rollout="control", **options)
        assert actions[k] == agent.act({"observation": states.obs[k], "action_mask": states.masks[k]}), k
        compared = ~np.isnan(scores[k])
        assert states.masks[k][compared].all()
        if compared.sum() > 1:
            searched += 1
            logits = policy.logits(states.obs[k])
            # the candidates are the network's most likely legal actions, up to max_candidates (no bids here)
            legal = np.flatnonzero(states.masks[k])
            best = sorted(legal, key=lambda a: (-logits[a], a))[: options["max_candidates"]]
            assert set(np.flatnonzero(compared)) == set(best)
    assert searched > 5  # not only stakes and forced moves


def test_a_run_from_a_saved_network_starts_from_its_weights(start, tmp_path):
    """With no fit at all the run's saved policy is the init file's network, layer by layer; iteration 0
    is then played by that network and labelled by the guided_prior teacher on it."""
    from newmarket_env.agents.saved import read_saved
    from newmarket_env.train.expert import learner as loop

    teachers = []
    label = loop.label_states

    def label_seen(teacher, *rest, **options):
        teachers.append(teacher)
        return label(teacher, *rest, **options)

    def no_fit(*args, **kwargs):
        return {"policy_loss": 0.0, "value_loss": 0.0, "agreement": 0.0}

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(loop, "label_states", label_seen)
        patch.setattr(loop, "fit", no_fit)
        out = tmp_path / "from_start"
        assert main([str(TINY_EXIT), "--out-dir", str(out), *QUIET, *PRIOR, "--set", f"expert.init={start}"]) == 0
    for (w1, b1), (w2, b2) in zip(read_saved(start)[1], read_saved(out / "final.npz")[1], strict=True):
        np.testing.assert_array_equal(w1, w2)
        np.testing.assert_array_equal(b1, b2)
    assert [t.kind for t in teachers] == ["guided_prior", "guided_prior"]
    assert (teachers[0].budget, teachers[0].racing_worlds) == (4, 2)
    first = np.genfromtxt(out / "progress.csv", delimiter=",", names=True)["prior_agreement"][0]
    assert np.isfinite(first)  # the starting network is measured against iteration 0's labels


def test_a_resumed_prior_run_equals_an_uninterrupted_one(start, tmp_path):
    from newmarket_env.agents.saved import read_saved

    common = [str(TINY_EXIT), *QUIET, *PRIOR, "--set", f"expert.init={start}"]
    assert main([*common, "--out-dir", str(tmp_path / "whole"), "--total-steps", "144"]) == 0
    assert main([*common, "--out-dir", str(tmp_path / "parts"), "--total-steps", "48"]) == 0
    assert main([*common, "--out-dir", str(tmp_path / "parts"), "--total-steps", "144", "--resume"]) == 0
    whole, parts = (read_saved(tmp_path / d / "final.npz")[1] for d in ("whole", "parts"))
    for (w1, b1), (w2, b2) in zip(whole, parts, strict=True):
        np.testing.assert_array_equal(w1, w2)
        np.testing.assert_array_equal(b1, b2)
    trained = read_saved(start)[1]
    assert not np.array_equal(whole[0][0], trained[0][0])  # the fits did move the network


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ("expert.init=no/such/file.npz", "expert.init: 'no/such/file.npz' is not a valid newmarket_env saved agent"),
        ("expert.racing_worlds=1", "expert.racing_worlds = 1 is not allowed; allowed: 0 (no race) or an int >= 2"),
        ("expert.teacher=oracle", "allowed: search, guided_search, guided_prior"),
    ],
)
def test_bad_prior_settings_are_one_line_and_make_no_folder(tmp_path, capsys, setting, message):
    assert main([str(TINY_EXIT), "--out-dir", str(tmp_path / "x"), "--set", setting]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "x").exists()


def test_an_init_of_other_sizes_or_rules_is_refused_in_one_line(start, tmp_path, capsys):
    cases = {
        "expert.net_arch=[32]": "has hidden layers [16]; allowed: expert.net_arch = [32]",
        "env.variant=michigan": "was trained on other rules than the run's env section",
    }
    for setting, message in cases.items():
        args = [str(TINY_EXIT), "--out-dir", str(tmp_path / "x"), "--set", f"expert.init={start}", "--set", setting]
        assert main(args) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, err
    assert not (tmp_path / "x").exists()
