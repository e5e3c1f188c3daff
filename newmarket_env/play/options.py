"""Turning command-line text into agent lists (rules overrides: ``game.rules.parse_settings``).

>>> parse_agents("greedy, random")
['greedy', 'random']
"""

from __future__ import annotations


def parse_agents(text: str) -> list[str]:
    """``random,random`` -> ``['random', 'random']``."""
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise ValueError(f"--agents {text!r} has an empty name; give names separated by commas, e.g. random,random")
    return names
