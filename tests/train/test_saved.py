"""Saved agents: round trip, masked greedy actions, broken and foreign files, rules mismatch."""

import numpy as np
import pytest

from newmarket_env import env, load_agent, make_rules
from newmarket_env.agents.saved import read_saved, save_policy
from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.observation.layout import FLAT_SIZE


def tiny_layers(seed=0):
    rng = np.random.default_rng(seed)
    return [
        (rng.normal(size=(8, FLAT_SIZE)), rng.normal(size=8)),
        (rng.normal(size=(NUM_ACTIONS, 8)), np.zeros(NUM_ACTIONS)),
    ]


@pytest.fixture
def saved(tmp_path):
    path = tmp_path / "agent.npz"
    save_policy(path, tiny_layers(), make_rules("michigan", 4), "michigan", "relu", {"steps": 1})
    return path


def test_round_trip_plays_legal_actions(saved):
    metadata, _layers = read_saved(saved)
    assert metadata["variant"] == "michigan" and metadata["layers"] == [FLAT_SIZE, 8, NUM_ACTIONS]
    e = env(variant="michigan", num_players=4)
    e.reset(seed=2)
    agents = {a: load_agent(str(saved), env=e, seed=0) for a in e.agents}
    for name in e.agent_iter():
        obs, _, done, trunc, _ = e.last()
        action = None if done or trunc else agents[name].act(obs)
        assert action is None or obs["action_mask"][action] == 1
        e.step(action)


def test_sampling_option_stays_legal(saved):
    e = env(variant="michigan", num_players=4)
    e.reset(seed=5)
    agent = load_agent(str(saved), env=e, seed=1, sample=True)
    obs = e.observe(e.agent_selection)
    assert all(obs["action_mask"][agent.act(obs)] for _ in range(20))


@pytest.mark.parametrize("damage", ["truncate", "garbage", "no_metadata", "bad_shape", "other_format"])
def test_broken_or_foreign_files_give_value_error(saved, tmp_path, damage):
    path = tmp_path / f"{damage}.npz"
    raw = saved.read_bytes()
    if damage == "truncate":
        path.write_bytes(raw[: len(raw) // 2])
    elif damage == "garbage":
        path.write_bytes(b"not an npz at all")
    elif damage == "no_metadata":
        np.savez(path, weights=np.zeros(3))
    elif damage == "bad_shape":
        save_policy(
            path,
            [(np.zeros((8, 10)), np.zeros(8)), (np.zeros((NUM_ACTIONS, 8)), np.zeros(NUM_ACTIONS))],
            make_rules("michigan", 4),
            "michigan",
            "relu",
        )
    else:
        metadata = np.frombuffer(b'{"format": "something else"}', dtype=np.uint8)
        np.savez(path, metadata=metadata)
    e = env(variant="michigan", num_players=4)
    with pytest.raises(ValueError, match="not a valid newmarket_env saved agent"):
        load_agent(str(path), env=e)


def test_pickled_object_arrays_are_refused(tmp_path):
    path = tmp_path / "pickle.npz"
    np.savez(path, metadata=np.array([{"format": "x"}], dtype=object))
    with pytest.raises(ValueError, match="not a valid"):
        read_saved(path)


def test_other_rules_give_a_clear_error(saved):
    with pytest.raises(ValueError, match="num_players"):
        load_agent(str(saved), env=env(variant="michigan", num_players=5))
    with pytest.raises(ValueError, match="trained for 'michigan'"):
        load_agent(str(saved), env=env(variant="newmarket", num_players=4))


SHIPPED = __import__("newmarket_env.agents.saved", fromlist=["shipped_agents"]).shipped_agents()


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_agent_is_registered_and_plays_only_its_rules(name):
    from newmarket_env import available_agents
    from newmarket_env.agents.saved import TRAINED_DIR, shipped_agents

    metadata, _ = read_saved(TRAINED_DIR / f"{name}.npz")
    e = env(variant=metadata["variant"], num_players=metadata["rules"]["num_players"])
    assert name in available_agents() and name in shipped_agents(e.unwrapped.rules)
    e.reset(seed=0)
    obs = e.observe(e.agent_selection)
    assert obs["action_mask"][load_agent(name, env=e, seed=0).act(obs)] == 1
    other = "michigan" if metadata["variant"] == "newmarket" else "newmarket"
    assert name not in shipped_agents(make_rules(other, 4))
    with pytest.raises(ValueError, match="other rules"):
        load_agent(name, env=env(variant=other, num_players=4))
