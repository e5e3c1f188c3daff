"""Agent names -> factories; ``load_agent`` also opens saved trained agents by path."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from newmarket_env.agents.base import Agent
from newmarket_env.agents.compiled import POLICY_CODES, CompiledPolicyAgent
from newmarket_env.agents.control import ControlPolicy
from newmarket_env.agents.greedy import GreedyPolicy
from newmarket_env.agents.lowest import LowestPolicy
from newmarket_env.agents.policy import PolicyAgent
from newmarket_env.agents.random_agent import RandomAgent
from newmarket_env.agents.search import SearchAgent
from newmarket_env.engine.choice import ENGINES
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
        raise ValueError(
            f"agent {name_or_path!r} is not a name or a path; known agents: {', '.join(available_agents())}"
        )
    key = os.fspath(name_or_path)
    if key in _REGISTRY:
        return _REGISTRY[key](rules=_rules_of(env), seed=seed, **kwargs)
    if os.path.isfile(key):
        from newmarket_env.agents.saved import load_saved_agent

        return load_saved_agent(key, rules=_rules_of(env), seed=seed, **kwargs)
    raise ValueError(
        f"unknown agent {key!r}: not a known name nor an existing file; known agents: {', '.join(available_agents())}"
    )


def _baseline_factory(name: str, reference: Callable[[Rules, int | None], Agent]) -> AgentFactory:
    """A baseline: compiled when built (``engine="auto"``), or the Python reference (``engine="python"``)."""

    def factory(rules: Rules, seed: int | None = None, engine: str = "auto", **kwargs: Any) -> Agent:
        if kwargs:
            raise ValueError(
                f"agent {name!r} takes no options but engine=auto|compiled|python; got {', '.join(kwargs)}"
            )
        if engine not in ENGINES:
            raise ValueError(f"engine={engine!r} is unknown; allowed: {', '.join(ENGINES)}")
        if engine == "python" or (engine == "auto" and name not in POLICY_CODES):
            return reference(rules, seed)
        return CompiledPolicyAgent(rules, seed, policy=name)  # refuses in one line when not built

    return factory


def _policy_agent(policy_class):
    return lambda rules, seed: PolicyAgent(rules, seed, policy=policy_class)


register_agent("random", _baseline_factory("random", RandomAgent))
register_agent("lowest", _baseline_factory("lowest", _policy_agent(LowestPolicy)))
register_agent("greedy", _baseline_factory("greedy", _policy_agent(GreedyPolicy)))
register_agent("control", _baseline_factory("control", _policy_agent(ControlPolicy)))
register_agent("search", SearchAgent)


def _guided_search(rules: Rules, seed: int | None = None, **options: Any) -> Agent:
    from newmarket_env.agents.guided_search import guided_search  # imports the saved-network readers on use

    return guided_search(rules, seed=seed, **options)


register_agent("guided_search", _guided_search)
