"""PettingZoo adapter: ``env()`` (wrapped) and ``raw_env()`` (bare); ``VectorEnv``: many compiled tables
with one learner seat each (Gymnasium's vector API, :mod:`newmarket_env.envs.vector`)."""

from __future__ import annotations

from newmarket_env.envs.aec import ENV_NAME, raw_env
from newmarket_env.envs.vector import VectorEnv
from newmarket_env.envs.wrapper import OrderEnforcing


def env(**kwargs):
    """The env with PettingZoo's order enforcing wrapper (illegal actions raise in the engine)."""
    return OrderEnforcing(raw_env(**kwargs))


__all__ = ["env", "raw_env", "ENV_NAME", "VectorEnv"]
