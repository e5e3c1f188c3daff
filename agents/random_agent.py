"""``random``: uniform over the legal actions."""

from __future__ import annotations

from typing import Any

from newmarket_env.agents.base import Agent


class RandomAgent(Agent):
    """Picks a legal action uniformly at random."""

    name = "random"

    def act(self, observation: dict[str, Any]) -> int:
        return int(self.rng.choice(self.legal_actions(observation)))
