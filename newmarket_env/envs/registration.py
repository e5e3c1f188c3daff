"""The env ids of the package in Gymnasium's and PettingZoo's registries, registered on ``import newmarket_env``.

- ``gymnasium.make("stops/Newmarket-v0", variant=..., num_players=..., opponents=[...])``:
  the single-agent view (:class:`~newmarket_env.envs.single_agent.SingleAgentEnv`), one
  learner seat against an opponent pool; every keyword of the class passes through.
  ``gymnasium.make_vec("stops/Newmarket-v0", num_envs=..., ...)`` gives the compiled
  :class:`~newmarket_env.envs.vector.VectorEnv` (Gymnasium's ``vector_entry_point``;
  ``vectorization_mode="sync"`` gives ``SingleAgentEnv`` copies instead, on any engine).
- ``pettingzoo.make("aec", "stops/newmarket-v0", ...)``: the AEC env, as ``newmarket_env.env()``
  (PettingZoo's registry style; it reads ``stops/newmarket_v0`` as the same id).

One id covers every variant (``variant="michigan"``, ...), as ``ENV_NAME`` does for the AEC
env, and both ids carry its version: a change that alters what an agent sees or is paid bumps
``ENV_NAME`` in :mod:`newmarket_env.envs.aec`, and with it both ids. The namespace ``stops``
is the family of games.
"""

from __future__ import annotations

import gymnasium

from newmarket_env.envs.aec import ENV_NAME

NAMESPACE = "stops"
_GAME, _VERSION = ENV_NAME.rsplit("_v", 1)  # "newmarket_v0" -> ("newmarket", "0")
GYMNASIUM_ID = f"{NAMESPACE}/{_GAME.capitalize()}-v{_VERSION}"  # Gymnasium's style: stops/Newmarket-v0
PETTINGZOO_ID = f"{NAMESPACE}/{_GAME}-v{_VERSION}"  # PettingZoo's style (as its classic/chess-v6): stops/newmarket-v0


def register_with_gymnasium() -> None:
    """Make ``gymnasium.make(GYMNASIUM_ID)`` and ``gymnasium.make_vec(GYMNASIUM_ID)`` work."""
    if GYMNASIUM_ID not in gymnasium.registry:  # a second import (e.g. importlib.reload) would warn
        gymnasium.register(
            id=GYMNASIUM_ID,
            entry_point="newmarket_env.envs.single_agent:SingleAgentEnv",
            vector_entry_point="newmarket_env.envs.vector:VectorEnv",
        )


def register_with_pettingzoo() -> None:
    """Make ``pettingzoo.make("aec", PETTINGZOO_ID)`` work where PettingZoo has a registry (1.26 on)."""
    try:
        from pettingzoo.env_registry.registration import aec_registry, register  # PettingZoo 1.26 on
    except ImportError:  # older PettingZoo without a registry
        return
    if PETTINGZOO_ID not in aec_registry:
        register("aec", PETTINGZOO_ID, entry_point="newmarket_env:env")


def register_envs() -> None:
    register_with_gymnasium()
    register_with_pettingzoo()
