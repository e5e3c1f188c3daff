"""Duplicate tournaments of agents: seeded deal blocks replayed in every seat, with bootstrap figures.

>>> from newmarket_env.eval.tournament import TournamentConfig, run_tournament
>>> result = run_tournament(TournamentConfig(agents=("random",) * 4, blocks=2, resamples=50))
>>> [row["games"] for row in result.standings]
[8, 8, 8, 8]
"""

from newmarket_env.eval.tournament.api import Plan, TournamentResult, plan_tournament, run_tournament
from newmarket_env.eval.tournament.config import DEFAULT_BLOCKS, TournamentConfig
from newmarket_env.eval.tournament.report import write_outputs

__all__ = ["DEFAULT_BLOCKS", "Plan", "TournamentConfig", "TournamentResult", "plan_tournament", "run_tournament",
           "write_outputs"]
