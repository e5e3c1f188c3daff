"""The seam between the core and the agents: an agent factory.

The views that seat opponents (:class:`~newmarket_env.envs.single_agent.SingleAgentEnv`,
:class:`~newmarket_env.envs.vector.VectorEnv` and the terminal game,
:mod:`newmarket_env.play.session`) never import ``newmarket_env.agents``, so the
engine, the environments and the observation install and run without agents,
training or evaluation. They build each opponent with an *agent factory*::

    agent = factory(spec, env=env, seed=seed)

``spec`` is an entry of the opponent pool (an agent name or a saved-agent path),
``env`` the environment the agent plays in (agents read the rules from it) and
``seed`` an int drawn from the environment's stream. The agent has ``reset()``
and ``act(observation) -> int`` (docs/contract.md, "Agents"); ``VectorEnv`` also
uses ``act_batch(observations, masks)`` where an agent has it.

``newmarket_env.load_agent``, the package's public facade, is such a factory
and the default one (:func:`package_agents`): it is looked up when the first
opponent is built, not when a view is imported, so
``SingleAgentEnv(opponents=["control"])`` works as it always did wherever the
agents are installed, and a view given ``agent_factory=`` never touches them.
"""

from __future__ import annotations

from typing import Any, Protocol


class Opponent(Protocol):
    """What the views need of an agent they seat."""

    def reset(self) -> None: ...

    def act(self, observation: dict[str, Any]) -> int: ...


class AgentFactory(Protocol):
    """``factory(spec, env=..., seed=...)``: the agent that plays ``spec`` in ``env``."""

    def __call__(self, spec: str, /, *, env: Any, seed: int) -> Opponent: ...


def package_agents(spec: str, /, *, env: Any, seed: int) -> Opponent:
    """The default factory: the package facade ``newmarket_env.load_agent`` (baselines, shipped and saved agents).

    Without the agents package (a core-only install) this is a one-line
    ``ModuleNotFoundError`` that names the keyword to pass instead.
    """
    try:
        from newmarket_env.agents import load_agent  # optional part: a core-only install has no agents
    except ModuleNotFoundError as err:
        if err.name != "newmarket_env.agents":
            raise
        raise ModuleNotFoundError(
            f"opponent {spec!r} needs the agents (newmarket_env.agents), which cannot be imported here; "
            "pass agent_factory= (a callable factory(spec, env=..., seed=...) -> agent)",
            name=err.name,
        ) from None
    return load_agent(spec, env=env, seed=seed)


def check_agent_factory(factory: Any) -> AgentFactory:
    """``factory``, or :func:`package_agents` for ``None``; a one-line ``ValueError`` for anything not callable."""
    if factory is None:
        return package_agents
    if not callable(factory):
        raise ValueError(
            f"agent_factory={factory!r} is not callable; allowed: None (newmarket_env.load_agent) "
            "or a callable factory(spec, env=..., seed=...) -> agent"
        )
    return factory
