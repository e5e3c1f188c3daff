"""newmarket-env: the stops card games (Newmarket, Michigan, Newbury, ...) for reinforcement learning.

>>> from newmarket_env import env
>>> e = env(variant="michigan", num_players=5)
>>> e.reset(seed=7)
>>> e.agent_selection in e.agents
True
"""

from __future__ import annotations

from newmarket_env.engine import Decision, Game, IllegalActionError, Phase
from newmarket_env.envs import ENV_NAME, env, raw_env
from newmarket_env.envs.registration import register_envs
from newmarket_env.envs.vector import VectorEnv
from newmarket_env.game import actions
from newmarket_env.game.actions import BID_BASE, EXCHANGE, KEEP, NUM_ACTIONS, PASS, STAKE_BASE
from newmarket_env.game.rules import VARIANTS, Rules, Variant, make_rules

__version__ = "0.1.0"


def vector_env(**kwargs):
    """Many compiled tables, one learner seat each, as a ``gymnasium.vector.VectorEnv``.

    Keywords: ``variant``, ``num_players``, ``num_envs``, ``opponents``, ``seat``,
    ``snapshots``, ``snapshot_fraction``, ``reward_scale``, ``agent_factory`` (or those six whole
    as ``learner_seat``, a :class:`~newmarket_env.envs.learner_options.LearnerSeat`), ``seed`` and
    rules overrides; see :class:`newmarket_env.envs.vector.VectorEnv`. Needs the compiled
    engine (a ``RuntimeError`` names the fallback, ``SingleAgentEnv``, where it is not built).
    """
    return VectorEnv(**kwargs)


# The agents are reached only through these two functions, imported when called: the engine, the envs
# and the observation do not depend on newmarket_env.agents (see newmarket_env.agent_factory).
def available_agents() -> list[str]:
    """Every name :func:`load_agent` accepts: baselines, shipped trained agents and installed plugins' agents."""
    from newmarket_env.agents import available_agents as _available  # beside the envs, not below: on call

    return _available()


def load_agent(name_or_path: str, env=None, seed: int | None = None, **kwargs):
    """An agent by name (see :func:`available_agents`) or from a saved trained-agent file."""
    from newmarket_env.agents import load_agent as _load  # beside the envs, not below: on call

    return _load(name_or_path, env=env, seed=seed, **kwargs)


register_envs()  # gymnasium.make("stops/Newmarket-v0"), pettingzoo.make("aec", "stops/newmarket-v0")

__all__ = [
    "env",
    "raw_env",
    "vector_env",
    "ENV_NAME",
    "make_rules",
    "Rules",
    "VARIANTS",
    "Variant",
    "Game",
    "Decision",
    "Phase",
    "IllegalActionError",
    "available_agents",
    "load_agent",
    "actions",
    "NUM_ACTIONS",
    "KEEP",
    "EXCHANGE",
    "PASS",
    "BID_BASE",
    "STAKE_BASE",
]
