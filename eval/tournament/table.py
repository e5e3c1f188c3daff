"""The leaderboard as rich tables in the terminal: one wide table, or two where the terminal is narrow."""

from __future__ import annotations

from collections.abc import Sequence

from newmarket_env.eval.tournament.api import TournamentResult
from newmarket_env.eval.tournament.leaderboard import (
    HEADERS,
    WON_DEFINITION,
    leaderboard_rows,
    not_entered_line,
    small_run_note,
)

MIN_PIPE_WIDTH = 130  # a log or a pipe gets at least this many columns, more if the table needs them
AGENT_COLUMN = 1
WIDE_TABLE_WIDTH = 118  # narrower terminals get the chip sources in a second table
MAIN_COLUMNS = (0, 1, 2, 3, 9, 10)  # rank, agent, chips/deal, won %, rating, decisions/s
SOURCE_COLUMNS = (0, 1, 4, 5, 6, 7, 8)  # rank, agent and the chip sources
CAPTION = (
    "chips per deal by source (other = widow, bids, lots); 95% bootstrap interval over deal blocks; "
    "mu ± sigma: openskill Plackett-Luce"
)


def _table(title: str | None, rows: list[tuple[str, ...]], columns: Sequence[int], caption: str | None):
    from rich import box  # optional: needs rich (eval extra)
    from rich.table import Table  # optional: needs rich (eval extra)

    table = Table(title=title, caption=caption, box=box.SIMPLE_HEAD, pad_edge=False)
    for i in columns:
        if i == AGENT_COLUMN:  # a long name wraps on a narrow terminal; a number is never cut
            table.add_column(HEADERS[i], justify="left", overflow="fold")
        else:
            table.add_column(HEADERS[i], justify="right", no_wrap=True)
    for row in rows:
        table.add_row(*(row[i] for i in columns))
    return table


def print_leaderboard(result: TournamentResult, command: str | None = None, small_run_noted: bool = False) -> None:
    """Print the standings (and the command that reproduces the run)."""
    from rich.console import Console  # optional: needs rich (eval extra)

    console = Console()
    plan = result.plan
    title = (
        f"{plan.config.variant}, {plan.setup.players} players: {len(plan.specs)} sessions "
        f"({plan.config.blocks} blocks x {len(plan.lineups)} line-ups x {plan.seatings} seatings)"
    )
    rows = leaderboard_rows(result.standings, result.speed)
    if not console.is_terminal:
        # A log or a pipe has no width to respect: one wide table as wide as its longest row needs, so that
        # no cell is cut (rich would end a cut one with "…", numbers too) and the line reads whole.
        needed = Console(width=10**4).measure(_table(title, rows, range(len(HEADERS)), None)).maximum
        console = Console(width=max(console.width, MIN_PIPE_WIDTH, needed))
    if console.width >= WIDE_TABLE_WIDTH:
        console.print(_table(title, rows, range(len(HEADERS)), CAPTION))
    else:
        console.print(_table(title, rows, MAIN_COLUMNS, None))
        console.print(_table("chips per deal by source", rows, SOURCE_COLUMNS, CAPTION))
    console.print(WON_DEFINITION, markup=False, highlight=False)
    note = small_run_note(plan.config.blocks)
    if note and not small_run_noted:  # the command line said it already, before the run
        console.print(f"note: {note}", markup=False, highlight=False)
    for name, why in plan.skipped.items():
        console.print(not_entered_line(name, why), markup=False, highlight=False)
    if command:
        console.print(f"reproduce: {command}", soft_wrap=True, markup=False, highlight=False)
