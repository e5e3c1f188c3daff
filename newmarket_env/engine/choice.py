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
    from newmarket_env.engine._fast import FastGame
except ImportError:  # not built (no C compiler at install time)
    FastGame = None

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


__all__ = ["ENGINES", "FastGame", "Game", "compiled_available", "engine_class"]
