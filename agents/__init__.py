"""Agents: baselines, search and trained-agent wrappers behind one registry.

Installed as ``newmarket_env.agents``; the folder is ``agents/`` in the repo.
"""

from newmarket_env.agents.registry import available_agents, load_agent, register_agent
from newmarket_env.agents.base import Agent
from newmarket_env.agents.saved import register_shipped as _register_shipped

_register_shipped()  # agents/trained/<name>.npz -> load_agent("<name>"), e.g. "ppo-newmarket"

__all__ = ["Agent", "available_agents", "load_agent", "register_agent"]
