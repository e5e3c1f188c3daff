"""Deep Monte-Carlo's recorded decisions on disk: ``samples/iter_<i>.npz``, one file an iteration.

Each holds the iteration's observations as their nonzero entries (``obs_columns``, ``obs_values``,
``obs_offsets``: about 62 of 936 a row, a file a sixth the size, written without compression, which cost
more than the iteration's play), legal masks, actions and returns, where the cards hidden from each
deciding seat were (``owners``, :mod:`newmarket_env.train.hidden`: the auxiliary head's target, never an
input), and the run id. The learner writes them and fits on a window of them; a resumed run reads back
the window's earlier ones, so ``--resume`` takes only a checkpoint whose window is on disk
(:func:`window_problem`). Older runs' files, which hold ``obs`` whole, read as they are. numpy only.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from newmarket_env.nn.entries import dense_rows, nonzero_entries
from newmarket_env.observation.layout import FLAT_SIZE
from newmarket_env.train.rundir import write_arrays_uncompressed_atomic

ARRAYS = ("obs", "masks", "actions", "returns")


def samples_path(out_dir: Path, iteration: int) -> Path:
    return out_dir / "samples" / f"iter_{iteration:04d}.npz"


def write_samples(path: Path, samples: dict[str, np.ndarray], run_id: str) -> None:
    """An iteration's decisions (``ARRAYS``, and ``owners`` when given) at ``path``, atomically, the observations
    as their nonzero entries."""
    columns, values, offsets = nonzero_entries(samples["obs"])
    rest = {key: samples[key] for key in (*ARRAYS, "owners") if key != "obs" and key in samples}
    obs = {"obs_columns": columns.astype(np.uint16), "obs_values": values, "obs_offsets": offsets}
    write_arrays_uncompressed_atomic(path, **obs, **rest, run_id=np.array(run_id))


def load_samples(path: Path) -> tuple[dict[str, np.ndarray], str]:
    """An iteration's decisions (``obs``, ``masks``, ``actions``, ``returns``, and ``owners`` where kept) and the run
    they belong to, as
    :func:`write_samples` wrote them (or whole, as older runs did)."""
    with np.load(path, allow_pickle=False) as data:
        samples = {key: data[key] for key in (*ARRAYS, "owners") if key != "obs" and key in data.files}
        if "obs" in data:
            samples["obs"] = data["obs"]
        else:
            samples["obs"] = dense_rows(data["obs_columns"], data["obs_values"], data["obs_offsets"], FLAT_SIZE)
        return samples, str(data["run_id"])


def read_samples(path: Path, run_id: str, count: int) -> dict[str, np.ndarray] | None:
    """An iteration's decisions if the file is this run's and complete, else None."""
    try:
        samples, owner = load_samples(path)
    except (OSError, KeyError, ValueError, EOFError):
        return None
    return samples if owner == run_id and len(samples["actions"]) == count == len(samples["obs"]) else None


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
