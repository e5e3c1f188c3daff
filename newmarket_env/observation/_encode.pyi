"""Type stub of the compiled flat encoder (``_encode.pyx``)."""

import numpy as np
from numpy.typing import NDArray

from newmarket_env.engine._fast import FastGame
from newmarket_env.game.rules import Rules

STACK_LIMIT: int

def observe_game(game: FastGame, viewer: int, static: NDArray[np.float32]) -> NDArray[np.float32]: ...
def legal_mask(game: FastGame) -> NDArray[np.int8]: ...
def encode_game(game: FastGame, viewer: int, out: NDArray[np.float32], static: NDArray[np.float32]) -> None: ...

class FlatObserver:
    """The flat observation of one rules' tables, for a ``TableBatch``."""

    @property
    def size(self) -> int: ...
    @property
    def stack_limit(self) -> int: ...
    @property
    def static(self) -> NDArray[np.float32]: ...
    def __init__(self, rules: Rules) -> None: ...
