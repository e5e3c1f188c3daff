"""The agent interface of docs/contract.md: ``reset()`` before a session, ``act(observation)``."""

from __future__ import annotations

from typing import Any

import numpy as np

from newmarket_env.game.rules import Rules


class Agent:
    """Decides from its own observation dict (``{"observation", "action_mask"}``) and its rules.

    Subclasses implement :meth:`act`. An agent that reads hidden state must say
    so in its name (``oracle-...``).
    """

    name = "agent"

    def __init__(self, rules: Rules, seed: int | None = None) -> None:
        self.rules = rules
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        """Called before each session."""

    def act(self, observation: dict[str, Any]) -> int:
        raise NotImplementedError

    @staticmethod
    def legal_actions(observation: dict[str, Any]) -> np.ndarray:
        return np.flatnonzero(observation["action_mask"])

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"
