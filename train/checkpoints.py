"""Checkpoints for ``--resume``: written atomically, stamped with their run, checked before use.

Each checkpoint is ``checkpoints/ppo_<steps>_steps.zip`` (SB3's format, written to a temporary name and
renamed into place) with a sidecar ``ppo_<steps>_steps.json`` written after it: the run id, the step
count, the size and the SHA-256 of the zip. A checkpoint without a matching sidecar (killed while
saving, copied from another run, truncated later) is skipped with a message, and the previous good one
is used.

What ``--resume`` trusts. An SB3 zip holds cloudpickled Python objects (the spaces, the schedules) that
``MaskablePPO.load`` would unpickle, which can run any code. A resumed run never calls it:
:func:`load_weights` builds the model from the run's config and reads from the zip only the
``policy.pth`` and ``policy.optimizer.pth`` tensors, through torch's weights-only loader (tensors and
plain containers; anything else is refused), and two integers (the step and update counts) from its
``data`` JSON, never the pickled entries. On top of that, checkpoints are read only from a folder this
user owns that other users cannot write (:func:`check_checkpoint_folder`), and only files this user owns
with a stamp of the folder's own run. So a run folder from someone else can at worst give bad weights,
never run code.
"""

from __future__ import annotations

import json
import os
import stat
import warnings
import zipfile
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback

from newmarket_env.agents.sb3_rules import write_rules_record
from newmarket_env.train.export import env_rules
from newmarket_env.train.stamped import Found, find_stamped, stamped_path, write_stamped

_PREFIX, _SUFFIX = "ppo", ".zip"


def save_checkpoint(model: Any, folder: Path, run_id: str) -> Path:
    """Save ``model`` as the checkpoint of its current step count, with the record of its env's rules beside it
    (``newmarket export`` checks a checkpoint against them); returns the zip's path."""
    steps = int(model.num_timesteps)
    path = write_stamped(stamped_path(folder, _PREFIX, steps, _SUFFIX), run_id, steps, model.save)
    variant, rules = env_rules(model)
    write_rules_record(path, rules, variant)
    return path


def find_checkpoint(folder: Path, run_id: str) -> Found:
    """The newest intact checkpoint of run ``run_id`` in ``folder``."""
    return find_stamped(folder, _PREFIX, _SUFFIX, run_id)


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


class CheckpointError(ValueError):
    """A checkpoint that cannot be read as weights; one line."""


def check_checkpoint_folder(out_dir: Path) -> None:
    """``--resume`` reads checkpoints only from a folder of this user's that other users cannot write."""
    me = os.getuid()
    for folder in (out_dir, out_dir / "checkpoints"):
        if not folder.is_dir():
            continue
        info = folder.stat()
        if info.st_uid != me:
            raise ValueError(
                f"--resume: {folder} belongs to another user (uid {info.st_uid}); resume only runs you made "
                "(a saved agent, final.npz, is safe to use from anyone: it holds numbers only)"
            )
        if info.st_mode & stat.S_IWOTH:
            raise ValueError(
                f"--resume: {folder} is writable by every user, so anyone could have put a checkpoint there; "
                f"if you trust what is in it, chmod o-w {folder} and resume again"
            )


#: The plain integers a resumed model takes from the checkpoint's ``data`` JSON.
_COUNTS = ("num_timesteps", "_n_updates")


def load_weights(model: Any, path: Path) -> None:
    """Give ``model`` (built from the run's config) the weights, optimiser state and step count of
    checkpoint ``path``, reading only tensors and integers (the module's notes); ``CheckpointError`` if not."""
    try:
        with warnings.catch_warnings():  # a file of another pickle protocol is refused below in one line
            warnings.filterwarnings("ignore", message="Detected pickle protocol", category=UserWarning)
            model.set_parameters(str(path), exact_match=True, device="cpu")  # the .pth files, weights only
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read("data"))
    except Exception as err:  # a refused pickle, a shape that differs, a damaged zip: one line, whatever it is
        first = str(err).strip().splitlines()[0] if str(err).strip() else ""
        raise CheckpointError(
            f"--resume: {path} cannot be loaded as weights ({type(err).__name__}: {first}); start a new run"
        ) from None
    for key in _COUNTS:
        value = data.get(key) if isinstance(data, dict) else None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise CheckpointError(f"--resume: {path} has no step count {key!r} as a plain number; start a new run")
        setattr(model, key, value)
