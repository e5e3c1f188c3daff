"""``newmarket play`` driven like a person would: through a pseudo-terminal and through a pipe."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time

PROMPT = "q to quit)> "  # the end of the play prompt (also Terminal.PROMPT)
PLAY = ["play", "--seed", "5", "--set", "num_deals=1"]


def _answer_first_choice_until_the_end(term) -> int:
    decisions = 0
    while term.read_until(PROMPT).rstrip().endswith(PROMPT.rstrip()):
        term.type("1\n")
        decisions += 1
    return decisions


def test_a_whole_session_on_a_terminal(terminal, tmp_path):
    record_path = tmp_path / "session.json"
    term = terminal(*PLAY, "--save", str(record_path))
    decisions = _answer_first_choice_until_the_end(term)
    assert term.finish() == 0
    screen = term.screen
    assert decisions >= 1
    assert "Traceback" not in screen
    assert "your hand" in screen and "layout    AS:" in screen and "pot:" in screen
    assert re.search(r"^\s+1\) lead \w+ of (clubs|diamonds|hearts|spades) \(\w\w\)$", screen, re.M)
    assert re.search(r"player_\d leads \w\w", screen) or re.search(r"you lead \w\w", screen)
    assert "chips after deal 1:" in screen and "final balances (each started with 40):" in screen
    record = json.loads(record_path.read_text())
    final = record["deals"][-1]["chips"]
    assert f"you {final[0]} (" in screen.split("final balances")[1]


def test_a_wrong_entry_is_refused_and_the_choices_repeated(terminal):
    term = terminal(*PLAY)
    term.read_until(PROMPT)
    term.type("99\n")
    refused = term.read_until(PROMPT)
    assert "'99' is not one of the choices" in refused
    assert re.search(r"^\s+1\) ", refused, re.M)
    term.type("q\n")
    assert term.finish() == 0
    assert "session stopped in deal 1 of 1" in term.screen


def test_ctrl_c_stops_cleanly(terminal):
    term = terminal(*PLAY)
    term.read_until(PROMPT)
    # The prompt is written just before input() blocks in read(); a SIGINT landing in
    # between only sets CPython's flag and is acted on at the next key. A person never
    # types that fast, so let the program reach its read first (an ordering wait, not
    # a speed check).
    time.sleep(0.5)
    term.type("\x03")
    assert term.finish() == 130
    assert "interrupted" in term.screen and "Traceback" not in term.screen


def _play_through_pipe(args: list[str], answers: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "newmarket_env.cli", "play", *args],
        input=answers,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_choices_are_named_for_every_kind_of_decision():
    """Chosen stakes, the widow and the auction, answered by words and numbers through a pipe."""
    done = _play_through_pipe(
        ["--seed", "2", "--variant", "michigan", "--set", "num_deals=2"], "keep your hand\n" + "1\n" * 200
    )
    assert done.returncode == 0, done.stderr
    assert "2) take the widow" in done.stdout and "1) keep your hand" in done.stdout
    assert "you keep the hand" in done.stdout
    stakes = _play_through_pipe(["--seed", "2", "--set", "num_deals=1", "--set", "stake_mode=choose"], "1\n" * 200)
    assert stakes.returncode == 0, stakes.stderr
    assert "1) stake a chip on AS" in stakes.stdout and "final balances" in stakes.stdout


def test_end_of_input_stops_cleanly():
    done = _play_through_pipe(PLAY[1:], "")
    assert done.returncode == 0
    assert "(input ended)" in done.stdout and "Traceback" not in done.stderr
