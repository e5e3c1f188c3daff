"""What an expert-iteration run leaves on disk, checked field by field on a 3-player run of 3 iterations.

``configs/tiny_exit.yaml`` (48 decisions an iteration, ``expert.window`` 2) with ``env.num_players=3``
and ``--total-steps 144``: so iterations 0, 1, 2; each fits on its own labels and the previous
iteration's, i.e. 48, 96 and 96 labels; the saved network is for 3 players (the config's, not the
preset's default 4).
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import numpy as np
import pytest

from newmarket_env import env, load_agent
from newmarket_env.agents.value_net import load_value
from newmarket_env.engine.choice import compiled_available
from newmarket_env.rules import make_rules
from newmarket_env.train.cli import main

pytestmark = pytest.mark.skipif(not compiled_available(), reason="expert iteration needs the compiled engine")

TINY = Path(__file__).resolve().parents[2] / "configs" / "tiny_exit.yaml"
STATES = 48


SEEDS: dict[str, list] = {"collect": [], "label": []}  # what each iteration was seeded with, in order


@pytest.fixture(scope="module")
def run3(tmp_path_factory) -> Path:
    """The run, with the seeds each iteration's collection and labelling got recorded on the way through."""
    from newmarket_env.train.expert import loop

    collect, label = loop.collect_states, loop.label_states

    def collect_seen(*args):
        SEEDS["collect"].append(
            args[7]
        )  # collect_states(rules, policy, first, baselines, fraction, tables, count, seed, scale)
        return collect(*args)

    def label_seen(teacher, obs, masks, seeds, *rest):
        SEEDS["label"].append(list(seeds))
        return label(teacher, obs, masks, seeds, *rest)

    out = tmp_path_factory.mktemp("exit3")
    argv = [str(TINY), "--out-dir", str(out), "--no-progress", "--total-steps", "144"]
    argv += ["--set", "env.num_players=3", "--set", "eval.every=0", "--set", "eval.final_sessions=1"]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(loop, "collect_states", collect_seen)
        patch.setattr(loop, "label_states", label_seen)
        assert main(argv) == 0
    return out


def test_the_saved_networks_are_for_the_configured_rules_and_say_how_they_were_made(run3):
    rules = make_rules("newmarket", 3, num_deals=1)
    metadata = json.loads((run3 / "final.json").read_text())
    assert metadata["rules"]["num_players"] == 3 and metadata["variant"] == "newmarket"
    training = metadata["training"]
    assert training["method"] == "expert_iteration"
    assert training["steps"] == 144
    assert training["config"]["env"]["num_players"] == 3
    assert training["run_id"] == json.loads((run3 / "run.json").read_text())["run_id"]
    agent = load_agent(str(run3 / "final.npz"), env=env(variant="newmarket", num_players=3, num_deals=1))
    assert agent.name == "tiny_exit"
    value = load_value(run3 / "final_value.npz", rules)
    assert value.chips(np.zeros((2, 936), dtype=np.float32)).shape == (2,)


def test_progress_has_one_row_per_iteration_with_the_window_of_labels(run3):
    with open(run3 / "progress.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
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
