"""Agent names -> factories; ``load_agent`` also opens saved trained agents by path."""

from __future__ import annotations

import os
from typing import Any, Callable

from newmarket_env.agents.base import Agent
from newmarket_env.agents.control import ControlPolicy
from newmarket_env.agents.greedy import GreedyPolicy
from newmarket_env.agents.lowest import LowestPolicy
from newmarket_env.agents.policy import PolicyAgent
from newmarket_env.agents.random_agent import RandomAgent
from newmarket_env.agents.search import SearchAgent
from newmarket_env.rules import Rules

AgentFactory = Callable[..., Agent]
_REGISTRY: dict[str, AgentFactory] = {}


def register_agent(name: str, factory: AgentFactory) -> None:
    """Make ``load_agent(name)`` build ``factory(rules=..., seed=..., **kwargs)``."""
    _REGISTRY[name] = factory


def available_agents() -> list[str]:
    return sorted(_REGISTRY)


def _rules_of(env: Any) -> Rules:
    if env is None:
        raise ValueError("load_agent needs env= (the environment the agent will play in) to know the rules")
    rules = getattr(getattr(env, "unwrapped", env), "rules", None)
    if not isinstance(rules, Rules):
        raise ValueError(f"env {env!r} is not a newmarket_env environment (it has no .rules)")
    return rules


def load_agent(name_or_path: str, env: Any = None, seed: int | None = None, **kwargs: Any) -> Agent:
    """An agent by registered name, or a saved trained agent by file path."""
    if not isinstance(name_or_path, (str, os.PathLike)):
        raise ValueError(f"agent {name_or_path!r} is not a name or a path; known agents: {', '.join(available_agents())}")
    key = os.fspath(name_or_path)
    if key in _REGISTRY:
        return _REGISTRY[key](rules=_rules_of(env), seed=seed, **kwargs)
    if os.path.isfile(key):
        from newmarket_env.agents.saved import load_saved_agent

        return load_saved_agent(key, rules=_rules_of(env), seed=seed, **kwargs)
    raise ValueError(f"unknown agent {key!r}: not a known name nor an existing file; known agents: "
                     f"{', '.join(available_agents())}")


def _policy_factory(policy_class):
    """A factory building a :class:`PolicyAgent` around ``policy_class``."""
    def factory(rules: Rules, seed: int | None = None, **kwargs: Any) -> Agent:
        if kwargs:
            raise ValueError(f"agent {policy_class.name!r} takes no options; got {', '.join(kwargs)}")
        return PolicyAgent(rules, seed, policy=policy_class)
    return factory


register_agent("random", RandomAgent)
register_agent("lowest", _policy_factory(LowestPolicy))
register_agent("greedy", _policy_factory(GreedyPolicy))
register_agent("control", _policy_factory(ControlPolicy))
register_agent("search", SearchAgent)
