"""Workloads over the rest of the project: the single-agent view, a tournament, batch, search and training."""

from __future__ import annotations

import random

import numpy as np

from newmarket_env import available_agents
from newmarket_env.envs.single_agent import SingleAgentEnv
from newmarket_env.eval.bench.batch import batch_player
from newmarket_env.eval.bench.guided import guided_player
from newmarket_env.eval.bench.ours import PLAYERS
from newmarket_env.eval.bench.scaling import SCALING_ON_REQUEST, SCALING_ROWS
from newmarket_env.eval.bench.search import search_player
from newmarket_env.eval.bench.training import ON_REQUEST_ROWS, TRAINING_ROWS
from newmarket_env.eval.tournament import TournamentConfig, run_tournament

TOURNAMENT_RESAMPLES = 100  # bootstrap resamples per measured tournament (the figures are not the point here)
# Quick rule baselines only: a search agent's thinking would measure the agent, not the env.
TOURNAMENT_AGENTS = ("random", "lowest", "greedy", "control")


def single_agent():
    """The single-agent training view (``SingleAgentEnv``) with random opponents and a random learner.

    A decision here is one Gymnasium ``step`` of the learner (what a trainer
    counts); the opponents' moves happen inside it.
    """
    view = SingleAgentEnv(variant="newmarket", num_players=PLAYERS, opponents=["random"])

    def play(seed: int) -> int:
        rng = random.Random(seed)
        view.reset(seed=seed)
        steps, over = 0, False
        while not over:
            action = int(rng.choice(np.flatnonzero(view.action_masks())))
            _obs, _reward, over, _truncated, _info = view.step(action)
            steps += 1
        return steps

    return play, f"{PLAYERS} players, 3 random opponents; decisions = learner steps"


def tournament():
    """A one-block tournament of the quick rule baselines (``run_tournament``), in this process."""
    agents = [name for name in TOURNAMENT_AGENTS if name in available_agents()]
    agents += ["random"] * (PLAYERS - len(agents))

    def play(seed: int) -> tuple[int, int]:
        config = TournamentConfig(
            agents=tuple(agents), players=PLAYERS, blocks=1, seed=seed, resamples=TOURNAMENT_RESAMPLES
        )
        games = run_tournament(config).games
        return sum(sum(g.decisions) for g in games), len(games)

    return play, f"one block of {', '.join(agents)}; workers=1; session = one game"


def _batch():
    return batch_player("newmarket")


def _search(budget: int, engine: str):
    def make():
        return search_player(budget, engine)

    return make


def _guided(budget: int, cutoff: int = 0):
    def make():
        return guided_player(budget, cutoff)

    return make


EXTRAS = {
    "batch newmarket flat": ("batch", _batch),
    "search budget 8": ("search", _search(8, "auto")),
    "search budget 8 python": ("search", _search(8, "python")),
    "search budget 64": ("search", _search(64, "auto")),
    "search budget 64 python": ("search", _search(64, "python")),
    "guided_search budget 8": ("search", _guided(8)),  # a random 128x128 network: the think time, not the play
    # the setting whose think time is at most search's default budget (64) in every preset (docs/training)
    "guided_search budget 2 cutoff 1": ("search", _guided(2, 1)),
    "single_agent newmarket": ("single_agent", single_agent),
    **TRAINING_ROWS,  # vector env vs compiled control; MaskablePPO on the batch and on SingleAgentEnv
    **SCALING_ROWS,  # threads in the batch, sparse against dense input (MaskablePPO, DMC)
    "tournament baselines": ("tournament", tournament),
}
ON_REQUEST = {**ON_REQUEST_ROWS, **SCALING_ON_REQUEST}  # measured only when BenchConfig.rows names them
