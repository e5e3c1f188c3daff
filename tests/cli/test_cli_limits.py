"""Options that would never end, measure first and fail after, or grow without bound: refused in
one line before any work; a tournament told to stop (SIGTERM) stops its workers and says so once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

HANG_GUARD_S = 120  # only so a broken check fails instead of hanging; never an assertion on speed


def newmarket(*args: str, **options) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "newmarket_env.cli", *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        **options,
    )


@pytest.mark.parametrize("delay", ["nan", "inf", "-1", "61"])
def test_watch_delay_must_be_a_finite_number_of_seconds(delay):
    done = newmarket("watch", "--delay", delay)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"newmarket watch: error: --delay {float(delay)} is out of range; allowed: 0..60 seconds"
    ]


@pytest.mark.parametrize("seconds", ["nan", "inf"])
def test_bench_seconds_must_be_finite(seconds):
    done = newmarket("bench", "--seconds", seconds)
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and f"argument --seconds: {seconds} is not a finite number" in lines[0], lines


@pytest.mark.parametrize("option", ["--json", "--markdown"])
def test_bench_output_that_cannot_be_written_is_refused_before_measuring(option, tmp_path):
    for path, words in [
        ("/proc/nosuch/results.json", "the folder /proc/nosuch does not exist"),
        (str(tmp_path), "it is a folder; give a file name"),
    ]:
        done = newmarket("bench", "--seconds", "0.01", "--repeats", "1", option, path)
        assert done.returncode == 2, done.stderr
        lines = done.stderr.splitlines()
        assert len(lines) == 1 and f"{option} {path}: {words}" in lines[0], lines  # no "measuring ..." first


def test_tournament_blocks_are_bounded():
    done = newmarket("tournament", "--blocks", str(10**12), "--quiet")
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"newmarket tournament: error: blocks={10**12} is out of range; allowed: an int 1..100000"
    ]


def _children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads the worker processes from /proc")
@pytest.mark.parametrize("whole_group", [False, True], ids=["the main process", "the process group"])
def test_sigterm_to_a_two_worker_tournament_stops_it_in_one_line(tmp_path, whole_group):
    out = tmp_path / "results"
    command = [sys.executable, "-m", "newmarket_env.cli", "tournament", "--agents", "random,random,random,random"]
    process = subprocess.Popen(
        [*command, "--workers", "2", "--blocks", "20000", "--out", str(out), "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        waited = 0.0
        while True:  # an ordering wait: until both workers have played for a while (CPU seconds, not time)
            workers = [c for c in _children(process.pid) if "spawn_main" in Path(f"/proc/{c}/cmdline").read_text()]
            if len(workers) == 2 and all(_cpu_seconds(w) > 3 for w in workers):
                break
            assert process.poll() is None and waited < HANG_GUARD_S, process.communicate()
            time.sleep(0.2)
            waited += 0.2
        if whole_group:
            os.killpg(process.pid, signal.SIGTERM)
        else:
            process.send_signal(signal.SIGTERM)
        _stdout, stderr = process.communicate(timeout=HANG_GUARD_S)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 143, stderr
    assert stderr.splitlines() == ["terminated (SIGTERM); nothing written"]
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(".results")]
    for worker in workers:  # the workers went with it
        assert not Path(f"/proc/{worker}").exists() or "Z" in Path(f"/proc/{worker}/stat").read_text().split()[2]
