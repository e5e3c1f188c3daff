"""``newmarket bench | cat``: the tables keep every name whole when the output is not a terminal."""

import subprocess
import sys

from newmarket_env.eval.bench.report import print_report
from newmarket_env.eval.bench.suite import BenchConfig, BenchResult
from newmarket_env.eval.bench.timing import Measurement

LONG = "AEC env (compiled engine), newmarket 4 players, flat observation, every seat masked"


def test_a_piped_report_cuts_no_name(capsys):
    result = BenchResult(
        BenchConfig(),
        rows=[Measurement(LONG, "aec", 123456.0, 4567.0, 27.0)],
        notes=["a note long enough to be wrapped at eighty columns, which a pipe never needs, so it stays on one line"],
    )
    print_report(result)  # capsys: stdout is not a terminal
    out = capsys.readouterr().out
    assert LONG in out and "123,456" in out and "…" not in out
    assert "so it stays on one line" in next(line for line in out.splitlines() if line.startswith("note:"))


def test_the_command_through_a_pipe_keeps_the_workload_names():
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "newmarket_env",
            "bench",
            "--repeats",
            "1",
            "--seconds",
            "0.05",
            "--presets",
            "newmarket",
            "--peers",
            "--no-planes",
            "--no-extras",
            "--memory-envs",
            "0",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "…" not in done.stdout
    assert "engine newmarket python" in done.stdout
