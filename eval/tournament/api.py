"""``run_tournament(TournamentConfig(...)) -> TournamentResult``: check, schedule, play, summarise."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from newmarket_env import raw_env
from newmarket_env.eval.tournament.backends import check_backend
from newmarket_env.eval.tournament.config import (
    MAX_BLOCKS,
    MAX_DECISION_TIMEOUT_S,
    MAX_MAX_LINEUPS,
    MAX_RESAMPLES,
    MAX_WORKERS,
    TournamentConfig,
)
from newmarket_env.eval.tournament.entrants import Entrant, check_entrant, default_agent_specs, make_entrants
from newmarket_env.eval.tournament.play import GameResult, TableSetup
from newmarket_env.eval.tournament.runner import play_schedule
from newmarket_env.eval.tournament.schedule import GameSpec, build_schedule, derive_seed, meetings, seatings
from newmarket_env.eval.tournament.summary import speed, standings
from newmarket_env.game.rules import make_rules

_RESAMPLE_TAG = 4  # the bootstrap's seed stream, apart from deals and agents


@dataclass
class Plan:
    """A checked tournament, ready to play: nothing in it can fail for bad input any more."""

    config: TournamentConfig
    setup: TableSetup
    rules: dict[str, Any]
    lineups: list[tuple[int, ...]]
    seatings: int
    specs: list[GameSpec]
    skipped: dict[str, str] = dataclasses.field(default_factory=dict)  # default agents left out, and why

    @property
    def labels(self) -> list[str]:
        return [e.label for e in self.setup.entrants]


@dataclass
class TournamentResult:
    """Every session played and the figures drawn from them."""

    plan: Plan
    games: list[GameResult]
    standings: list[dict[str, Any]]  # one row per agent, best mean chips per deal first
    pairwise: list[dict[str, Any]]  # row agent minus opponent, chips per deal, paired over blocks
    speed: dict[str, Any]  # timings: the only part that differs between runs

    @property
    def entrants(self) -> tuple[Entrant, ...]:
        return self.plan.setup.entrants


def plan_tournament(config: TournamentConfig) -> Plan:
    """Check every input and build the schedule; raises ValueError (one line) before any game is played."""
    _check_numbers(config)
    if "num_players" in dict(config.rules):
        raise ValueError(
            "num_players is not a rules override here: give the number of players with --players "
            "(TournamentConfig.players)"
        )
    rules = make_rules(config.variant, config.players, **dict(config.rules))
    players = rules.num_players
    env = raw_env(variant=config.variant, num_players=players, **dict(config.rules))
    specs, skipped = (list(config.agents), {}) if config.agents else default_agent_specs(players, env)
    entrants = make_entrants(specs, config.agent_options)
    _check_options_used(config, entrants)
    # Every name, file and option first: a misspelt agent is the error to report, not the seat count.
    for entrant in {(e.spec, tuple(sorted(e.options.items()))): e for e in entrants}.values():
        check_entrant(entrant, env)
    setup = TableSetup(config.variant, players, dict(config.rules), tuple(entrants), keep_records=config.save_records)
    tables, games = build_schedule(
        len(entrants), players, config.blocks, config.seed, config.permutations, config.max_lineups
    )
    return Plan(config, setup, rules.to_dict(), tables, len(seatings(players, config.permutations)), games, skipped)


def _check_numbers(config: TournamentConfig) -> None:
    check_backend(config.backend, config.address)
    for name, high in (
        ("blocks", MAX_BLOCKS),
        ("workers", MAX_WORKERS),
        ("resamples", MAX_RESAMPLES),
        ("max_lineups", MAX_MAX_LINEUPS),
    ):
        value = getattr(config, name)
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= high:
            raise ValueError(f"{name}={value!r} is out of range; allowed: an int 1..{high}")
    if not isinstance(config.save_records, bool):
        raise ValueError(f"save_records={config.save_records!r} is not allowed; allowed: True or False")
    if isinstance(config.seed, bool) or not isinstance(config.seed, int) or config.seed < 0:
        raise ValueError(f"seed={config.seed!r} is out of range; allowed: an int >= 0")
    timeout = config.decision_timeout
    if timeout is not None and (
        isinstance(timeout, bool)
        or not isinstance(timeout, (int, float))
        or not 0 < timeout <= MAX_DECISION_TIMEOUT_S  # nan fails this too
    ):
        raise ValueError(
            f"decision_timeout={timeout!r} is out of range; allowed: None (no limit) or seconds in "
            f"(0, {MAX_DECISION_TIMEOUT_S:g}]"
        )


def _check_options_used(config: TournamentConfig, entrants: list[Entrant]) -> None:
    names = {e.spec for e in entrants} | {e.label for e in entrants}
    for agent in config.agent_options:
        if agent not in names:
            raise ValueError(
                f"agent options for {agent!r} match no agent of this tournament; "
                f"agents: {', '.join(e.label for e in entrants)}"
            )


def run_tournament(
    config: TournamentConfig, progress: Callable[[GameResult], None] | None = None, plan: Plan | None = None
) -> TournamentResult:
    """Play a tournament and compute its figures (they depend on neither ``config.workers`` nor ``config.backend``).

    A run that stops before its end (an agent raised or answered something that is not a legal action,
    or thought past ``config.decision_timeout``) raises ``TournamentStopped`` (a ``RuntimeError``; its
    ``games`` are the sessions played)."""
    plan = plan or plan_tournament(config)
    start = time.perf_counter()
    games = play_schedule(
        plan.setup,
        plan.specs,
        config.workers,
        progress,
        backend=config.backend,
        address=config.address,
        decision_timeout=config.decision_timeout,
    )
    wall = time.perf_counter() - start
    rows, pairs = standings(
        games, plan.labels, config.blocks, config.resamples, seed=derive_seed(config.seed, _RESAMPLE_TAG)
    )
    return TournamentResult(plan, games, rows, pairs, speed(games, plan.labels, wall))


def config_dict(config: TournamentConfig) -> dict[str, Any]:
    """The config as JSON-ready data (tuples become lists)."""
    data = dataclasses.asdict(config)
    data["agents"] = list(config.agents)
    data["rules"] = {k: list(v) if isinstance(v, tuple) else v for k, v in dict(config.rules).items()}
    return data


def meeting_counts(plan: Plan) -> dict[str, int]:
    """Fewest and most line-ups that seat a pair of agents together (equal when fully balanced)."""
    count = meetings(plan.lineups, len(plan.labels))
    off = count[~np.eye(len(count), dtype=bool)]
    return {"min": int(off.min()), "max": int(off.max())}
