"""Agents: baselines, search and trained-agent wrappers behind one registry.

Installed as ``newmarket_env.agents``; the folder is ``agents/`` in the repo.

Baselines, weakest first: ``random`` (uniform legal action), ``lowest`` (first
legal card, keep, pass), ``greedy`` (the sources' tips: long suits, boodles,
unopened suits), ``control`` (plans leads that end on its own known stops).
``search`` (``budget=`` worlds per decision) runs Monte Carlo rollouts of the
deal over hidden cards sampled from what it knows. All decide from their
observation, decoded by :mod:`newmarket_env.observation.view`.
"""

from newmarket_env.agents.base import Agent
from newmarket_env.agents.registry import available_agents, load_agent, register_agent
from newmarket_env.agents.shipped import register_shipped_guided, register_shipped_saved

register_shipped_saved()  # agents/trained/<name>.npz -> load_agent("<name>"), e.g. "ppo-newmarket"
register_shipped_guided()  # agents/trained/guided.json -> load_agent("exit-newmarket-search"), ...

__all__ = ["Agent", "available_agents", "load_agent", "register_agent"]
