"""Tutorial 7, examples/tutorials/own_method/: a training method of one's own, installed as a package.

pip really builds and installs the tutorial's package (its module and its dist-info with the entry point
``newmarket_env.methods: reinforce``) into a folder that fresh Python processes have on their path; the
train command then runs its YAML config through the shared run loop, as a user would. Expected values
come from outside the method's code: an uninterrupted run for the resumed one, the curve command's own
evaluation of each checkpoint for the curve, the registry without the package for its absence.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from newmarket_env.engine.choice import compiled_available

pytestmark = pytest.mark.skipif(not compiled_available(), reason="the method plays the vector env (compiled engine)")
pytest.importorskip("torch")

PACKAGE = Path(__file__).resolve().parents[2] / "examples" / "tutorials" / "own_method"
CONFIG = PACKAGE / "reinforce.yaml"
#: Toy size: 8 tables x 32 decisions = 256 a iteration; checkpoints (and evaluations) every 512.
SMALL = ["--no-progress", "--set", "reinforce.tables=8", "--set", "run.checkpoint_every=512"]
SMALL += ["--set", "eval.every=512", "--set", "eval.sessions=2", "--set", "eval.final_sessions=2"]
SMALL += ["--set", "eval.opponents=[random]"]
HANG_GUARD_S = 600  # only so a broken build fails instead of hanging CI; never an assertion on speed


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A folder into which pip installed nm-reinforce (its module and its entry point)."""
    target = tmp_path_factory.mktemp("site")
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "nm_reinforce.py"):  # built outside the repository: no build/ left in it
        (source / name).write_bytes((PACKAGE / name).read_bytes())
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index"]
    subprocess.run([*command, "--target", str(target), str(source)], check=True, timeout=300, capture_output=True)
    assert list(target.glob("nm_reinforce-0.1.0.dist-info/entry_points.txt"))
    return target


def _run(site: Path | None, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    environment = {**os.environ, "PYTHONPATH": str(site) if site else ""}
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, timeout=HANG_GUARD_S, env=environment, cwd=cwd
    )


def _train(site: Path, out: Path, *extra: str) -> str:
    done = _run(site, "-m", "newmarket_env.train", str(CONFIG), "--out-dir", str(out), *SMALL, *extra)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def runs(site, tmp_path_factory):
    """``whole``: 1,536 decisions in one go; ``parts``: stopped after 512 (its first checkpoint), resumed."""
    base = tmp_path_factory.mktemp("reinforce")
    _train(site, base / "whole", "--total-steps", "1536")
    _train(site, base / "parts", "--total-steps", "512")
    resumed = _train(site, base / "parts", "--total-steps", "1536", "--resume")
    return base / "whole", base / "parts", resumed


def test_the_installed_method_is_available_and_its_section_is_validated(site):
    probe = (
        "import json\n"
        "from newmarket_env.train.config import config_from_dict, describe\n"
        "from newmarket_env.train.methods import available_methods\n"
        "out = {'methods': available_methods(), 'describe': [l for l in describe() if l.startswith('reinforce:')]}\n"
        "for data in ({'method': 'reinforce', 'reinforce': {'tables': 0}}, {'reinforce': {'steps': 8}}):\n"
        "    try:\n"
        "        config_from_dict(data)\n"
        "    except ValueError as err:\n"
        "        out.setdefault('errors', []).append(str(err))\n"
        "print(json.dumps(out))\n"
    )
    with_it, without = _run(site, "-c", probe), _run(None, "-c", probe)
    assert with_it.returncode == 0 and without.returncode == 0, with_it.stderr + without.stderr
    found, absent = json.loads(with_it.stdout), json.loads(without.stdout)
    assert found["methods"] == ["ppo", "expert_iteration", "dmc", "rllib_ppo", "reinforce"]
    assert absent["methods"] == ["ppo", "expert_iteration", "dmc", "rllib_ppo"]
    assert found["describe"] == [
        "reinforce:  # REINFORCE with a learned baseline (method: reinforce): run.total_steps counts learner decisions."
    ]
    assert found["errors"] == [
        "reinforce.tables = 0 is not allowed; allowed: int in 1..4096",
        "reinforce.steps is for method reinforce; method ppo reads its own sections (pretrain, ppo, privileged) "
        "besides env, opponents, network, run, eval",
    ]
    assert absent["errors"][0].startswith("method = 'reinforce' is not allowed; allowed: ppo, expert_iteration")
    assert absent["errors"][1].startswith("unknown config key 'reinforce'; allowed keys: name, method, env")


def test_a_run_from_its_yaml_writes_the_run_folder_through_the_shared_loop(runs):
    whole, _, _ = runs
    for name in ("run.json", "config.yaml", "progress.csv", "eval.csv", "learning_curve.png", "final.json"):
        assert (whole / name).is_file(), name
    assert sorted(p.name for p in (whole / "checkpoints").glob("*.pt")) == [
        "reinforce_1024_steps.pt",
        "reinforce_1536_steps.pt",
        "reinforce_512_steps.pt",
    ]
    assert [int(row["steps"]) for row in _rows(whole / "progress.csv")] == [256 * k for k in range(1, 7)]
    assert [(row["steps"], row["opponent"]) for row in _rows(whole / "eval.csv")] == [
        ("0", "random"),
        ("512", "random"),
        ("1024", "random"),
        ("1536", "random"),
    ]
    final = json.loads((whole / "final.json").read_text())
    assert final["training"]["method"] == "reinforce" and final["training"]["steps"] == 1536
    assert final["layers"] == [936, 128, 79] and final["name"] == "reinforce_newmarket"


def test_the_resumed_run_is_the_uninterrupted_one(runs):
    from newmarket_env.agents.saved import read_saved

    whole, parts, printed = runs
    assert "resuming from reinforce_512_steps.pt (512 learner decisions)" in printed
    for (w1, b1), (w2, b2) in zip(read_saved(whole / "final.npz")[1], read_saved(parts / "final.npz")[1], strict=True):
        np.testing.assert_array_equal(w1, w2)
        np.testing.assert_array_equal(b1, b2)
    assert _rows(whole / "progress.csv") == _rows(parts / "progress.csv")
    run = json.loads((parts / "run.json").read_text())
    assert [entry["at_steps"] for entry in run["resumed"]] == [512]


def test_the_curve_measures_each_of_its_checkpoints(site, runs, tmp_path):
    """``train.curve`` builds the method's learner from the run's config and loads each checkpoint; the
    last point is the final agent's own evaluation, computed here from final.npz."""
    from newmarket_env.agents.saved import load_saved_agent
    from newmarket_env.game.rules import make_rules
    from newmarket_env.train.evaluate import duplicate_eval, saved_agent_maker

    whole, _, _ = runs
    done = _run(
        site, "-m", "newmarket_env.train.curve", str(whole), "--opponents", "random", "--every", "1", "--boards", "20"
    )
    assert done.returncode == 0, done.stderr
    rows = _rows(whole / "curve.csv")
    assert [(row["steps"], row["opponent"]) for row in rows] == [
        ("512", "random"),
        ("1024", "random"),
        ("1536", "random"),
    ]
    final = load_saved_agent(whole / "final.npz", make_rules("newmarket", 4, num_deals=1))
    expected = duplicate_eval(
        saved_agent_maker(final), "random", "newmarket", 4, boards=20, seed=2026, rules={"num_deals": 1}
    )
    assert float(rows[-1]["mean"]) == pytest.approx(expected.mean, abs=1e-12)
    assert (whole / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
