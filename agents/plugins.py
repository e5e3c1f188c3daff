"""Agents of installed packages: the entry-point group ``newmarket_env.agents``.

A package declares its agents in its ``pyproject.toml``::

    [project.entry-points."newmarket_env.agents"]
    my-agent = "my_package.agents:MyAgent"

and once it is installed, ``my-agent`` is in ``available_agents()`` and loads with
``load_agent("my-agent", env=e)`` (or ``--agents my-agent``) like a registered name: the object is an
``Agent`` subclass or a factory, built as an agent reference is (:mod:`newmarket_env.agents.reference`).
Its module is imported only when the agent is loaded. Names registered in the package (the baselines,
the shipped agents) keep their meaning: a plugin entry of such a name is ignored, with a warning naming
the package. When two installed packages declare one name, the package whose name sorts first keeps it,
with a warning naming both (the other's agent still loads by its ``MODULE:ATTR`` reference). Installed
packages are read once per process.
"""

from __future__ import annotations

import functools
import warnings
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from newmarket_env.agents.reference import one_line

GROUP = "newmarket_env.agents"


@functools.cache
def _installed() -> tuple[EntryPoint, ...]:
    return tuple(entry_points(group=GROUP))


def _package_of(entry: EntryPoint) -> str:
    dist = getattr(entry, "dist", None)
    return f"{dist.name} {dist.version}" if dist is not None else "an installed package"


def plugin_entries(taken: set[str]) -> dict[str, EntryPoint]:
    """The installed packages' agents by name, leaving out names in ``taken`` (registered already)."""
    found: dict[str, EntryPoint] = {}
    # By package name: which of two packages keeps a name must not depend on the order of sys.path's folders.
    for entry in sorted(_installed(), key=lambda e: (_package_of(e), e.value)):
        if entry.name in taken or ":" in entry.name:
            _warn_once(
                entry.name,
                f"agent plugin {entry.name!r} of {_package_of(entry)} is ignored: "
                + ("the name belongs to a registered agent" if entry.name in taken else "a name may not hold ':'"),
            )
            continue
        kept = found.setdefault(entry.name, entry)
        if kept is not entry:
            _warn_once(
                entry.name,
                f"agent plugin {entry.name!r} is declared by two packages: {_package_of(kept)} ({kept.value}) and "
                f"{_package_of(entry)} ({entry.value}); {_package_of(kept)}'s is used (load the other by its "
                f"reference, {entry.value!r})",
            )
    return found


def load_plugin(entry: EntryPoint) -> Any:
    """The object an entry point names; a one-line ``ValueError`` naming the package when it cannot be loaded."""
    try:
        return entry.load()
    except Exception as err:
        raise ValueError(
            f"agent {entry.name!r} of {_package_of(entry)} ({entry.value}) cannot be loaded "
            f"({type(err).__name__}: {one_line(err)})"
        ) from None


_WARNED: set[str] = set()


def _warn_once(name: str, message: str) -> None:
    if name not in _WARNED:
        _WARNED.add(name)
        warnings.warn(message, RuntimeWarning, stacklevel=3)


__all__ = ["GROUP", "plugin_entries", "load_plugin"]
