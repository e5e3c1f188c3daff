"""The agents the person who starts the server seats: ``newmarket serve --agent NAME=PATH_OR_MODULE:ATTR``.

A request never names a file or a module (it could make the server read any file or run any code); the
person who starts the server may, as they may run any command. Each ``--agent`` gives such an agent a
NAME, and the page offers NAME in Play and Watch beside the registered agents; a request naming NAME
gets the agent loaded from its file (a saved ``.npz`` or an SB3 ``.zip``) or reference (``MODULE:ATTR``).

Everything is checked when the server starts, in one line each: the form ``NAME=SPEC``, a NAME that is
new (not a registered agent, not given twice) and that a form can carry (no comma, colon or space), and
a SPEC that is an existing file that reads as an agent, or a reference whose module imports and whose
attribute can build agents. Whether the agent plays the rules of a table is checked when the table is
dealt (a trained network plays only the rules it learned), as for every agent.

>>> parse_seated(["mine=random"], taken=())
Traceback (most recent call last):
    ...
ValueError: --agent mine=random: 'random' is not an existing .npz or .zip file nor a MODULE:ATTR reference
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from newmarket_env.agents.reference import check_agent_object, is_reference, resolve
from newmarket_env.agents.registry import SB3_SUFFIX
from newmarket_env.agents.saved import read_saved
from newmarket_env.agents.sb3_zip import read_sb3_zip

#: A seated agent's name: what the page's agents field can carry (it splits on commas) and a record keeps.
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,47}$")


def parse_seated(items: Sequence[str], taken: Iterable[str]) -> dict[str, str]:
    """``NAME=SPEC`` items as ``{NAME: SPEC}`` (a file as its absolute path); a one-line ``ValueError`` naming
    the item at the first problem. ``taken``: the names already in use (the registered agents)."""
    taken = set(taken)
    seated: dict[str, str] = {}
    for item in items:
        name, sep, spec = item.partition("=")
        name, spec = name.strip(), spec.strip()
        if not sep or not name or not spec:
            raise ValueError(f"--agent {item!r} is not NAME=PATH_OR_MODULE:ATTR, e.g. --agent mine=runs/x/final.npz")
        if not NAME.match(name):
            raise ValueError(
                f"--agent {item}: name {name!r} is not allowed; allowed: letters, digits and _ . + - (at most 48, "
                "starting with a letter or digit)"
            )
        if name in taken:
            raise ValueError(f"--agent {item}: name {name!r} is a registered agent's; choose another name")
        if name in seated:
            raise ValueError(f"--agent {item}: name {name!r} is given twice")
        seated[name] = check_spec(item, spec)
    return seated


def check_spec(item: str, spec: str) -> str:
    """``spec`` (a file as its absolute path) if it names an agent; a one-line ``ValueError`` if not."""
    if os.path.isfile(spec):
        reader = read_sb3_zip if spec.lower().endswith(SB3_SUFFIX) else read_saved
        try:
            reader(spec)
        except ValueError as err:
            raise ValueError(f"--agent {item}: {err}") from None
        return str(Path(spec).resolve())
    if is_reference(spec):
        try:
            check_agent_object(spec, resolve(spec))
        except ValueError as err:
            raise ValueError(f"--agent {item}: {err}") from None
        return spec
    raise ValueError(f"--agent {item}: {spec!r} is not an existing .npz or .zip file nor a MODULE:ATTR reference")


def spec_of(name: str, seated: Mapping[str, str]) -> str:
    """What ``load_agent`` is given for the agent a request names: the seated agent's spec, or the name."""
    return seated.get(name, name)
