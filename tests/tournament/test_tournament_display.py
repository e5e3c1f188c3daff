"""What a tournament shows: the terminal leaderboard, leaderboard.md, the plots and the saved records.

The figures themselves are worked out by hand in ``test_tournament_figures.py``; here the question is
whether every place that shows them shows them whole and unchanged: each leaderboard row (as
``leaderboard_rows`` makes it) on one line of the terminal table, the captions and notes word for word,
the plots' bars, error bars and cell labels equal to the hand-computed figures.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import re

import numpy as np
import pytest
from matplotlib.colors import to_rgba
from matplotlib.container import ErrorbarContainer

from newmarket_env.eval.tournament import TournamentConfig, run_tournament
from newmarket_env.eval.tournament.leaderboard import HEADERS, leaderboard_rows
from newmarket_env.eval.tournament.plots import chips_per_deal_figure, pairwise_figure
from newmarket_env.eval.tournament.report import leaderboard_markdown, write_records
from newmarket_env.eval.tournament.summary import standings
from newmarket_env.eval.tournament.table import print_leaderboard
from tests.tournament.test_tournament_figures import LABELS, _results

ANSI = re.compile(r"\x1b\[[0-9;]*m")
#: The legend under the table, word for word (it explains the columns).
CAPTION_WORDS = (
    "chips per deal by source (other = widow, bids, lots); 95% bootstrap interval over deal blocks; "
    "mu ± sigma: openskill Plackett-Luce"
)
WON_LINE = "won %: the share of the deals it played that it won by going out first (blocked deals have no winner)"
# A command whose brackets rich would read as markup ("[b]": bold, dropped) unless it is printed as plain text,
# and longer than the table is wide, so that it must not be wrapped either (it is meant to be copied).
COMMAND = "newmarket tournament --agents greedy,random,'runs/[b]est/final.npz' " + " ".join(
    f"--agent-option search:budget={n}" for n in range(8)
)


@pytest.fixture(scope="module")
def result():
    return run_tournament(TournamentConfig(agents=("greedy", "random", "lowest"), players=3, blocks=2, resamples=50))


@pytest.fixture(scope="module")
def hand_figures():
    """The hand-made tournament of test_tournament_figures: a +1.375, b -0.625, c -0.75 chips per deal."""
    return standings(_results(), LABELS, blocks=2, resamples=2000, seed=0)


def _squeeze(text: str) -> str:
    return " ".join(text.split())


def _row_line(lines: list[str], cells: tuple[str, ...]) -> str:
    """The one output line holding every cell of a row, in order (else the row was wrapped or cut)."""
    pattern = re.compile(r"\s+".join(re.escape(cell) for cell in cells))
    found = [line for line in lines if pattern.search(line)]
    assert len(found) == 1, f"row {cells} is not on exactly one line:\n" + "\n".join(lines)
    return found[0]


def test_a_piped_leaderboard_is_one_wide_table_with_every_row_whole(result, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")  # a pipe reports 80 columns; the table must still not be squeezed
    print_leaderboard(result, COMMAND)
    out = ANSI.sub("", capsys.readouterr().out)
    lines = out.splitlines()
    # 3 agents, 2 blocks x 1 line-up x 3 rotations = 6 sessions
    assert lines[0].strip() == "newmarket, 3 players: 6 sessions (2 blocks x 1 line-ups x 3 seatings)"
    header = _row_line(lines, HEADERS)
    rows = leaderboard_rows(result.standings, result.speed)
    assert lines.index(header) < min(lines.index(_row_line(lines, row)) for row in rows)
    assert max(len(line) for line in lines if not line.startswith("reproduce:")) <= 130
    squeezed = _squeeze(out)
    assert CAPTION_WORDS in squeezed
    assert WON_LINE in lines
    assert "note: Only 2 deal block(s): the 95% intervals are rough guesses, not figures to rely on " in out
    assert lines[-1] == f"reproduce: {COMMAND}"  # whole, on one line, brackets kept


LONG_NAME = "runs/an_experiment_with_a_long_descriptive_name/checkpoints/step_000200000/final.npz"


def _with_long_name(result):
    """The result with greedy renamed to a saved agent's long path (the name of the cells is all that changes)."""
    standings = [{**row, "agent": LONG_NAME if row["agent"] == "greedy" else row["agent"]} for row in result.standings]
    agents = {LONG_NAME if name == "greedy" else name: figures for name, figures in result.speed["agents"].items()}
    return dataclasses.replace(result, standings=standings, speed={**result.speed, "agents": agents})


def test_a_piped_leaderboard_widens_for_a_long_name_and_cuts_no_cell(result, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    long = _with_long_name(result)
    print_leaderboard(long)
    out = ANSI.sub("", capsys.readouterr().out)
    lines = out.splitlines()
    assert "…" not in out
    for row in leaderboard_rows(long.standings, long.speed):
        _row_line(lines, row)  # every cell whole, on the row's one line
    _row_line(lines, HEADERS)


def test_a_narrow_terminal_wraps_a_long_name_and_cuts_no_number(result, capsys, monkeypatch):
    import rich.console

    monkeypatch.setattr(rich.console.Console, "is_terminal", property(lambda self: True))
    monkeypatch.setenv("COLUMNS", "100")
    long = _with_long_name(result)
    print_leaderboard(long)
    lines = ANSI.sub("", capsys.readouterr().out).splitlines()
    assert max(len(line) for line in lines) <= 100 and "…" not in "\n".join(lines)
    for row in leaderboard_rows(long.standings, long.speed):
        numbers = tuple(cell for i, cell in enumerate(row) if i != 1)
        main = tuple(row[i] for i in (2, 3, 9, 10))  # the numbers of each table, on the row's first line
        sources = tuple(row[i] for i in (4, 5, 6, 7, 8))
        assert set(main) | set(sources) | {row[0]} == set(numbers)
        _row_line(lines, main)
        _row_line(lines, sources)


def test_a_narrow_terminal_gets_the_chip_sources_in_a_second_table(result, capsys, monkeypatch):
    import rich.console

    monkeypatch.setattr(rich.console.Console, "is_terminal", property(lambda self: True))
    monkeypatch.setenv("COLUMNS", "100")  # under the 118 columns the wide table needs
    print_leaderboard(result)
    lines = ANSI.sub("", capsys.readouterr().out).splitlines()
    assert max(len(line) for line in lines) <= 100
    rows = leaderboard_rows(result.standings, result.speed)
    main_columns, source_columns = (0, 1, 2, 3, 9, 10), (0, 1, 4, 5, 6, 7, 8)
    first = _row_line(lines, tuple(HEADERS[i] for i in main_columns))
    second_title = [i for i, line in enumerate(lines) if line.strip() == "chips per deal by source"]
    second = _row_line(lines, tuple(HEADERS[i] for i in source_columns))
    assert len(second_title) == 1 and lines.index(first) < second_title[0] < lines.index(second)
    for row in rows:
        assert lines.index(_row_line(lines, tuple(row[i] for i in main_columns))) < second_title[0]
        assert lines.index(_row_line(lines, tuple(row[i] for i in source_columns))) > second_title[0]
    # the legend comes once, under the second table
    after = _squeeze("\n".join(lines[second_title[0] :]))
    assert CAPTION_WORDS in after and CAPTION_WORDS not in _squeeze("\n".join(lines[: second_title[0]]))
    assert not any(line.startswith("reproduce:") for line in lines)


def test_leaderboard_markdown_layout(result):
    text = leaderboard_markdown(result, COMMAND)
    lines = text.split("\n")
    assert lines[:6] == ["# Tournament: newmarket, 3 players", "", "```bash", COMMAND, "```", ""]
    assert lines[6].startswith("2 deal blocks x 1 line-ups x 3 seatings = 6 sessions of ")
    assert lines[6].endswith("; seed 0; rules overrides: none.")
    assert lines[7] == ""
    assert lines[8].startswith("Chips per deal: mean over deal blocks") and lines[8].endswith(
        "Won %: the share of the deals it played that it won by going out first (blocked deals have no winner)."
    )
    assert lines[9] == "" and lines[10].startswith("**Note:** Only 2 deal block(s): the 95% intervals are rough")
    table = lines[12 : 12 + 2 + len(result.standings)]
    assert lines[11] == ""
    assert table[0] == "| " + " | ".join(HEADERS) + " |"
    assert table[1] == "|" + "|".join(["---"] * len(HEADERS)) + "|"
    assert table[2:] == ["| " + " | ".join(row) + " |" for row in leaderboard_rows(result.standings, result.speed)]
    assert text.endswith("\n") and not text.endswith("\n\n")
    without_command = leaderboard_markdown(result).split("\n")
    assert without_command[:2] == ["# Tournament: newmarket, 3 players", ""] and "```bash" not in without_command


def test_chips_per_deal_plot_draws_the_hand_computed_figures(hand_figures):
    rows, _ = hand_figures
    fig = chips_per_deal_figure(rows, "about")
    ax = fig.axes[0]
    assert ax.get_title() == "Mean chips per deal\nabout"
    bars = ax.patches
    # best at the top: matplotlib draws the first bar at the bottom, so c, b, a from the bottom up
    assert [t.get_text() for t in ax.get_yticklabels()] == ["c", "b", "a"]
    assert [round(b.get_width(), 6) for b in bars] == [-0.75, -0.625, 1.375]
    assert [b.get_facecolor() for b in bars] == [to_rgba(c, 0.8) for c in ("tab:red", "tab:red", "tab:green")]
    # the error bars span each agent's interval: c [-1.25, -0.25], b [-1.5, +0.25], a [+1.0, +1.75]
    (errorbar,) = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    segments = errorbar.lines[2][0].get_segments()
    assert [tuple(np.round(s[:, 0], 6)) for s in segments] == [(-1.25, -0.25), (-1.5, 0.25), (1.0, 1.75)]
    zero = [line for line in ax.get_lines() if list(line.get_xdata()) == [0.0, 0.0]]
    assert len(zero) == 1 and zero[0].get_color() == "black"  # the line at zero chips
    assert ax.get_xlabel() == "chips per deal (95% bootstrap interval over deal blocks)"
    assert chips_per_deal_figure(rows).axes[0].get_title() == "Mean chips per deal"


def test_pairwise_plot_labels_each_cell_with_its_difference_and_separation(hand_figures):
    rows, pairs = hand_figures
    fig = pairwise_figure(rows, pairs, "about")
    heatmap = fig.axes[0]
    cells = {(round(t.get_position()[1]), round(t.get_position()[0])): t for t in heatmap.texts}
    # row minus column; * where the paired interval excludes zero (a-b, a-c and their mirrors)
    expected = {
        (0, 1): "+2.00*",
        (0, 2): "+2.12*",
        (1, 0): "-2.00*",
        (1, 2): "+0.12",
        (2, 0): "-2.12*",
        (2, 1): "-0.12",
    }
    assert {cell: text.get_text() for cell, text in cells.items()} == expected
    # dark ends of the map (|value| > 0.6 of the largest, 2.125) get white text; b-c and c-b black
    for cell, text in cells.items():
        assert text.get_color() == ("black" if cell in {(1, 2), (2, 1)} else "white"), cell
    image = heatmap.get_images()[0]
    assert image.get_clim() == (-2.125, 2.125)
    assert np.allclose(image.get_array(), [[0, 2.0, 2.125], [-2.0, 0, 0.125], [-2.125, -0.125, 0]])
    assert [t.get_text() for t in heatmap.get_yticklabels()] == ["a", "b", "c"]
    assert [t.get_text() for t in heatmap.get_xticklabels()] == ["a", "b", "c"]
    assert fig._suptitle.get_text() == "Pairwise differences (* = 95% paired interval excludes 0)\nabout"
    assert fig.axes[1].get_ylabel() == "row minus column, chips per deal"
    plain = pairwise_figure(rows, pairs)
    assert plain._suptitle.get_text() == "Pairwise differences (* = 95% paired interval excludes 0)"


def test_saved_records_carry_each_sessions_place_and_seeds(tmp_path):
    result = run_tournament(
        TournamentConfig(agents=("greedy", "random", "lowest"), players=3, blocks=2, resamples=50, save_records=True)
    )
    path = tmp_path / "records.jsonl.gz"
    write_records(result, str(path))
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        entries = [json.loads(line) for line in fh]
    assert len(entries) == len(result.games) == 6
    labels = result.plan.labels
    for number, (entry, game) in enumerate(zip(entries, result.games, strict=True), start=1):
        s = game.spec
        seats = [labels[e] for e in s.seats]
        assert entry == {
            "title": f"session {number}: block {s.block}, line-up {s.lineup}, seating {s.seating} -- "
            + ", ".join(f"player_{k} {name}" for k, name in enumerate(seats)),
            "block": s.block,
            "lineup": s.lineup,
            "seating": s.seating,
            "seats": seats,
            "game_seed": s.game_seed,
            "record": game.record,
        }
    assert [p.name for p in tmp_path.iterdir()] == ["records.jsonl.gz"]  # no temporary file left


def test_leaderboard_markdown_names_the_agents_not_entered(result):
    why = "saved agent 'x.npz' was trained for 'michigan' with other rules; differing parameters: boodles"
    skipped = dataclasses.replace(result, plan=dataclasses.replace(result.plan, skipped={"ppo-michigan": why}))
    lines = leaderboard_markdown(skipped).split("\n")
    assert (
        "Not entered: ppo-michigan (made for the michigan rules; a trained agent plays only the rules it learned)"
        in lines
    )


def test_both_plots_are_told_what_was_played(result, tmp_path, monkeypatch):
    from newmarket_env.eval.tournament import plots
    from newmarket_env.eval.tournament.report import write_outputs

    abouts = []
    for name in ("plot_chips_per_deal", "plot_pairwise"):
        original = getattr(plots, name)

        def seen(*args, _original=original, **kwargs):
            abouts.append(kwargs["about"])
            return _original(*args, **kwargs)

        monkeypatch.setattr(plots, name, seen)
    write_outputs(result, str(tmp_path / "out"))
    assert abouts == ["newmarket, 3 players, 6 sessions (2 deal blocks)"] * 2


def test_results_json_and_games_csv_name_every_field(result, tmp_path):
    """The field names other code reads (docs/contract.md: results.json and games.csv)."""
    import csv

    from newmarket_env.eval.tournament.report import results_dict, write_games_csv

    data = results_dict(result, COMMAND)
    assert data["format"] == "newmarket-tournament/1" and data["command"] == COMMAND
    assert set(data["schedule"]) == {
        "blocks",
        "lineups",
        "seatings_per_lineup",
        "sessions",
        "meetings_per_pair",
        "deals_from",
    }
    assert data["schedule"]["seatings_per_lineup"] == 3 and data["schedule"]["sessions"] == 6
    for game, played in zip(data["games"], result.games, strict=True):
        assert set(game) == {
            "block",
            "lineup",
            "seating",
            "game_seed",
            "seats",
            "agent_seeds",
            "deals",
            "chips",
            "outs",
            "decisions",
        }
        assert (game["deals"], game["game_seed"], game["seating"]) == (
            played.deals,
            played.spec.game_seed,
            played.spec.seating,
        )
    write_games_csv(result, str(tmp_path / "games.csv"))
    with open(tmp_path / "games.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    first = result.games[0]
    assert list(rows[0])[:11] == [
        "block",
        "lineup",
        "seating",
        "seat",
        "agent",
        "agent_spec",
        "game_seed",
        "agent_seed",
        "deals",
        "chips",
        "outs",
    ]
    assert (rows[0]["seating"], rows[0]["game_seed"]) == (str(first.spec.seating), str(first.spec.game_seed))
