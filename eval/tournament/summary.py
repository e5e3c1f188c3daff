"""From session results to the figures of a tournament: per-agent standings and pairwise differences."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from newmarket_env.eval.tournament.accounting import PARTS
from newmarket_env.eval.tournament.play import GameResult
from newmarket_env.eval.tournament.ratings import plackett_luce_ratings
from newmarket_env.eval.tournament.stats import bootstrap_interval, resample_indices


@dataclass
class BlockTotals:
    """Sums per (block, entrant): what the intervals resample."""

    chips: np.ndarray
    deals: np.ndarray
    outs: np.ndarray

    @property
    def chips_per_deal(self) -> np.ndarray:
        return self.chips / np.maximum(self.deals, 1)

    @property
    def won_share(self) -> np.ndarray:
        return self.outs / np.maximum(self.deals, 1)


def block_totals(results: Sequence[GameResult], blocks: int, entrants: int) -> BlockTotals:
    totals = BlockTotals(*(np.zeros((blocks, entrants)) for _ in range(3)))
    for result in results:
        for seat, e in enumerate(result.spec.seats):
            totals.chips[result.spec.block, e] += result.chips[seat]
            totals.deals[result.spec.block, e] += result.deals
            totals.outs[result.spec.block, e] += result.outs[seat]
    return totals


def entrant_sums(results: Sequence[GameResult], entrants: int) -> dict[str, np.ndarray]:
    """Games, chip sources, decisions and thinking time summed per entrant."""
    sums = {
        "games": np.zeros(entrants),
        "decisions": np.zeros(entrants),
        "think": np.zeros(entrants),
        "parts": np.zeros((entrants, len(PARTS))),
    }
    for result in results:
        for seat, e in enumerate(result.spec.seats):
            sums["games"][e] += 1
            sums["decisions"][e] += result.decisions[seat]
            sums["think"][e] += result.think_seconds[seat]
            sums["parts"][e] += [result.parts[seat][p] for p in PARTS]
    return sums


def standings(
    results: Sequence[GameResult], labels: Sequence[str], blocks: int, resamples: int, seed: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Per-entrant figures (best first) and every pairwise difference, with paired bootstrap intervals."""
    totals = block_totals(results, blocks, len(labels))
    sums = entrant_sums(results, len(labels))
    indices = resample_indices(blocks, resamples, seed)
    ratings = plackett_luce_ratings(results, labels)
    rows = [_entrant_row(e, label, totals, sums, indices, ratings[e]) for e, label in enumerate(labels)]
    rows.sort(key=lambda row: (-row["chips_per_deal"]["mean"], row["agent"]))
    pairs = [_pair_row(labels, a, b, totals, indices) for a, b in itertools.permutations(range(len(labels)), 2)]
    return rows, pairs


def _entrant_row(
    e: int, label: str, totals: BlockTotals, sums: dict[str, np.ndarray], indices: np.ndarray, rating: dict[str, float]
) -> dict[str, Any]:
    deals = float(totals.deals[:, e].sum())
    return {
        "agent": label,
        "games": int(sums["games"][e]),
        "deals": int(deals),
        "chips_per_deal": bootstrap_interval(totals.chips_per_deal[:, e], indices).to_dict(),
        "won_share": bootstrap_interval(totals.won_share[:, e], indices).to_dict(),
        "parts_per_deal": {p: float(sums["parts"][e, i] / max(deals, 1)) for i, p in enumerate(PARTS)},
        "rating": rating,
        "decisions": int(sums["decisions"][e]),
    }


def _pair_row(labels: Sequence[str], a: int, b: int, totals: BlockTotals, indices: np.ndarray) -> dict[str, Any]:
    diff = totals.chips_per_deal[:, a] - totals.chips_per_deal[:, b]
    interval = bootstrap_interval(diff, indices)
    separated = interval.low is not None and interval.high is not None and (interval.low > 0 or interval.high < 0)
    return {"agent": labels[a], "opponent": labels[b], "difference": interval.to_dict(), "separated": separated}


def speed(results: Sequence[GameResult], labels: Sequence[str], wall_seconds: float) -> dict[str, Any]:
    """Decisions per second of each agent's own thinking time, and the run's throughput (varies by machine)."""
    sums = entrant_sums(results, len(labels))
    per_agent = {
        label: {
            "decisions": int(sums["decisions"][e]),
            "think_seconds": float(sums["think"][e]),
            "decisions_per_second": float(sums["decisions"][e] / sums["think"][e]) if sums["think"][e] else None,
        }
        for e, label in enumerate(labels)
    }
    return {
        "wall_seconds": wall_seconds,
        "sessions_per_second": len(results) / wall_seconds if wall_seconds else None,
        "agents": per_agent,
    }
