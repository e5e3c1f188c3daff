"""A run folder belongs to one run: made fresh, or resumed by the same run with the same config.

``run.json`` in ``run.out_dir`` names the run (a random id) the folder belongs to; checkpoints carry
the id too (:mod:`newmarket_env.train.stamped`), so ``--resume`` continues only its own run.

- One process at a time: the caller holds the folder's lock (:mod:`newmarket_env.train.runlock`)
  before any of this, so ``--overwrite`` or ``--resume`` of a run that still trains is refused.
- A fresh run refuses a folder that already holds a run's outputs, unless ``--overwrite`` is given
  (then the previous run's outputs are removed first, and only those: in its folders, only the
  files a run writes there).
- ``--resume`` refuses a folder without ``run.json``, and a config that differs from the run's
  ``config.yaml`` in anything but :data:`RESUMABLE_KEYS` (the budget and the machine settings) and
  the method's own (:attr:`Method.resumable_keys`, e.g. expert iteration's label workers).
- Everything is checked before anything is written; ``config.yaml`` and ``run.json`` are written
  atomically (temporary name, then ``os.replace``).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from newmarket_env.train.config import comparable, read_yaml
from newmarket_env.train.methods import get_method, loadable_methods

RUN_FILE = "run.json"
CONFIG_FILE = "config.yaml"
#: Config keys a resumed run may change: the budget, the machine settings (network.input: how, not what,
#: the networks compute), the opponent pool and the
#: evaluation (a fine-tuning stage, e.g. configs/newmarket_ppo_finetune.yaml). Not the game (env.*),
#: the method and its hyperparameters (ppo.*: the checkpoint carries its own), the seed or the warm start.
RESUMABLE_KEYS = (
    "run.total_steps",
    "run.max_minutes",
    "run.progress_bar",
    "run.verbose",
    "run.torch_threads",
    "run.device",
    "run.threads",
    "run.vec_env",
    "run.out_dir",
    "run.checkpoint_every",
    "network.*",
    "opponents.*",
    "eval.*",
)
#: What a run of any method writes into its folder besides each method's own outputs (``--overwrite``
#: removes these and nothing else).
SHARED_OUTPUTS = (
    RUN_FILE,
    CONFIG_FILE,
    "progress.csv",
    "eval.csv",
    "learning_curve.png",
    "final.npz",
    "final.json",
    "final_eval.json",
    "checkpoints",
)


def run_outputs() -> dict[str, tuple[str, ...]]:
    """Every file a run of any available method writes in its folder (-> ()), and every folder (-> the
    patterns of the files it writes there, with their temporary names left by a killed run)."""
    outputs: dict[str, tuple[str, ...]] = {name: () for name in SHARED_OUTPUTS}
    for method in loadable_methods():
        outputs["checkpoints"] += method.checkpoint_files()
        for name, patterns in method.outputs.items():
            outputs[name] = outputs.get(name, ()) + patterns
    return outputs


_TENSORBOARD_PREFIX = "events.out.tfevents."


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder and a rename."""
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_arrays_atomic(path: Path, **arrays: Any) -> None:
    """``np.savez_compressed`` of ``arrays`` to ``path`` through a temporary file in the same folder and a rename."""
    _write_npz_atomic(path, np.savez_compressed, arrays)


def write_arrays_uncompressed_atomic(path: Path, **arrays: Any) -> None:
    """:func:`write_arrays_atomic` without the compression (``np.savez``)."""
    _write_npz_atomic(path, np.savez, arrays)


def _write_npz_atomic(path: Path, save: Any, arrays: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            save(out, **arrays)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def check_writable(out_dir: Path) -> None:
    """Make ``out_dir`` if needed and prove a file can be written there; one-line ``ValueError`` if not."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=out_dir, prefix=".write-check-"):
            pass
    except OSError as err:
        raise ValueError(f"run.out_dir {str(out_dir)!r} is not writable ({err.strerror or err})") from None


def previous_outputs(out_dir: Path) -> list[str]:
    """The run outputs already in ``out_dir``."""
    if not out_dir.is_dir():
        return []
    outputs = run_outputs()
    found = [name for name in outputs if (out_dir / name).exists()]
    found += sorted(p.name for p in out_dir.glob(f"{_TENSORBOARD_PREFIX}*"))
    # Temporary files of an atomic write a killed run left (write_atomic's, the curve's).
    found += sorted(p.name for name in outputs for p in out_dir.glob(f".{name}.*") if p.is_file())
    return found


def remove_outputs(out_dir: Path, names: list[str]) -> None:
    """Remove the run outputs ``names`` (from :func:`previous_outputs`): files, and in a run's folders
    only the files a run writes there (:func:`run_outputs`); anything else stays."""
    outputs = run_outputs()
    for name in names:
        target = out_dir / name
        if not target.is_dir():
            target.unlink(missing_ok=True)
            continue
        for pattern in outputs.get(name, ()):
            for path in target.glob(pattern):
                if path.is_file() or path.is_symlink():
                    path.unlink()
                elif path.is_dir():  # an RLlib checkpoint (or one a killed run left half-written)
                    shutil.rmtree(path)
        if not any(target.iterdir()):
            target.rmdir()


def start_fresh(out_dir: Path, config: Mapping[str, Any], overwrite: bool) -> dict[str, Any]:
    """Claim ``out_dir`` for a new run; returns its ``run.json`` data."""
    found = previous_outputs(out_dir)
    if found and not overwrite:
        shown = ", ".join(found[:4]) + (", ..." if len(found) > 4 else "")
        raise ValueError(
            f"run.out_dir {str(out_dir)!r} already holds a run ({shown}); continue it with --resume, "
            "train into another folder (--out-dir), or give --overwrite to replace it"
        )
    check_writable(out_dir)
    remove_outputs(out_dir, found)
    run: dict[str, Any] = {
        "run_id": uuid.uuid4().hex,
        "name": config.get("name"),
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "resumed": [],
    }
    _write_run(out_dir, run, config)
    return run


def start_resume(out_dir: Path, config: Mapping[str, Any]) -> dict[str, Any]:
    """Check that ``config`` continues the run in ``out_dir``; returns its ``run.json`` data (not yet updated)."""
    run_file, config_file = out_dir / RUN_FILE, out_dir / CONFIG_FILE
    if not run_file.is_file() or not config_file.is_file():
        raise ValueError(
            f"--resume: {str(out_dir)!r} holds no run to continue (no {RUN_FILE} and {CONFIG_FILE}); "
            "start without --resume"
        )
    try:
        run = json.loads(run_file.read_text())
        before = read_yaml(config_file, "the run's config")  # capped: the folder may hold anything
        run_id = run["run_id"]
    except (ValueError, KeyError, TypeError, OSError) as err:
        raise ValueError(f"--resume: {run_file} or {config_file} cannot be read ({err}); start a new run") from None
    if not isinstance(run_id, str) or not isinstance(before, Mapping):
        raise ValueError(f"--resume: {run_file} or {config_file} is damaged; start a new run")
    keys = (*RESUMABLE_KEYS, *get_method(config.get("method", "ppo")).resumable_keys)
    changed = config_differences(comparable(before, config), {"method": "ppo", **config}, keys=keys)
    if changed:
        raise ValueError(
            f"--resume: the config differs from the run in {str(out_dir)!r}: {'; '.join(changed)} "
            f"(only {', '.join(keys)} may change on --resume)"
        )
    check_writable(out_dir)
    return run


def record_resume(out_dir: Path, run: dict[str, Any], config: Mapping[str, Any], steps: int) -> None:
    """Note the resume in ``run.json`` and write the (possibly new budget) config."""
    run.setdefault("resumed", []).append({"at_steps": steps, "time": time.strftime("%Y-%m-%dT%H:%M:%S%z")})
    _write_run(out_dir, run, config)


def _write_run(out_dir: Path, run: Mapping[str, Any], config: Mapping[str, Any]) -> None:
    import yaml  # optional: needs PyYAML (train/eval extra)

    write_atomic(out_dir / CONFIG_FILE, yaml.safe_dump(dict(config), sort_keys=False))
    write_atomic(out_dir / RUN_FILE, json.dumps(run, indent=2) + "\n")


def _resumable(path: str, keys: tuple[str, ...]) -> bool:
    return any(path == key or (key.endswith(".*") and path.startswith(key[:-1])) for key in keys)


def config_differences(
    before: Mapping[str, Any], after: Mapping[str, Any], prefix: str = "", keys: tuple[str, ...] = RESUMABLE_KEYS
) -> list[str]:
    """``key (run X, now Y)`` for every key whose value differs, other than ``keys`` (``section.*``: all of it).

    >>> config_differences({"ppo": {"net_arch": [64]}, "run": {"total_steps": 1}},
    ...                    {"ppo": {"net_arch": [128]}, "run": {"total_steps": 2}})
    ['ppo.net_arch (run [64], now [128])']
    >>> config_differences({"run": {"seed": 0}}, {"run": {"seed": 0}, "network": {"input": "sparse"}})
    []
    """
    out = []
    for key in sorted(set(before) | set(after), key=str):
        path = f"{prefix}{key}"
        old, new = before.get(key), after.get(key)
        # a section on one side only (one a newer version added) compares key by key with an empty one
        sections = all(isinstance(v, Mapping) or v is None for v in (old, new)) and (old, new) != (None, None)
        if sections and key != "rules":
            out += config_differences(old or {}, new or {}, f"{path}.", keys)
        elif old != new and not _resumable(path, keys):
            out.append(f"{path} (run {old!r}, now {new!r})")
    return out


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
