"""RLlib checkpoints of a run: RLlib's own folders, stamped like every other checkpoint of the project.

``checkpoints/rllib_<steps>_steps/`` is what ``Algorithm.save_to_path`` writes (``steps``: the learner's
decisions so far), written into a temporary folder and renamed, then stamped with a sidecar
``rllib_<steps>_steps.json`` (run id, steps, size, SHA-256 of the folder's files) by the rules of
:mod:`newmarket_env.train.stamped`. ``--resume`` builds the algorithm from the run's config and loads the
newest intact folder with ``Algorithm.restore_from_path``. Each folder also holds ``policy.npz``, the
learner's policy of that moment as a plain saved agent (what ``final.npz`` is at the end), so
``newmarket_env.train.curve`` measures the checkpoints with numpy alone.

What ``--resume`` trusts: RLlib's state files are Python pickles (``*.pkl``), and loading them can run
code. They are read only from a run folder of this user's that other users cannot write
(``check_checkpoint_folder``, as for every method), only when stamped with the folder's own run and
unchanged since (the SHA-256). The saved agent, ``final.npz``, holds numbers only and is safe from anyone.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from newmarket_env.train.stamped import Found, find_stamped, stamped_path, stamped_steps, write_stamped

PREFIX, _SUFFIX = "rllib", ""
#: The saved agent inside each checkpoint folder.
POLICY_FILE = "policy.npz"


def save_checkpoint(algo: Any, folder: Path, run_id: str, steps: int, save_policy: Callable[[Path], Any]) -> Path:
    """``algo.save_to_path`` as the checkpoint of ``steps`` learner decisions, with ``save_policy(<folder>/policy.npz)``
    inside it (under the same stamp); returns its folder."""

    def write(temporary: str) -> None:
        algo.save_to_path(str(Path(temporary).resolve()))  # pyarrow takes a relative path for a URI and refuses it
        save_policy(Path(temporary) / POLICY_FILE)

    return write_stamped(stamped_path(folder, PREFIX, steps, _SUFFIX), run_id, steps, write, folder=True)


def policy_path(folder: Path, steps: int) -> Path:
    """The saved agent of the checkpoint of ``steps`` in ``folder``."""
    return stamped_path(folder, PREFIX, steps, _SUFFIX) / POLICY_FILE


def find_checkpoint(folder: Path, run_id: str) -> Found:
    """The newest intact RLlib checkpoint of run ``run_id`` in ``folder`` (skipped ones say why)."""
    return find_stamped(folder, PREFIX, _SUFFIX, run_id)


def saved_steps(folder: Path) -> list[int]:
    """The step counts of the RLlib checkpoints in ``folder``, oldest first."""
    return [steps for steps, _ in stamped_steps(folder, PREFIX, _SUFFIX)]
