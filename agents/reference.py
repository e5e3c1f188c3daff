"""Agents by reference: ``MODULE:ATTR`` names a user's agent class or factory without registering it.

``load_agent("my_agents:MyAgent", env=e)`` imports ``my_agents`` (from ``sys.path``: ``PYTHONPATH``,
installed packages, and last the current folder) and builds ``ATTR`` as a registered factory is built:
``ATTR(rules=..., seed=..., **options)``. ``ATTR`` is an :class:`~newmarket_env.agents.base.Agent`
subclass, or a callable returning an agent (an object with ``reset()`` and ``act(observation)``); it
may be dotted (``module:Class.factory``). A missing module, a missing attribute, or an object that is
not an agent is a one-line ``ValueError``. The same builder serves the agents that installed packages
declare in the entry-point group ``newmarket_env.agents`` (:mod:`newmarket_env.agents.plugins`).

Importing a module runs its code: a reference names code the user chose to run, as ``python -m`` does.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from newmarket_env.agents.base import Agent
from newmarket_env.game.rules import Rules

#: ``package.module:Attribute.attribute``: dotted Python names on both sides of one colon.
_REFERENCE = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
#: What every factory is given besides the options (``load_agent``'s ``env`` becomes ``rules``).
_GIVEN = ("rules", "seed")


def is_reference(text: str) -> bool:
    """Whether ``text`` has the form ``MODULE:ATTR`` (dotted Python names on both sides)."""
    return bool(_REFERENCE.match(text))


def resolve(reference: str) -> Any:
    """The object ``MODULE:ATTR`` names; a one-line ``ValueError`` when the module or attribute is missing."""
    module_name, _, attribute = reference.partition(":")
    _add_current_folder()
    try:
        target: Any = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        where = "" if err.name == module_name else f" (it imports {err.name!r}, which is missing)"
        raise ValueError(
            f"agent {reference!r}: module {module_name!r} cannot be imported{where}; "
            "MODULE:ATTR needs MODULE importable (in the current folder, on PYTHONPATH or installed)"
        ) from None
    except Exception as err:  # the module's own code failed: say which module, on one line
        raise ValueError(
            f"agent {reference!r}: importing module {module_name!r} failed ({type(err).__name__}: {one_line(err)})"
        ) from None
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise ValueError(f"agent {reference!r}: module {module_name!r} has no attribute {attribute!r}")
        target = getattr(target, part)
    return target


def _add_current_folder() -> None:
    """Put the current folder at the end of ``sys.path`` (as ``uvicorn MODULE:APP`` finds a module beside it).

    ``python -m`` puts it first; the ``newmarket`` script does not put it at all. At the end, a file there never
    shadows an installed module of the same name.
    """
    here = os.getcwd()
    if here not in sys.path and "" not in sys.path:
        sys.path.append(here)


def check_agent_object(label: str, target: Any) -> Any:
    """``target`` if it can build agents (an ``Agent`` subclass or a callable); else a one-line ``ValueError``."""
    if inspect.isclass(target):
        if not issubclass(target, Agent):
            raise ValueError(
                f"agent {label!r} is the class {target.__qualname__!r}, which is not a subclass of "
                "newmarket_env.agents.Agent; give an Agent subclass or a factory(rules=..., seed=..., **options)"
            )
        return target
    if not callable(target):
        raise ValueError(
            f"agent {label!r} is a {type(target).__name__}, not an Agent subclass nor a "
            "factory(rules=..., seed=..., **options) returning an agent"
        )
    return target


def option_names(factory: Callable[..., Any], given: Iterable[str] = _GIVEN) -> list[str] | None:
    """The options ``factory`` takes besides those ``given`` by the loader (and private ``_name`` defaults);
    ``None`` when it takes any (``**options``)."""
    given = set(given)
    try:
        parameters = list(inspect.signature(factory).parameters.values())
    except (TypeError, ValueError):  # a builtin without a signature: let the call decide
        return None
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return None
    return [
        p.name
        for p in parameters
        if p.name not in given
        and not p.name.startswith("_")
        and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        and p.name != "self"
    ]


def check_options(
    label: str, factory: Callable[..., Any], options: Iterable[str], given: Iterable[str] = _GIVEN
) -> None:
    """A one-line ``ValueError`` naming the allowed options when ``options`` holds one ``factory`` does not take."""
    allowed = option_names(factory, given)
    if allowed is None:
        return
    unknown = [name for name in options if name not in allowed]
    if unknown:
        raise ValueError(
            f"agent option{'s' * (len(unknown) > 1)} {', '.join(map(repr, unknown))} "
            f"{'are' if len(unknown) > 1 else 'is'} unknown for {label!r}; allowed: "
            f"{', '.join(allowed) if allowed else 'none (it takes no options)'}"
        )


def build(label: str, target: Any, rules: Rules, seed: int | None, options: Mapping[str, Any]) -> Any:
    """``target(rules=rules, seed=seed, **options)``, checked to be an agent; errors are one line."""
    factory = check_agent_object(label, target)
    check_options(label, factory, options)
    try:
        inspect.signature(factory).bind(rules=rules, seed=seed, **options)
    except TypeError as err:  # a callable that cannot be called the way registered factories are
        raise ValueError(
            f"agent {label!r} cannot be built as factory(rules=..., seed=..., **options) ({one_line(err)})"
        ) from None
    except ValueError:  # a builtin without a signature: the call decides
        pass
    try:
        agent = factory(rules=rules, seed=seed, **options)
    except ValueError as err:
        raise ValueError(one_line(err)) from None
    if not (callable(getattr(agent, "act", None)) and callable(getattr(agent, "reset", None))):
        raise ValueError(
            f"agent {label!r} returned a {type(agent).__name__}, which is not an agent (it needs reset() and act())"
        )
    return agent


def load_reference(
    reference: str, rules: Rules, seed: int | None = None, options: Mapping[str, Any] | None = None
) -> Any:
    """The agent ``MODULE:ATTR`` builds for ``rules``."""
    return build(reference, resolve(reference), rules, seed, options or {})


def one_line(err: BaseException | str) -> str:
    return " ".join(str(err).split())


__all__ = ["is_reference", "resolve", "build", "load_reference", "check_options", "option_names"]
