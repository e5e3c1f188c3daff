"""Duplicate evaluation: the same deals played once with the tested agent in each seat.

Each *board* is a full session of pre-dealt cards (``num_deals`` deals, the
dealer rotating from seat 0). The tested agent sits in seat 0, then 1, ... with
one opponent kind in every other seat, so luck of the cards cancels across the
rotation. A board's score is the tested agent's chips per deal averaged over its
seats; the result is the mean over boards with a 95% normal confidence interval.

With ``reference=True`` each board is also played with the opponent itself in
the tested seat, and the *margin* (tested minus that reference, paired per
board) is reported too. In zero-sum rules the reference of a deterministic
opponent is 0, so chips per deal already compare; in ``stake_mode="house"``
(Newbury) every seat gains chips and only the margin says who plays better.

Every board builds its agents afresh, seeded from ``(seed, board)``, so boards
are independent of each other and of where they are played: ``backend="ray"``
(the ``eval.backend`` key of training configs) plays chunks of boards as Ray
tasks with the same result as ``"local"``.

>>> from newmarket_env import make_rules
>>> from newmarket_env.agents import load_agent
>>> r = duplicate_eval(lambda e, s: load_agent("random", env=e, seed=s), "random", "newmarket", 4, boards=2)
>>> r.boards, r.games
(2, 8)
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from newmarket_env.agents import load_agent
from newmarket_env.agents.saved import SavedAgent
from newmarket_env.envs.aec import raw_env
from newmarket_env.execution.backends import check_backend, map_on_ray
from newmarket_env.execution.seeds import block_deals, derive_seed
from newmarket_env.game.rules import Rules, make_rules

if TYPE_CHECKING:
    from newmarket_env.train.config import TrainConfig

AgentMaker = Callable[[Any, int], Any]  # (env, seed) -> Agent
#: The columns of a run's eval.csv.
EVAL_FIELDS = ["steps", "opponent", "mean", "ci95", "low", "high", "boards", "games", "wall_s"]
_AGENT_TAG = 7  # the agents' seed stream, apart from the tournament's (schedule.derive_seed tags 1, 2, 4)
#: Boards per Ray task: enough to outweigh a task's overhead, few enough to spread over a cluster.
RAY_BOARDS_PER_TASK = 10
Z95 = 1.959963984540054


@dataclass(frozen=True)
class EvalResult:
    """Chips per deal of the tested agent: mean, 95% half-width, and sizes."""

    opponent: str
    mean: float
    ci95: float
    boards: int
    games: int
    margin: float | None = None
    margin_ci95: float | None = None

    @property
    def low(self) -> float:
        return self.mean - self.ci95

    @property
    def high(self) -> float:
        return self.mean + self.ci95

    def as_row(self) -> dict[str, Any]:
        return {**asdict(self), "low": self.low, "high": self.high}


def deal_set(rules: Rules, seed: int) -> list[dict[str, Any]]:
    """The ``num_deals`` shuffled deals of one board: a tournament deal block, so both tools deal alike."""
    return block_deals(rules, seed)


def play_session(aec: raw_env, seats: list[Any], deals: list[dict[str, Any]], seed: int) -> list[int]:
    """Play one session with ``seats[i]`` acting for seat i; return the final balances."""
    aec.reset(seed=seed, options={"deals": deals})
    for agent in seats:
        agent.reset()
    game = aec.game
    while not game.over:
        seat = game.to_act
        aec.step(int(seats[seat].act(aec.observe(f"player_{seat}"))))
    return list(game.balances)


def duplicate_eval(
    make_tested: AgentMaker,
    opponent: str,
    variant: str,
    num_players: int,
    boards: int = 50,
    seed: int = 12345,
    rules: Mapping[str, Any] | None = None,
    reference: bool = False,
    backend: str = "local",
    address: str | None = None,
) -> EvalResult:
    """Chips per deal of ``make_tested`` against ``opponent`` in all other seats, seats rotated.

    ``backend="ray"`` plays chunks of boards as Ray tasks (``address`` as for tournaments: None starts a
    local Ray, ``"auto"`` or ``"HOST:PORT"`` joins a cluster); ``make_tested`` must then be picklable
    (a module-level function, a ``functools.partial`` or :func:`saved_agent_maker`, not a closure over
    a live SB3 model). The result does not depend on the backend.
    """
    check_backend(backend, address)
    job = BoardJob(make_tested, opponent, variant, num_players, dict(rules or {}), seed, reference)
    if backend == "ray":
        chunks = [list(range(i, min(i + RAY_BOARDS_PER_TASK, boards))) for i in range(0, boards, RAY_BOARDS_PER_TASK)]
        played = [row for chunk in map_on_ray(play_boards, job, chunks, address=address) for row in chunk]
    else:
        played = play_boards(job, list(range(boards)))
    n = make_rules(variant, num_players, **dict(rules or {})).num_players
    mean, ci = _mean_ci([score for score, _ in played])
    margin, margin_ci = _mean_ci([m for _, m in played]) if reference else (None, None)
    return EvalResult(opponent, mean, ci, boards, boards * n, margin, margin_ci)


@dataclass(frozen=True)
class BoardJob:
    """What every board of one evaluation shares (shipped once to Ray workers, so it must pickle)."""

    make_tested: AgentMaker
    opponent: str
    variant: str
    num_players: int
    rules: Mapping[str, Any]
    seed: int
    reference: bool


def play_boards(job: BoardJob, boards: list[int]) -> list[tuple[float, float | None]]:
    """Score (and margin, with ``reference``) of each board: the tested agent's chips per deal over its seats.

    Each board deals from ``(seed, board)`` and builds its agents afresh, seeded from ``(seed, board, role)``,
    so a board's result is the same whichever process plays it and whatever was played before it.
    """
    aec = raw_env(variant=job.variant, num_players=job.num_players, **dict(job.rules))
    n = aec.rules.num_players
    rows = []
    for board in boards:
        tested = job.make_tested(aec, derive_seed(job.seed, _AGENT_TAG, board, 0))
        others = [
            load_agent(job.opponent, env=aec, seed=derive_seed(job.seed, _AGENT_TAG, board, 1 + k)) for k in range(n)
        ]
        deals = deal_set(aec.rules, job.seed * 100_003 + board)
        score = float(np.mean([_seat_chips(aec, tested, others, seat, deals, job.seed + board) for seat in range(n)]))
        margin = None
        if job.reference:
            alone = _seat_chips(aec, others[0], others, 0, deals, job.seed + board, all_seats=True)
            margin = score - float(np.mean(alone))
        rows.append((score, margin))
    return rows


def saved_agent_maker(agent: SavedAgent) -> AgentMaker:
    """A picklable maker of copies of a saved (or in-memory) agent, freshly seeded: for ``backend="ray"``.

    >>> from newmarket_env import load_agent, raw_env
    >>> env = raw_env(variant="newmarket", num_players=4)
    >>> maker = saved_agent_maker(load_agent("ppo-newmarket", env=env))
    >>> copy = maker(env, 7)
    >>> copy.seed, copy.layers is maker(env, 8).layers
    (7, True)
    """
    return functools.partial(_saved_copy, agent)


def _saved_copy(agent: SavedAgent, env: Any, seed: int) -> SavedAgent:
    return SavedAgent(env.rules, seed, agent.metadata, agent.layers, sample=agent.sample, name=agent.name)


def _seat_chips(
    aec: raw_env, tested: Any, others: list[Any], seat: int, deals: list, seed: int, all_seats: bool = False
) -> Any:
    """Chips per deal of ``tested`` in ``seat``; with ``all_seats``, of every seat of an all-opponent table."""
    start, deals_per = aec.rules.starting_chips, aec.rules.num_deals
    table = list(others) if all_seats else [tested if s == seat else others[s] for s in range(len(others))]
    balances = play_session(aec, table, deals, seed=seed)
    if all_seats:
        return [(b - start) / deals_per for b in balances]
    return (balances[seat] - start) / deals_per


def _mean_ci(values: list[float]) -> tuple[float, float]:
    """Mean and 95% normal half-width over boards."""
    mean = float(np.mean(values))
    spread = float(np.std(values, ddof=1)) if len(values) > 1 else 0.0
    return mean, Z95 * spread / math.sqrt(len(values))


def evaluation_rows(
    config: TrainConfig, agent: SavedAgent, boards: int, steps: int, started: float
) -> list[dict[str, Any]]:
    """Duplicate evaluation of ``agent`` (greedy) against each of ``eval.opponents``: the rows of a run's eval.csv."""
    maker = saved_agent_maker(agent)
    rows = []
    for opponent in config.eval.opponents:
        result = duplicate_eval(
            maker,
            opponent,
            config.env.variant,
            config.env.num_players,
            boards=boards,
            seed=config.eval.seed,
            rules=config.env.rules,
            backend=config.eval.backend,
            address=config.eval.address or None,
        )
        rows.append({"steps": steps, **result.as_row(), "wall_s": round(time.time() - started, 1)})
    return rows


def print_final_evaluation(name: str, rows: list[dict[str, Any]]) -> None:
    """The final evaluation, one line per opponent (also in final_eval.json)."""
    for row in rows:
        print(
            f"final evaluation of {name} vs {row['opponent']}: {row['mean']:+.3f} chips per deal "
            f"[95% CI {row['low']:+.3f}, {row['high']:+.3f}] over {row['boards']} deal sets, seats rotated",
            flush=True,
        )
