"""The generated parts of the training pages: the methods' table and each config section's keys.

``docs/guide/training.md`` holds the table of the package's methods and the keys every method shares;
each page of ``docs/training/methods/`` holds its method's own keys. All come from the methods' registry
and the config sections' fields (:func:`newmarket_env.train.config.spec`: default, allowed values, doc),
so the pages cannot drift from what ``--describe`` prints and the config accepts.
"""

from __future__ import annotations

from newmarket_env.train.config import (
    EnvSection,
    EvalSection,
    NetworkSection,
    OpponentSection,
    RunSection,
    section_keys,
)
from newmarket_env.train.methods import BUILT_IN, SHARED_SECTIONS, get_method

_SHARED = dict(
    zip(SHARED_SECTIONS, (EnvSection, OpponentSection, NetworkSection, RunSection, EvalSection), strict=True)
)


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def keys_table(sections: dict[str, type]) -> str:
    """One row per key of ``sections`` (name -> section dataclass): key, default, allowed values, what it does."""
    lines = ["| key | default | allowed | what it does |", "|---|---|---|---|"]
    for name, cls in sections.items():
        for row in section_keys(cls):
            default = f"`{row['default']!r}`"
            lines.append(
                f"| `{name}.{row['key']}` | {_cell(default)} | {_cell(row['allowed'])} | {_cell(row['doc'])} |"
            )
    return "\n".join(lines)


def shared_keys() -> str:
    """The keys of the sections every method reads."""
    return keys_table(_SHARED)


def method_keys(name: str) -> str:
    """The keys of method ``name``'s own sections, each section's doc first."""
    method = get_method(name)
    notes = [f"- `{section}`: {cls.__doc__}" for section, cls in method.sections.items()]
    return "\n".join([*notes, "", keys_table(dict(method.sections))])


def methods_table() -> str:
    """The package's methods: what each learns, its sections, what its steps count, its page."""
    lines = ["| `method:` | what it learns | its sections | `run.total_steps` counts | page |", "|---|---|---|---|---|"]
    for name in BUILT_IN:
        method = get_method(name)
        sections = ", ".join(f"`{section}`" for section in method.sections)
        page = f"[{name}](../training/methods/{name}.md)"
        lines.append(f"| `{name}` | {_cell(method.summary)} | {sections} | {method.unit} | {page} |")
    return "\n".join(lines)
