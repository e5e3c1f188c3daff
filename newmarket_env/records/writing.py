"""Writing session records: a file is either the old one or the whole new one, never half of it.

``save_record`` writes one record as indented JSON (``newmarket play --save``, ``newmarket watch --save``);
``write_lines`` writes many as gzipped JSON lines (a tournament's ``records.jsonl.gz``). Both write under
a temporary name in the same folder, then rename it into place, with the modes a plain ``open`` gives.
"""

from __future__ import annotations

import gzip
import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from typing import Any

from newmarket_env.util.file_modes import new_file_mode

#: The name of a person's seat in a record's ``agents`` (docs/contract.md, "The record of a session").
PERSON = "person"


def save_record(record: Mapping[str, Any], path: str | os.PathLike[str]) -> None:
    """Write ``record`` to ``path`` as indented JSON, atomically."""
    _write_atomic(path, lambda fh: json.dump(record, fh, indent=1), packed=False)


def write_lines(entries: Iterable[Mapping[str, Any]], path: str | os.PathLike[str]) -> None:
    """Write ``entries`` (records, or ``{"title", ..., "record"}`` entries) to ``path`` as gzipped JSON lines,
    atomically."""

    def write(fh) -> None:
        for entry in entries:
            fh.write(json.dumps(entry, separators=(",", ":")) + "\n")

    _write_atomic(path, write, packed=True)


def _write_atomic(path: str | os.PathLike[str], write, packed: bool) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".part", dir=folder)
    os.close(handle)
    try:
        if packed:
            with gzip.open(temporary, "wt", encoding="utf-8") as fh:
                write(fh)
        else:
            with open(temporary, "w", encoding="utf-8") as fh:
                write(fh)
        os.chmod(temporary, new_file_mode())  # mkstemp makes 0600 files; a record is meant to be shared
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


__all__ = ["PERSON", "save_record", "write_lines"]
