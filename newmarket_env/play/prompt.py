"""Asking the person at the terminal for one decision, by name or number (see
:class:`~newmarket_env.describe.choices.Choices` for the answers that name a choice).

>>> from newmarket_env.engine import Decision
>>> from newmarket_env.game.rules import make_rules
>>> choices = Choices([3, 16], Decision.LEAD, make_rules("newmarket"))
>>> answers, written = iter(["5", "?", "lead 4D"]), []
>>> ask(choices, lambda: written.append("(the table)"), lambda prompt: next(answers), written.append)
16
>>> written[0], written[3]
("'5' is not one of the choices; type its number (1-2) or its words:", '(the table)')
"""

from __future__ import annotations

from collections.abc import Callable

from newmarket_env.describe.choices import Choices

QUIT_WORDS = ("q", "quit", "exit")
SHOW_WORDS = ("?", "h", "help", "t", "table")


class QuitSession(Exception):
    """The person asked to stop playing."""


def ask(
    choices: Choices, show_table: Callable[[], None], read: Callable[[str], str], write: Callable[[str], None]
) -> int:
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
            write(choices.why_not(answer) + ":")
        for line in choices.lines():
            write(line)
