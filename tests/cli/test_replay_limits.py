"""``newmarket replay`` of files that would cost without end to read: refused in one line, within limits.

The command runs as its own process so its peak memory (``ru_maxrss`` of that child) is its alone.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest

from newmarket_env import env
from newmarket_env.play.replay import MAX_RECORD_TEXT, load_session

HANG_GUARD_S = 120  # only so a broken reader fails instead of hanging; never an assertion on speed
PEAK_MB = 300  # the interpreter and the engine are about 70 MB; unpacking 1 GiB whole peaked at 2 GB


def replay(*args: str, tmp: Path) -> tuple[subprocess.CompletedProcess, float]:
    """``newmarket replay ARGS`` in a child; its result and its own peak memory in MB (``wait4``'s rusage
    is that child's alone, whatever other children this test process had)."""
    out, err = tmp / "stdout", tmp / "stderr"
    with open(out, "w") as stdout, open(err, "w") as stderr:
        child = subprocess.Popen(
            [sys.executable, "-m", "newmarket_env.cli", "replay", *args], stdout=stdout, stderr=stderr
        )
        deadline = time.monotonic() + HANG_GUARD_S
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                child.kill()
                pytest.fail("newmarket replay did not end")
            time.sleep(0.05)
    child.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait for it again
    done = subprocess.CompletedProcess(child.args, child.returncode, out.read_text(), err.read_text())
    return done, usage.ru_maxrss / 1024


def gzip_of(piece: bytes, times: int) -> bytes:
    pack = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return b"".join(pack.compress(piece) for _ in range(times)) + pack.flush()


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_replay_of_an_endless_file_stops_at_the_limit(tmp_path):
    done, peak = replay("/dev/zero", tmp=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"newmarket replay: error: /dev/zero holds a line longer than {MAX_RECORD_TEXT} bytes, the limit"
    ]
    assert peak < PEAK_MB, peak


def test_replay_of_a_gzip_bomb_is_refused_without_unpacking_it(tmp_path):
    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(gzip_of(b" " * 2**20, 2**10))  # 1 GiB of spaces in about 1 MB
    done, peak = replay(str(bomb), tmp=tmp_path)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert "holds a line longer than" in done.stderr and "the limit" in done.stderr
    assert peak < PEAK_MB, peak


def test_a_records_file_is_read_one_record_at_a_time(tmp_path):
    """Many records, gzipped in several members (files appended to): the one picked comes back whole."""
    records = []
    for seed in range(3):
        e = env(variant="michigan", num_deals=1)
        e.reset(seed=seed)
        game, rng = e.unwrapped.game, random.Random(seed)
        while not game.over:
            e.step(rng.choice(game.legal))
        records.append(e.unwrapped.record())
    path = tmp_path / "records.jsonl.gz"
    path.write_bytes(b"".join(gzip.compress((json.dumps(r) + "\n").encode()) for r in records))
    for game, expected in enumerate(records, start=1):
        assert load_session(str(path), game)[0] == expected
    path.write_bytes(path.read_bytes()[:-20])
    with pytest.raises(ValueError, match="the gzip data is cut short"):
        load_session(str(path), 1)
