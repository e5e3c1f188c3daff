"""Timing loop: play whole sessions for a time budget, repeat, report the median rates."""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Callable

# play(seed) plays one whole session (episode) and returns the decisions taken in it.
SessionPlayer = Callable[[int], int]


@dataclass
class Measurement:
    """Median rates of one workload over ``repeats`` timed runs."""

    name: str
    group: str  # "engine", "aec", "single_agent", "tournament" or "peer"
    decisions_per_s: float
    sessions_per_s: float
    decisions_per_session: float
    repeats: list[tuple[float, float]] = field(default_factory=list)  # (decisions/s, sessions/s) per run
    note: str = ""


def timed_run(play: SessionPlayer, seconds: float, first_seed: int) -> tuple[int, int, float, int]:
    """Play sessions until ``seconds`` have passed (at least one): decisions, sessions, elapsed, next seed."""
    decisions = sessions = 0
    seed = first_seed
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        decisions += play(seed)
        seed += 1
        sessions += 1
        now = time.perf_counter()
        if now >= deadline:
            return decisions, sessions, now - start, seed


def measure(name: str, group: str, play: SessionPlayer, seconds: float = 2.0, repeats: int = 5,
            seed: int = 0, note: str = "") -> Measurement:
    """Run ``play`` for ``seconds`` ``repeats`` times; the median of each rate is reported.

    >>> m = measure("count", "peer", lambda seed: 3, seconds=0.001, repeats=3)
    >>> m.decisions_per_session
    3.0
    """
    runs = []
    total_decisions = total_sessions = 0
    for _ in range(repeats):
        decisions, sessions, elapsed, seed = timed_run(play, seconds, seed)
        runs.append((decisions / elapsed, sessions / elapsed))
        total_decisions += decisions
        total_sessions += sessions
    return Measurement(
        name=name,
        group=group,
        decisions_per_s=statistics.median(r[0] for r in runs),
        sessions_per_s=statistics.median(r[1] for r in runs),
        decisions_per_session=total_decisions / total_sessions,
        repeats=runs,
        note=note,
    )
