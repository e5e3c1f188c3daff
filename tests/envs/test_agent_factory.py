"""The views that seat opponents build them with their ``agent_factory``; the default is ``newmarket_env.load_agent``.

(That the views run with the agents package absent: ``tests/test_core_isolation.py``.)
"""

from __future__ import annotations

import numpy as np
import pytest

import newmarket_env
from newmarket_env.envs import SingleAgentEnv, VectorEnv
from newmarket_env.play.session import PlayOptions, prepare


class Highest:
    """Written here, not taken from agents/: the highest legal action."""

    def __init__(self) -> None:
        self.resets = self.moves = 0

    def reset(self) -> None:
        self.resets += 1

    def act(self, observation) -> int:
        self.moves += 1
        return int(np.flatnonzero(observation["action_mask"])[-1])


class Recorder:
    def __init__(self) -> None:
        self.calls: list[tuple[str, object, int]] = []
        self.agents: list[Highest] = []

    def __call__(self, spec, *, env, seed):
        self.calls.append((spec, env, seed))
        self.agents.append(Highest())
        return self.agents[-1]


def _session(env, seed: int | None) -> list:
    obs, info = env.reset(seed=seed)
    trace, done = [obs], False
    while not done:
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        trace.append((obs, reward))
        done = terminated or truncated
    return trace


def test_single_agent_env_builds_its_opponents_with_the_factory():
    factory = Recorder()
    env = SingleAgentEnv(num_players=4, opponents=["a", "b"], seat=0, num_deals=1, agent_factory=factory)
    for seed in (4, None, None):  # a seeded reset rebuilds the agents from the new seed; others keep them
        _session(env, seed=seed)
        assert env.table[0] is None and set(env.table[1:]) <= {"a", "b"}
    # One agent per (spec, seat) at most, built from the pool's specs for the AEC env the view plays in.
    assert 3 <= len(factory.calls) <= 6
    assert all(
        spec in ("a", "b") and made_for is env.aec and isinstance(seed, int) for spec, made_for, seed in factory.calls
    )
    assert all(agent.resets >= 1 for agent in factory.agents)
    assert sum(agent.moves for agent in factory.agents) > 0


def test_the_factorys_seeds_replay_with_the_env_seed():
    first, second = Recorder(), Recorder()
    for factory in (first, second):
        env = SingleAgentEnv(num_players=4, opponents=["a"], num_deals=1, agent_factory=factory)
        _session(env, seed=9)
    assert [seed for *_, seed in first.calls] == [seed for *_, seed in second.calls]


def test_the_default_factory_is_the_package_facade():
    """No factory, or ``load_agent`` given as one: the same opponents, so the same session."""
    kwargs = dict(num_players=4, opponents=["greedy", "random"], num_deals=1)
    default = _session(SingleAgentEnv(**kwargs), seed=3)
    given = _session(SingleAgentEnv(agent_factory=newmarket_env.load_agent, **kwargs), seed=3)
    assert len(default) == len(given)
    assert all(np.array_equal(a[0], b[0]) and a[1] == b[1] for a, b in zip(default[1:], given[1:], strict=True))


def test_a_factory_that_is_not_callable_is_refused_in_one_line():
    message = (
        "agent_factory='random' is not callable; allowed: None (newmarket_env.load_agent) "
        "or a callable factory(spec, env=..., seed=...) -> agent"
    )
    with pytest.raises(ValueError) as err:
        SingleAgentEnv(agent_factory="random")
    assert str(err.value) == message
    with pytest.raises(ValueError) as err:
        prepare(PlayOptions(), agent_factory="random")
    assert str(err.value) == message


def test_the_terminal_table_seats_the_factorys_agents():
    factory = Recorder()
    table = prepare(PlayOptions(num_players=4, seat=1, seed=5, agents=["x", "y", "z"]), agent_factory=factory)
    assert [spec for spec, *_ in factory.calls] == ["x", "y", "z"]
    assert [seed for *_, seed in factory.calls] == [6, 8, 9]  # the session seed + 1 + seat, as with load_agent
    assert list(table.opponents.values()) == factory.agents


def test_vector_env_builds_only_what_it_does_not_play_in_compiled_code():
    pytest.importorskip("newmarket_env.engine._batch", reason="the compiled engine is not built")
    factory = Recorder()
    envs = VectorEnv(num_players=4, num_envs=4, opponents=["control", "mine"], agent_factory=factory, seed=2)
    envs.reset(seed=2)
    for _ in range(30):
        envs.step(envs.action_masks().argmax(axis=1))
    assert {spec for spec, *_ in factory.calls} == {"mine"}  # control is the compiled baseline
    assert all(made_for is envs for _, made_for, _ in factory.calls)
    assert sum(agent.moves for agent in factory.agents) > 0
