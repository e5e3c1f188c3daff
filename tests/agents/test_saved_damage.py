"""Damaged inputs of the agents: corrupt saved-agent files, a broken table of shipped guided searches, an
observation without a legal action, and options out of range. Each is a one-line ValueError naming what
is wrong (and the file, where there is one), never a zlib error, a MemoryError or a silent replacement."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest

from newmarket_env import available_agents, env, load_agent, make_rules
from newmarket_env.agents import guided_search as G
from newmarket_env.agents import registry, shipped
from newmarket_env.agents.saved import TRAINED_DIR, read_saved, save_policy
from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.observation.layout import FLAT_SIZE

RULES = make_rules("newmarket", 4)
NEWMARKET = Path(sys.executable).parent / "newmarket"


def _small_agent(path: Path) -> Path:
    rng = np.random.default_rng(0)
    layers = [
        (rng.normal(size=(4, FLAT_SIZE)), rng.normal(size=4)),
        (rng.normal(size=(NUM_ACTIONS, 4)), rng.normal(size=NUM_ACTIONS)),
    ]
    save_policy(path, layers, RULES, "newmarket", "tanh")
    return path


def _data_offset(path: Path, entry: str) -> int:
    """Where the compressed bytes of ``entry`` start in the archive (after its local file header)."""
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(entry)
    raw = path.read_bytes()
    name_length, extra_length = struct.unpack("<HH", raw[info.header_offset + 26 : info.header_offset + 30])
    return info.header_offset + 30 + name_length + extra_length


def test_a_corrupt_compressed_stream_is_a_value_error_naming_the_file(tmp_path):
    path = _small_agent(tmp_path / "agent.npz")
    raw = bytearray(path.read_bytes())
    raw[_data_offset(path, "layer0.weight.npy")] = 0xFF  # deflate block type 3: reserved, "invalid block type"
    path.write_bytes(bytes(raw))
    with pytest.raises(ValueError) as err:
        read_saved(path)
    message = str(err.value)
    assert message.startswith(f"{str(path)!r} is not a valid newmarket_env saved agent: cannot read it as an .npz")
    assert "invalid block type" in message and "\n" not in message


def test_a_header_declaring_a_huge_array_is_refused_before_allocating_it(tmp_path):
    """A .npy header may declare any shape; the metadata says which one the layer must have."""
    good = _small_agent(tmp_path / "good.npz")
    path = tmp_path / "huge.npz"
    with zipfile.ZipFile(good) as source, zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == "layer0.weight.npy":
                header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1048576, 1048576), }"
                header += " " * (117 - len(header)) + "\n"
                data = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + b"\0" * 64
            out.writestr(info.filename, data)
    with pytest.raises(ValueError) as err:
        read_saved(path)
    assert str(err.value) == (
        f"{str(path)!r} is not a valid newmarket_env saved agent: layer 0 has shape (1048576, 1048576) / (4,), "
        "expected float (4, 936) / (4,)".replace("936", str(FLAT_SIZE))
    )


def test_watch_names_a_corrupt_agent_file_in_one_line(tmp_path):
    path = _small_agent(tmp_path / "agent.npz")
    raw = bytearray(path.read_bytes())
    raw[_data_offset(path, "layer1.weight.npy")] = 0xFF
    path.write_bytes(bytes(raw))
    done = subprocess.run(
        [str(NEWMARKET), "watch", "--agents", f"{path},random,random,random", "--set", "num_deals=1"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("newmarket watch: error: ") and str(path) in done.stderr


def test_a_saved_agent_refuses_an_observation_without_a_legal_action():
    e = env(variant="newmarket", num_players=4)
    e.reset(seed=0)
    observation = dict(e.observe(e.agent_selection))
    observation["action_mask"] = np.zeros(NUM_ACTIONS, dtype=np.int8)
    agent = load_agent("ppo-newmarket", env=e)
    with pytest.raises(ValueError, match=r"^act\(\) was given an observation whose action_mask has no legal action$"):
        agent.act(observation)


def _dmc_agent(path: Path) -> Path:
    """A Q network as Deep Monte-Carlo saves it (its outputs are action values, not logits)."""
    rng = np.random.default_rng(1)
    layers = [(rng.normal(size=(3, FLAT_SIZE)), rng.normal(size=3)), (rng.normal(size=(NUM_ACTIONS, 3)), np.zeros(79))]
    save_policy(path, layers, RULES, "newmarket", "relu", training={"outputs": "q_values", "reward_scale": 0.1})
    return path


@pytest.mark.parametrize("name", ["ppo-newmarket", "exit-newmarket", "dmc"])
@pytest.mark.parametrize("size", [0, 10, 900, FLAT_SIZE - 1, FLAT_SIZE + 1, 1000])
def test_a_saved_agent_refuses_an_observation_of_another_size_as_the_compiled_agents_do(tmp_path, name, size):
    e = env(variant="newmarket", num_players=4)
    e.reset(seed=0)
    good = e.observe(e.agent_selection)
    agent = load_agent(str(_dmc_agent(tmp_path / "dmc.npz")) if name == "dmc" else name, env=e, seed=0)
    assert agent.act(good) in np.flatnonzero(good["action_mask"])
    bad = {"observation": np.zeros(size, np.float32), "action_mask": good["action_mask"]}
    if size < FLAT_SIZE:
        bad["observation"][:] = good["observation"][:size]  # a cut observation, with its cards
    with pytest.raises(ValueError) as compiled:  # the message of the agents that already refused it
        load_agent("greedy", env=e, seed=0).act(bad)
    expected = str(compiled.value)
    assert f"({FLAT_SIZE},)" in expected and "\n" not in expected
    for ask in (agent.act, agent.explain):
        with pytest.raises(ValueError) as refused:
            ask(bad)
        assert str(refused.value) == expected
    with pytest.raises(ValueError, match=rf"^observations of shape \(2, {size}\) .*\(2, {FLAT_SIZE}\)$"):
        agent.act_batch(np.zeros((2, size), np.float32), np.ones((2, NUM_ACTIONS), bool))
    with pytest.raises(ValueError, match=r"^action_mask of shape \(78,\) is not \(79,\)$"):
        agent.act({"observation": good["observation"], "action_mask": good["action_mask"][:-1]})


@pytest.mark.parametrize(
    "table,problem",
    [
        ("{not json", "cannot be read as JSON (Expecting property name enclosed in double quotes: line 1 column 2"),
        ('{"agents": []}', "must be a JSON object with an 'agents' object"),
        ('{"agents": {"x": {"options": {}}}}', "entry 'x' needs 'network', the name of an .npz file beside it"),
        ('{"agents": {"x": {"network": "../../etc/x.npz", "options": {}}}}', "entry 'x' needs 'network'"),
        ('{"agents": {"x": {"network": "exit-newmarket.npz"}}}', "entry 'x' needs 'options', an object"),
    ],
)
def test_a_broken_table_of_guided_searches_names_the_file_in_one_line(tmp_path, monkeypatch, table, problem):
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(shipped, "_SHIPPED_NAMES", set(shipped._SHIPPED_NAMES))
    path = tmp_path / "guided.json"
    path.write_text(table)
    with pytest.raises(ValueError) as err:
        G.shipped_guided(path)
    assert str(err.value).startswith(f"shipped guided searches {str(path)!r}") and problem in str(err.value)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        shipped.register_shipped_guided(path)  # the other agents still load: one warning, nothing registered
    assert [str(w.message) for w in caught] == [f"{err.value}; its agents are not registered"]
    assert "x" not in available_agents() and "control" in available_agents()


def test_a_guided_entry_may_not_take_a_baselines_name(tmp_path, monkeypatch):
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(shipped, "_SHIPPED_NAMES", set(shipped._SHIPPED_NAMES))
    path = tmp_path / "guided.json"
    entry = {"network": "exit-newmarket.npz", "options": {"budget": 2}}
    path.write_text(json.dumps({"agents": {"random": entry, "zz-guided": entry}}))
    (tmp_path / "exit-newmarket.npz").write_bytes((TRAINED_DIR / "exit-newmarket.npz").read_bytes())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        shipped.register_shipped_guided(path)
    assert [str(w.message) for w in caught] == [
        f"shipped guided searches {str(path)!r}: entry 'random' is not registered, the name belongs to another agent"
    ]
    e = env(variant="newmarket", num_players=4)
    assert type(load_agent("random", env=e)).__name__ != "GuidedSearchAgent"
    assert type(load_agent("zz-guided", env=e)).__name__ == "GuidedSearchAgent"


@pytest.mark.parametrize(
    "name,options,message",
    [
        (
            "search",
            {"nosuch": 1},
            "agent option 'nosuch' is unknown for 'search'; allowed: budget, rollout, max_candidates, engine",
        ),
        (
            "ppo-newmarket",
            {"nosuch": 1},
            "agent option 'nosuch' is unknown for 'ppo-newmarket'; allowed: sample, allow_rules_mismatch",
        ),
        ("ppo-newmarket", {"sample": "yes"}, "sample='yes' must be True or False (sample actions, or take the best)"),
        (
            "exit-newmarket-search",
            {"nosuch": 1},
            "agent option 'nosuch' is unknown for guided_search; allowed: network, "
            "value, budget, cutoff, max_candidates, prior, rollout, prior_weight, racing_worlds, racing_z",
        ),
        ("search", {"budget": 10**7}, "budget=10000000 must be an int from 1 to 10000 (worlds sampled per decision)"),
        ("exit-newmarket-search", {"budget": 10**9}, "budget=1000000000 must be an int from 1 to 10000"),
    ],
)
def test_agent_options_out_of_place_are_one_line_value_errors(name, options, message):
    with pytest.raises(ValueError) as err:
        load_agent(name, env=env(variant="newmarket", num_players=4), **options)
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_a_saved_file_by_path_names_its_options_too(tmp_path):
    path = _small_agent(tmp_path / "agent.npz")
    with pytest.raises(ValueError) as err:
        load_agent(str(path), env=env(variant="newmarket", num_players=4), nosuch=1)
    assert str(err.value) == (
        f"agent option 'nosuch' is unknown for {str(path)!r}; allowed: sample, allow_rules_mismatch, name"
    )


def test_metadata_nested_without_end_is_one_line(tmp_path):
    path = tmp_path / "deep.npz"
    np.savez(path, metadata=np.frombuffer(b"[" * 200_000 + b"]" * 200_000, dtype=np.uint8))
    with pytest.raises(ValueError) as refused:
        read_saved(path)
    assert str(refused.value) == (
        f"{str(path)!r} is not a valid newmarket_env saved agent: its metadata nests too deep to be a saved agent's"
    )
