"""Agents by reference (``MODULE:ATTR``): a user's module on disk, loaded through load_agent and the CLI."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from newmarket_env import env, load_agent
from newmarket_env.agents.reference import is_reference

USER_MODULE = textwrap.dedent(
    """
    import numpy as np

    from newmarket_env.agents import Agent


    class HighestAction(Agent):
        name = "highest"

        def act(self, observation):
            return int(np.flatnonzero(observation["action_mask"])[-1])


    def make(rules, seed=None, pick="last"):
        agent = HighestAction(rules, seed)
        agent.pick = pick
        return agent


    class Table:
        factory = staticmethod(make)


    def not_an_agent(rules, seed=None):
        return "a string"


    def needs_more(colour):
        return None


    class Plain:
        pass


    NUMBER = 3
    """
)


@pytest.fixture
def user_folder(tmp_path, monkeypatch):
    """A folder holding the user's module ``nm_user_agents.py``, on sys.path (as PYTHONPATH would put it)."""
    (tmp_path / "nm_user_agents.py").write_text(USER_MODULE)
    (tmp_path / "nm_broken_agents.py").write_text("import nm_no_such_dependency\n")
    (tmp_path / "nm_failing_agents.py").write_text("raise RuntimeError('cannot start\\nhere')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in ("nm_user_agents", "nm_broken_agents", "nm_failing_agents"):
        sys.modules.pop(name, None)


def _observation(e):
    e.reset(seed=3)
    return e.observe(e.agent_selection)


def test_a_class_and_a_factory_are_built_as_registered_factories_are(user_folder):
    e = env(variant="newmarket", num_players=4)
    obs = _observation(e)
    by_class = load_agent("nm_user_agents:HighestAction", env=e, seed=5)
    assert type(by_class).__name__ == "HighestAction" and by_class.rules is e.unwrapped.rules and by_class.seed == 5
    assert by_class.act(obs) == int(np.flatnonzero(obs["action_mask"])[-1])
    by_factory = load_agent("nm_user_agents:make", env=e, seed=2, pick="first")
    assert by_factory.pick == "first" and by_factory.seed == 2
    dotted = load_agent("nm_user_agents:Table.factory", env=e, seed=1)
    assert dotted.pick == "last"


@pytest.mark.parametrize(
    "spec,options,message",
    [
        (
            "nm_nowhere_module:Agent",
            {},
            "agent 'nm_nowhere_module:Agent': module 'nm_nowhere_module' cannot be imported; MODULE:ATTR needs "
            "MODULE importable (in the current folder, on PYTHONPATH or installed)",
        ),
        (
            "nm_broken_agents:Agent",
            {},
            "agent 'nm_broken_agents:Agent': module 'nm_broken_agents' cannot be imported (it imports "
            "'nm_no_such_dependency', which is missing); MODULE:ATTR needs MODULE importable (in the current "
            "folder, on PYTHONPATH or installed)",
        ),
        (
            "nm_failing_agents:Agent",
            {},
            "agent 'nm_failing_agents:Agent': importing module 'nm_failing_agents' failed (RuntimeError: cannot "
            "start here)",
        ),
        (
            "nm_user_agents:Missing",
            {},
            "agent 'nm_user_agents:Missing': module 'nm_user_agents' has no attribute 'Missing'",
        ),
        ("nm_user_agents:Table.missing", {}, "module 'nm_user_agents' has no attribute 'Table.missing'"),
        (
            "nm_user_agents:Plain",
            {},
            "agent 'nm_user_agents:Plain' is the class 'Plain', which is not a subclass of newmarket_env.agents.Agent",
        ),
        ("nm_user_agents:NUMBER", {}, "agent 'nm_user_agents:NUMBER' is a int, not an Agent subclass nor a factory"),
        (
            "nm_user_agents:not_an_agent",
            {},
            "agent 'nm_user_agents:not_an_agent' returned a str, which is not an agent (it needs reset() and act())",
        ),
        (
            "nm_user_agents:needs_more",
            {},
            "agent 'nm_user_agents:needs_more' cannot be built as factory(rules=..., seed=..., **options) "
            "(missing a required argument: 'colour')",
        ),
        (
            "nm_user_agents:make",
            {"colour": 1},
            "agent option 'colour' is unknown for 'nm_user_agents:make'; allowed: pick",
        ),
        (
            "nm_user_agents:HighestAction",
            {"colour": 1},
            "agent option 'colour' is unknown for 'nm_user_agents:HighestAction'; allowed: none (it takes no options)",
        ),
    ],
)
def test_a_bad_reference_is_one_line_naming_what_is_wrong(user_folder, spec, options, message):
    with pytest.raises(ValueError) as err:
        load_agent(spec, env=env(variant="newmarket"), **options)
    assert message in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize(
    "text,expected",
    [
        ("mod:Attr", True),
        ("pkg.mod:Attr.sub", True),
        ("random", False),
        ("runs/x/final.npz", False),
        ("C:\\agents\\x.npz", False),
        ("mod:", False),
        (":Attr", False),
        ("mod:Attr:more", False),
    ],
)
def test_what_reads_as_a_reference(text, expected):
    assert is_reference(text) is expected


def test_a_file_wins_over_a_reference_of_the_same_text(tmp_path, monkeypatch):
    """A saved agent whose file name has a colon is still opened as the file it is."""
    source = Path(__file__).resolve().parents[2] / "agents" / "trained" / "ppo-newmarket.npz"
    (tmp_path / "nm:odd").write_bytes(source.read_bytes())
    monkeypatch.chdir(tmp_path)
    assert type(load_agent("nm:odd", env=env(variant="newmarket"))).__name__ == "SavedAgent"


def test_a_users_agent_enters_a_tournament_from_the_command_line(tmp_path):
    """The newmarket script, run in the folder of the user's module (not on PYTHONPATH): the current
    folder is searched, the agent plays every seating and is labelled by its reference."""
    (tmp_path / "nm_user_agents.py").write_text(USER_MODULE)
    script = Path(sys.executable).parent / "newmarket"
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    command = [str(script), "tournament", "--agents", "nm_user_agents:HighestAction,random,random,random"]
    command += ["--blocks", "1", "--workers", "1", "--resamples", "100", "--set", "num_deals=1", "--out", "out"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300, env=environment)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["agents"][0]["label"] == "nm_user_agents:HighestAction"
    assert len(results["games"]) == 4


def test_a_missing_reference_stops_the_tournament_in_one_line(tmp_path):
    script = Path(sys.executable).parent / "newmarket"
    command = [str(script), "tournament", "--agents", "nm_nowhere_module:Agent,random,random,random", "--out", "o"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "module 'nm_nowhere_module' cannot be imported" in done.stderr and not (tmp_path / "o").exists()
