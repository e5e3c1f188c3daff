"""What an expert-iteration run leaves on disk and prints, checked field by field on a 3-player run.

``configs/tiny_exit.yaml`` (48 decisions an iteration, ``expert.window`` 2) with ``env.num_players=3``,
``--total-steps 144`` and an evaluation every 96 steps: so iterations 0, 1, 2; each fits on its own
labels and the previous iteration's, i.e. 48, 96 and 96 labels; one evaluation (at 96 steps) and
the final one; the saved network is for 3 players (the config's, not the preset's default 4).
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import platform
import re
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from newmarket_env import env, load_agent
from newmarket_env.agents.value_net import load_value
from newmarket_env.engine.choice import compiled_available
from newmarket_env.game.rules import make_rules
from newmarket_env.train.cli import main

pytestmark = pytest.mark.skipif(not compiled_available(), reason="expert iteration needs the compiled engine")

TINY = Path(__file__).resolve().parents[2] / "configs" / "tiny_exit.yaml"
STATES = 48


SEEDS: dict[str, list] = {"collect": [], "label": [], "learner": []}  # what each iteration got, in order


@pytest.fixture(scope="module")
def run3(tmp_path_factory) -> Path:
    """The run, with the seeds each iteration's collection and labelling got recorded on the way through."""
    from newmarket_env.train.expert import learner as loop

    collect, label = loop.collect_states, loop.label_states

    def collect_seen(*args):
        # collect_states(rules, policy, first, baselines, fraction, tables, count, seed, scale)
        SEEDS["collect"].append(args[7])
        SEEDS["learner"].append(args[1])
        return collect(*args)

    def label_seen(teacher, obs, masks, seeds, *rest):
        SEEDS["label"].append(list(seeds))
        return label(teacher, obs, masks, seeds, *rest)

    out = tmp_path_factory.mktemp("exit3")
    argv = [str(TINY), "--out-dir", str(out), "--no-progress", "--verbose", "--total-steps", "144"]
    argv += ["--set", "env.num_players=3", "--set", "eval.every=96", "--set", "eval.final_sessions=1"]
    printed = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(printed):
        patch.setattr(loop, "collect_states", collect_seen)
        patch.setattr(loop, "label_states", label_seen)
        assert main(argv) == 0
    (out / "stdout.txt").write_text(printed.getvalue())
    return out


def _progress(run: Path) -> list[dict[str, str]]:
    with open(run / "progress.csv", newline="") as handle:
        return list(csv.DictReader(handle))


def test_the_saved_networks_are_for_the_configured_rules_and_say_how_they_were_made(run3):
    rules = make_rules("newmarket", 3, num_deals=1)
    metadata = json.loads((run3 / "final.json").read_text())
    assert metadata["rules"]["num_players"] == 3 and metadata["variant"] == "newmarket"
    training = metadata["training"]
    assert training["method"] == "expert_iteration"
    assert training["steps"] == 144
    assert training["config"]["env"]["num_players"] == 3
    assert training["run_id"] == json.loads((run3 / "run.json").read_text())["run_id"]
    assert (training["torch"], training["python"]) == (torch.__version__, platform.python_version())
    assert 0 < training["train_seconds"] < 3600 and str(TINY) in training["command"]
    with np.load(run3 / "final_value.npz") as data:
        value_meta = json.loads(data["metadata"].astype(np.uint8).tobytes().decode())
    assert value_meta["rules"]["num_players"] == 3 and value_meta["training"]["steps"] == 144
    agent = load_agent(str(run3 / "final.npz"), env=env(variant="newmarket", num_players=3, num_deals=1))
    assert agent.name == "tiny_exit"
    value = load_value(run3 / "final_value.npz", rules)
    assert value.chips(np.zeros((2, 936), dtype=np.float32)).shape == (2,)


def test_progress_has_one_row_per_iteration_with_the_window_of_labels(run3):
    rows = _progress(run3)
    assert [(r["iteration"], r["steps"], r["labels"]) for r in rows] == [
        ("0", "48", "48"),
        ("1", "96", "96"),
        ("2", "144", "96"),
    ]
    assert rows[0]["prior_agreement"] == "nan"  # no network before the first fit
    for row in rows:  # seconds with one decimal, as the docs' tables quote them
        for column in ("collect_s", "label_s", "fit_s", "wall_s"):
            assert re.fullmatch(r"\d+\.\d", row[column]), (column, row[column])
    assert float(rows[-1]["wall_s"]) >= float(rows[0]["wall_s"])


def test_iteration_0_is_played_by_the_first_states_policy_and_later_ones_by_the_network(run3):
    """No network has been fitted before iteration 0: its decisions come from ``expert.first_states``
    (``collect_states`` is given no learner); from iteration 1 the learner is the current network."""
    assert SEEDS["learner"][0] is None
    assert all(learner is not None for learner in SEEDS["learner"][1:]) and len(SEEDS["learner"]) == 3


def test_every_iteration_gets_seeds_of_its_own_and_keeps_its_labels_with_the_run_id(run3):
    # Iterations collecting from one seed would deal the same cards every time: DAgger would see the
    # same deals again and again.
    assert len(SEEDS["collect"]) == 3 and len(set(SEEDS["collect"])) == 3
    assert len(SEEDS["label"]) == 3 and all(len(seeds) == STATES for seeds in SEEDS["label"])
    every_label_seed = [seed for seeds in SEEDS["label"] for seed in seeds]
    assert len(set(every_label_seed)) == 3 * STATES
    run_id = json.loads((run3 / "run.json").read_text())["run_id"]
    for iteration in range(3):
        with np.load(run3 / "labels" / f"iter_{iteration:04d}.npz") as data:
            assert str(data["run_id"]) == run_id
            assert len(data["actions"]) == STATES and data["masks"][np.arange(STATES), data["actions"]].all()


def test_prior_agreement_is_the_fitted_networks_agreement_with_the_next_labels(run3):
    """Iteration 1's prior agreement: the network as checkpointed after iteration 0, on iteration 1's
    labels, chooses (masked argmax) as the teacher did on this share of them."""
    from newmarket_env.train.expert.network import PolicyValueNet

    config = yaml.safe_load((run3 / "config.yaml").read_text())["expert"]
    net = PolicyValueNet(config["net_arch"], config["activation"])
    net.load_state_dict(torch.load(run3 / "checkpoints" / "exit_48_steps.pt", weights_only=True)["net"])
    with np.load(run3 / "labels" / "iter_0001.npz") as data:
        with torch.no_grad():
            logits = net.policy(torch.as_tensor(data["obs"])).numpy()
        chosen = np.where(data["masks"], logits, -np.inf).argmax(axis=1)
        expected = float(np.mean(chosen == data["actions"]))
    assert float(_progress(run3)[1]["prior_agreement"]) == pytest.approx(expected, abs=1e-12)


def test_each_iteration_and_evaluation_is_printed_and_logged(run3):
    printed = (run3 / "stdout.txt").read_text().splitlines()
    rows = _progress(run3)
    for row in rows:
        line = next(x for x in printed if x.startswith(f"iteration {row['iteration']}: "))
        prior = float(row["prior_agreement"])
        assert line == (
            f"iteration {row['iteration']}: {row['steps']} labelled decisions, agreement before fit {prior:.3f} "
            f"after {float(row['agreement']):.3f}, value loss {float(row['value_loss']):.3f} "
            f"(collect {float(row['collect_s']):.0f} s, label {float(row['label_s']):.0f} s)"
        )
    with open(run3 / "eval.csv", newline="") as handle:
        evaluations = list(csv.DictReader(handle))
    # before training, then every eval.every = 96
    assert [(e["steps"], e["opponent"], e["boards"]) for e in evaluations] == [
        ("0", "control", "2"),
        ("96", "control", "2"),
    ]
    final = json.loads((run3 / "final_eval.json").read_text())
    assert [(r["steps"], r["opponent"], r["boards"]) for r in final] == [(144, "control", 1)]
    assert (
        f"final evaluation of tiny_exit vs control: {final[0]['mean']:+.3f} chips per deal "
        f"[95% CI {final[0]['low']:+.3f}, {final[0]['high']:+.3f}] over 1 deal sets, seats rotated"
    ) in printed
    assert (run3 / "learning_curve.png").stat().st_size > 0
    # one curve, redrawn with the final evaluation (not a second picture under another name)
    assert sorted(p.name for p in run3.glob("*.png")) == ["learning_curve.png"]
    assert (run3 / "learning_curve.png").stat().st_mtime_ns >= (run3 / "final_eval.json").stat().st_mtime_ns


def test_a_run_out_of_minutes_stops_between_iterations_and_still_saves_its_agent(tmp_path, capsys):
    argv = [str(TINY), "--out-dir", str(tmp_path), "--no-progress", "--total-steps", "144"]
    argv += ["--set", "run.max_minutes=0.0001", "--set", "eval.every=0", "--set", "eval.final_sessions=1"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    # 6 ms: the deadline passes during the first iteration; the clock is read after each one, so one runs
    assert "stopped by run.max_minutes = 0.0001 after 48 of 144 labelled decisions; saving the agent" in out, out
    assert [row["steps"] for row in _progress(tmp_path)] == ["48"]
    assert sorted(p.name for p in (tmp_path / "checkpoints").glob("*.pt")) == ["exit_48_steps.pt"]
    assert json.loads((tmp_path / "final.json").read_text())["training"]["steps"] == 48
