"""A disk that fills during a tournament or while its files are written: one line naming what could not be
written and what was kept (whole files only: games.csv of the sessions played, the results files written
before), exit 1, no traceback. The disk is a real one that fills (tests/full_disk.py)."""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

import pytest

from tests.full_disk import FULL, run_on_full_disk

NEWMARKET = Path(sys.executable).parent / "newmarket"
HANG_GUARD_S = 300  # only so a hung run fails instead of hanging CI; never an assertion on speed
NOTE = ": note: only"  # the small-run note, said before the games


def _tournament(disk: Path, blocks: int, size: int, *options: str):
    command = [str(NEWMARKET), "tournament", "--agents", "random,random,random,random", "--blocks", str(blocks)]
    command += ["--resamples", "20", "--quiet", "--out", str(disk / "out"), *options]
    return run_on_full_disk(command, disk, size, HANG_GUARD_S)


def _error_line(done) -> str:
    lines = [line for line in done.stderr.splitlines() if NOTE not in line]
    assert done.returncode == 1 and len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


def _sessions(path: Path) -> int:
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    sessions = {(r["block"], r["lineup"], r["seating"]) for r in rows}
    assert len(rows) == 4 * len(sessions)  # whole sessions only: one row per seat
    return len(sessions)


@pytest.mark.slow
def test_a_disk_full_after_the_games_keeps_games_csv_whole_and_names_it(tmp_path):
    disk = tmp_path / "disk"
    # 8 sessions: games.csv (2.4 kB) fits, results.json (10 kB) does not
    line = _error_line(_tournament(disk, 2, 8192))
    out = disk / "out"
    found = re.fullmatch(
        rf"newmarket tournament: error: cannot write results\.json in {re.escape(str(out))}: (?P<why>.+); "
        rf"kept games\.csv \(8 sessions\) in {re.escape(str(out))}",
        line,
    )
    assert found and found["why"] in FULL, line
    assert sorted(p.name for p in out.iterdir()) == ["games.csv"] and _sessions(out / "games.csv") == 8
    assert [p.name for p in disk.iterdir()] == ["out"]  # no staging folder, no half-written file


@pytest.mark.slow
@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_disk_full_during_the_games_stops_and_keeps_the_sessions_written(tmp_path, workers):
    disk = tmp_path / "disk"
    # 16 sessions: games.csv would be 4.7 kB, the disk takes 4 kB of it
    line = _error_line(_tournament(disk, 4, 4096, "--workers", workers))
    out = disk / "out"
    found = re.fullmatch(
        rf"newmarket tournament: error: cannot write games\.csv in {re.escape(str(out))}: (?P<why>.+); "
        rf"kept games\.csv with (?P<kept>\d+) of 16 sessions in {re.escape(str(out))}",
        line,
    )
    assert found and found["why"] in FULL, line
    assert 1 <= int(found["kept"]) < 16
    assert sorted(p.name for p in out.iterdir()) == ["games.csv"]
    assert _sessions(out / "games.csv") == int(found["kept"])
