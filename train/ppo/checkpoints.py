"""PPO's checkpoints for ``--resume``: SB3 zips, read back as weights only.

Each checkpoint is ``checkpoints/ppo_<steps>_steps.zip`` (SB3's format), written by the run loop to a
temporary name and renamed into place, with a sidecar ``ppo_<steps>_steps.json`` written after it: the
run id, the step count, the size and the SHA-256 of the zip (:mod:`newmarket_env.train.stamped`). A
checkpoint without a matching sidecar (killed while saving, copied from another run, truncated later) is
skipped with a message, and the previous good one is used.

What ``--resume`` trusts. An SB3 zip holds cloudpickled Python objects (the spaces, the schedules) that
``MaskablePPO.load`` would unpickle, which can run any code. A resumed run never calls it:
:func:`load_weights` builds the model from the run's config and reads from the zip only the
``policy.pth`` and ``policy.optimizer.pth`` tensors, through torch's weights-only loader (tensors and
plain containers; anything else is refused), and two integers (the step and update counts) from its
``data`` JSON, never the pickled entries. On top of that, checkpoints are read only from a folder this
user owns that other users cannot write (:func:`newmarket_env.train.rundir.check_checkpoint_folder`), and
only files this user owns
with a stamp of the folder's own run. So a run folder from someone else can at worst give bad weights,
never run code.
"""

from __future__ import annotations

import json
import warnings
import zipfile
from pathlib import Path
from typing import Any

from newmarket_env.agents.sb3_rules import write_rules_record
from newmarket_env.train.export import env_rules
from newmarket_env.train.stamped import CheckpointError, stamped_path, write_stamped

#: ``checkpoints/ppo_<steps>_steps.zip``
PREFIX, SUFFIX = "ppo", ".zip"


def save_checkpoint(model: Any, folder: Path, run_id: str) -> Path:
    """Save ``model`` as the checkpoint of its current step count, stamped, with the record of its env's
    rules beside it (``newmarket export`` checks a checkpoint against them); returns the zip's path."""
    steps = int(model.num_timesteps)
    path = write_stamped(stamped_path(folder, PREFIX, steps, SUFFIX), run_id, steps, model.save)
    variant, rules = env_rules(model)
    write_rules_record(path, rules, variant)
    return path


#: The plain integers a resumed model takes from the checkpoint's ``data`` JSON.
_COUNTS = ("num_timesteps", "_n_updates")


def load_weights(model: Any, path: Path, device: str = "cpu") -> None:
    """Give ``model`` (built from the run's config) the weights, optimiser state and step count of
    checkpoint ``path``, reading only tensors and integers (the module's notes); ``CheckpointError`` if not."""
    try:
        with warnings.catch_warnings():  # a file of another pickle protocol is refused below in one line
            warnings.filterwarnings("ignore", message="Detected pickle protocol", category=UserWarning)
            model.set_parameters(str(path), exact_match=True, device=device)  # the .pth files, weights only
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
