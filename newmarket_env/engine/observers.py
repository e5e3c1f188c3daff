"""Which observers a ``TableBatch`` encodes its tables with, registered by the layer that defines them.

The engine declares the observer interface (``engine/_observer.pxd``) and never imports its
implementations: the observation layer registers its encoders here when it is imported
(``newmarket_env/observation/__init__.py``), which ``import newmarket_env`` always does first. So
:func:`~newmarket_env.engine.choice.table_batch` gives batches that encode as the envs do, and the
engine's compiled code imports nothing above the engine. Two kinds are registered:

- ``"observation"``: the flat observation of the seat to act (``TableBatch.observations``);
- ``"state"``: the privileged state, for training only (``TableBatch.states()``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

OBSERVER_KINDS = ("observation", "state")

# kind -> (rules -> a TableObserver for them); a kind is absent until its layer registers it.
_factories: dict[str, Callable[[Any], Any]] = {}


def _checked(kind: str) -> str:
    if kind not in OBSERVER_KINDS:
        raise ValueError(f"observer kind {kind!r} is unknown; allowed: {', '.join(OBSERVER_KINDS)}")
    return kind


def register_table_observer(factory: Callable[[Any], Any], kind: str = "observation") -> None:
    """Make ``factory(rules)`` the ``kind`` observer of every batch built without one (the observation layer's call)."""
    _factories[_checked(kind)] = factory


def table_observer(rules: Any, kind: str = "observation") -> Any:
    """The registered ``kind`` observer for ``rules``; ``RuntimeError`` (one line) when no layer registered one."""
    factory = _factories.get(_checked(kind))
    if factory is None:
        raise RuntimeError(f"no table observer of kind {kind!r} is registered: import newmarket_env.observation first")
    return factory(rules)


__all__ = ["OBSERVER_KINDS", "register_table_observer", "table_observer"]
