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

>>> from newmarket_env import make_rules
>>> from newmarket_env.agents import load_agent
>>> r = duplicate_eval(lambda e, s: load_agent("random", env=e, seed=s), "random", "newmarket", 4, boards=2)
>>> r.boards, r.games
(2, 8)
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Callable, Mapping

import numpy as np

from newmarket_env.eval.tournament.play import block_deals
from newmarket_env.envs.aec import raw_env
from newmarket_env.rules import Rules

AgentMaker = Callable[[Any, int], Any]  # (env, seed) -> Agent
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


def duplicate_eval(make_tested: AgentMaker, opponent: str, variant: str, num_players: int,
                   boards: int = 50, seed: int = 12345, rules: Mapping[str, Any] | None = None,
                   reference: bool = False) -> EvalResult:
    """Chips per deal of ``make_tested`` against ``opponent`` in all other seats, seats rotated."""
    from newmarket_env.agents import load_agent

    aec = raw_env(variant=variant, num_players=num_players, **dict(rules or {}))
    n, start, deals_per = aec.rules.num_players, aec.rules.starting_chips, aec.rules.num_deals
    tested = make_tested(aec, seed)
    others = [load_agent(opponent, env=aec, seed=seed + 1 + k) for k in range(n)]
    scores, margins = [], []
    for board in range(boards):
        deals = deal_set(aec.rules, seed * 100_003 + board)
        chips = [_seat_chips(aec, tested, others, seat, deals, seed + board) for seat in range(n)]
        scores.append(float(np.mean(chips)))
        if reference:
            alone = _seat_chips(aec, others[0], others, 0, deals, seed + board, all_seats=True)
            margins.append(scores[-1] - float(np.mean(alone)))
    mean, ci = _mean_ci(scores)
    margin, margin_ci = _mean_ci(margins) if reference else (None, None)
    return EvalResult(opponent, mean, ci, boards, boards * n, margin, margin_ci)


def _seat_chips(aec: raw_env, tested: Any, others: list[Any], seat: int, deals: list, seed: int,
                all_seats: bool = False) -> Any:
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
