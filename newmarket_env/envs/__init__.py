"""The environments: the PettingZoo AEC env, ``env()`` (wrapped) and ``raw_env()`` (bare), and its
Gymnasium views for one learner seat against an opponent pool: ``SingleAgentEnv`` (one table, any
engine; ``gymnasium.make("stops/Newmarket-v0")``) and ``VectorEnv`` (many compiled tables,
Gymnasium's vector API, :mod:`newmarket_env.envs.vector`).

No parallel (``ParallelEnv``) API: the game is strictly turn-based, one seat decides at a time and
what it may do depends on the move before it, so a parallel step would be one live action and
``n - 1`` no-ops. The ids of the registries: :mod:`newmarket_env.envs.registration`.
"""

from __future__ import annotations

from newmarket_env.envs.aec import ENV_NAME, raw_env
from newmarket_env.envs.learner_options import SEAT_MODES, LearnerSeat
from newmarket_env.envs.registration import GYMNASIUM_ID, PETTINGZOO_ID
from newmarket_env.envs.single_agent import SingleAgentEnv
from newmarket_env.envs.vector import VectorEnv
from newmarket_env.envs.wrapper import OrderEnforcing


def env(**kwargs):
    """The env with PettingZoo's order enforcing wrapper (illegal actions raise in the engine)."""
    return OrderEnforcing(raw_env(**kwargs))


__all__ = [
    "env",
    "raw_env",
    "ENV_NAME",
    "LearnerSeat",
    "SEAT_MODES",
    "SingleAgentEnv",
    "VectorEnv",
    "GYMNASIUM_ID",
    "PETTINGZOO_ID",
]
