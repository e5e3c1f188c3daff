"""Stamped checkpoint files: written atomically, stamped with their run, found again newest first.

Every checkpoint of a run (PPO's ``ppo_<steps>_steps.zip``, expert iteration's ``exit_<steps>_steps.pt``,
RLlib's folder ``rllib_<steps>_steps``) is written to a temporary name and renamed into place, then
stamped with a sidecar ``.json`` written after it: the run id, the step count, the size and the SHA-256
of the file (of a folder: of its files' names and contents). :func:`find_stamped` returns the newest one
whose stamp matches; the others are passed over with the reason. The formats themselves (SB3 zips,
torch tensors, RLlib folders) are each method's (:mod:`newmarket_env.train.ppo.checkpoints`,
:mod:`newmarket_env.train.torch_state`, :mod:`newmarket_env.train.rllib_ppo.method`); the run loop writes
them all through :func:`write_stamped` and a method finds them with :func:`find_stamped`.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path


class CheckpointError(ValueError):
    """A checkpoint that cannot be read back (as weights); one line."""


@dataclass
class Found:
    """The checkpoint to resume from (or None), and why newer ones were passed over."""

    path: Path | None
    steps: int = 0
    skipped: list[str] = field(default_factory=list)


def digest(path: Path) -> str:
    """The SHA-256 of a file, read in blocks; of a folder (an RLlib checkpoint), of its files' names and contents."""
    sha = hashlib.sha256()
    for name, file in _files(path):
        if path.is_dir():  # a file's digest is of its bytes alone, as stamps written before folders were
            sha.update(name.encode() + b"\0")
        with open(file, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                sha.update(block)
    return sha.hexdigest()


def size(path: Path) -> int:
    """The bytes of a file, or of every file in a folder."""
    return sum(file.stat().st_size for _, file in _files(path))


def _files(path: Path) -> list[tuple[str, Path]]:
    """``(name, file)`` of a file (name ''), or of each file under a folder (names relative to it, sorted)."""
    if not path.is_dir():
        return [("", path)]
    return sorted((file.relative_to(path).as_posix(), file) for file in path.rglob("*") if file.is_file())


def stamped_path(folder: Path, prefix: str, steps: int, suffix: str) -> Path:
    """``folder/<prefix>_<steps>_steps<suffix>``: the name every checkpoint has."""
    return folder / f"{prefix}_{steps}_steps{suffix}"


def write_stamped(path: Path, run_id: str, steps: int, write: Callable[[str], None], folder: bool = False) -> Path:
    """``write(temporary)`` then rename it to ``path``, then stamp it with its sidecar; returns ``path``.

    With ``folder``, ``temporary`` is an empty folder to write into (the checkpoint is a folder).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    if folder:
        temporary = tempfile.mkdtemp(prefix=f".{path.name}.", dir=path.parent)
        try:
            write(temporary)
            shutil.rmtree(path, ignore_errors=True)  # a folder of the same steps that was never stamped
            os.replace(temporary, path)
        finally:
            shutil.rmtree(temporary, ignore_errors=True)
    else:
        handle, temporary = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=path.suffix, dir=path.parent)
        os.close(handle)
        try:
            write(temporary)
            os.replace(temporary, path)
        finally:
            Path(temporary).unlink(missing_ok=True)
    stamp = {"run_id": run_id, "steps": steps, "bytes": size(path), "sha256": digest(path)}
    sidecar = path.with_suffix(".json")
    handle, temporary = tempfile.mkstemp(prefix=f".{sidecar.stem}.", suffix=".json", dir=path.parent)
    with os.fdopen(handle, "w") as out:
        json.dump(stamp, out)
    os.replace(temporary, sidecar)
    return path


def stamp_problem(path: Path, steps: int, run_id: str) -> str | None:
    """Why the checkpoint cannot be used, or None."""
    try:
        stamp = json.loads(path.with_suffix(".json").read_text())
    except (OSError, ValueError):
        return "has no readable stamp (it was not finished, or is from an older version)"
    if not isinstance(stamp, dict) or stamp.get("run_id") != run_id or stamp.get("steps") != steps:
        return "belongs to another run"
    if path.stat().st_uid != os.getuid():
        return f"belongs to another user (uid {path.stat().st_uid})"
    if size(path) != stamp.get("bytes") or digest(path) != stamp.get("sha256"):
        return "is damaged (its size or checksum differs from when it was saved)"
    return None


def stamped_steps(folder: Path, prefix: str, suffix: str) -> list[tuple[int, Path]]:
    """``(steps, path)`` of every ``<prefix>_<steps>_steps<suffix>`` in ``folder``, stamped or not, oldest first."""
    name = re.compile(rf"{re.escape(prefix)}_(\d+)_steps")
    found = ((name.fullmatch(path.stem), path) for path in folder.glob(f"{prefix}_*_steps{suffix}"))
    return sorted((int(match.group(1)), path) for match, path in found if match)


def find_stamped(folder: Path, prefix: str, suffix: str, run_id: str) -> Found:
    """The newest intact ``<prefix>_<steps>_steps<suffix>`` of run ``run_id`` in ``folder`` (skipped ones say why)."""
    found = Found(None)
    for steps, path in reversed(stamped_steps(folder, prefix, suffix)):
        problem = stamp_problem(path, steps, run_id)
        if problem is None:
            found.path, found.steps = path, steps
            return found
        found.skipped.append(f"{path.name} {problem}")
    return found


__all__ = [
    "CheckpointError",
    "Found",
    "digest",
    "size",
    "find_stamped",
    "stamp_problem",
    "stamped_path",
    "stamped_steps",
    "write_stamped",
]
