"""The command line end to end at a tiny size, and its one-line errors on bad input."""

import csv
import json
import subprocess
import sys

import pytest

from newmarket_env.eval.tournament.cli import main

OUTPUTS = ("results.json", "games.csv", "leaderboard.md", "chips_per_deal.png", "pairwise.png")


def test_cli_writes_every_file(tmp_path, capsys):
    out = tmp_path / "run"
    code = main(
        [
            "--agents",
            "random,random,random,random",
            "--variant",
            "michigan",
            "--blocks",
            "2",
            "--workers",
            "1",
            "--seed",
            "3",
            "--resamples",
            "100",
            "--set",
            "dealer_stake_multiplier=2",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    assert all((out / name).stat().st_size > 0 for name in OUTPUTS)
    data = json.loads((out / "results.json").read_text())
    assert [a["label"] for a in data["agents"]] == ["random", "random#2", "random#3", "random#4"]
    assert data["rules"]["dealer_stake_multiplier"] == 2
    assert len(data["games"]) == 2 * 4 and all(g["agent_seeds"] for g in data["games"])
    rows = list(csv.DictReader((out / "games.csv").open()))
    assert len(rows) == 2 * 4 * 4
    for row in rows:  # the chip sources add up to the chips
        parts = ("stakes", "boodles", "pot", "cards", "widow", "leftover")
        assert sum(int(row[p]) for p in parts) == int(row["chips"])
    board = (out / "leaderboard.md").read_text()
    assert "random#4" in board and "newmarket tournament --agents random,random,random,random" in board
    assert "random#2" in capsys.readouterr().out


BAD_INPUT = [
    (["--agents", "random,nosuchagent,random,random"], "unknown agent 'nosuchagent'"),
    (["--agents", "random,random,random,random,random", "--variant", "newbury", "--players", "5"], "num_players=5"),
    (["--agents", "random,missing/agent.npz,random,random"], "does not exist"),
    (["--agents", "random,random,random,random", "--set", "widow"], "not key=value"),
    (["--agents", "random,random,random,random", "--set", "no_such_rule=1"], "no_such_rule"),
    (["--agents", "random,random,random,random", "--set", "widow=sometimes"], "widow"),
    (["--agents", "random,random", "--players", "4"], "at least 4 agents"),
    (["--agents", "random,random,random,random", "--blocks", "0"], "blocks=0"),
    (["--agents", "random,random,random,random", "--players", "four"], "invalid int value"),
]


@pytest.mark.parametrize("argv,words", BAD_INPUT)
def test_bad_input_stops_with_one_line(argv, words, tmp_path, capsys):
    out = tmp_path / "never"
    assert main([*argv, "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("python -m newmarket_env.eval.tournament: error: ") and words in err
    assert not out.exists()  # stopped before any game


def test_bad_input_in_a_real_process_has_no_traceback(tmp_path):
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "newmarket_env.eval.tournament",
            "--agents",
            "random,nosuch",
            "--out",
            str(tmp_path / "x"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr


def test_default_field_is_every_non_oracle_agent_that_loads():
    from newmarket_env import available_agents
    from newmarket_env.eval.tournament import TournamentConfig, plan_tournament

    plan = plan_tournament(TournamentConfig(blocks=1))
    labels = set(plan.labels) | set(plan.skipped)
    assert {a for a in available_agents() if not a.startswith("oracle")} <= labels
    assert not any(label.startswith("oracle") for label in plan.labels)
    assert len(plan.labels) >= 4
