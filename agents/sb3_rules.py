"""Which rules a stable-baselines3 ``.zip`` was trained for: a record beside it, ``MODEL.rules.json``.

SB3's ``model.save()`` writes no rules, and a model plays any rules of the same observation size, so a
model trained on newmarket would load, and be exported, for michigan without a word. The models this
package trains (training runs' checkpoints, ``newmarket_env.train.save_model``) are saved with a record
beside them: ``{"format", "variant", "rules", "sha256"}``, ``rules`` as :meth:`Rules.to_dict` gives them
and ``sha256`` the zip's digest, so that a record left beside another model is not believed.
``newmarket export`` and ``load_agent`` check a ``.zip`` against its record (:func:`rules_record`); a zip
without one (saved by ``model.save`` in your own script) is loaded for the rules it is given, with a
warning from ``newmarket export``.

>>> model_rules_path("runs/x/checkpoints/ppo_2048_steps.zip").name
'ppo_2048_steps.rules.json'
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from newmarket_env.game.rules import Rules, rules_from_dict
from newmarket_env.util.file_modes import new_file_mode

FORMAT = "newmarket_env model rules"
SUFFIX = ".rules.json"
MAX_RECORD_BYTES = 1 << 20


@dataclass(frozen=True)
class RulesRecord:
    """What a model's record says: the preset's name and the rules it was trained for."""

    variant: str
    rules: Rules


def model_rules_path(model: str | os.PathLike) -> Path:
    """``m.zip`` -> ``m.rules.json``, beside it."""
    path = Path(model)
    return path.with_name(path.stem + SUFFIX)


def _digest(path: Path) -> str:
    sha = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()


def write_rules_record(model: str | os.PathLike, rules: Rules, variant: str) -> Path:
    """Write the record of ``model`` (an existing zip) atomically; returns its path."""
    model = Path(model)
    record = {"format": FORMAT, "variant": variant, "rules": rules.to_dict(), "sha256": _digest(model)}
    target = model_rules_path(model)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(handle, "w") as out:
            json.dump(record, out, indent=1, sort_keys=True)
        os.chmod(temporary, new_file_mode())  # shared as the zip is (mkstemp's files are 0600)
        os.replace(temporary, target)
    finally:
        Path(temporary).unlink(missing_ok=True)
    return target


def rules_record(model: str | os.PathLike) -> RulesRecord | None:
    """The record beside ``model``, or ``None`` when there is none; a one-line ``ValueError`` when there is one
    that cannot be believed (damaged, or written for another file: the zip changed since)."""
    model = Path(model)
    path = model_rules_path(model)
    if not path.is_file():
        return None
    where = f"{os.fspath(path)!r}, the rules record of {os.fspath(model)!r},"
    try:
        if path.stat().st_size > MAX_RECORD_BYTES:
            raise ValueError(f"{where} is larger than {MAX_RECORD_BYTES} bytes")
        data: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"{where} cannot be read ({' '.join(str(err).split())})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("variant"), str):
        raise ValueError(f"{where} is not one (no 'format': {FORMAT!r} and 'variant')")
    if data.get("sha256") != _digest(model):
        raise ValueError(f"{where} was written for another file (the zip changed since); remove it or save again")
    try:
        rules = rules_from_dict(data.get("rules") or {})
    except (ValueError, TypeError) as err:
        raise ValueError(f"{where} holds rules that are not valid ({err})") from None
    return RulesRecord(data["variant"], rules)


__all__ = ["RulesRecord", "model_rules_path", "rules_record", "write_rules_record"]
