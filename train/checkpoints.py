"""Checkpoints for ``--resume``: written atomically, stamped with their run, checked before use.

Each checkpoint is ``checkpoints/ppo_<steps>_steps.zip`` (SB3's format, written to a temporary name and
renamed into place) with a sidecar ``ppo_<steps>_steps.json`` written after it: the run id, the step
count, the size and the SHA-256 of the zip. A checkpoint without a matching sidecar (killed while
saving, copied from another run, truncated later) is skipped with a message, and the previous good one
is used.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback

_NAME = re.compile(r"ppo_(\d+)_steps")


@dataclass
class Found:
    """The checkpoint to resume from (or None), and why newer ones were passed over."""

    path: Path | None
    steps: int = 0
    skipped: list[str] = field(default_factory=list)


def _digest(path: Path) -> str:
    sha = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()


def save_checkpoint(model: Any, folder: Path, run_id: str) -> Path:
    """Save ``model`` as the checkpoint of its current step count; returns the zip's path."""
    folder.mkdir(parents=True, exist_ok=True)
    steps = int(model.num_timesteps)
    path = folder / f"ppo_{steps}_steps.zip"
    handle, temporary = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".zip", dir=folder)
    os.close(handle)
    try:
        model.save(temporary)
        os.replace(temporary, path)
    finally:
        Path(temporary).unlink(missing_ok=True)
    stamp = {"run_id": run_id, "steps": steps, "bytes": path.stat().st_size, "sha256": _digest(path)}
    sidecar = path.with_suffix(".json")
    handle, temporary = tempfile.mkstemp(prefix=f".{sidecar.stem}.", suffix=".json", dir=folder)
    with os.fdopen(handle, "w") as out:
        json.dump(stamp, out)
    os.replace(temporary, sidecar)
    return path


def find_checkpoint(folder: Path, run_id: str) -> Found:
    """The newest intact checkpoint of run ``run_id`` in ``folder``."""
    candidates = []
    for path in folder.glob("ppo_*_steps.zip"):
        match = _NAME.fullmatch(path.stem)
        if match:
            candidates.append((int(match.group(1)), path))
    found = Found(None)
    for steps, path in sorted(candidates, reverse=True):
        problem = _problem(path, steps, run_id)
        if problem is None:
            found.path, found.steps = path, steps
            return found
        found.skipped.append(f"{path.name} {problem}")
    return found


def _problem(path: Path, steps: int, run_id: str) -> str | None:
    """Why the checkpoint cannot be used, or None."""
    try:
        stamp = json.loads(path.with_suffix(".json").read_text())
    except (OSError, ValueError):
        return "has no readable stamp (it was not finished, or is from an older version)"
    if not isinstance(stamp, dict) or stamp.get("run_id") != run_id or stamp.get("steps") != steps:
        return "belongs to another run"
    if path.stat().st_size != stamp.get("bytes") or _digest(path) != stamp.get("sha256"):
        return "is damaged (its size or checksum differs from when it was saved)"
    return None


class AtomicCheckpoints(BaseCallback):
    """Every ``every`` env steps, :func:`save_checkpoint` (SB3's CheckpointCallback writes in place)."""

    def __init__(self, every: int, folder: Path, run_id: str) -> None:
        super().__init__()
        self.every, self.folder, self.run_id = every, folder, run_id
        self.last = 0

    def _on_training_start(self) -> None:
        self.last = self.num_timesteps // self.every * self.every

    def _on_step(self) -> bool:
        if self.num_timesteps - self.last >= self.every:
            self.last = self.num_timesteps // self.every * self.every
            save_checkpoint(self.model, self.folder, self.run_id)
        return True
