"""The benchmark as tables: rates with their ratios to the peers, memory, targets, notes."""

from __future__ import annotations

from newmarket_env.eval.bench.suite import REFERENCE_PEERS, BenchResult

SHORT_PEER = {
    "texas_holdem_v4": "x holdem",
    "texas_holdem_v4 4p": "x holdem 4p",
    "texas_holdem_v4 unseeded": "x holdem unseeded",
    "texas_holdem_v4 4p unseeded": "x holdem 4p unseeded",
    "connect_four_v3": "x connect4",
    "hearts": "x hearts",
    "hearts+tensor": "x hearts+tensor",
}
RATE_HEADERS = ["workload", "decisions/s", "sessions/s", "decisions/session"]
PIPE_WIDTH = 1000  # columns a table may take when printed to a pipe or a file (never cut)


def _rate(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:,.1f}"


def rate_rows(result: BenchResult) -> tuple[list[str], list[list[str]]]:
    """Headers and text cells of the rate table (ratios only for peers measured in this run)."""
    peers = [p for p in REFERENCE_PEERS if result.row(p)]
    headers = RATE_HEADERS + [SHORT_PEER[p] for p in peers]
    rows = []
    for r in result.rows:
        cells = [r.name, _rate(r.decisions_per_s), _rate(r.sessions_per_s), f"{r.decisions_per_session:.1f}"]
        cells += [f"{result.ratio(r, p):.2f}" for p in peers]
        rows.append(cells)
    return headers, rows


def other_tables(result: BenchResult) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, headers, rows) of the memory and target tables."""
    memory = [[m.name, f"{m.bytes_per_env / 1e3:,.1f}", str(m.envs)] for m in result.memory]
    targets = [[t.name, f"{t.value:.2f}", t.goal, "met" if t.met else "NOT met"] for t in result.targets()]
    return [
        ("memory per env instance", ["env", "kB per env", "envs"], memory),
        ("targets", ["target", "value", "goal", ""], targets),
    ]


def markdown(result: BenchResult) -> str:
    """All tables as GitHub markdown (what docs/benchmark.md shows)."""
    out = [_md_table(*rate_rows(result))]
    for title, headers, rows in other_tables(result):
        if rows:
            out.append(f"**{title}**\n\n" + _md_table(headers, rows))
    out += [f"- {note}" for note in result.notes]
    return "\n\n".join(out) + "\n"


def _md_table(headers: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


def print_report(result: BenchResult) -> None:
    """Print the tables with rich when it is installed, else as plain text."""
    try:
        from rich.console import Console  # optional: needs rich (eval extra)
        from rich.table import Table  # optional: needs rich (eval extra)
    except ImportError:
        print(markdown(result))
        return
    console = Console()
    if not console.is_terminal:
        # A pipe or a file: rich would squeeze the tables into 80 columns and cut the names ("engine (com…").
        # Nobody's screen to fit there: as wide as the tables need.
        console = Console(width=PIPE_WIDTH)
    for title, headers, rows in [("decisions and sessions per second", *rate_rows(result)), *other_tables(result)]:
        if not rows:
            continue
        table = Table(title=title)
        for i, header in enumerate(headers):
            table.add_column(header, justify="left" if i == 0 else "right")
        for row in rows:
            table.add_row(*row)
        console.print(table)
    for note in result.notes:
        console.print(f"note: {note}")
