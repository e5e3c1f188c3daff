"""Type stub of the compiled privileged-state encoder (``_state.pyx``)."""

import numpy as np
from numpy.typing import NDArray

from newmarket_env.engine._fast import FastGame
from newmarket_env.game.rules import Rules

STACK_LIMIT: int

def encode_state_game(game: FastGame, seat: int, out: NDArray[np.float32], static: NDArray[np.float32]) -> None: ...

class StateObserver:
    """The privileged state of one rules' tables, for ``TableBatch.states``."""

    @property
    def size(self) -> int: ...
    @property
    def stack_limit(self) -> int: ...
    @property
    def static(self) -> NDArray[np.float32]: ...
    def __init__(self, rules: Rules) -> None: ...
