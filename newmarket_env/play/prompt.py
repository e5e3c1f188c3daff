"""Asking the person at the terminal for one decision, by name or number.

>>> from newmarket_env.engine import Decision
>>> from newmarket_env.rules import make_rules
>>> choices = Choices([3, 16], Decision.LEAD, make_rules("newmarket"))
>>> choices.lines()
['  1) lead 4 of clubs (4C)', '  2) lead 4 of diamonds (4D)']
>>> choices.match("2"), choices.match("4c"), choices.match("lead 4 of diamonds (4D)"), choices.match("5")
(16, 3, 16, None)
"""

from __future__ import annotations

from typing import Callable, Sequence

from newmarket_env import actions as A
from newmarket_env.engine.types import Decision
from newmarket_env.play.words import choice_text
from newmarket_env.rules import Rules

QUIT_WORDS = ("q", "quit", "exit")
SHOW_WORDS = ("?", "h", "help", "t", "table")


class QuitSession(Exception):
    """The person asked to stop playing."""


class Choices:
    """The legal actions of one decision, each with its words and its number (from 1)."""

    def __init__(self, legal: Sequence[int], decision: Decision, rules: Rules) -> None:
        self.actions = list(legal)
        self.texts = [choice_text(a, decision, rules) for a in self.actions]

    def lines(self) -> list[str]:
        width = len(str(len(self.texts)))
        return [f"  {i:>{width}}) {text}" for i, text in enumerate(self.texts, start=1)]

    def match(self, answer: str) -> int | None:
        """The action ``answer`` names: its number, its words, or its short form (``4C``, ``pass``, ``bid 3``)."""
        said = " ".join(answer.lower().split())
        if said.isdigit():
            index = int(said) - 1
            return self.actions[index] if 0 <= index < len(self.actions) else None
        for action, text in zip(self.actions, self.texts):
            if said in (text.lower(), A.action_text(action).lower()):
                return action
        return None


def ask(choices: Choices, show_table: Callable[[], None], read: Callable[[str], str],
        write: Callable[[str], None]) -> int:
    """Read answers until one names a choice; ``q`` raises :class:`QuitSession`."""
    prompt = f"your choice (1-{len(choices.actions)}, ? for the table, q to quit)> "
    while True:
        answer = read(prompt).strip()
        if answer.lower() in QUIT_WORDS:
            raise QuitSession
        if answer.lower() in SHOW_WORDS:
            show_table()
        else:
            action = choices.match(answer)
            if action is not None:
                return action
            write(f"{answer!r} is not one of the choices; type its number or its words:")
        for line in choices.lines():
            write(line)
