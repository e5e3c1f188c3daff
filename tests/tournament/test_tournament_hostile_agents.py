"""A user's agent that answers something other than a legal action id, raises anything (SystemExit and
KeyboardInterrupt included), never answers, or ends its process: the tournament stops in one line naming
the agent, the decision and what it answered or raised, and keeps the sessions already played.

The agents are real user agents entered by reference (``tests/tournament/hostile_agents.py``); the command
runs as users run it, in a child process, with its worker processes spawned as in a real run."""

from __future__ import annotations

import csv
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from newmarket_env.eval.tournament import TournamentConfig, TournamentStopped, run_tournament

HOSTILE = "tests.tournament.hostile_agents:Hostile"
NEWMARKET = Path(sys.executable).parent / "newmarket"
REPOSITORY = Path(__file__).resolve().parents[2]
HANG_GUARD_S = 300  # only so a hung run fails instead of hanging CI; never an assertion on speed
#: The place of a decision in the line: the agent, its seat, the session and the decision.
WHO = (
    rf"agent '{re.escape(HOSTILE)}' \(seat (?P<seat>\d); block (?P<block>\d+), line-up (?P<lineup>\d+), "
    r"seating (?P<seating>\d+); its decision (?P<decision>\d+) of the session\)"
)
AFTER = 30  # decisions played properly first: a few sessions finish before the agent misbehaves
# Three blocks (12 sessions): ``after`` counts a worker process's decisions, and with two workers the sessions
# split between them as they finish; with 8 sessions (about 60 of the agent's decisions) a 4-4 split could
# leave both under AFTER and the run would end without the agent misbehaving. With 12, one side has at least 6.
BLOCKS = 3
SESSIONS = 4 * BLOCKS


def _config(answer: str, after: int = AFTER, **options) -> TournamentConfig:
    tag = uuid.uuid4().hex  # the agent counts its decisions apart from other tests' in this process
    return TournamentConfig(
        agents=(HOSTILE, "random", "random", "random"),
        blocks=2,
        resamples=20,
        agent_options={HOSTILE: {"answer": answer, "after": after, "tag": tag}},
        **options,
    )


# what each answer is, and the words that say why it is refused (the rule of env.step: an int of a legal action)
NOT_AN_ID = r"not an action id; allowed: a legal action id, an int \(here (?P<legal>[\d, ]+)\)"
NOT_LEGAL = r"not a legal action here; allowed: (?P<legal>[\d, ]+)"
ANSWERS = {
    "float": (lambda first: re.escape(f"{first + 0.9!r} (float)"), NOT_AN_ID),
    "whole_float": (lambda first: re.escape(f"{float(first)!r} (float)"), NOT_AN_ID),
    "string": (lambda first: re.escape(f"{str(first)!r} (str)"), NOT_AN_ID),
    "numpy_float": (lambda first: re.escape(f"np.float64({first + 0.5!r}) (float64)"), NOT_AN_ID),
    "bool": (lambda first: r"True \(bool\)", NOT_AN_ID),
    "none": (lambda first: r"None \(NoneType\)", NOT_AN_ID),
    "out_of_range": (lambda first: r"99 \(int\)", NOT_LEGAL),
    "negative": (lambda first: r"-1 \(int\)", NOT_LEGAL),
}


@pytest.fixture(scope="module")
def well_behaved():
    """The same tournament with the agent never misbehaving: the sessions a stopped run keeps must be these."""
    return run_tournament(_config("float", after=10**9)).games


@pytest.mark.parametrize("answer", list(ANSWERS))
def test_an_answer_that_is_not_a_legal_action_id_stops_the_run_naming_the_agent(answer, well_behaved):
    with pytest.raises(TournamentStopped) as stopped:
        run_tournament(_config(answer))
    message = str(stopped.value)
    shown, why = ANSWERS[answer]
    found = re.fullmatch(rf"{WHO} returned (?P<answer>.+?): {why}", message)
    assert found, message
    legal = [int(a) for a in found["legal"].split(", ")]
    assert re.fullmatch(shown(legal[0]), found["answer"]), message  # the answer as the agent gave it
    if why == NOT_LEGAL:
        assert int(found["answer"].split()[0]) not in legal
    _assert_kept_the_sessions_before(stopped.value, found, well_behaved)


@pytest.mark.parametrize(
    "answer, raised", [("exit", "SystemExit: 0"), ("error", "ZeroDivisionError: division by zero")]
)
def test_an_agent_that_raises_even_system_exit_stops_the_run_naming_it(answer, raised, well_behaved):
    with pytest.raises(TournamentStopped) as stopped:
        run_tournament(_config(answer))
    found = re.fullmatch(rf"{WHO} raised {re.escape(raised)}", str(stopped.value))
    assert found, str(stopped.value)
    _assert_kept_the_sessions_before(stopped.value, found, well_behaved)


def test_an_illegal_action_is_named_with_the_legal_ones():
    with pytest.raises(TournamentStopped) as stopped:
        run_tournament(_config("illegal"))
    found = re.fullmatch(rf"{WHO} returned (?P<answer>\d+) \(int\): {NOT_LEGAL}", str(stopped.value))
    assert found, str(stopped.value)
    legal = [int(a) for a in found["legal"].split(", ")]
    assert int(found["answer"]) == min(set(range(79)) - set(legal))


def _assert_kept_the_sessions_before(stopped: TournamentStopped, found: re.Match, well_behaved) -> None:
    """The sessions kept are those of the schedule before the failing one, as a well-behaved run plays them."""
    place = (int(found["block"]), int(found["lineup"]), int(found["seating"]))
    before = [g for g in well_behaved if g.key < place]
    assert before and len(stopped.games) == len(before)
    assert [(g.key, g.chips, g.decisions) for g in stopped.games] == [(g.key, g.chips, g.decisions) for g in before]


# -- the command: one line, exit 1, games.csv of the sessions played ---------------------------------------


def _tournament(tmp_path, answer: str, *options: str, after: int = AFTER):
    command = [str(NEWMARKET), "tournament", "--agents", f"{HOSTILE},random,random,random", "--blocks", str(BLOCKS)]
    command += ["--agent-option", f"{HOSTILE}:answer={answer}", "--agent-option", f"{HOSTILE}:after={after}"]
    command += ["--resamples", "20", "--quiet", "--out", str(tmp_path / "out"), *options]
    return subprocess.run(command, capture_output=True, text=True, timeout=HANG_GUARD_S, cwd=REPOSITORY)


def _kept(done, tmp_path, why: str) -> int:
    """The one error line is ``why``, then what was kept; games.csv holds exactly those sessions. Their number."""
    out = tmp_path / "out"
    lines = [line for line in done.stderr.splitlines() if f": note: only {BLOCKS} deal block(s)" not in line]
    assert done.returncode == 1 and len(lines) == 1, done.stderr
    kept_line = rf"; kept games\.csv with (?P<kept>\d+) of {SESSIONS} sessions in {re.escape(str(out))}"
    found = re.fullmatch(rf"newmarket tournament: error: {why}{kept_line}", lines[0])
    assert found, lines[0]
    with open(out / "games.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    kept = int(found["kept"])
    assert 1 <= kept < SESSIONS and len(rows) == 4 * kept  # whole sessions: one row per seat
    assert len({(r["block"], r["lineup"], r["seating"]) for r in rows}) == kept
    assert sorted(os.listdir(out)) == ["games.csv"] and not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    return kept


@pytest.mark.slow
@pytest.mark.parametrize(
    "answer, options, why",
    [
        ("float", ["--workers", "2"], rf"{WHO} returned \d+\.9 \(float\): {NOT_AN_ID}"),
        ("exit", ["--workers", "1"], rf"{WHO} raised SystemExit: 0"),
        # in this process (no timeout): a KeyboardInterrupt the agent raises is not a Ctrl-C
        ("interrupt", ["--workers", "1", "--decision-timeout", "0"], rf"{WHO} raised KeyboardInterrupt"),
        ("die", ["--workers", "2"], rf"{WHO} ended its worker process \(exit code 3\)"),
    ],
    ids=["float-2-workers", "system-exit-1-worker", "keyboard-interrupt-here", "os-exit-2-workers"],
)
def test_the_command_stops_in_one_line_and_keeps_the_sessions_played(tmp_path, answer, options, why):
    _kept(_tournament(tmp_path, answer, *options), tmp_path, why)


@pytest.mark.slow
@pytest.mark.parametrize("answer, workers", [("sleep", "1"), ("spin", "1"), ("sleep", "2"), ("spin", "2")])
def test_an_agent_that_never_answers_is_stopped_at_the_decision_timeout(tmp_path, answer, workers):
    done = _tournament(tmp_path, answer, "--workers", workers, "--decision-timeout", "1")
    why = rf"{WHO} did not answer within the decision timeout of 1 s; its worker process was stopped"
    _kept(done, tmp_path, why)


def test_a_bad_decision_timeout_is_refused_before_any_game(tmp_path):
    for value in ("-1", "nan", "inf"):
        done = _tournament(tmp_path, "float", "--decision-timeout", value)
        assert done.returncode == 2 and done.stderr == (
            f"newmarket tournament: error: --decision-timeout {float(value):g} is out of range; allowed: "
            "seconds > 0, or 0 for no limit\n"
        )
    assert not (tmp_path / "out").exists()
    with pytest.raises(ValueError, match=r"^decision_timeout=-2 is out of range; allowed: None \(no limit\)"):
        run_tournament(_config("float", decision_timeout=-2))


@pytest.mark.slow
def test_ctrl_c_during_an_agents_decision_is_still_an_interruption(tmp_path):
    """In this process an agent's own KeyboardInterrupt stops the run as the agent's failure; a real Ctrl-C
    (SIGINT) in the middle of an agent's decision is the person's: interrupted, nothing written."""
    out = tmp_path / "out"
    command = [str(NEWMARKET), "tournament", "--agents", f"{HOSTILE},random,random,random", "--blocks", "2"]
    marker = tmp_path / "sleeping"
    command += ["--agent-option", f"{HOSTILE}:answer=sleep", "--agent-option", f"{HOSTILE}:after={AFTER}"]
    command += ["--agent-option", f"{HOSTILE}:marker={marker}"]
    command += ["--workers", "1", "--decision-timeout", "0", "--quiet", "--out", str(out)]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, cwd=REPOSITORY)
    try:
        deadline = time.monotonic() + HANG_GUARD_S
        while not marker.exists():  # an ordering wait: until the agent is in its endless decision
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=HANG_GUARD_S)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130 and stderr.splitlines()[-1] == "interrupted; nothing written", stderr
    assert not out.exists()
