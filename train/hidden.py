"""Where the cards a seat cannot see are: targets for training-time heads that predict the hidden cards.

Read from the privileged state (:mod:`newmarket_env.observation.state_layout`), seats counted from the
deciding seat. A card is *hidden* from that seat when it is in another seat's hand or in the dead hand
(widow) and the seat does not know where it is: not in its own hand, not played, not among the cards it
knows are out of play (public stops, its own discards, its former hand after an exchange). Each hidden
card's *owner* is the relative seat holding it (1..n-1) or :data:`DEAD` (the dead hand or widow); every
other card is :data:`NOT_HIDDEN`, which a loss ignores.

The owners are a training target only: they hold exactly what the seat may not know, so no agent at play
reads them, and a network's auxiliary head that predicts them is not part of its saved file.

>>> import numpy as np
>>> from newmarket_env.observation.state_layout import STATE_SIZE, STATE_SLOTS
>>> state = np.zeros((1, STATE_SIZE), dtype=np.float32)
>>> hands = state[0, STATE_SLOTS["hands"]].reshape(-1, 52)
>>> hands[0, 0] = hands[1, 1] = hands[3, 2] = 1.0  # the seat holds card 0; seats +1 and +3 hold 1 and 2
>>> state[0, STATE_SLOTS["dead"].start + 3] = state[0, STATE_SLOTS["dead"].start + 4] = 1.0  # widow: 3, 4
>>> state[0, STATE_SLOTS["private_dead"].start + 4] = 1.0  # ... and the seat knows card 4 is there
>>> hidden_owners(state)[0, :6].tolist()
[-1, 1, 3, 8, -1, -1]
"""

from __future__ import annotations

import numpy as np

from newmarket_env.observation.layout import MAX_SEATS
from newmarket_env.observation.state_layout import STATE_SIZE, STATE_SLOTS

#: Owner classes: relative seats 0..MAX_SEATS-1 (0 never occurs: a seat sees its own hand), then the dead hand.
DEAD = MAX_SEATS
OWNER_CLASSES = MAX_SEATS + 1
#: A card the seat can see or knows the place of (the loss ignores it).
NOT_HIDDEN = -1


def hidden_owners(states: np.ndarray) -> np.ndarray:
    """``(K, 52)`` int8 owners of the hidden cards of ``(K, STATE_SIZE)`` states (NOT_HIDDEN elsewhere)."""
    states = np.asarray(states)
    if states.ndim != 2 or states.shape[1] != STATE_SIZE:
        raise ValueError(f"states must have shape (K, {STATE_SIZE}); got {states.shape}")
    k = len(states)
    hands = states[:, STATE_SLOTS["hands"]].reshape(k, MAX_SEATS, 52) > 0
    dead = states[:, STATE_SLOTS["dead"]] > 0
    played = (states[:, STATE_SLOTS["played_by"]].reshape(k, MAX_SEATS, 52) > 0).any(axis=1)
    known_out = (states[:, STATE_SLOTS["public_dead"]] > 0) | (
        states[:, STATE_SLOTS["private_dead"]].reshape(k, MAX_SEATS, 52)[:, 0] > 0
    )
    places = np.concatenate([hands, dead[:, None, :]], axis=1)  # (K, OWNER_CLASSES, 52)
    held = places.any(axis=1)
    hidden = held & ~hands[:, 0] & ~played & ~known_out
    owners = np.where(hidden, places.argmax(axis=1), NOT_HIDDEN)
    return owners.astype(np.int8)


__all__ = ["DEAD", "NOT_HIDDEN", "OWNER_CLASSES", "hidden_owners"]
