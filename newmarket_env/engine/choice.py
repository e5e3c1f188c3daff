"""Which engine plays: the compiled one (``engine/_fast.pyx``) when it is built, else the reference.

Both play the same sessions for the same seed and deals (``tests/engine/test_fast.py``
checks every member of the engine contract, :mod:`~newmarket_env.engine.protocol`,
and every observation, action by action). ``Game`` in ``game.py`` is the readable
reference; ``FastGame`` is about 15 times faster. The compiled engine is built by
``pip install`` when a C compiler is present; without one the install still works
and ``"auto"`` falls back to the reference.

:func:`engine_class` gives the game class; :mod:`newmarket_env.observation.engines` pairs it
with the encoder made for its games (the engine never imports its observers).

>>> ENGINES
('auto', 'compiled', 'python')
>>> engine_class("python").__name__
'Game'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from newmarket_env.engine.game import Game
from newmarket_env.engine.protocol import GameFactory
from newmarket_env.game.rules import Rules

if TYPE_CHECKING:
    from newmarket_env.engine import _batch, _fast

# None where the extension is not built (no C compiler at install time); tests set them to None too.
FastGame: type[_fast.FastGame] | None = None
TableBatch: type[_batch.TableBatch] | None = None
try:
    from newmarket_env.engine import _batch as _built_batch
    from newmarket_env.engine import _fast as _built
except ModuleNotFoundError:  # not built; a build that does not match the source raises (engine/_table.pyx)
    pass
else:
    FastGame, TableBatch = _built.FastGame, _built_batch.TableBatch

ENGINES = ("auto", "compiled", "python")


def compiled_available() -> bool:
    return FastGame is not None


def engine_class(engine: str = "auto") -> GameFactory:
    """The game class for ``engine``: ``"auto"`` (compiled if built), ``"compiled"`` or ``"python"``."""
    if engine not in ENGINES:
        raise ValueError(f"engine={engine!r} is unknown; allowed: {', '.join(ENGINES)}")
    if engine == "python" or (engine == "auto" and FastGame is None):
        return Game
    if FastGame is None:
        raise ValueError(
            "engine='compiled' but the compiled engine is not built; reinstall with a C compiler "
            "present (pip install -e .), or use engine='python' or 'auto'"
        )
    return FastGame


def table_batch(
    rules: Rules, num_tables: int, seed: int | None = 0, seat_policies: Any = None, threads: int | None = None
) -> _batch.TableBatch:
    """A :class:`TableBatch` (many compiled tables stepped by one call, on ``threads`` threads: default the
    machine's cores): the self-play batch API.

    Needs the compiled engine; without it a one-line ``RuntimeError`` names the
    per-table alternative (the AEC env).
    """
    if TableBatch is None:
        raise RuntimeError(
            "table_batch needs the compiled engine, which is not built; reinstall with a C compiler "
            "(pip install -e .) or play tables one by one with newmarket_env.env()"
        )
    return TableBatch(rules, num_tables, seed=seed, seat_policies=seat_policies, threads=threads)


__all__ = [
    "ENGINES",
    "FastGame",
    "Game",
    "TableBatch",
    "compiled_available",
    "engine_class",
    "table_batch",
]
