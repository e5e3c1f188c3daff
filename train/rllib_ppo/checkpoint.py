"""RLlib checkpoints of a run: RLlib's own folders, stamped like every other checkpoint of the project.

``checkpoints/rllib_<steps>_steps/`` is what ``Algorithm.save_to_path`` writes (``steps``: the learner's
decisions so far), written into a temporary folder and renamed, then stamped with a sidecar
``rllib_<steps>_steps.json`` (run id, steps, size, SHA-256 of the folder's files) by the rules of
:mod:`newmarket_env.train.stamped`. ``--resume`` builds the algorithm from the run's config and loads the
newest intact folder with ``Algorithm.restore_from_path``.

What ``--resume`` trusts: RLlib's state files are Python pickles (``*.pkl``), and loading them can run
code. They are read only from a run folder of this user's that other users cannot write
(``check_checkpoint_folder``, as for every method), only when stamped with the folder's own run and
unchanged since (the SHA-256). The saved agent, ``final.npz``, holds numbers only and is safe from anyone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from newmarket_env.train.stamped import Found, find_stamped, stamped_path, stamped_steps, write_stamped

PREFIX, _SUFFIX = "rllib", ""


def save_checkpoint(algo: Any, folder: Path, run_id: str, steps: int) -> Path:
    """``algo.save_to_path`` as the checkpoint of ``steps`` learner decisions; returns its folder."""
    return write_stamped(stamped_path(folder, PREFIX, steps, _SUFFIX), run_id, steps, algo.save_to_path, folder=True)


def find_checkpoint(folder: Path, run_id: str) -> Found:
    """The newest intact RLlib checkpoint of run ``run_id`` in ``folder`` (skipped ones say why)."""
    return find_stamped(folder, PREFIX, _SUFFIX, run_id)


def saved_steps(folder: Path) -> list[int]:
    """The step counts of the RLlib checkpoints in ``folder``, oldest first."""
    return [steps for steps, _ in stamped_steps(folder, PREFIX, _SUFFIX)]
