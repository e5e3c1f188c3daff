"""The learner's reward, reckoned from its chip total: one rule for ``SingleAgentEnv`` and ``VectorEnv``.

The reward of a learner's decision is the change of its chip total from that decision to its next
one, times ``reward_scale``. A session's first decision counts from the starting chips (so the
stakes paid before it are in it) and its last runs to the session's end, also when another seat's
move ends it: the rewards of a session sum to the learner's result times ``reward_scale``.

>>> rewards = LearnerReward(2, starting_chips=20, reward_scale=0.5)
>>> rewards.take([0, 1], np.array([18, 23])).tolist()  # stakes paid; a lot won before deciding
[-1.0, 1.5]
>>> rewards.take([0], np.array([26])).tolist()  # from 18 at table 0's previous decision
[4.0]
"""

from __future__ import annotations

from typing import Any

import numpy as np


class LearnerReward:
    """The learner's chip total at its previous decision, per table, and the reward taken from it.

    ``start(tables)`` at a session's start; ``take(tables, totals)`` at each decision of the learner
    and at the session's end, with the learner's chip totals at those tables now. ``tables=None``
    holds one table (``SingleAgentEnv``: table 0, in Python ints, cheaper per step than numpy
    scalars); a number holds that many in an int64 array (``VectorEnv``: table numbers or a mask).
    """

    def __init__(self, tables: int | None, starting_chips: int, reward_scale: float) -> None:
        self.starting_chips, self.reward_scale = int(starting_chips), float(reward_scale)
        self.previous: Any = (
            [self.starting_chips] if tables is None else np.full(tables, self.starting_chips, dtype=np.int64)
        )

    def start(self, tables: Any) -> None:
        """A session starts at ``tables``: its first reward counts from the starting chips."""
        self.previous[tables] = self.starting_chips

    def take(self, tables: Any, totals: Any) -> Any:
        """The rewards at ``tables`` whose learner holds ``totals`` chips now (scaled: a float, or a
        float64 array); counted from here on."""
        rewards = (totals - self.previous[tables]) * self.reward_scale
        self.previous[tables] = totals
        return rewards
