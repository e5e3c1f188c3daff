"""Which engine plays: the compiled one (``engine/_fast.pyx``) when it is built, else the reference.

Both play the same sessions for the same seed and deals (``tests/engine/test_fast.py``
checks every attribute and observation, action by action). ``Game`` in ``game.py``
is the readable reference; ``FastGame`` is about 15 times faster. The compiled
engine is built by ``pip install`` when a C compiler is present; without one the
install still works and ``"auto"`` falls back to the reference.

>>> ENGINES
('auto', 'compiled', 'python')
"""

from __future__ import annotations

from newmarket_env.engine.game import Game

try:
    from newmarket_env.engine._fast import FastGame, TableBatch
except ImportError:  # not built (no C compiler at install time)
    FastGame = TableBatch = None

ENGINES = ("auto", "compiled", "python")


def compiled_available() -> bool:
    return FastGame is not None


def engine_class(engine: str = "auto"):
    """The game class for ``engine``: ``"auto"`` (compiled if built), ``"compiled"`` or ``"python"``."""
    if engine not in ENGINES:
        raise ValueError(f"engine={engine!r} is unknown; allowed: {', '.join(ENGINES)}")
    if engine == "python" or (engine == "auto" and FastGame is None):
        return Game
    if FastGame is None:
        raise ValueError("engine='compiled' but the compiled engine is not built; reinstall with a C compiler "
                         "present (pip install -e .), or use engine='python' or 'auto'")
    return FastGame


def table_batch(rules, num_tables: int, seed: int | None = 0, seat_policies=None):
    """A :class:`TableBatch` (many compiled tables stepped by one call): the self-play batch API.

    Needs the compiled engine; without it a one-line ``RuntimeError`` names the
    per-table alternative (the AEC env).
    """
    if TableBatch is None:
        raise RuntimeError("table_batch needs the compiled engine, which is not built; reinstall with a C compiler "
                           "(pip install -e .) or play tables one by one with newmarket_env.env()")
    return TableBatch(rules, num_tables, seed=seed, seat_policies=seat_policies)


__all__ = ["ENGINES", "FastGame", "Game", "TableBatch", "compiled_available", "engine_class", "table_batch"]
