"""Checks of the options the learner's envs share (``SingleAgentEnv`` and ``VectorEnv``), in one place."""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from newmarket_env.actions import NUM_ACTIONS


def check_reward_scale(scale: Any) -> float:
    """``scale`` as a float if it is a finite number > 0; ``ValueError`` in one line if not.

    >>> check_reward_scale(0.1)
    0.1
    """
    value = float(scale) if isinstance(scale, numbers.Real) and not isinstance(scale, bool) else math.nan
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"reward_scale={scale!r} is out of range; allowed: a finite number > 0")
    return value


def check_action_id(action: Any) -> int:
    """``action`` as an int if it is an integer (a Python or numpy int, or a one-element int array);
    ``ValueError`` in one line if not: a float is never truncated into another action.

    >>> check_action_id(np.int64(20))
    20
    """
    value = np.asarray(action)
    if value.size != 1 or value.dtype == np.bool_ or not np.issubdtype(value.dtype, np.integer):
        raise ValueError(f"action {action!r} is not an action id; allowed: an int 0..{NUM_ACTIONS - 1}")
    return int(value.reshape(()))
