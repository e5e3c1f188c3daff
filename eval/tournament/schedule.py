"""Duplicate scheduling: line-ups, seatings and the seeds of every session.

A *block* is one seeded session: its deals and lots come from ``(seed, block)``
only, so every line-up in every seating of a block plays the same cards. A
*line-up* is the set of entrants at the table; a *seating* puts them in seats
(all rotations, or all orders when asked), so each entrant holds each seat
equally often on the same deals.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from newmarket_env.eval.tournament.config import MAX_LINEUPS
from newmarket_env.execution.seeds import derive_seed

MAX_PERMUTATION_SEATS = 4
_DEALS_TAG, _AGENT_TAG = 1, 2  # keep the seed streams of deals and agents apart
#: A cyclic design uses at most this many base tables, and pairs of them only below MAX_BASES_FOR_PAIRS bases.
MAX_BASE_TABLES = 2
MAX_BASES_FOR_PAIRS = 300


@dataclass(frozen=True)
class GameSpec:
    """One session to play: where it sits in the schedule and every seed it uses."""

    block: int
    lineup: int
    seating: int
    seats: tuple[int, ...]  # entrant index at each seat
    game_seed: int  # deals and lots; shared by the whole block
    agent_seeds: tuple[int, ...]  # one per seat


def block_seed(seed: int, block: int) -> int:
    """The seed of a block's deals and lots."""
    return derive_seed(seed, _DEALS_TAG, block)


def agent_seed(seed: int, block: int, lineup: int, seating: int, seat: int) -> int:
    return derive_seed(seed, _AGENT_TAG, block, lineup, seating, seat)


def seatings(players: int, permutations: bool = False) -> list[tuple[int, ...]]:
    """Orders of a line-up: ``order[seat]`` is the line-up position seated there.

    >>> seatings(3)
    [(0, 1, 2), (1, 2, 0), (2, 0, 1)]
    """
    if permutations:
        if players > MAX_PERMUTATION_SEATS:
            raise ValueError(f"--permutations needs at most {MAX_PERMUTATION_SEATS} seats; got {players} players")
        return list(itertools.permutations(range(players)))
    return [tuple((seat + shift) % players for seat in range(players)) for shift in range(players)]


def lineups(entrants: int, players: int, max_lineups: int) -> list[tuple[int, ...]]:
    """Tables of ``players`` entrants: all combinations, or a cyclic design when there are too many."""
    if entrants < players:
        raise ValueError(
            f"{players} seats need at least {players} agents; got {entrants} "
            f"(repeat a name to seat it more than once, e.g. --agents greedy,random,random,random)"
        )
    combos = list(itertools.combinations(range(entrants), players))
    if len(combos) <= max_lineups:
        return combos
    return cyclic_design(entrants, players, max_lineups)


def cyclic_design(entrants: int, players: int, max_lineups: int) -> list[tuple[int, ...]]:
    """Line-ups from base tables shifted by every ``i mod entrants``: each agent plays equally often.

    A pair ``{x, y}`` then meets once for every pair of seats in a base table whose
    difference is ``y - x`` (mod entrants), so the base tables are chosen to make all
    differences as equally common as possible (a difference family when perfect).
    >>> tables = cyclic_design(7, 4, 10)
    >>> len(tables), sorted({int(n) for n in meetings(tables, 7)[~np.eye(7, dtype=bool)]})
    (7, [2])
    """
    bases = [(0, *rest) for rest in itertools.combinations(range(1, entrants), players - 1)]
    most = max(1, max_lineups // entrants)
    best: tuple[int, tuple] | None = None
    for count in range(1, min(most, MAX_BASE_TABLES) + 1):
        if count > 1 and len(bases) > MAX_BASES_FOR_PAIRS:
            break
        for family in itertools.combinations_with_replacement(bases, count):
            spread = _difference_spread(family, entrants)
            if best is None or spread < best[0]:
                best = (spread, family)
        if best is not None and best[0] == 0:
            break
    assert best is not None, "no base table: fewer entrants than seats"  # the callers check entrants >= players
    # A shift-symmetric base repeats a table; kept, so every agent still plays equally often.
    return sorted(tuple(sorted((b + i) % entrants for b in base)) for base in best[1] for i in range(entrants))


def _difference_spread(family, entrants: int) -> int:
    """Most minus fewest meetings of a pair, over the pairs, for the cyclic development of ``family``."""
    count = [0] * entrants
    for base in family:
        for a, b in itertools.permutations(base, 2):
            count[(b - a) % entrants] += 1
    return max(count[1:]) - min(count[1:])


def meetings(tables: list[tuple[int, ...]], entrants: int) -> np.ndarray:
    """How many line-ups seat each pair of entrants together."""
    count = np.zeros((entrants, entrants), dtype=int)
    for table in tables:
        for a, b in itertools.combinations(table, 2):
            count[a, b] += 1
            count[b, a] += 1
    return count


def build_schedule(
    entrants: int, players: int, blocks: int, seed: int, permutations: bool = False, max_lineups: int = MAX_LINEUPS
) -> tuple[list[tuple[int, ...]], list[GameSpec]]:
    """The line-ups and every session to play, ordered by block, line-up and seating."""
    tables = lineups(entrants, players, max_lineups)
    orders = seatings(players, permutations)
    specs = []
    for block in range(blocks):
        for li, table in enumerate(tables):
            for si, order in enumerate(orders):
                seats = tuple(table[pos] for pos in order)
                seeds = tuple(agent_seed(seed, block, li, si, seat) for seat in range(players))
                specs.append(GameSpec(block, li, si, seats, block_seed(seed, block), seeds))
    return tables, specs
