"""The action mask and the rule for an illegal action: one of each for every view of the game.

Every mask a view hands out in an observation or an info is ``MASK_DTYPE`` (int8, 1 = legal), what
Gymnasium's ``Discrete.sample(mask=...)`` takes, so ``env.action_space.sample(info["action_mask"])``
works in each view. (The ``action_masks()`` method of the Gymnasium views is sb3-contrib's hook and
stays boolean, as docs/contract.md promises.)

An action id that is not legal is handled by the view's ``illegal_action`` option:

- ``"raise"``: :class:`~newmarket_env.engine.types.IllegalActionError` (a ``ValueError``) naming the
  action and the legal ones; nothing changes;
- ``"replace"``: the lowest legal action is played instead, and the view's info says
  ``illegal_action=True`` (``False`` after a legal one; the key is in every info of such a view).

Something that is not an action id at all (``None``, ``20.7``, ``"4C"``) is refused in both modes. The
default of each view, and why: the table on docs/guide/environment.md.

>>> legal_mask([3, 7], 10).tolist()
[0, 0, 0, 1, 0, 0, 0, 1, 0, 0]
>>> check_illegal_action("replace")
'replace'
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from newmarket_env.game.actions import NUM_ACTIONS

#: The dtype of every action mask in an observation or info (Gymnasium's ``Discrete.sample(mask=)`` asserts it).
MASK_DTYPE = np.int8
#: The values of ``illegal_action=``.
ILLEGAL_ACTION_MODES = ("raise", "replace")
#: The key of the flag in a ``"replace"`` view's infos.
ILLEGAL_ACTION_KEY = "illegal_action"


def check_illegal_action(mode: Any) -> str:
    """``mode`` if it is one of :data:`ILLEGAL_ACTION_MODES`; a one-line ``ValueError`` if not."""
    if not isinstance(mode, str) or mode not in ILLEGAL_ACTION_MODES:
        raise ValueError(f"illegal_action={mode!r} is unknown; allowed: {', '.join(ILLEGAL_ACTION_MODES)}")
    return mode


def legal_mask(legal: Iterable[int], size: int = NUM_ACTIONS) -> np.ndarray:
    """A fresh ``(size,)`` :data:`MASK_DTYPE` mask with 1 at the ``legal`` ids."""
    mask = np.zeros(size, dtype=MASK_DTYPE)
    for action in legal:  # a handful of actions: item by item beats fancy indexing here
        mask[action] = 1
    return mask


def replacement(legal: Iterable[int]) -> int:
    """The action played in place of an illegal one under ``illegal_action="replace"``: the lowest legal."""
    return min(legal)
