"""Each engine with the encoder made for its games: how a caller observes either engine's game.

:mod:`newmarket_env.engine.choice` picks the game class (the compiled ``FastGame`` when it is
built, else the reference ``Game``); this module pairs it with its encoder: the reference
:func:`~newmarket_env.observation.encode.encode_flat` for ``Game``, the compiled
``encode_game`` of ``observation/_encode.pyx`` for ``FastGame`` (the same vector, written in C;
``tests/engine/test_fast.py`` checks the two agree at every step); and likewise the privileged
state's encoders (:func:`~newmarket_env.observation.state.encode_state`, ``observation/_state.pyx``).
It sits in ``observation``, above the engine, so that the engine never imports its observers.

>>> choose_engine("python").name, choose_engine("python").game_class.__name__
('python', 'Game')
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import numpy as np
from numpy.typing import NDArray

from newmarket_env.engine.choice import engine_class
from newmarket_env.engine.game import Game
from newmarket_env.engine.protocol import EngineGame, GameFactory
from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.observation.encode import encode_flat
from newmarket_env.observation.layout import FLAT_SIZE
from newmarket_env.observation.state import encode_state
from newmarket_env.observation.state_layout import STATE_SIZE

if TYPE_CHECKING:
    from newmarket_env.engine import _fast

with contextlib.suppress(ImportError):  # not built: choose_engine then never pairs a compiled game with these
    from newmarket_env.observation._encode import encode_game, legal_mask, observe_game
    from newmarket_env.observation._state import encode_state_game

# ``viewer``'s flat observation of a game (float32, FLAT_SIZE long, a fresh array), given the rules'
# static part (observation.encode.static_part).
Encoder = Callable[[EngineGame, int, NDArray[np.float32]], NDArray[np.float32]]
# The legal actions of a game's pending decision as a fresh int8 array over every action id (1 = legal).
Masker = Callable[[EngineGame], NDArray[np.int8]]


@dataclass(frozen=True)
class Engine:
    """An engine: its game class, and the encoder, action mask and privileged state made for its games."""

    name: str  # "python" or "compiled"
    game_class: GameFactory
    encode: Encoder
    mask: Masker
    # The privileged state, seats counted from the seat given (an Encoder too: a fresh STATE_SIZE array,
    # given observation.state.state_static_part); for training only.
    encode_state: Encoder


def mask_of_legal(game: EngineGame) -> NDArray[np.int8]:
    """The action mask of any engine's game, from its ``legal`` list (what the compiled ``legal_mask`` writes)."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    for action in game.legal:  # a handful of actions: item by item beats fancy indexing here
        mask[action] = 1
    return mask


def encode_compiled(game: EngineGame, viewer: int, static: NDArray[np.float32]) -> NDArray[np.float32]:
    """The compiled encoder as an :data:`Encoder` (the same vector as ``encode_flat``, written in C)."""
    out = np.empty(FLAT_SIZE, dtype=np.float32)
    # Only the compiled engine's own games reach this encoder: choose_engine hands them out together.
    encode_game(cast("_fast.FastGame", game), viewer, out, static)
    return out


def encode_state_compiled(game: EngineGame, seat: int, static: NDArray[np.float32]) -> NDArray[np.float32]:
    """The compiled state encoder as an :data:`Encoder` (``encode_state``'s vector, written in C)."""
    out = np.empty(STATE_SIZE, dtype=np.float32)
    encode_state_game(cast("_fast.FastGame", game), seat, out, static)
    return out


def choose_engine(engine: str = "auto") -> Engine:
    """The :class:`Engine` for ``engine``: ``"auto"`` (compiled if built), ``"compiled"`` or ``"python"``.

    The name is checked, and the compiled engine's absence reported, by
    :func:`~newmarket_env.engine.choice.engine_class`.
    """
    game_class = engine_class(engine)
    if game_class is Game:
        return Engine("python", Game, encode_flat, mask_of_legal, encode_state)
    # The compiled encoder and mask, made in C (observe_game's arguments are encode_compiled's).
    return Engine("compiled", game_class, cast(Encoder, observe_game), cast(Masker, legal_mask), encode_state_compiled)


__all__ = ["Encoder", "Engine", "Masker", "choose_engine", "encode_compiled", "encode_state_compiled", "mask_of_legal"]
