"""Duplicate tournaments of agents: seeded deal blocks replayed in every seat, with bootstrap figures.

How a tournament is played
    A *block* is one seeded session; its deals (and end-of-session lots) come
    from ``(seed, block)`` only. Every line-up of agents replays those deals in
    every seating (all rotations; all orders with ``permutations``), so each
    agent holds each seat equally often on the same cards. With more agents
    than seats the line-ups are all combinations, or a cyclic balanced design
    above ``MAX_LINEUPS``. Agents are built fresh for every session, seeded
    from ``(seed, block, line-up, seating, seat)``: results do not depend on
    the number of worker processes.

Figures
    Mean chips (points) per deal with a 95% bootstrap interval over blocks;
    paired bootstrap intervals for every pairwise difference; share of deals
    won; chips per deal by source (stakes, boodles, pot, card payments,
    widow/bids, lots) from the records' events; openskill Plackett-Luce
    ratings ranking each session by final chips; decisions per second.

Command line (also ``newmarket tournament ...``)::

    python -m newmarket_env.eval.tournament --agents greedy,random,random,random --variant michigan \\
        --blocks 20 --seed 0 --workers 2 --out results/x --set widow=dealer_buy

writes ``results.json``, ``games.csv``, ``leaderboard.md``, ``chips_per_deal.png`` and ``pairwise.png``.

>>> from newmarket_env.eval.tournament import TournamentConfig, run_tournament
>>> result = run_tournament(TournamentConfig(agents=("random",) * 4, blocks=2, resamples=50))
>>> [row["games"] for row in result.standings]
[8, 8, 8, 8]
"""

from newmarket_env.eval.tournament.api import Plan, TournamentResult, plan_tournament, run_tournament
from newmarket_env.eval.tournament.config import DEFAULT_BLOCKS, TournamentConfig
from newmarket_env.eval.tournament.report import write_outputs
from newmarket_env.eval.tournament.runner import TournamentStopped

__all__ = [
    "DEFAULT_BLOCKS",
    "Plan",
    "TournamentConfig",
    "TournamentResult",
    "TournamentStopped",
    "plan_tournament",
    "run_tournament",
    "write_outputs",
]
