"""Which engine plays: the compiled one (``engine/_fast.pyx``) when it is built, else the reference.

Both play the same sessions for the same seed and deals (``tests/engine/test_fast.py``
checks every member of the engine contract, :mod:`~newmarket_env.engine.protocol`,
and every observation, action by action). ``Game`` in ``game.py`` is the readable
reference; ``FastGame`` is about 15 times faster. The compiled engine is built by
``pip install`` when a C compiler is present; without one the install still works
and ``"auto"`` falls back to the reference.

:func:`choose_engine` gives an :class:`Engine`: the game class and the encoder
that goes with it, so a caller observes either engine's game through one call.

>>> ENGINES
('auto', 'compiled', 'python')
>>> choose_engine("python").name, choose_engine("python").game_class.__name__
('python', 'Game')
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numpy.typing import NDArray

from newmarket_env.engine.game import Game
from newmarket_env.engine.protocol import EngineGame, GameFactory
from newmarket_env.observation.encode import encode_flat
from newmarket_env.observation.layout import FLAT_SIZE
from newmarket_env.rules import Rules

if TYPE_CHECKING:
    from newmarket_env.engine import _fast
    from newmarket_env.envs import _batch

# None where the extension is not built (no C compiler at install time); tests set them to None too.
FastGame: type[_fast.FastGame] | None = None
TableBatch: type[_batch.TableBatch] | None = None
try:
    from newmarket_env.engine import _fast as _built
    from newmarket_env.envs import _batch as _built_batch  # TableBatch lives with the envs
except ImportError:
    pass
else:
    FastGame, TableBatch = _built.FastGame, _built_batch.TableBatch

ENGINES = ("auto", "compiled", "python")

# ``viewer``'s flat observation of a game (float32, FLAT_SIZE long, a fresh array), given the rules'
# static part (observation.encode.static_part).
Encoder = Callable[[EngineGame, int, NDArray[np.float32]], NDArray[np.float32]]


@dataclass(frozen=True)
class Engine:
    """An engine: its game class and the encoder made for its games."""

    name: str  # "python" or "compiled"
    game_class: GameFactory
    encode: Encoder


def encode_compiled(game: EngineGame, viewer: int, static: NDArray[np.float32]) -> NDArray[np.float32]:
    """``FastGame.encode_into`` as an :data:`Encoder` (the same vector as ``encode_flat``, written in C)."""
    out = np.empty(FLAT_SIZE, dtype=np.float32)
    # Only the compiled engine's own games reach this encoder: choose_engine hands them out together.
    cast("_fast.FastGame", game).encode_into(viewer, out, static)
    return out


def compiled_available() -> bool:
    return FastGame is not None


def choose_engine(engine: str = "auto") -> Engine:
    """The :class:`Engine` for ``engine``: ``"auto"`` (compiled if built), ``"compiled"`` or ``"python"``."""
    if engine not in ENGINES:
        raise ValueError(f"engine={engine!r} is unknown; allowed: {', '.join(ENGINES)}")
    if engine == "python" or (engine == "auto" and FastGame is None):
        return Engine("python", Game, encode_flat)
    if FastGame is None:
        raise ValueError(
            "engine='compiled' but the compiled engine is not built; reinstall with a C compiler "
            "present (pip install -e .), or use engine='python' or 'auto'"
        )
    return Engine("compiled", FastGame, encode_compiled)


def engine_class(engine: str = "auto") -> GameFactory:
    """The game class of :func:`choose_engine` (for callers that never observe)."""
    return choose_engine(engine).game_class


def table_batch(rules: Rules, num_tables: int, seed: int | None = 0, seat_policies: Any = None) -> _batch.TableBatch:
    """A :class:`TableBatch` (many compiled tables stepped by one call): the self-play batch API.

    Needs the compiled engine; without it a one-line ``RuntimeError`` names the
    per-table alternative (the AEC env).
    """
    if TableBatch is None:
        raise RuntimeError(
            "table_batch needs the compiled engine, which is not built; reinstall with a C compiler "
            "(pip install -e .) or play tables one by one with newmarket_env.env()"
        )
    return TableBatch(rules, num_tables, seed=seed, seat_policies=seat_policies)


__all__ = [
    "ENGINES",
    "Encoder",
    "Engine",
    "FastGame",
    "Game",
    "TableBatch",
    "choose_engine",
    "compiled_available",
    "encode_compiled",
    "engine_class",
    "table_batch",
]
