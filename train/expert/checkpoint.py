"""Expert-iteration checkpoints: the network and optimiser after each iteration, as PPO's are kept.

``checkpoints/exit_<steps>_steps.pt`` (``steps``: labelled decisions so far; torch tensors only,
read back with ``weights_only=True``; Deep Monte-Carlo runs write theirs as ``dmc_<steps>_steps.pt``
through the same functions, ``prefix="dmc"``) is written to a temporary name and renamed, then stamped
with a sidecar ``.json`` (run id, steps, size, SHA-256) by the same rules as
:mod:`newmarket_env.train.stamped`, whose checks decide whether one can be resumed from.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

from newmarket_env.train.logs import keep_rows_up_to
from newmarket_env.train.stamped import Found, find_stamped, stamped_path, stamped_steps, write_stamped

PREFIX, _SUFFIX = "exit", ".pt"


def save_state(folder: Path, run_id: str, steps: int, state: dict[str, Any], prefix: str = PREFIX) -> Path:
    """Write ``state`` (tensors, numbers, lists) as the checkpoint of ``steps``; return its path."""
    path = stamped_path(folder, prefix, steps, _SUFFIX)
    return write_stamped(path, run_id, steps, lambda temporary: torch.save(state, temporary))


def find_state(folder: Path, run_id: str, prefix: str = PREFIX) -> Found:
    """The newest intact checkpoint of run ``run_id`` in ``folder`` (skipped ones say why)."""
    return find_stamped(folder, prefix, _SUFFIX, run_id)


def saved_checkpoints(folder: Path, prefix: str = PREFIX) -> list[tuple[int, Path]]:
    """``(steps, path)`` of the checkpoints in ``folder``, stamped or not, oldest first."""
    return stamped_steps(folder, prefix, _SUFFIX)


def saved_steps(folder: Path, prefix: str = PREFIX) -> list[int]:
    """The step counts of the checkpoints in ``folder``, oldest first."""
    return [steps for steps, _ in stamped_steps(folder, prefix, _SUFFIX)]


def state_path(folder: Path, steps: int, prefix: str = PREFIX) -> Path:
    """Where the checkpoint of ``steps`` is (or would be) written."""
    return stamped_path(folder, prefix, steps, _SUFFIX)


def load_state(path: Path) -> dict[str, Any]:
    """A checkpoint written by :func:`save_state` (tensors only: no code runs)."""
    return torch.load(path, weights_only=True)


def resume_training(start: Any, net: torch.nn.Module, optimizer: torch.optim.Optimizer, unit: str) -> int:
    """Continue a run where ``start`` says (``prepare_run``'s answer): the skipped checkpoints named, the
    network and optimiser of ``start.checkpoint`` loaded, and the log rows a killed process wrote after it
    dropped. Return the steps done (``unit`` names them in the message); 0 for a new run."""
    steps = 0
    for line in start.skipped:
        print(f"--resume: skipped {line}", flush=True)
    if start.checkpoint is not None:
        state = load_state(start.checkpoint)
        net.load_state_dict(state["net"])
        optimizer.load_state_dict(state["optimizer"])
        steps = int(state["steps"])
        print(f"resuming from {start.checkpoint.name} ({steps} {unit})", flush=True)
    for name in ("progress.csv", "eval.csv"):  # rows a killed process logged after the checkpoint go
        keep_rows_up_to(start.out_dir / name, "steps", steps)
    return steps
