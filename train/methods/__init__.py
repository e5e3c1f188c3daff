"""The training methods: those of the package and those of installed packages (entry-point group
``newmarket_env.methods``).

``available_methods()`` names them; ``get_method(name)`` gives the :class:`Method` (a one-line
``ValueError`` naming the available ones for any other name). A package adds a method by declaring it
in its ``pyproject.toml``::

    [project.entry-points."newmarket_env.methods"]
    reinforce = "my_package.reinforce:METHOD"

where ``METHOD`` is a :class:`Method` instance (or class) whose ``name`` is the entry's name; once the
package is installed, ``method: reinforce`` in a config trains with it through the shared run loop
(docs/tutorials/own_method.md). The package's names keep their meaning: a plugin entry of a built-in
name, or one whose config section is another method's, is ignored with a warning naming the package.
A method's module is imported when it is first needed (a config to validate, a run to start).
"""

from __future__ import annotations

import importlib
import warnings
from importlib.metadata import EntryPoint, entry_points

from newmarket_env.train.methods.base import Layers, Learner, Method, RunContext, saved_metadata

GROUP = "newmarket_env.methods"
#: The package's own methods: name -> where its Method is (imported on first use).
BUILT_IN = {
    "ppo": "newmarket_env.train.ppo.method:METHOD",
    "expert_iteration": "newmarket_env.train.expert.method:METHOD",
    "dmc": "newmarket_env.train.dmc.method:METHOD",
    "rllib_ppo": "newmarket_env.train.rllib_ppo.method:METHOD",
}
#: Config sections every method shares: a method's own sections take other names.
SHARED_SECTIONS = ("env", "opponents", "network", "run", "eval")

_loaded: dict[str, Method] = {}
_warned: set[str] = set()


def _plugins() -> dict[str, EntryPoint]:
    """The installed packages' methods by name (read again on each call: a package installed since counts)."""
    found: dict[str, EntryPoint] = {}
    for entry in entry_points(group=GROUP):
        if entry.name in BUILT_IN:
            _warn(entry, "the name belongs to a method of newmarket-env")
            continue
        found.setdefault(entry.name, entry)  # two packages, one name: the first one found keeps it
    return found


def available_methods() -> list[str]:
    """Every ``method:`` a config may name: the package's (``ppo``, ``expert_iteration``, ``dmc``,
    ``rllib_ppo``), then those of installed packages, by name."""
    return [*BUILT_IN, *sorted(_plugins())]


def get_method(name: str) -> Method:
    """The method called ``name``; a one-line ``ValueError`` naming the available ones for any other."""
    if name in _loaded:
        return _loaded[name]
    if name in BUILT_IN:
        module, _, attribute = BUILT_IN[name].partition(":")
        method = _as_method(getattr(importlib.import_module(module), attribute))
    else:
        entry = _plugins().get(name) if isinstance(name, str) else None
        if entry is None:
            raise ValueError(f"method = {name!r} is not allowed; allowed: {', '.join(available_methods())}")
        method = _load_plugin(entry)
    _loaded[name] = method
    return method


def loadable_methods() -> list[Method]:
    """Every available method that loads (a plugin that does not is left out, with a warning)."""
    methods = []
    for name in available_methods():
        try:
            methods.append(get_method(name))
        except ValueError as err:
            if name not in _warned:
                _warned.add(name)
                warnings.warn(str(err), RuntimeWarning, stacklevel=2)
    return methods


def section_owners() -> dict[str, str]:
    """Each method's own config section -> the method's name."""
    return {section: method.name for method in loadable_methods() for section in method.sections}


def _as_method(found: object) -> Method:
    return found() if isinstance(found, type) and issubclass(found, Method) else found  # type: ignore[return-value]


def _package_of(entry: EntryPoint) -> str:
    dist = getattr(entry, "dist", None)
    return f"{dist.name} {dist.version}" if dist is not None else "an installed package"


def _load_plugin(entry: EntryPoint) -> Method:
    """The method an entry point names, checked; a one-line ``ValueError`` naming the package if unusable."""
    where = f"method {entry.name!r} of {_package_of(entry)} ({entry.value})"
    try:
        method = _as_method(entry.load())
    except Exception as err:
        first = str(err).strip().splitlines()[0] if str(err).strip() else ""
        raise ValueError(f"{where} cannot be loaded ({type(err).__name__}: {first})") from None
    if not isinstance(method, Method):
        raise ValueError(f"{where} is a {type(method).__name__}, not a newmarket_env.train.methods.Method")
    if method.name != entry.name:
        raise ValueError(f"{where} calls itself {method.name!r}; its entry point must carry the same name")
    taken = {section: owner for owner in BUILT_IN for section in get_method(owner).sections}
    for section in method.sections:
        owner = "every method" if section in SHARED_SECTIONS else taken.get(section)
        if owner is not None or section in ("name", "method"):
            raise ValueError(f"{where} declares config section {section!r}, which belongs to {owner or 'the config'}")
    return method


def _warn(entry: EntryPoint, why: str) -> None:
    if entry.name not in _warned:
        _warned.add(entry.name)
        warnings.warn(f"method plugin {entry.name!r} of {_package_of(entry)} is ignored: {why}", RuntimeWarning, 3)


__all__ = [
    "BUILT_IN",
    "GROUP",
    "Layers",
    "Learner",
    "Method",
    "RunContext",
    "available_methods",
    "get_method",
    "loadable_methods",
    "saved_metadata",
    "section_owners",
]
