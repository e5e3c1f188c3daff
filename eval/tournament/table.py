"""The leaderboard as a rich table in the terminal."""

from __future__ import annotations

from newmarket_env.eval.tournament.api import TournamentResult
from newmarket_env.eval.tournament.leaderboard import HEADERS, leaderboard_rows, short_reason

MIN_PIPE_WIDTH = 130


def print_leaderboard(result: TournamentResult, command: str | None = None) -> None:
    """Print the standings table (and the command that reproduces the run)."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    plan = result.plan
    title = (f"{plan.config.variant}, {plan.setup.players} players: {len(plan.specs)} sessions "
             f"({plan.config.blocks} blocks x {len(plan.lineups)} line-ups x {plan.seatings} seatings)")
    table = Table(title=title, box=box.SIMPLE_HEAD, pad_edge=False,
                  caption="chips per deal by source (other = widow, bids, lots); 95% bootstrap interval over "
                          "deal blocks; mu ± sigma: openskill Plackett-Luce")
    for i, header in enumerate(HEADERS):
        table.add_column(header, justify="left" if i == 1 else "right", no_wrap=True)
    for row in leaderboard_rows(result.standings, result.speed):
        table.add_row(*row)
    console = Console()
    if not console.is_terminal:  # a log or a pipe: do not squeeze the table into 80 columns
        console = Console(width=max(console.width, MIN_PIPE_WIDTH))
    console.print(table)
    for name, why in plan.skipped.items():
        console.print(f"left out: {name} ({short_reason(why)})", markup=False, highlight=False)
    if command:
        console.print(f"reproduce: {command}", soft_wrap=True, markup=False, highlight=False)
