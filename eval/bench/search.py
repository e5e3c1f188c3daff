"""Workloads of the ``search`` agent: whole sessions with search at seat 0 and ``control`` at the others.

Sessions cycle through newmarket, michigan and newbury (session seed modulo 3),
as the figures of issue 11 were measured; a decision is one ``act`` of the
search agent (the control seats' decisions are not counted, though they are
timed). ``engine="python"`` rows run the pure-Python search for the ratio.
"""

from __future__ import annotations

from newmarket_env.agents import load_agent
from newmarket_env.engine.choice import compiled_available
from newmarket_env.eval.bench.drivers import seat_zero_player
from newmarket_env.eval.bench.ours import PLAYERS

SEARCH_VARIANTS = ("newmarket", "michigan", "newbury")


def search_player(budget: int, engine: str = "auto"):
    """Sessions of ``search`` (the given budget and engine) against three ``control`` seats."""
    if engine != "python" and not compiled_available():
        return None, "skipped: the compiled engine is not built"

    def searcher(e, seed: int):
        return load_agent("search", env=e, seed=seed, budget=budget, engine=engine)

    play = seat_zero_player(searcher, SEARCH_VARIANTS, PLAYERS)
    return play, f"search budget {budget} ({engine}) at seat 0, control at the others; newmarket/michigan/newbury"
