"""Timing loop: play whole sessions for a time budget, repeat, report the median rates."""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field
from typing import Callable

# play(seed) plays one whole session (episode) and returns the decisions taken in it, or a
# (decisions, sessions) pair when one call plays several sessions (a tournament).
SessionPlayer = Callable[[int], "int | tuple[int, int]"]


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


# CPU time of this process is the default clock: the work is single-threaded, and on a shared
# machine other jobs then slow the figures down much less than they slow the wall clock.
CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}


def timed_run(play: SessionPlayer, seconds: float, first_seed: int, clock=time.process_time
              ) -> tuple[int, int, float, int]:
    """Play sessions until ``seconds`` have passed (at least one): decisions, sessions, elapsed, next seed."""
    decisions = sessions = 0
    seed = first_seed
    start = clock()
    deadline = start + seconds
    while True:
        done = play(seed)
        played, count = done if isinstance(done, tuple) else (done, 1)
        decisions += played
        sessions += count
        seed += 1
        now = clock()
        if now >= deadline:
            return decisions, sessions, now - start, seed


def measure(name: str, group: str, play: SessionPlayer, seconds: float = 2.0, repeats: int = 5,
            seed: int = 0, note: str = "", clock: str = "cpu") -> Measurement:
    """Run ``play`` for ``seconds`` ``repeats`` times on ``clock`` (a key of CLOCKS); report median rates.

    >>> m = measure("count", "peer", lambda seed: 3, seconds=0.001, repeats=3)
    >>> m.decisions_per_session
    3.0
    """
    if clock not in CLOCKS:
        raise ValueError(f"clock={clock!r} is unknown; allowed: {', '.join(CLOCKS)}")
    runs = []
    total_decisions = total_sessions = 0
    for _ in range(repeats):
        decisions, sessions, elapsed, seed = timed_run(play, seconds, seed, CLOCKS[clock])
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
