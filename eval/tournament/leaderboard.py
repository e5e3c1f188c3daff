"""The leaderboard as rows of text, shared by the terminal table and the Markdown file."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

HEADERS = (
    "#",
    "agent",
    "chips/deal [95% CI]",
    "won %",
    "boodles",
    "pot",
    "cards",
    "stakes",
    "other",
    "mu ± sigma",
    "decisions/s",
)
#: What the "won %" column counts, said wherever the column is shown.
WON_DEFINITION = "won %: the share of the deals it played that it won by going out first (blocked deals have no winner)"
#: Fewer deal blocks than this: the bootstrap intervals are too rough to rely on, and the outputs say so.
MIN_BLOCKS_FOR_INTERVALS = 10


def small_run_note(blocks: int) -> str | None:
    """The warning for a run too small for its intervals, or None."""
    if blocks >= MIN_BLOCKS_FOR_INTERVALS:
        return None
    return (
        f"Only {blocks} deal block(s): the 95% intervals are rough guesses, not figures to rely on "
        f"(use {MIN_BLOCKS_FOR_INTERVALS} or more blocks)."
    )


def not_entered_line(name: str, why: str) -> str:
    """Why a default agent is not in the field, worded as the expected note it is (not an error).

    >>> not_entered_line("ppo-michigan", "saved agent 'x.npz' was trained for 'michigan' with other rules; ...")
    'not entered: ppo-michigan (made for the michigan rules; a trained agent plays only the rules it learned)'
    """
    trained = re.search(r"was trained for '([^']+)' with other rules", why)
    if trained:
        return (
            f"not entered: {name} (made for the {trained.group(1)} rules; a trained agent plays only the rules "
            "it learned)"
        )
    return f"not entered: {name} ({short_reason(why)})"


def short_reason(text: str, limit: int = 110) -> str:
    """The first clause of a (possibly long) reason, cut to ``limit`` characters; results.json keeps it whole."""
    first = text.split(";")[0].strip()
    return first if len(first) <= limit else first[: limit - 1] + "…"


def signed(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:+.{digits}f}"


def interval_text(interval: Mapping[str, float | None], digits: int = 2) -> str:
    """``+0.53 [+0.21, +0.85]``, or just the mean when there is no interval."""
    mean = signed(interval["mean"], digits)
    if interval["low"] is None:
        return mean
    return f"{mean} [{signed(interval['low'], digits)}, {signed(interval['high'], digits)}]"


def leaderboard_rows(standings: list[dict[str, Any]], speed: Mapping[str, Any]) -> list[tuple[str, ...]]:
    """One row of text per agent, in standings order."""
    rows: list[tuple[str, ...]] = []
    for rank, row in enumerate(standings, start=1):
        parts = row["parts_per_deal"]
        rate = speed["agents"][row["agent"]]["decisions_per_second"]
        rows.append(
            (
                str(rank),
                row["agent"],
                interval_text(row["chips_per_deal"]),
                f"{100 * row['won_share']['mean']:.1f}",
                signed(parts["boodles"]),
                signed(parts["pot"]),
                signed(parts["cards"]),
                signed(parts["stakes"]),
                signed(parts["widow"] + parts["leftover"]),
                f"{row['rating']['mu']:.1f}±{row['rating']['sigma']:.1f}",
                "-" if rate is None else f"{rate:,.0f}",
            )
        )
    return rows


def pairwise_matrix(standings: list[dict[str, Any]], pairwise: list[dict[str, Any]]) -> list[list[str]]:
    """Row agent minus column agent in chips per deal; ``*`` marks intervals that exclude zero."""
    order = [row["agent"] for row in standings]
    cell = {(p["agent"], p["opponent"]): p for p in pairwise}
    matrix = []
    for a in order:
        line = [a]
        for b in order:
            p = cell.get((a, b))
            line.append("" if p is None else signed(p["difference"]["mean"]) + ("*" if p["separated"] else ""))
        matrix.append(line)
    return matrix
