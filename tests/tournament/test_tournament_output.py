"""Where a tournament's files go, and what its outputs tell a newcomer.

The output folder is checked before any game, written all at once, and never replaced without
``--overwrite``; the default folder is named after the agents; small runs, "won %" and the agents
not entered are explained; the plots say what was played and keep the colour bar off the title.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from newmarket_env import raw_env
from newmarket_env.eval.tournament import TournamentConfig, run_tournament
from newmarket_env.eval.tournament.cli import PROG, available_cores, main
from newmarket_env.eval.tournament.entrants import default_agent_specs
from newmarket_env.eval.tournament.leaderboard import not_entered_line
from newmarket_env.eval.tournament.output import OutputFolder
from newmarket_env.eval.tournament.plots import chips_per_deal_figure, pairwise_figure

TINY = ["--agents", "random,random,random,random", "--blocks", "2", "--workers", "1", "--resamples", "50", "--quiet"]


def _one_error_line(capsys, *words):
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"{PROG}: error: "), err
    for word in words:
        assert word in err
    return err


def test_an_unwritable_out_stops_before_any_game(tmp_path):
    # A search agent with its largest budget, 10,000 rollouts a decision would play for hours: the run can only end
    # at once if --out is checked first.
    command = [
        sys.executable,
        "-m",
        "newmarket_env.eval.tournament",
        "--agents",
        "search,random,random,random",
        "--agent-option",
        "search:budget=10000",
        "--blocks",
        "2",
        "--out",
        "/proc/newmarket-results",
        "--quiet",
    ]
    run = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert run.returncode == 2
    assert run.stderr.startswith(f"{PROG}: error: --out /proc/newmarket-results: cannot write in /proc")
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr


def test_an_existing_results_folder_is_kept_unless_overwrite(tmp_path, capsys):
    out = tmp_path / "run"
    assert main([*TINY, "--seed", "1", "--out", str(out)]) == 0
    before = (out / "results.json").read_bytes()
    capsys.readouterr()
    assert main([*TINY, "--seed", "2", "--out", str(out)]) == 2
    _one_error_line(capsys, f"--out {out} already holds results", "--overwrite")
    assert (out / "results.json").read_bytes() == before
    assert main([*TINY, "--seed", "2", "--out", str(out), "--overwrite"]) == 0
    assert json.loads((out / "results.json").read_text())["config"]["seed"] == 2
    assert sorted(os.listdir(tmp_path)) == ["run"]  # no staging or old folder left behind


def test_results_appear_all_at_once(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / "results.json").write_text("old")
    folder = OutputFolder(str(out), overwrite=True)
    Path(folder.staging, "results.json").write_text("new")
    assert (out / "results.json").read_text() == "old"  # nothing new is visible before publish
    folder.discard()  # a failed run: the old results stay whole
    assert (out / "results.json").read_text() == "old" and sorted(os.listdir(tmp_path)) == ["run"]
    folder = OutputFolder(str(out), overwrite=True)
    Path(folder.staging, "results.json").write_text("new")
    folder.publish()
    assert (out / "results.json").read_text() == "new" and sorted(os.listdir(tmp_path)) == ["run"]


def test_the_default_folder_is_named_after_the_agents(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main([*TINY, "--seed", "4"]) == 0
    assert main([*TINY[:1], "greedy,random,random,random", *TINY[2:], "--seed", "4"]) == 0
    assert sorted(os.listdir(tmp_path / "results")) == [
        "tournament-newmarket-4p-greedy-random-random-random-seed4",
        "tournament-newmarket-4p-random-random-random-random-seed4",
    ]


def test_a_small_run_says_its_intervals_are_rough_and_won_is_defined(tmp_path, capsys):
    out = tmp_path / "run"
    assert main([*TINY, "--out", str(out)]) == 0
    assert "note: only 2 deal block(s): the 95% intervals are rough guesses" in capsys.readouterr().err
    board = (out / "leaderboard.md").read_text()
    assert "**Note:** Only 2 deal block(s)" in board
    assert "Won %: the share of the deals it played that it won by going out first" in board


def test_agents_not_entered_read_as_notes_not_errors():
    _, skipped = default_agent_specs(4, raw_env(variant="newmarket"))
    assert "ppo-michigan" in skipped
    line = not_entered_line("ppo-michigan", skipped["ppo-michigan"])
    assert line == (
        "not entered: ppo-michigan (made for the michigan rules; a trained agent plays only the rules it learned)"
    )


@pytest.mark.parametrize(
    "argv,words",
    [
        (["--agents", "greedy,nope"], ["unknown agent 'nope'"]),  # the name, before the seat count
        (
            ["--agents", "search,random,random,random", "--agent-option", "search:budgt=3"],
            ["agent option 'budgt' is unknown for 'search'; allowed: budget, rollout, max_candidates"],
        ),
        (
            ["--agents", "random,random,random,random", "--set", "num_players=5"],
            ["give the number of players with --players"],
        ),
        (
            ["--agents", "random,random,random,random", "--set", "num_deals=two"],
            ["num_deals='two' is not an int (got str)"],
        ),
    ],
)
def test_bad_input_names_the_real_problem(argv, words, tmp_path, capsys):
    assert main([*argv, "--out", str(tmp_path / "never"), "--quiet"]) == 2
    _one_error_line(capsys, *words)
    assert os.listdir(tmp_path) == []


def test_workers_are_capped_at_the_cores(tmp_path, capsys):
    out = tmp_path / "run"
    assert main([*TINY[:-3], "--workers", "500", "--resamples", "50", "--quiet", "--out", str(out)]) == 0
    cores = available_cores()
    assert f"note: --workers 500 is more than the {cores} CPU cores here; using {cores}" in capsys.readouterr().err
    assert json.loads((out / "results.json").read_text())["config"]["workers"] == cores


@pytest.fixture(scope="module")
def result():
    return run_tournament(TournamentConfig(agents=("greedy", "random", "lowest", "control"), blocks=2, resamples=50))


def test_plots_say_what_was_played_and_the_colour_bar_leaves_the_title_alone(result):
    about = "newmarket, 4 players, 8 sessions (2 deal blocks)"
    fig = chips_per_deal_figure(result.standings, about)
    assert fig.axes[0].get_title().endswith(about)
    fig = pairwise_figure(result.standings, result.pairwise, about)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    title = fig._suptitle
    assert title.get_text().endswith(about)
    colour_bar = fig.axes[1]
    assert not title.get_window_extent(renderer).overlaps(colour_bar.get_tightbbox(renderer))
    heatmap = fig.axes[0]
    assert not title.get_window_extent(renderer).overlaps(heatmap.get_window_extent(renderer))
