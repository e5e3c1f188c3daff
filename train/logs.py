"""The run's CSV logs (``progress.csv``, ``eval.csv``) and how ``--resume`` continues them.

A resumed run keeps the rows up to the checkpoint it continues from and appends after them; rows
logged after that checkpoint (by the interrupted process) are dropped, because the resumed run does
those steps again. The logs then read as one run.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path
from typing import Any


def append_rows(path: Path, fields: list[str], rows: list[dict[str, Any]]) -> None:
    """Append ``rows`` (their ``fields`` columns) to CSV ``path``, with a header line if the file is new."""
    new = not path.exists()
    with open(path, "a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        if new:
            writer.writeheader()
        writer.writerows({k: row[k] for k in fields} for row in rows)


def keep_rows_up_to(path: Path, column: str, steps: int) -> None:
    """Drop the rows of CSV ``path`` whose ``column`` is above ``steps`` (rewritten atomically)."""
    if not path.is_file():
        return
    with open(path, newline="") as handle:
        rows = list(csv.reader(handle))
    if not rows or column not in rows[0]:
        return
    index = rows[0].index(column)
    kept = [rows[0]] + [row for row in rows[1:] if not _above(row, index, steps)]
    if len(kept) == len(rows):
        return
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows(kept)
    temporary = path.with_name(f".{path.name}.tmp")
    temporary.write_text(text.getvalue())
    os.replace(temporary, path)


def _above(row: list[str], index: int, steps: int) -> bool:
    try:
        return float(row[index]) > steps
    except (IndexError, ValueError):  # a row cut short by a kill: it belongs to no checkpoint
        return True
