"""Expert-iteration checkpoints: the network and optimiser after each iteration, as PPO's are kept.

``checkpoints/exit_<steps>_steps.pt`` (``steps``: labelled decisions so far; torch tensors only,
read back with ``weights_only=True``) is written to a temporary name and renamed, then stamped
with a sidecar ``.json`` (run id, steps, size, SHA-256) by the same rules as
:mod:`newmarket_env.train.checkpoints`, whose checks decide whether one can be resumed from.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import torch

from newmarket_env.train.checkpoints import Found, _digest, _problem

_NAME = re.compile(r"exit_(\d+)_steps")


def save_state(folder: Path, run_id: str, steps: int, state: dict[str, Any]) -> Path:
    """Write ``state`` (tensors, numbers, lists) as the checkpoint of ``steps``; return its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"exit_{steps}_steps.pt"
    handle, temporary = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".pt", dir=folder)
    os.close(handle)
    try:
        torch.save(state, temporary)
        os.replace(temporary, path)
    finally:
        Path(temporary).unlink(missing_ok=True)
    stamp = {"run_id": run_id, "steps": steps, "bytes": path.stat().st_size, "sha256": _digest(path)}
    handle, temporary = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".json", dir=folder)
    with os.fdopen(handle, "w") as out:
        json.dump(stamp, out)
    os.replace(temporary, path.with_suffix(".json"))
    return path


def find_state(folder: Path, run_id: str) -> Found:
    """The newest intact checkpoint of run ``run_id`` in ``folder`` (skipped ones say why)."""
    candidates = sorted(
        ((int(m.group(1)), p) for p in folder.glob("exit_*_steps.pt") if (m := _NAME.fullmatch(p.stem))), reverse=True
    )
    found = Found(None)
    for steps, path in candidates:
        problem = _problem(path, steps, run_id)
        if problem is None:
            found.path, found.steps = path, steps
            return found
        found.skipped.append(f"{path.name} {problem}")
    return found


def load_state(path: Path) -> dict[str, Any]:
    """A checkpoint written by :func:`save_state` (tensors only: no code runs)."""
    return torch.load(path, weights_only=True)
