"""Deep Monte-Carlo's recorded decisions on disk: ``samples/iter_<i>.npz``, one file an iteration.

Each holds the iteration's observations, legal masks, actions and returns, and the run id. The learner
writes them and fits on a window of them; a resumed run reads back the window's earlier ones, so
``--resume`` takes only a checkpoint whose window is on disk (:func:`window_problem`). numpy only.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

ARRAYS = ("obs", "masks", "actions", "returns")


def samples_path(out_dir: Path, iteration: int) -> Path:
    return out_dir / "samples" / f"iter_{iteration:04d}.npz"


def read_samples(path: Path, run_id: str, count: int) -> dict[str, np.ndarray] | None:
    """An iteration's decisions if the file is this run's and complete, else None."""
    try:
        with np.load(path, allow_pickle=False) as data:
            if str(data["run_id"]) != run_id or len(data["actions"]) != count:
                return None
            return {key: data[key] for key in ARRAYS}
    except (OSError, KeyError, ValueError, EOFError):
        return None


def window_problem(out_dir: Path, run_id: str, resume_at: int, window: int, states: int) -> str | None:
    """Why a resume at iteration ``resume_at`` could not fit on its window's earlier iterations, or None."""
    for earlier in range(max(0, resume_at - window + 1), resume_at):
        path = samples_path(out_dir, earlier)
        if read_samples(path, run_id, states) is None:
            return (
                f"cannot be resumed: its replay window (dmc.window = {window}) needs "
                f"{path.relative_to(out_dir)}, which is missing or damaged"
            )
    return None
