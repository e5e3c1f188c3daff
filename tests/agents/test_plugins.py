"""Agents of an installed package (entry-point group ``newmarket_env.agents``): a real package, built and
installed by pip into a folder that a fresh Python process has on its path."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent / "plugin_package"
NEWMARKET = Path(sys.executable).parent / "newmarket"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A folder into which pip installed nm-tiny-plugin (its module and its dist-info with the entry points)."""
    target = tmp_path_factory.mktemp("site")
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "nm_tiny_plugin.py"):  # built outside the repository: no build/ left in it
        (source / name).write_bytes((PACKAGE / name).read_bytes())
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index"]
    subprocess.run([*command, "--target", str(target), str(source)], check=True, timeout=300, capture_output=True)
    assert list(target.glob("nm_tiny_plugin-0.1.0.dist-info/entry_points.txt"))
    return target


def _run(site, args, cwd=None):
    environment = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run(args, capture_output=True, text=True, timeout=300, env=environment, cwd=cwd)


PROBE = textwrap.dedent(
    """
    import json, warnings
    import numpy as np
    from newmarket_env import available_agents, env, load_agent

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        names = available_agents()
    e = env(variant="newmarket", num_players=4)
    e.reset(seed=3)
    obs = e.observe(e.agent_selection)
    legal = np.flatnonzero(obs["action_mask"]).tolist()
    out = {"names": names, "warnings": [str(w.message) for w in caught], "legal": legal}
    out["highest"] = load_agent("tiny-highest", env=e, seed=1).act(obs)
    out["lowest"] = load_agent("tiny-factory", env=e, seed=1, lowest=True).act(obs)
    out["random"] = type(load_agent("random", env=e, seed=1)).__module__
    for spec, options in (("tiny-broken", {}), ("tiny-factory", {"colour": 1})):
        try:
            load_agent(spec, env=e, **options)
        except ValueError as err:
            out[spec] = str(err)
    print(json.dumps(out))
    """
)


def test_an_installed_packages_agents_are_available_and_load(site):
    done = _run(site, [sys.executable, "-c", PROBE])
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert {"tiny-highest", "tiny-factory", "tiny-broken", "random", "control"} <= set(out["names"])
    assert out["highest"] == out["legal"][-1] and out["lowest"] == out["legal"][0]
    assert out["random"] != "nm_tiny_plugin"  # the baseline keeps its name
    assert out["warnings"] == [
        "agent plugin 'random' of nm-tiny-plugin 0.1.0 is ignored: the name belongs to a registered agent"
    ]
    assert out["tiny-broken"] == (
        "agent 'tiny-broken' of nm-tiny-plugin 0.1.0 (nm_tiny_plugin:Missing) cannot be loaded "
        "(AttributeError: module 'nm_tiny_plugin' has no attribute 'Missing')"
    )
    assert out["tiny-factory"] == "agent option 'colour' is unknown for 'tiny-factory'; allowed: lowest"


def test_without_the_package_its_agents_are_unknown():
    done = subprocess.run(
        [sys.executable, "-c", "from newmarket_env import available_agents; print(available_agents())"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0 and "tiny-highest" not in done.stdout and "control" in done.stdout


def test_a_plugins_agent_enters_a_tournament_from_the_command_line(site, tmp_path):
    command = [str(NEWMARKET), "tournament", "--agents", "tiny-highest,random,random,random", "--blocks", "1"]
    command += ["--workers", "1", "--resamples", "100", "--set", "num_deals=1", "--out", str(tmp_path / "out")]
    done = _run(site, command)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["agents"][0]["label"] == "tiny-highest" and len(results["games"]) == 4


TWIN_PROJECT = """
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "nm-twin-plugin"
version = "0.2.0"

[project.entry-points."newmarket_env.agents"]
tiny-highest = "nm_twin_plugin:LowestAction"  # the name nm-tiny-plugin declares too

[tool.setuptools]
py-modules = ["nm_twin_plugin"]
"""
TWIN_MODULE = """
import numpy as np
from newmarket_env.agents import Agent


class LowestAction(Agent):
    def act(self, observation):
        return int(np.flatnonzero(observation["action_mask"])[0])
"""


def test_two_packages_declaring_one_name_are_both_named_in_a_warning(site, tmp_path):
    source = tmp_path / "twin"
    source.mkdir()
    (source / "pyproject.toml").write_text(TWIN_PROJECT)
    (source / "nm_twin_plugin.py").write_text(TWIN_MODULE)
    both = tmp_path / "site"
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index"]
    tiny = tmp_path / "tiny"
    tiny.mkdir()
    for name in ("pyproject.toml", "nm_tiny_plugin.py"):  # built outside the repository: no build/ left in it
        (tiny / name).write_bytes((PACKAGE / name).read_bytes())
    for package in (tiny, source):
        subprocess.run([*command, "--target", str(both), str(package)], check=True, timeout=300, capture_output=True)
    done = _run(both, [sys.executable, "-c", PROBE])
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["warnings"] == [
        "agent plugin 'random' of nm-tiny-plugin 0.1.0 is ignored: the name belongs to a registered agent",
        "agent plugin 'tiny-highest' is declared by two packages: nm-tiny-plugin 0.1.0 "
        "(nm_tiny_plugin:HighestAction) and nm-twin-plugin 0.2.0 (nm_twin_plugin:LowestAction); nm-tiny-plugin "
        "0.1.0's is used (load the other by its reference, 'nm_twin_plugin:LowestAction')",
    ]
    assert out["highest"] == out["legal"][-1]  # nm-tiny-plugin's agent, whatever order the folder lists them in
