"""Duplicate scheduling: line-ups, seatings and the seeds of every session.

A *block* is one seeded session: its deals and lots come from ``(seed, block)``
only, so every line-up in every seating of a block plays the same cards. A
*line-up* is the set of entrants at the table; a *seating* puts them in seats
(all rotations, or all orders when asked), so each entrant holds each seat
equally often on the same deals.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

import numpy as np

MAX_PERMUTATION_SEATS = 4
_DEALS_TAG, _AGENT_TAG = 1, 2  # keep the seed streams of deals and agents apart


@dataclass(frozen=True)
class GameSpec:
    """One session to play: where it sits in the schedule and every seed it uses."""

    block: int
    lineup: int
    seating: int
    seats: tuple[int, ...]  # entrant index at each seat
    game_seed: int  # deals and lots; shared by the whole block
    agent_seeds: tuple[int, ...]  # one per seat


def derive_seed(*parts: int) -> int:
    """A 32-bit seed from a tuple of non-negative ints (stable across runs and machines).

    >>> derive_seed(0, 1, 2) == derive_seed(0, 1, 2) != derive_seed(0, 2, 1)
    True
    """
    return int(np.random.SeedSequence([int(p) for p in parts]).generate_state(1)[0])


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


def lineups(entrants: int, players: int, max_lineups: int, seed: int = 0) -> list[tuple[int, ...]]:
    """Tables of ``players`` entrants: all combinations, or a balanced subset when there are too many."""
    if entrants < players:
        raise ValueError(f"{players} seats need at least {players} agents; got {entrants} "
                         f"(repeat a name to seat it more than once, e.g. --agents greedy,random,random,random)")
    combos = list(itertools.combinations(range(entrants), players))
    if len(combos) <= max_lineups:
        return combos
    return balanced_subset(combos, entrants, random.Random(derive_seed(seed, 3)))


def balanced_subset(combos: list[tuple[int, ...]], entrants: int, rng: random.Random) -> list[tuple[int, ...]]:
    """Greedily add the combination whose pairs met least until every pair met and all play equally often."""
    order = combos[:]
    rng.shuffle(order)
    pair_count = np.zeros((entrants, entrants), dtype=int)
    plays = np.zeros(entrants, dtype=int)
    chosen: list[tuple[int, ...]] = []
    while order and not (_all_pairs_met(pair_count) and plays.min() == plays.max()):
        best = min(order, key=lambda c: (_pair_load(pair_count, c), int(plays[list(c)].sum())))
        order.remove(best)
        chosen.append(best)
        for a, b in itertools.combinations(best, 2):
            pair_count[a, b] += 1
            pair_count[b, a] += 1
        plays[list(best)] += 1
    return sorted(chosen)


def _pair_load(pair_count: np.ndarray, combo: tuple[int, ...]) -> int:
    return int(sum(pair_count[a, b] for a, b in itertools.combinations(combo, 2)))


def _all_pairs_met(pair_count: np.ndarray) -> bool:
    off_diagonal = pair_count[~np.eye(len(pair_count), dtype=bool)]
    return bool(off_diagonal.min() > 0)


def meetings(tables: list[tuple[int, ...]], entrants: int) -> np.ndarray:
    """How many line-ups seat each pair of entrants together."""
    count = np.zeros((entrants, entrants), dtype=int)
    for table in tables:
        for a, b in itertools.combinations(table, 2):
            count[a, b] += 1
            count[b, a] += 1
    return count


def build_schedule(entrants: int, players: int, blocks: int, seed: int, permutations: bool = False,
                   max_lineups: int = 35) -> tuple[list[tuple[int, ...]], list[GameSpec]]:
    """The line-ups and every session to play, ordered by block, line-up and seating."""
    tables = lineups(entrants, players, max_lineups, seed)
    orders = seatings(players, permutations)
    specs = []
    for block in range(blocks):
        for li, table in enumerate(tables):
            for si, order in enumerate(orders):
                seats = tuple(table[pos] for pos in order)
                seeds = tuple(agent_seed(seed, block, li, si, seat) for seat in range(players))
                specs.append(GameSpec(block, li, si, seats, block_seed(seed, block), seeds))
    return tables, specs
