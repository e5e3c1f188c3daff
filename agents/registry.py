"""Agent names -> factories; ``load_agent`` also opens saved trained agents by path and agents by reference.

What ``load_agent(spec, env=...)`` accepts, tried in this order:

1. a name of :func:`available_agents`: registered (baselines, shipped agents) or an installed package's
   (:mod:`newmarket_env.agents.plugins`);
2. the path of an existing file: a saved agent ``.npz``, or a stable-baselines3 ``.zip`` read without
   unpickling (:mod:`newmarket_env.agents.sb3_zip`);
3. a reference ``MODULE:ATTR`` to an ``Agent`` subclass or a factory (:mod:`newmarket_env.agents.reference`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from newmarket_env.agents.base import Agent
from newmarket_env.agents.compiled import POLICY_CODES, CompiledPolicyAgent
from newmarket_env.agents.control import ControlPolicy
from newmarket_env.agents.greedy import GreedyPolicy
from newmarket_env.agents.guided_search import guided_search
from newmarket_env.agents.lowest import LowestPolicy
from newmarket_env.agents.plugins import load_plugin, plugin_entries
from newmarket_env.agents.policy import PolicyAgent
from newmarket_env.agents.random_agent import RandomAgent
from newmarket_env.agents.reference import build, check_options, is_reference, load_reference
from newmarket_env.agents.saved import load_saved_agent
from newmarket_env.agents.sb3_zip import load_sb3_agent
from newmarket_env.agents.search import SearchAgent
from newmarket_env.engine.choice import ENGINES
from newmarket_env.game.rules import Rules

AgentFactory = Callable[..., Agent]
#: Files read as stable-baselines3 models (``model.save()`` writes ``.zip``); every other file as a saved agent.
SB3_SUFFIX = ".zip"
_REGISTRY: dict[str, AgentFactory] = {}


def register_agent(name: str, factory: AgentFactory, replace: bool = False) -> None:
    """Make ``load_agent(name)`` build ``factory(rules=..., seed=..., **kwargs)``.

    A name already registered is refused (``ValueError``) unless ``replace=True``: no later registration
    silently takes a baseline's name. A name may not hold ``:`` (the form of an agent reference).
    """
    if not isinstance(name, str) or not name.strip() or ":" in name or name != name.strip():
        raise ValueError(f"agent name {name!r} must be a non-empty string without ':' or surrounding spaces")
    if name in _REGISTRY and not replace:
        raise ValueError(f"agent name {name!r} is registered already; pass replace=True to replace it")
    _REGISTRY[name] = factory


def available_agents() -> list[str]:
    """Registered names and the agents of installed packages (entry-point group ``newmarket_env.agents``)."""
    return sorted(set(_REGISTRY) | set(plugin_entries(set(_REGISTRY))))


def _rules_of(env: Any) -> Rules:
    if env is None:
        raise ValueError("load_agent needs env= (the environment the agent will play in) to know the rules")
    rules = getattr(getattr(env, "unwrapped", env), "rules", None)
    if not isinstance(rules, Rules):
        raise ValueError(f"env {env!r} is not a newmarket_env environment (it has no .rules)")
    return rules


def load_agent(name_or_path: str, env: Any = None, seed: int | None = None, **kwargs: Any) -> Agent:
    """An agent by registered name, a saved trained agent by file path, or ``MODULE:ATTR`` (see the module)."""
    if not isinstance(name_or_path, (str, os.PathLike)):
        raise ValueError(
            f"agent {name_or_path!r} is not a name or a path; known agents: {', '.join(available_agents())}"
        )
    key = os.fspath(name_or_path)
    if key in _REGISTRY:
        return build(key, _REGISTRY[key], _rules_of(env), seed, kwargs)
    plugin = plugin_entries(set(_REGISTRY)).get(key)
    if plugin is not None:
        return build(key, load_plugin(plugin), _rules_of(env), seed, kwargs)
    if os.path.isfile(key):
        loader = load_sb3_agent if key.lower().endswith(SB3_SUFFIX) else load_saved_agent
        check_options(key, loader, kwargs, given=("path", "rules", "seed"))
        return loader(key, rules=_rules_of(env), seed=seed, **kwargs)
    if is_reference(key):
        return load_reference(key, _rules_of(env), seed, kwargs)
    raise ValueError(
        f"unknown agent {key!r}: not a known name, an existing file nor a MODULE:ATTR reference; "
        f"known agents: {', '.join(available_agents())}"
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


register_agent("guided_search", guided_search)
