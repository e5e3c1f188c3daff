"""Who plays: turning agent names and paths into labelled entrants, checked before any game."""

from __future__ import annotations

import inspect
import json
import os
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from newmarket_env import available_agents, load_agent
from newmarket_env.agents import registry
from newmarket_env.agents.reference import is_reference
from newmarket_env.agents.saved import load_saved_agent
from newmarket_env.eval.tournament.config import FILLER_AGENT, ORACLE_PREFIX, SLOW_AGENT_OPTIONS

_AGENT_FILE_SUFFIXES = (".npz", ".json", ".pt", ".zip", ".pth")


@dataclass(frozen=True)
class Entrant:
    """One competitor: a unique label, what ``load_agent`` is given, and its keyword options."""

    label: str
    spec: str
    options: Mapping[str, Any] = field(default_factory=dict)

    def load(self, env: Any, seed: int):
        """A fresh agent seeded with ``seed``, for one session."""
        return load_agent(self.spec, env=env, seed=seed, **dict(self.options))


def default_agent_specs(players: int, env: Any) -> tuple[list[str], dict[str, str]]:
    """Every available non-oracle agent that loads for ``env``'s rules, padded with ``random`` up to ``players``.

    Returns the names and, for the agents left out (e.g. a trained agent made for other rules), why.
    """
    names, skipped = [], {}
    for name in available_agents():
        if name.startswith(ORACLE_PREFIX):
            continue
        try:
            check_entrant(Entrant(name, name, dict(SLOW_AGENT_OPTIONS.get(name, {}))), env)
        except ValueError as err:
            skipped[name] = str(err)
            continue
        names.append(name)
    while len(names) < players:
        names.append(FILLER_AGENT)
    return names, skipped


def _label_of(spec: str) -> str:
    """A registered name and an agent reference (``MODULE:ATTR``) as they are; a saved agent by the name its
    training run gave it (``final.json`` sidecar), else by its file name."""
    if spec in available_agents() or (is_reference(spec) and not os.path.isfile(spec)):
        return spec
    stem = os.path.splitext(spec)[0]
    try:
        with open(stem + ".json", encoding="utf-8") as handle:
            name = json.load(handle).get("name")
    except (OSError, ValueError, AttributeError):
        name = None
    return name if isinstance(name, str) and name.strip() else os.path.basename(stem) or spec


def make_entrants(specs: list[str] | tuple[str, ...], options: Mapping[str, Mapping[str, Any]]) -> list[Entrant]:
    """Label the specs (repeats become ``random``, ``random#2``, ...) and attach their options."""
    seen: Counter[str] = Counter()
    entrants = []
    for spec in specs:
        spec = str(spec).strip()
        if not spec:
            raise ValueError("an agent name is empty; give names separated by commas, e.g. --agents greedy,random")
        base = _label_of(spec)
        seen[base] += 1
        label = base if seen[base] == 1 else f"{base}#{seen[base]}"
        chosen = options.get(spec, options.get(base, SLOW_AGENT_OPTIONS.get(spec, {})))
        entrants.append(Entrant(label, spec, dict(chosen)))
    return entrants


def check_entrant(entrant: Entrant, env: Any) -> None:
    """Load the entrant once so a bad name, file or option stops the run before any game."""
    spec = entrant.spec
    if spec not in available_agents() and _looks_like_path(spec) and not os.path.isfile(spec):
        raise ValueError(f"agent file {spec!r} does not exist; known agents: {', '.join(available_agents())}")
    try:
        entrant.load(env, seed=0)
    except ValueError as err:
        raise ValueError(_one_line(str(err))) from None
    except TypeError as err:  # a keyword the agent does not take: name it and the ones it does
        unknown = re.search(r"unexpected keyword argument '(\w+)'", str(err))
        if unknown is None:
            raise ValueError(f"agent {spec!r} could not be loaded (TypeError: {_one_line(str(err))})") from None
        allowed = agent_option_names(spec)
        raise ValueError(
            f"agent option {unknown.group(1)!r} is unknown for {spec!r}; allowed: "
            f"{', '.join(allowed) if allowed else 'none (it takes no options)'}"
        ) from None
    except Exception as err:  # a broken file or a bad option: say which agent, on one line
        raise ValueError(f"agent {spec!r} could not be loaded ({type(err).__name__}: {_one_line(str(err))})") from None


def agent_option_names(spec: str) -> list[str]:
    """The keyword options ``load_agent(spec, ...)`` accepts besides ``env`` and ``seed``."""
    factory = registry._REGISTRY.get(spec, load_saved_agent)  # the registry keeps the factories by name
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return []
    return [
        p.name
        for p in parameters
        if p.name not in ("self", "rules", "seed", "path", "env")
        and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]


def _looks_like_path(spec: str) -> bool:
    return os.sep in spec or "/" in spec or spec.lower().endswith(_AGENT_FILE_SUFFIXES)


def _one_line(text: str) -> str:
    return " ".join(text.split())
