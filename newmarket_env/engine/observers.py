"""Which observer a ``TableBatch`` encodes its tables with, registered by the layer that defines it.

The engine declares the observer interface (``engine/_observer.pxd``) and never imports its
implementations: the observation layer registers its flat encoder here when it is imported
(``newmarket_env/observation/__init__.py``), which ``import newmarket_env`` always does first. So
:func:`~newmarket_env.engine.choice.table_batch` gives batches that encode as the envs do, and the
engine's compiled code imports nothing above the engine.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# rules -> a TableObserver for them (the observation layer's FlatObserver); None until it registers.
_factory: Callable[[Any], Any] | None = None


def register_table_observer(factory: Callable[[Any], Any]) -> None:
    """Make ``factory(rules)`` the observer of every batch built without one (the observation layer's call)."""
    global _factory
    _factory = factory


def table_observer(rules: Any) -> Any:
    """The registered observer for ``rules``; ``RuntimeError`` (one line) when no layer registered one."""
    if _factory is None:
        raise RuntimeError("no table observer is registered: import newmarket_env.observation first")
    return _factory(rules)


__all__ = ["register_table_observer", "table_observer"]
