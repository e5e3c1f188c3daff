"""One training run from a config: the run folder checked, then the method's run loop.

:func:`prepare_run` checks everything about the folder (ownership, a config that continues the run, a
usable checkpoint of the run's method, the device) before anything is written; :func:`train` then runs
the shared loop (:mod:`newmarket_env.train.loop`) with the config's method
(:mod:`newmarket_env.train.methods`).

Outputs in ``run.out_dir``, for every method: ``run.json`` (whose run the folder is) and ``config.yaml``
(as validated), ``progress.csv``, ``eval.csv`` and ``learning_curve.png``, ``checkpoints/`` (for
``--resume``), ``final.npz`` + ``final.json`` (the saved agent) and ``final_eval.json``; each method
adds its own (PPO's TensorBoard files and ``snapshots/``, expert iteration's ``labels/``, ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from newmarket_env.train.config import TrainConfig
from newmarket_env.train.loop import run_method
from newmarket_env.train.methods import get_method
from newmarket_env.train.rundir import (
    RUN_FILE,
    check_checkpoint_folder,
    check_writable,
    record_resume,
    start_fresh,
    start_resume,
)
from newmarket_env.train.runlock import RunLock


@dataclass
class RunStart:
    """A checked start: the folder's run, and for ``--resume`` the checkpoint to continue from."""

    out_dir: Path
    run: dict[str, Any]
    checkpoint: Path | None = None
    steps: int = 0
    skipped: list[str] = field(default_factory=list)  # newer checkpoints passed over, and why
    lock: RunLock | None = None  # the folder's lock, held until the run ends (released by train)
    device: str = "cpu"  # run.device resolved: where torch computes


def prepare_run(config: TrainConfig, resume: bool = False, overwrite: bool = False) -> RunStart:
    """Check the run folder for this run; ``ValueError`` (one line) before anything is written.

    A fresh run claims the folder (``--overwrite`` replaces a previous run in it); ``--resume``
    continues only the folder's own run, with the same config, from its newest intact checkpoint.
    """
    from newmarket_env.train.networks import resolve_device  # optional: needs torch (train extra)

    device = resolve_device(config.run.device)
    out_dir = Path(config.run.out_dir)
    if resume and not (out_dir / RUN_FILE).is_file():
        start_resume(out_dir, config.to_dict())  # says the folder holds no run, before any file is made there
    if not resume:
        check_writable(out_dir)
    lock = RunLock(out_dir).acquire()  # one process per run folder, from here to the end of the run
    try:
        if not resume:
            return RunStart(out_dir, start_fresh(out_dir, config.to_dict(), overwrite), lock=lock, device=device)
        run = start_resume(out_dir, config.to_dict())
        check_checkpoint_folder(out_dir)
        found = get_method(config.method).find_checkpoint(out_dir / "checkpoints", run["run_id"])
        if found.path is None:
            why = f" ({'; '.join(found.skipped)})" if found.skipped else ""
            raise ValueError(
                f"--resume: no usable checkpoint of this run in {out_dir / 'checkpoints'}{why}; start without --resume"
            )
        record_resume(out_dir, run, config.to_dict(), found.steps)
        return RunStart(out_dir, run, found.path, found.steps, found.skipped, lock, device)
    except BaseException:
        lock.release()
        raise


def train(
    config: TrainConfig, resume: bool = False, command: str = "", overwrite: bool = False, start: RunStart | None = None
) -> Path:
    """Train as configured; return the path of the final saved agent.

    ``start`` is what :func:`prepare_run` checked (made here when not given). A resumed run continues
    the method's state, its step count and its logs from the checkpoint (docs/guide/training.md).
    """
    start = start or prepare_run(config, resume, overwrite)
    try:
        stale = start.lock.stale if start.lock is not None else None
        if stale:
            print(f"run.out_dir: took over the lock of process {stale.get('pid')}, which is no longer running")
        return run_method(config, start, command, start.device)
    finally:
        if start.lock is not None:
            start.lock.release()
