"""Agents that misbehave on purpose, entered by reference (``tests.tournament.hostile_agents:Hostile``).

Options: ``answer`` (what it does at a decision, :data:`ANSWERS`), ``after`` (decisions of its process,
over every session, that it plays properly first, so some sessions finish before), ``tag`` (counts
apart from other tests' agents in the same process) and ``marker`` (a file it makes when it starts to
misbehave).
"""

from __future__ import annotations

import collections
import os
import signal
import time
from pathlib import Path

import numpy as np

from newmarket_env.agents import Agent
from newmarket_env.game.actions import NUM_ACTIONS

_DECISIONS: collections.Counter[str] = collections.Counter()  # by tag: this process's decisions


def _spin(legal):
    while True:  # a loop that never returns (and never sleeps)
        pass


def _raise(error):
    def answer(legal):
        raise error

    return answer


def _deaf_to_sigterm(legal):
    """Plays properly, in a process that ignores SIGTERM (as some libraries make theirs)."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    return legal[0]


ANSWERS = {
    "float": lambda legal: float(legal[0]) + 0.9,  # 3.9 where 3 is legal: never played as 3
    "whole_float": lambda legal: float(legal[0]),  # 3.0: a float still, refused as env.step refuses it
    "string": lambda legal: str(legal[0]),
    "numpy_float": lambda legal: np.float64(legal[0]) + 0.5,
    "bool": lambda legal: True,
    "none": lambda legal: None,
    "out_of_range": lambda legal: NUM_ACTIONS + 20,
    "negative": lambda legal: -1,
    "illegal": lambda legal: next(a for a in range(NUM_ACTIONS) if a not in legal),
    "exit": _raise(SystemExit(0)),
    "interrupt": _raise(KeyboardInterrupt()),
    "error": _raise(ZeroDivisionError("division by zero")),
    "sleep": lambda legal: time.sleep(10**6),
    "spin": _spin,
    "die": lambda legal: os._exit(3),
    "deaf_to_sigterm": _deaf_to_sigterm,
}


class Hostile(Agent):
    name = "hostile"

    def __init__(
        self, rules, seed=None, answer: str = "float", after: int = 0, tag: str = "", marker: str = ""
    ) -> None:
        super().__init__(rules, seed)
        self.answer, self.after, self.tag, self.marker = ANSWERS[answer], after, tag, marker

    def act(self, observation):
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        _DECISIONS[self.tag] += 1
        if _DECISIONS[self.tag] <= self.after:
            return legal[0]
        if self.marker:  # tells a test that the agent now misbehaves
            Path(self.marker).touch()
        return self.answer(legal)
