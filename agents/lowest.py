"""``lowest``: the simplest sound player.

Idea: take the first legal card (the lowest club-first lead, the lowest-id
discard), always keep its own hand (no widow exchange, no buying, passes every
auction) and spread chosen stakes evenly over the boodles. It never judges
anything, so it is the floor the other baselines are measured against.
"""

from __future__ import annotations

from newmarket_env.agents.policy import Policy


class LowestPolicy(Policy):
    """First legal card, keep, pass, spread stakes (all from :class:`Policy`)."""

    name = "lowest"


__all__ = ["LowestPolicy"]
