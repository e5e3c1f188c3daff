"""The registry: names to agents, engines, options, seeds; and the compiled baselines' streams.

A baseline's seed must reach its random stream: the same seed plays the same way, another seed another
way (``control`` samples dead hands to value the widow; ``random`` draws its actions).
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from newmarket_env import env, raw_env
from newmarket_env.agents import compiled, registry
from newmarket_env.agents.base import Agent
from newmarket_env.agents.compiled import CompiledPolicyAgent
from newmarket_env.agents.control import ControlPolicy
from newmarket_env.agents.greedy import GreedyPolicy
from newmarket_env.agents.lowest import LowestPolicy
from newmarket_env.agents.policy import PolicyAgent
from newmarket_env.agents.random_agent import RandomAgent
from newmarket_env.agents.registry import available_agents, load_agent, register_agent
from newmarket_env.agents.search import SearchAgent
from newmarket_env.game import actions as A
from newmarket_env.observation.view import decode
from tests.agents.helpers import deal, first_observation

POLICIES = {"lowest": LowestPolicy, "greedy": GreedyPolicy, "control": ControlPolicy}
# A michigan dealer's hand whose widow is worth about the auction (8.5 chips): control's sampled estimate
# falls on either side of it, so its keep/exchange choices follow its random stream.
BORDERLINE = ["7D", "TD", "JD", "3H", "QH", "AS", "4C", "KD", "7C", "TH", "9D", "QS", "5D"]
ALL = [rank + suit for suit in "CDHS" for rank in "A23456789TJQK"]


def _widow_position():
    rest = [c for c in ALL if c not in BORDERLINE]
    e = env(variant="michigan", num_players=3)
    obs = first_observation(e, [deal(0, [BORDERLINE, rest[:13], rest[13:26]])])
    assert decode(obs).decision.value == "widow"
    return e, obs


def _choices(agent, obs, count=12):
    return [agent.act(obs) for _ in range(count)]


@pytest.mark.parametrize("name", list(POLICIES))
def test_python_baselines_get_their_seed(name):
    e = env(variant="newmarket", num_players=4)
    agent = load_agent(name, env=e, seed=5, engine="python")
    assert type(agent) is PolicyAgent and agent.policy_class is POLICIES[name] and agent.name == name
    assert agent.seed == 5 and agent.rules is e.unwrapped.rules
    assert agent.policy.rng.random() == random.Random(5).random()


def test_python_control_plays_the_same_for_a_seed_and_otherwise_for_another():
    e, obs = _widow_position()
    same = [_choices(load_agent("control", env=e, seed=3, engine="python"), obs) for _ in range(2)]
    assert same[0] == same[1]
    assert {A.KEEP, A.EXCHANGE} == set(same[0])  # the stream decides, not the hand alone
    others = {tuple(_choices(load_agent("control", env=e, seed=s, engine="python"), obs)) for s in range(4, 8)}
    assert len(others | {tuple(same[0])}) > 1


def test_python_random_draws_from_its_seeded_stream():
    e = env(variant="newmarket", num_players=4)
    e.reset(seed=1)
    obs = e.observe(e.agent_selection)
    legal = np.flatnonzero(obs["action_mask"])
    assert len(legal) > 2
    agent = load_agent("random", env=e, seed=8, engine="python")
    assert type(agent) is RandomAgent
    stream = random.Random(8)
    assert _choices(agent, obs, 8) == [int(legal[stream.randrange(len(legal))]) for _ in range(8)]
    again, other = (load_agent("random", env=e, seed=s, engine="python") for s in (8, 9))
    assert _choices(again, obs, 8) != _choices(other, obs, 8)


@pytest.mark.parametrize("name", ["random", "lowest", "greedy", "control"])
def test_compiled_baselines_by_default(name):
    e = env(variant="newmarket", num_players=4)
    for engine in ("auto", "compiled"):
        agent = load_agent(name, env=e, seed=2, engine=engine)
        assert type(agent) is CompiledPolicyAgent and agent.name == name and agent.seed == 2
    assert load_agent(name, env=e).seed is None


def test_compiled_control_decides_like_the_python_one_and_restarts_on_reset():
    e, obs = _widow_position()
    python = _choices(load_agent("control", env=e, seed=3, engine="python"), obs)
    agent = load_agent("control", env=e, seed=3)
    assert type(agent) is CompiledPolicyAgent
    assert _choices(agent, obs) == python
    agent.reset()
    assert _choices(agent, obs) == python  # the stream starts again
    assert _choices(agent, obs) != python  # without a reset it goes on


def test_compiled_random_keeps_one_stream_across_resets():
    """As RandomAgent: legal[randrange(len(legal))] from random.Random(seed), never restarted."""
    e = env(variant="newmarket", num_players=4)
    e.reset(seed=1)
    obs = e.observe(e.agent_selection)
    legal = np.flatnonzero(obs["action_mask"])
    agent = load_agent("random", env=e, seed=8)
    first = _choices(agent, obs, 6)
    agent.reset()
    second = _choices(agent, obs, 6)
    stream = random.Random(8)
    assert first + second == [int(legal[stream.randrange(len(legal))]) for _ in range(12)]


def test_compiled_agents_read_the_planes_observation_too():
    flat_env = env(variant="newmarket", num_players=4)
    planes_env = env(variant="newmarket", num_players=4, observation="planes")
    for e in (flat_env, planes_env):
        e.reset(seed=4)
    flat_obs, planes_obs = flat_env.observe(flat_env.agent_selection), planes_env.observe(planes_env.agent_selection)
    assert np.shape(planes_obs["observation"]) != np.shape(flat_obs["observation"])
    for name in ("greedy", "control"):
        want = load_agent(name, env=flat_env, seed=0, engine="python").act(flat_obs)
        assert load_agent(name, env=planes_env, seed=0).act(planes_obs) == want
        assert load_agent(name, env=flat_env, seed=0).act(flat_obs) == want


def test_without_the_compiled_engine_the_agent_refuses_in_one_line(monkeypatch):
    monkeypatch.setattr(compiled, "CompiledPolicy", None)
    rules = env(variant="newmarket").unwrapped.rules
    with pytest.raises(
        ValueError, match=r"^the compiled engine is not built; use engine='python' \(or reinstall with a C compiler\)$"
    ):
        CompiledPolicyAgent(rules, 0, policy="greedy")


# ---------------------------------------------------------------- names, options, errors
def test_baseline_options_are_refused_in_one_line():
    e = env(variant="newmarket")
    with pytest.raises(
        ValueError, match=r"^agent 'greedy' takes no options but engine=auto\|compiled\|python; got budget$"
    ):
        load_agent("greedy", env=e, budget=3)
    with pytest.raises(ValueError, match=r"^engine='gpu' is unknown; allowed: auto, compiled, python$"):
        load_agent("control", env=e, engine="gpu")


def test_load_agent_needs_a_newmarket_env():
    with pytest.raises(
        ValueError, match=r"^load_agent needs env= \(the environment the agent will play in\) to know the rules$"
    ):
        load_agent("greedy")
    with pytest.raises(ValueError, match=r"^env 'a table' is not a newmarket_env environment \(it has no \.rules\)$"):
        load_agent("greedy", env="a table")
    raw = raw_env(variant="michigan", num_players=5)  # no wrapper: its own .rules
    assert load_agent("lowest", env=raw, engine="python").rules is raw.rules


def test_load_agent_refuses_what_is_not_a_name_nor_a_file(tmp_path):
    e = env(variant="newmarket")
    known = ", ".join(available_agents())
    with pytest.raises(ValueError, match=rf"^agent 42 is not a name or a path; known agents: {known}$"):
        load_agent(42, env=e)
    missing = str(tmp_path / "nothing.npz")
    with pytest.raises(ValueError) as err:
        load_agent(missing, env=e)
    assert str(err.value) == (
        f"unknown agent {missing!r}: not a known name, an existing file nor a MODULE:ATTR reference; "
        f"known agents: {known}"
    )


def test_load_agent_opens_a_saved_agent_by_path():
    path = Path(registry.__file__).resolve().parent / "trained" / "ppo-newmarket.npz"
    e = env(variant="newmarket", num_players=4)
    agent = load_agent(path, env=e, seed=1)
    assert agent.rules is e.unwrapped.rules and agent.seed == 1
    e.reset(seed=0)
    obs = e.observe(e.agent_selection)
    assert obs["action_mask"][agent.act(obs)] == 1


def test_registered_factories_get_rules_seed_and_options(monkeypatch):
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    calls = []

    def factory(rules, seed=None, **options):
        calls.append((rules, seed, options))
        return RandomAgent(rules, seed)

    register_agent("zz-test", factory)
    assert available_agents() == sorted(available_agents()) and "zz-test" in available_agents()
    e = env(variant="newmarket")
    agent = load_agent("zz-test", env=e, seed=6, colour="blue")
    assert type(agent) is RandomAgent and calls == [(e.unwrapped.rules, 6, {"colour": "blue"})]
    assert {"random", "lowest", "greedy", "control", "search", "guided_search"} <= set(available_agents())
    assert type(load_agent("search", env=e, seed=2, budget=3, engine="python")) is SearchAgent


def test_the_factories_pass_the_seed_when_called_directly():
    """The registry's own builders (registered at import) called as load_agent calls them."""
    rules = env(variant="newmarket").unwrapped.rules
    agent = registry._policy_agent(GreedyPolicy)(rules, 13)
    assert type(agent) is PolicyAgent and agent.policy_class is GreedyPolicy and agent.seed == 13
    assert agent.policy.rng.random() == random.Random(13).random()
    factory = registry._baseline_factory("greedy", registry._policy_agent(GreedyPolicy))
    python = factory(rules=rules, seed=13, engine="python")
    assert type(python) is PolicyAgent and python.seed == 13 and python.rules is rules
    built = factory(rules=rules, seed=13)
    assert type(built) is CompiledPolicyAgent and built.name == "greedy" and built.seed == 13 and built.rules is rules
    with pytest.raises(
        ValueError, match=r"^agent 'greedy' takes no options but engine=auto\|compiled\|python; got x, y$"
    ):
        factory(rules=rules, seed=1, x=1, y=2)
    with pytest.raises(ValueError, match=r"^engine='c' is unknown; allowed: auto, compiled, python$"):
        factory(rules=rules, engine="c")
    # A name the compiled engine does not know falls back on the Python reference under engine="auto".
    assert type(registry._baseline_factory("mine", RandomAgent)(rules=rules, seed=1)) is RandomAgent


def test_base_agent_keeps_rules_seed_and_a_seeded_numpy_generator():
    rules = env(variant="newmarket").unwrapped.rules
    agent = Agent(rules, seed=3)
    assert agent.rules is rules and agent.seed == 3 and agent.name == "agent"
    assert agent.rng.random() == np.random.default_rng(3).random()
    player = RandomAgent(rules, 4)
    assert player.rules is rules and player.seed == 4 and player.rng.random() == np.random.default_rng(4).random()
    assert repr(player) == "RandomAgent(name='random')" and repr(agent) == "Agent(name='agent')"
    with pytest.raises(NotImplementedError):
        agent.act({})


def test_random_agent_refuses_an_empty_mask_in_one_line():
    e = env(variant="newmarket", num_players=4)
    e.reset(seed=1)
    obs = e.observe(e.agent_selection)
    with pytest.raises(ValueError, match=r"^act\(\) was given an observation whose action_mask has no legal action$"):
        RandomAgent(e.unwrapped.rules, 0).act(
            {"observation": obs["observation"], "action_mask": obs["action_mask"] * 0}
        )


def test_compiled_agent_defaults_to_control_and_accepts_other_dtypes():
    e = env(variant="michigan", num_players=4)
    e.reset(seed=5)
    obs = e.observe(e.agent_selection)
    rules = e.unwrapped.rules
    agent = CompiledPolicyAgent(rules, 1)
    assert agent.name == "control" and agent.rules is rules and agent.seed == 1
    want = load_agent("greedy", env=e, seed=0, engine="python").act(obs)
    as_float64 = {"observation": obs["observation"].astype(np.float64), "action_mask": obs["action_mask"].astype(bool)}
    assert CompiledPolicyAgent(rules, 0, policy="greedy").act(as_float64) == want
    as_lists = {"observation": obs["observation"].tolist(), "action_mask": obs["action_mask"].astype(np.int64)}
    assert CompiledPolicyAgent(rules, 0, policy="greedy").act(as_lists) == want


def test_load_agent_reads_the_rules_through_a_wrapper_or_from_the_env_itself():
    raw = raw_env(variant="michigan", num_players=5)

    class Wrapper:  # a wrapper that forwards nothing but .unwrapped
        unwrapped = raw

    class Table:  # no .unwrapped at all, only .rules
        rules = raw.rules

    assert load_agent("lowest", env=Wrapper(), engine="python").rules is raw.rules
    assert load_agent("lowest", env=Table(), engine="python").rules is raw.rules


def test_load_agent_passes_options_to_a_saved_agent():
    path = Path(registry.__file__).resolve().parent / "trained" / "ppo-newmarket.npz"
    e = env(variant="newmarket", num_players=4)
    assert load_agent(path, env=e, sample=True).sample is True
    assert load_agent(str(path), env=e).sample is False
