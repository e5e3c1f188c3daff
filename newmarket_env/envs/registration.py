"""The env ids of the package in Gymnasium's and PettingZoo's registries, registered on ``import newmarket_env``.

One id per preset of docs/rules.md, in each registry's style:

- ``gymnasium.make("stops/Michigan-v0", num_players=..., opponents=[...])``: the single-agent view
  (:class:`~newmarket_env.envs.single_agent.SingleAgentEnv`) of that variant, one learner seat
  against an opponent pool; every keyword of the class passes through.
  ``gymnasium.make_vec("stops/Michigan-v0", num_envs=..., ...)`` gives the compiled
  :class:`~newmarket_env.envs.vector.VectorEnv` (Gymnasium's ``vector_entry_point``;
  ``vectorization_mode="sync"`` gives ``SingleAgentEnv`` copies instead, on any engine).
- ``pettingzoo.make("aec", "stops/michigan-v0", ...)``: the AEC env, as ``newmarket_env.env(variant="michigan")``
  (PettingZoo's registry style; it reads ``stops/michigan_v0`` as the same id).

The ids: ``stops/Newmarket-v0``, ``stops/Michigan-v0``, ``stops/Newbury-v0``, ``stops/Hoyle1885-v0``,
``stops/Arnold2011-v0`` (and ``stops/newmarket-v0``, ... for PettingZoo): :data:`GYMNASIUM_IDS`,
:data:`PETTINGZOO_IDS`. An id plays its own variant: ``variant=`` naming another is a one-line
``ValueError`` naming the right id. ``stops/Newmarket-v0`` (and ``stops/newmarket-v0``), the family's
first id, also takes ``variant=`` for any preset, as it always has.

Every id carries the AEC env's version: a change that alters what an agent sees or is paid bumps
``ENV_NAME`` in :mod:`newmarket_env.envs.aec`, and with it every id. The namespace ``stops`` is the
family of games.
"""

from __future__ import annotations

import importlib
from typing import Any

import gymnasium

from newmarket_env.envs.aec import ENV_NAME
from newmarket_env.game.rules import VARIANTS

NAMESPACE = "stops"
_GAME, _VERSION = ENV_NAME.rsplit("_v", 1)  # "newmarket_v0" -> ("newmarket", "0")


def gymnasium_id(variant: str) -> str:
    """Gymnasium's style, ``stops/Michigan-v0``."""
    return f"{NAMESPACE}/{variant.capitalize()}-v{_VERSION}"


def pettingzoo_id(variant: str) -> str:
    """PettingZoo's style (as its ``classic/chess-v6``), ``stops/michigan-v0``."""
    return f"{NAMESPACE}/{variant}-v{_VERSION}"


#: Each preset's Gymnasium id, and PettingZoo's.
GYMNASIUM_IDS = {variant: gymnasium_id(variant) for variant in VARIANTS}
PETTINGZOO_IDS = {variant: pettingzoo_id(variant) for variant in VARIANTS}
GYMNASIUM_ID = GYMNASIUM_IDS[_GAME]  # stops/Newmarket-v0: takes variant= too
PETTINGZOO_ID = PETTINGZOO_IDS[_GAME]  # stops/newmarket-v0: takes variant= too

_SINGLE = "newmarket_env.envs.single_agent:SingleAgentEnv"
_VECTOR = "newmarket_env.envs.vector:VectorEnv"
_AEC = "newmarket_env.envs:env"


class VariantEntryPoint:
    """A registry entry point for one preset's id: the view ``target`` (``"module:attr"``) with
    ``variant`` set. ``variant=`` naming another preset is refused, except by the family's first id
    (``any_variant``). Importable and picklable, as Gymnasium's async vector envs need."""

    def __init__(self, target: str, variant: str, registered_id: str, any_variant: bool = False) -> None:
        self.target, self.variant, self.registered_id, self.any_variant = target, variant, registered_id, any_variant

    def __call__(self, **kwargs: Any) -> Any:
        variant = kwargs.pop("variant", self.variant)
        if variant != self.variant and not self.any_variant:
            ids = GYMNASIUM_IDS if self.registered_id in GYMNASIUM_IDS.values() else PETTINGZOO_IDS
            other = f"; {variant!r} is {ids[variant]}" if isinstance(variant, str) and variant in ids else ""
            raise ValueError(
                f"variant={variant!r} is not what {self.registered_id} plays; allowed: {self.variant!r} "
                f"(or leave variant out){other}"
            )
        module, attr = self.target.split(":")
        return getattr(importlib.import_module(module), attr)(variant=variant, **kwargs)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.target!r}, variant={self.variant!r})"


def register_with_gymnasium() -> None:
    """Make ``gymnasium.make`` and ``gymnasium.make_vec`` work for every id of :data:`GYMNASIUM_IDS`."""
    for variant, env_id in GYMNASIUM_IDS.items():
        if env_id in gymnasium.registry:  # a second import (e.g. importlib.reload) would warn
            continue
        first = env_id == GYMNASIUM_ID
        gymnasium.register(
            id=env_id,
            entry_point=VariantEntryPoint(_SINGLE, variant, env_id, any_variant=first),
            vector_entry_point=VariantEntryPoint(_VECTOR, variant, env_id, any_variant=first),
        )


def register_with_pettingzoo() -> None:
    """Make ``pettingzoo.make("aec", ...)`` work for every id of :data:`PETTINGZOO_IDS` (PettingZoo 1.26 on)."""
    try:
        from pettingzoo.env_registry.registration import aec_registry, register  # PettingZoo 1.26 on
    except ImportError:  # older PettingZoo without a registry
        return
    for variant, env_id in PETTINGZOO_IDS.items():
        if env_id not in aec_registry:
            entry = VariantEntryPoint(_AEC, variant, env_id, any_variant=env_id == PETTINGZOO_ID)
            register("aec", env_id, entry_point=entry)


def register_envs() -> None:
    register_with_gymnasium()
    register_with_pettingzoo()
