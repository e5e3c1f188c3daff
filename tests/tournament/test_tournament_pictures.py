"""The leaderboard table and the two plots of the hand-made tournament, against pictures reviewed by eye.

``test_tournament_display.py`` checks that each figure is shown whole (the bars' lengths, the cells'
labels); what it cannot see is how: the table's rules and alignment, the plots' colours, line widths,
sizes and fonts. Those are compared here with committed pictures of the hand-made tournament of
``test_tournament_figures.py``, each looked at and judged right when it was made:

- ``golden/leaderboard_wide.txt`` and ``golden/leaderboard_narrow.txt``: the terminal table at 130 and
  at 100 columns (no colour codes);
- ``golden/chips_per_deal.png`` and ``golden/pairwise.png``: the plots, compared with matplotlib's own
  image comparison (RMS of the pixel differences, 0-255), on matplotlib's default style.

After an intended change, rewrite them with
``NEWMARKET_UPDATE_GOLDEN=1 pytest tests/tournament/test_tournament_pictures.py`` and look at every
picture before committing it.
"""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib.style
import pytest

from newmarket_env.eval.tournament.leaderboard import HEADERS, leaderboard_rows
from newmarket_env.eval.tournament.plots import plot_chips_per_deal, plot_pairwise
from newmarket_env.eval.tournament.summary import speed, standings
from newmarket_env.eval.tournament.table import CAPTION, MAIN_COLUMNS, SOURCE_COLUMNS, _table
from tests.tournament.test_tournament_figures import LABELS, _results

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("NEWMARKET_UPDATE_GOLDEN") == "1"
ABOUT = "newmarket, 3 players, 4 sessions (hand-made)"
#: Largest RMS pixel difference allowed. The same matplotlib draws the same pixels (RMS 0); a line
#: half as wide again, a colour or a label moved gives an RMS of several units.
IMAGE_TOLERANCE = 0.5


@pytest.fixture
def hand_figures():
    return standings(_results(), LABELS, blocks=2, resamples=2000, seed=0)


def _matches_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{name} differs from the reviewed table"


def _render(tables, width: int) -> str:
    from rich.console import Console

    with open(os.devnull, "w", encoding="utf-8") as nowhere:
        console = Console(width=width, record=True, color_system=None, file=nowhere)
        for table in tables:
            console.print(table)
        return console.export_text()


def test_the_wide_table_is_the_reviewed_one(hand_figures):
    rows = leaderboard_rows(hand_figures[0], speed(_results(), LABELS, wall_seconds=2.0))
    text = _render([_table("hand-made, 3 players", rows, range(len(HEADERS)), CAPTION)], width=130)
    _matches_golden("leaderboard_wide.txt", text)


def test_the_narrow_tables_are_the_reviewed_ones(hand_figures):
    rows = leaderboard_rows(hand_figures[0], speed(_results(), LABELS, wall_seconds=2.0))
    tables = [
        _table("hand-made, 3 players", rows, MAIN_COLUMNS, None),
        _table("chips per deal by source", rows, SOURCE_COLUMNS, CAPTION),
    ]
    _matches_golden("leaderboard_narrow.txt", _render(tables, width=100))


def _compare_png(name: str, draw, tmp_path) -> None:
    from matplotlib.testing.compare import compare_images

    actual = tmp_path / name
    with matplotlib.style.context("default"):
        draw(str(actual))
    if UPDATE:
        (GOLDEN / name).write_bytes(actual.read_bytes())
    failure = compare_images(str(GOLDEN / name), str(actual), tol=IMAGE_TOLERANCE)
    assert failure is None, failure


def test_the_chips_per_deal_plot_is_the_reviewed_one(hand_figures, tmp_path):
    _compare_png("chips_per_deal.png", lambda path: plot_chips_per_deal(hand_figures[0], path, ABOUT), tmp_path)


def test_the_pairwise_plot_is_the_reviewed_one(hand_figures, tmp_path):
    rows, pairs = hand_figures
    _compare_png("pairwise.png", lambda path: plot_pairwise(rows, pairs, path, ABOUT), tmp_path)


def test_a_plot_without_about_has_the_title_alone(hand_figures, tmp_path):
    """No second title line (and no stray text) when the caller says nothing about the run."""
    rows, pairs = hand_figures
    _compare_png("pairwise_no_about.png", lambda path: plot_pairwise(rows, pairs, path), tmp_path)


def test_leaderboard_md_is_the_reviewed_one():
    """leaderboard.md of a real, seeded tournament (its figures are fixed by the seed), with the
    machine-dependent speed replaced by fixed numbers and one agent noted as not entered."""
    import dataclasses

    from newmarket_env.eval.tournament import TournamentConfig, run_tournament
    from newmarket_env.eval.tournament.report import leaderboard_markdown

    result = run_tournament(
        TournamentConfig(
            agents=("greedy", "random", "lowest"), players=3, blocks=2, resamples=200, rules={"num_deals": 2}
        )
    )
    decisions = {row["agent"]: row["decisions"] for row in result.standings}
    fixed_speed = {
        "wall_seconds": 1.0,
        "sessions_per_second": 6.0,
        "agents": {
            a: {"decisions": d, "think_seconds": d / 1000, "decisions_per_second": 1000.0} for a, d in decisions.items()
        },
    }
    skipped = {"ppo-michigan": "made for the michigan rules; a trained agent plays only the rules it learned"}
    result = dataclasses.replace(result, plan=dataclasses.replace(result.plan, skipped=skipped), speed=fixed_speed)
    _matches_golden(
        "leaderboard.md", leaderboard_markdown(result, "newmarket tournament --agents greedy,random,lowest")
    )
