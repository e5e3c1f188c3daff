"""The shipped agents of ``agents/trained/``, registered under their names when the agents package is imported.

Above both the registry and the readers of saved agents, so that neither imports the other: the registry
opens files with the readers, and this module registers what the readers find.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any

from newmarket_env.agents.guided_search import SHIPPED_FILE, GuidedSearchAgent, guided_search, shipped_guided
from newmarket_env.agents.registry import available_agents, register_agent
from newmarket_env.agents.saved import TRAINED_DIR, SavedAgent, load_saved_agent, shipped_agents
from newmarket_env.game.rules import Rules

#: The names :func:`register_shipped_guided` registered (its own to replace on a second call).
_SHIPPED_NAMES: set[str] = set()


def register_shipped_saved() -> None:
    """Register every ``agents/trained/*.npz`` under its file name (loaded lazily)."""
    for name in shipped_agents():
        path = TRAINED_DIR / f"{name}.npz"

        def factory(
            rules: Rules,
            seed: int | None = None,
            sample: bool = False,
            allow_rules_mismatch: bool = False,
            _path: Path = path,
            _name: str = name,
        ) -> SavedAgent:
            return load_saved_agent(
                _path, rules=rules, seed=seed, sample=sample, allow_rules_mismatch=allow_rules_mismatch, name=_name
            )

        register_agent(name, factory)


def register_shipped_guided(path: Path = SHIPPED_FILE) -> None:
    """Register every shipped guided search: ``load_agent("exit-newmarket-search", env=e)``; options given to
    ``load_agent`` replace the shipped ones (e.g. ``budget=``).

    A broken table registers none of its entries and says why in one warning naming the file, so the other
    agents still load; an entry whose name is registered already (a baseline's, e.g. ``random``) is refused
    the same way, and the registered agent keeps its name.
    """
    try:
        entries = shipped_guided(path)
    except ValueError as err:
        warnings.warn(f"{err}; its agents are not registered", RuntimeWarning, stacklevel=2)
        return
    taken = set(available_agents()) - _SHIPPED_NAMES  # a second call replaces what the first registered
    for name, entry in entries.items():
        if name in taken:
            warnings.warn(
                f"shipped guided searches {os.fspath(path)!r}: entry {name!r} is not registered, "
                "the name belongs to another agent",
                RuntimeWarning,
                stacklevel=2,
            )
            continue

        def factory(rules: Rules, seed: int | None = None, _entry=entry, **options: Any) -> GuidedSearchAgent:
            chosen = {**_entry["options"], **options}
            return guided_search(rules, seed=seed, network=path.parent / _entry["network"], **chosen)

        try:
            register_agent(name, factory, replace=name in _SHIPPED_NAMES)
        except ValueError as err:
            warnings.warn(f"shipped guided searches {os.fspath(path)!r}: {err}", RuntimeWarning, stacklevel=2)
        else:
            _SHIPPED_NAMES.add(name)


__all__ = ["register_shipped_guided", "register_shipped_saved"]
