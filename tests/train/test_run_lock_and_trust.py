"""One process per run folder, and what ``--resume`` trusts in a run folder.

Real tiny trainings (configs/tiny_test.yaml): a run still training in another process, one killed
with SIGKILL (its lock is stale), checkpoints made to run code when unpickled, folders other users
could write.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import pickle
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from newmarket_env.train import rundir
from newmarket_env.train.cli import PROG
from newmarket_env.train.runlock import LOCK_FILE, RunLock
from tests.train.tiny_run import FAST, HANG_GUARD_S, TINY, train_tiny

pytest.importorskip("sb3_contrib")

pytestmark = pytest.mark.slow


def _error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    return err.strip()


# -- one process per run folder -------------------------------------------------------------------


def test_a_folder_in_use_is_refused_to_resume_and_overwrite_then_taken_over_once_its_owner_is_killed(tmp_path, capsys):
    out = tmp_path / "live"
    command = [sys.executable, "-m", "newmarket_env.train", str(TINY), "--out-dir", str(out), *FAST]
    process = subprocess.Popen(
        [*command, "--total-steps", "100000", "--set", "eval.every=0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        waited = 0.0
        while not list((out / "checkpoints").glob("ppo_*_steps.json")):  # an ordering wait, not a speed check
            assert process.poll() is None and waited < HANG_GUARD_S
            time.sleep(0.1)
            waited += 0.1
        owner = json.loads((out / LOCK_FILE).read_text())
        assert owner["pid"] == process.pid
        for extra in (["--resume"], ["--overwrite"]):
            kept = {name: (out / name).read_bytes() for name in ("run.json", "config.yaml")}
            rows = len((out / "progress.csv").read_text().splitlines())
            assert train_tiny(out, "--total-steps", "100000", "--set", "eval.every=0", *extra) == 2
            line = _error_line(capsys)
            assert line.startswith(f"{PROG}: error: run.out_dir {str(out)!r} is in use by process {process.pid}")
            assert "wait for it to end" in line
            assert {name: (out / name).read_bytes() for name in kept} == kept  # nothing deleted or rewritten
            assert len((out / "progress.csv").read_text().splitlines()) >= rows  # the live run's log only grows
        assert process.poll() is None  # and the run trains on
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
    # Its lock is stale now: a resume takes it over, says so, and continues the run.
    newest = max(json.loads(p.read_text())["steps"] for p in (out / "checkpoints").glob("ppo_*_steps.json"))
    assert train_tiny(out, "--resume", "--total-steps", str(newest)) == 0
    said = capsys.readouterr().out
    assert f"took over the lock of process {process.pid}, which is no longer running" in said
    assert (out / LOCK_FILE).read_text() == ""  # released at the end


def test_a_lock_is_one_process_s_until_released(tmp_path):
    first = RunLock(tmp_path).acquire()
    with pytest.raises(ValueError, match=rf"is in use by process {os.getpid()}, running since "):
        RunLock(tmp_path).acquire()
    first.release()
    with RunLock(tmp_path) as second:
        assert second.held and second.stale is None  # a released lock is not stale
    assert (tmp_path / LOCK_FILE).read_text() == ""


def test_overwrite_deletes_only_the_files_a_run_wrote(run, capsys):
    (run / "checkpoints" / "my_notes.txt").write_text("mine")
    (run / "snapshots" / "keep.npz").write_text("mine")
    (run / ".learning_curve.png.tmp.png").write_text("a killed run's temporary")
    (run / "notes.txt").write_text("mine")
    assert train_tiny(run, "--overwrite", "--total-steps", "128") == 0
    assert (run / "checkpoints" / "my_notes.txt").read_text() == "mine"
    assert (run / "snapshots" / "keep.npz").read_text() == "mine"
    assert (run / "notes.txt").read_text() == "mine"
    assert not (run / ".learning_curve.png.tmp.png").exists()
    kept = sorted(p.name for p in (run / "checkpoints").glob("ppo_*"))
    assert kept == ["ppo_128_steps.json", "ppo_128_steps.rules.json", "ppo_128_steps.zip"]


# -- what --resume trusts ---------------------------------------------------------------------------


class _Touch:
    """Unpickling this creates ``path``: the proof that a loader ran code from a file."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __reduce__(self):
        return (open, (str(self.path), "w"))


def _newest(run: Path) -> Path:
    return max((run / "checkpoints").glob("ppo_*_steps.zip"), key=lambda p: int(p.stem.split("_")[1]))


def _rewrite(checkpoint: Path, member: str, data: bytes) -> None:
    """Replace one member of the zip and stamp it again, as anyone who can write the folder could."""
    with zipfile.ZipFile(checkpoint) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    members[member] = data
    with zipfile.ZipFile(checkpoint, "w") as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    stamp_path = checkpoint.with_suffix(".json")
    stamp = json.loads(stamp_path.read_text())
    stamp.update(bytes=checkpoint.stat().st_size, sha256=hashlib.sha256(checkpoint.read_bytes()).hexdigest())
    stamp_path.write_text(json.dumps(stamp))


def test_resume_never_unpickles_the_objects_in_an_sb3_zip(run, tmp_path):
    marker = tmp_path / "code-ran"
    checkpoint = _newest(run)
    with zipfile.ZipFile(checkpoint) as archive:
        data = json.loads(archive.read("data"))
    payload = base64.b64encode(pickle.dumps(_Touch(marker))).decode()
    for key in ("observation_space", "action_space", "lr_schedule", "policy_class"):
        data[key] = {":type:": "<class 'object'>", ":serialized:": payload}
    _rewrite(checkpoint, "data", json.dumps(data).encode())
    steps = int(checkpoint.stem.split("_")[1])
    assert train_tiny(run, "--resume", "--total-steps", str(steps)) == 0
    assert not marker.exists()


def test_a_checkpoint_whose_weights_are_not_plain_tensors_is_refused_in_one_line(run, tmp_path, capsys):
    marker = tmp_path / "code-ran"
    checkpoint = _newest(run)
    _rewrite(checkpoint, "policy.pth", pickle.dumps(_Touch(marker)))
    steps = int(checkpoint.stem.split("_")[1])
    assert train_tiny(run, "--resume", "--total-steps", str(steps)) == 2
    line = _error_line(capsys)
    assert f"--resume: {checkpoint} cannot be loaded as weights" in line and "start a new run" in line
    assert not marker.exists()


def test_a_run_folder_others_can_write_is_not_resumed(run, capsys):
    (run / "checkpoints").chmod(0o777)
    assert train_tiny(run, "--resume") == 2
    line = _error_line(capsys)
    assert f"--resume: {run / 'checkpoints'} is writable by every user" in line and "chmod o-w" in line


@pytest.mark.skipif(os.getuid() != 0, reason="giving a folder to another user needs root")
def test_a_run_folder_of_another_user_is_not_resumed(run, capsys):
    os.chown(run, 65534, 65534)
    assert train_tiny(run, "--resume") == 2
    assert f"--resume: {run} belongs to another user (uid 65534)" in _error_line(capsys)


@pytest.mark.skipif(os.getuid() != 0, reason="giving a file to another user needs root")
def test_a_checkpoint_file_of_another_user_is_passed_over(run, capsys):
    newest = _newest(run)
    os.chown(newest, 65534, 65534)
    steps = int(newest.stem.split("_")[1])
    assert train_tiny(run, "--resume", "--total-steps", str(steps)) == 0
    assert f"--resume: skipped {newest.name} belongs to another user (uid 65534)" in capsys.readouterr().out


def test_previous_outputs_include_a_killed_run_s_temporaries(tmp_path):
    (tmp_path / ".config.yaml.abc.tmp").write_text("half")
    assert rundir.previous_outputs(tmp_path) == [".config.yaml.abc.tmp"]


def test_a_run_whose_config_lacks_keys_added_since_resumes_at_their_defaults_only(run, capsys):
    """A run begun before a key existed (its config.yaml lacks ``ppo.features``, the ``network`` section and
    PPO's ``privileged`` section) resumes while the config keeps them at their defaults, and is refused in one
    line naming the key when the config sets one otherwise."""
    import yaml

    config_file = run / "config.yaml"
    written = yaml.safe_load(config_file.read_text())
    del written["ppo"]["features"], written["network"], written["privileged"]
    config_file.write_text(yaml.safe_dump(written))
    assert train_tiny(run, "--resume", "--total-steps", "384") == 0
    capsys.readouterr()
    config_file.write_text(yaml.safe_dump(written))
    planes = ("--set", "ppo.features=planes", "--set", "ppo.activation=relu")
    assert train_tiny(run, "--resume", "--total-steps", "512", *planes) == 2
    err = capsys.readouterr().err
    assert "ppo.features (run 'flat', now 'planes')" in err and len(err.strip().splitlines()) == 1
