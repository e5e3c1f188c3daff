"""``newmarket replay`` of files that would cost without end to read: refused in one line, within limits.

The command runs as its own process so its peak memory (``ru_maxrss`` of the child) is its alone.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import subprocess
import sys
import tempfile
import zlib

import pytest

from newmarket_env import env
from newmarket_env.records import MAX_RECORD_TEXT, load_session

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="reads the peak from /proc (Linux)")

HANG_GUARD_S = 120  # only so a broken reader fails instead of hanging; never an assertion on speed
PEAK_MB = 300  # the interpreter and the engine are about 70 MB; unpacking 1 GiB whole peaked at 2 GB


# The child reports its own high-water mark (VmHWM of its process image): the rusage a parent gets counts
# the parent's own pages at fork time (with vfork, its whole size), whatever the command itself used.
CHILD = """
import sys
from newmarket_env.cli import main
try:
    code = main(sys.argv[2:])
finally:
    with open("/proc/self/status") as status:
        peak = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    with open(sys.argv[1], "w") as out:
        out.write(peak)
sys.exit(code)
"""


def replay(*args: str) -> tuple[subprocess.CompletedProcess, float]:
    """``newmarket replay ARGS`` in a child; its result and that child's own peak memory (MB)."""
    with tempfile.TemporaryDirectory() as folder:
        peak_file = os.path.join(folder, "peak")
        done = subprocess.run(
            [sys.executable, "-c", CHILD, peak_file, "replay", *args],
            capture_output=True,
            text=True,
            timeout=HANG_GUARD_S,
        )
        with open(peak_file) as kb:
            return done, int(kb.read()) / 1024


def gzip_of(piece: bytes, times: int) -> bytes:
    pack = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    return b"".join(pack.compress(piece) for _ in range(times)) + pack.flush()


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_replay_of_an_endless_file_stops_at_the_limit():
    done, peak = replay("/dev/zero")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"newmarket replay: error: /dev/zero holds a line longer than {MAX_RECORD_TEXT} bytes, the limit"
    ]
    assert peak < PEAK_MB, peak


def test_replay_of_a_gzip_bomb_is_refused_without_unpacking_it(tmp_path):
    bomb = tmp_path / "bomb.json.gz"
    bomb.write_bytes(gzip_of(b" " * 2**20, 2**10))  # 1 GiB of spaces in about 1 MB
    done, peak = replay(str(bomb))
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
