"""Every subcommand explains itself; bad input is one line and exit code 2, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from newmarket_env import cli

SUBCOMMANDS = ["play", "replay", "tournament", "train", "bench"]


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_every_subcommand_has_help(command, capsys):
    assert cli.main([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: newmarket {command}")
    assert "--" in out  # at least one option is explained


def test_top_level_help_lists_every_subcommand(capsys):
    assert cli.main(["--help"]) == 0
    out = capsys.readouterr().out
    for command in SUBCOMMANDS:
        assert f"\n    {command}" in out


def test_play_help_explains_every_option(capsys):
    cli.main(["play", "--help"])
    out = capsys.readouterr().out
    for option in ("--variant", "--players", "--seat", "--seed", "--agents", "--set", "--save"):
        assert f"  {option} " in out
    assert "random" in out and "num_deals" in out


BAD_INPUT = [
    ["play", "--variant", "poker"],
    ["play", "--players", "9"],
    ["play", "--variant", "newbury", "--players", "5"],
    ["play", "--seat", "4"],
    ["play", "--seed", "x"],
    ["play", "--agents", "no-such-agent"],
    ["play", "--agents", "random,random"],
    ["play", "--agents", "random,,random"],
    ["play", "--set", "colour=red"],
    ["play", "--set", "num_deals"],
    ["play", "--set", "num_deals=0"],
    ["play", "--set", "widow=sometimes"],
    ["play", "--set", "boodles=AS,XX,QS,JS"],
    ["play", "--set", "num_players=5"],
    ["play", "--save", "/no/such/folder/game.json"],
    ["play", "--frobnicate"],
    ["replay"],
    ["replay", "/no/such/record.json"],
    ["frobnicate"],
    ["tournament", "--bogus"],
    ["train", "--bogus"],
    ["bench", "--seed", "x"],
]


@pytest.mark.parametrize("argv", BAD_INPUT, ids=" ".join)
def test_bad_input_is_one_line_and_exit_2(argv, capsys):
    assert cli.main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("newmarket") and "error:" in lines[0]


def test_a_missing_delegated_command_says_so_in_one_line(monkeypatch, capsys):
    monkeypatch.setitem(cli.DELEGATED, "bench", ("newmarket_env.eval.no_such_bench.cli", "summary", "eval"))
    assert cli.main(["bench"]) == cli.EXIT_NOT_AVAILABLE
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "newmarket bench: error: not available in this installation (newmarket_env.eval.no_such_bench.cli is missing)"
    ]


def test_the_console_script_runs():
    script = os.path.join(os.path.dirname(sys.executable), "newmarket")
    if not os.path.exists(script):
        pytest.skip("the package is not installed with its console script in this environment")
    done = subprocess.run([script, "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.startswith("usage: newmarket")
