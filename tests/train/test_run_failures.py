"""A run that cannot write, a config that cannot be read, an empty run folder: one line each, and
nothing lost (the newest intact checkpoint stays where it was, no temporary file is left behind).

A full disk is a real write that fails: the run goes on in a child process whose files may not
grow past a size (``RLIMIT_FSIZE``; writes past it fail with ``EFBIG`` as a full disk fails with
``ENOSPC``), smaller than a checkpoint.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import subprocess
import sys

import pytest

from newmarket_env.train.cli import PROG, main
from newmarket_env.train.ppo.method import METHOD as PPO
from tests.full_disk import FULL, run_on_full_disk
from tests.train.tiny_run import FAST, HANG_GUARD_S, TINY

pytest.importorskip("sb3_contrib")


def _error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    return err.strip()


@pytest.mark.slow
def test_a_full_disk_stops_the_run_in_one_line_and_keeps_the_newest_checkpoint(tmp_path):
    out = tmp_path / "run"
    assert main([str(TINY), "--out-dir", str(out), *FAST, "--set", "eval.every=0"]) == 0
    run_id = json.loads((out / "run.json").read_text())["run_id"]
    newest = PPO.find_checkpoint(out / "checkpoints", run_id)
    kept = newest.path.read_bytes()
    limit = min(p.stat().st_size for p in (out / "checkpoints").glob("*.zip")) - 1

    def small_files() -> None:  # in the child only: every file it writes stays under a checkpoint's size
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    command = [sys.executable, "-m", "newmarket_env.train", str(TINY), "--out-dir", str(out), *FAST]
    done = subprocess.run(
        [*command, "--set", "eval.every=0", "--resume", "--total-steps", str(newest.steps + 256)],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
        preexec_fn=small_files,
    )
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1, done.stderr
    assert lines[0].startswith(f"{PROG}: error: stopped: cannot write in run.out_dir {str(out)!r}")
    assert lines[0].endswith(f"the newest intact checkpoint is {newest.path}; make room, then --resume")
    assert "File too large" in lines[0]
    # The checkpoint a resume would use is the one that was there, whole; no half-written file is left.
    again = PPO.find_checkpoint(out / "checkpoints", run_id)
    assert again.path == newest.path and again.path.read_bytes() == kept
    assert not [p.name for p in out.rglob(".*") if p.is_file()]


def test_a_config_that_cannot_be_read_is_one_line(tmp_path, capsys):
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"name: x\n\xff\xfe\x00")
    folder = tmp_path / "folder.yaml"
    folder.mkdir()
    cases = [
        (binary, f"config file {str(binary)!r} is not UTF-8 text (invalid start byte at byte 8)"),
        (folder, f"config file {str(folder)!r} cannot be read (Is a directory)"),
    ]
    if os.getuid() != 0:  # root reads a file whatever its mode
        locked = tmp_path / "locked.yaml"
        shutil.copyfile(TINY, locked)
        locked.chmod(0)
        cases.append((locked, f"config file {str(locked)!r} cannot be read (Permission denied)"))
    for path, message in cases:
        assert main([str(path)]) == 2
        assert _error_line(capsys) == f"{PROG}: error: {message}"


@pytest.mark.parametrize("value", ["''", "' '"])
def test_an_empty_run_folder_is_refused(tmp_path, capsys, monkeypatch, value):
    monkeypatch.chdir(tmp_path)
    assert main([str(TINY), "--set", f"run.out_dir={value}", "--no-progress"]) == 2
    assert (
        _error_line(capsys) == f"{PROG}: error: run.out_dir is empty; allowed: a folder path, e.g. runs/newmarket_ppo"
    )
    assert list(tmp_path.iterdir()) == []


def test_a_curve_that_cannot_be_written_leaves_no_temporary(tmp_path):
    from newmarket_env.train.plot import plot_curve

    csv = tmp_path / "eval.csv"
    csv.write_text("steps,opponent,mean,ci95,boards\n128,random,0.5,0.1,4\n256,random,0.7,0.1,4\n")
    target = tmp_path / "learning_curve.png"
    target.mkdir()  # a folder where the picture should go: the rename into place fails
    with pytest.raises(OSError):
        plot_curve(csv, target, title="t")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["eval.csv", "learning_curve.png"]


@pytest.mark.slow
def test_a_disk_full_before_the_run_starts_is_one_line_and_leaves_no_half_written_file(tmp_path):
    """The disk fills as the run folder is claimed (its lock, config.yaml, run.json): one line, exit 1."""
    disk = tmp_path / "disk"
    out = disk / "run"
    command = [sys.executable, "-m", "newmarket_env.train", str(TINY), "--out-dir", str(out), *FAST]
    done = run_on_full_disk(command, disk, 200, HANG_GUARD_S)  # the lock fits (a tmpfs holds one page of it)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1, done.stderr
    found = re.fullmatch(
        rf"{re.escape(PROG)}: error: stopped: cannot write in run\.out_dir {re.escape(repr(str(out)))}"
        r"(?: \(.+\))?: (?P<why>.+); no checkpoint was written yet; make room, then start again",
        lines[0],
    )
    assert found and found["why"] in FULL, lines[0]
    assert not [p.name for p in out.iterdir() if p.name != "run.lock"]  # no config.yaml, run.json nor temporary
