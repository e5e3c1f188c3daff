"""``random``: uniform over the legal actions."""

from __future__ import annotations

import random
from typing import Any

from newmarket_env.agents.base import Agent
from newmarket_env.game.rules import Rules


class RandomAgent(Agent):
    """Picks a legal action uniformly at random; one stream for all its sessions.

    It draws from Python's ``random.Random(seed)`` (``legal[randrange(len(legal))]``),
    as the compiled ``random`` does, so both pick the same actions.
    """

    name = "random"

    def __init__(self, rules: Rules, seed: int | None = None) -> None:
        super().__init__(rules, seed)
        self.stream = random.Random(seed)

    def act(self, observation: dict[str, Any]) -> int:
        legal = self.legal_actions(observation)
        if not legal.size:
            raise ValueError("act() was given an observation whose action_mask has no legal action")
        return int(legal[self.stream.randrange(len(legal))])

    def explain(self, observation: dict[str, Any]) -> dict[str, Any]:
        """No thought: every legal action is as likely (docs/contract.md, ``explain``)."""
        legal = self.legal_actions(observation)
        return {
            "summary": f"picks uniformly at random among {len(legal)} legal actions",
            "actions": [{"action": int(a), "probability": 1 / len(legal)} for a in legal],
        }
