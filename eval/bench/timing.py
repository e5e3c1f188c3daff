"""Timing loop: play whole sessions for a time budget, repeat, report the median rates."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

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


def timed_run(
    play: SessionPlayer, seconds: float, first_seed: int, clock=time.process_time
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


def measure(
    name: str,
    group: str,
    play: SessionPlayer,
    seconds: float = 2.0,
    repeats: int = 5,
    seed: int = 0,
    note: str = "",
    clock: str = "cpu",
) -> Measurement:
    """Run ``play`` for ``seconds`` ``repeats`` times on ``clock`` (a key of CLOCKS); report median rates.

    >>> m = measure("count", "peer", lambda seed: 3, seconds=0.001, repeats=3)
    >>> m.decisions_per_session
    3.0
    """
    return measure_rounds({name: (group, play, note)}, seconds, repeats, seed, clock)[0]


def measure_rounds(
    workloads: dict[str, tuple[str, SessionPlayer, str]],
    seconds: float,
    repeats: int,
    seed: int = 0,
    clock: str = "cpu",
    progress=None,
    clocks: dict[str, str] | None = None,
) -> list[Measurement]:
    """Time every workload (name -> (group, player, note)) once per round, for ``repeats`` rounds, on ``clock``
    (``clocks``: another clock for some of them, by name).

    Round-robin rather than one workload after another: when other jobs slow
    the machine for a while, every workload shares that slow round, so the
    per-round ratios between workloads stay steady.
    """
    if clock not in CLOCKS:
        raise ValueError(f"clock={clock!r} is unknown; allowed: {', '.join(CLOCKS)}")
    seeds = dict.fromkeys(workloads, seed)
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in workloads}
    totals = {name: [0, 0] for name in workloads}
    for round_index in range(repeats):
        for name, (_group, play, _note) in workloads.items():
            if progress:
                progress(f"{name} (round {round_index + 1}/{repeats})")
            own = (clocks or {}).get(name, clock)
            decisions, sessions, elapsed, seeds[name] = timed_run(play, seconds, seeds[name], CLOCKS[own])
            runs[name].append((decisions / elapsed, sessions / elapsed))
            totals[name][0] += decisions
            totals[name][1] += sessions
    return [_summary(name, group, runs[name], totals[name], note) for name, (group, _p, note) in workloads.items()]


def _summary(name: str, group: str, runs: list[tuple[float, float]], totals: list[int], note: str) -> Measurement:
    return Measurement(
        name=name,
        group=group,
        decisions_per_s=statistics.median(r[0] for r in runs),
        sessions_per_s=statistics.median(r[1] for r in runs),
        decisions_per_session=totals[0] / totals[1],
        repeats=runs,
        note=note,
    )


@dataclass
class Target:
    """One goal of the benchmark, checked on figures of the same run."""

    name: str
    value: float
    goal: str
    met: bool


def paired_ratio(row: Measurement, other: Measurement) -> float:
    """Median over rounds of ``row``'s decisions/s over ``other``'s in the same round (every workload is timed
    once per round, so both have one repeat per round)."""
    return statistics.median(mine[0] / theirs[0] for mine, theirs in zip(row.repeats, other.repeats, strict=True))
