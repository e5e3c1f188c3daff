"""The run's logs (``progress.csv``, TensorBoard, stdout) and how ``--resume`` continues them.

SB3's CSV writer opens ``progress.csv`` with ``"w+"``: a resumed run would lose every row logged
before it. A resumed run keeps the rows up to the checkpoint it continues from and appends after
them; rows logged after that checkpoint (by the interrupted process) are dropped, as are such rows
of ``eval.csv``, because the resumed run does those steps again. The logs then read as one run.
"""

from __future__ import annotations

import csv
import io
import os
import sys
from pathlib import Path
from typing import Any

from stable_baselines3.common.logger import CSVOutputFormat, HumanOutputFormat, Logger, TensorBoardOutputFormat

STEPS_COLUMN = "time/total_timesteps"  # progress.csv: the step count of a row


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


class AppendingCSV(CSVOutputFormat):
    """SB3's CSV writer, continuing an existing file instead of truncating it."""

    def __init__(self, filename: str) -> None:
        with open(filename, "a+") as handle:  # creates it when missing, truncates nothing
            handle.seek(0)
            header = handle.readline().strip()
        super().__init__(os.devnull)
        self.file.close()
        self.file = open(filename, "r+")  # noqa: SIM115 - the writer's own handle, closed by its close()
        self.file.seek(0, os.SEEK_END)
        self.keys = header.split(",") if header else []


def configure_logger(out_dir: Path, resume_steps: int | None) -> Logger:
    """stdout, ``progress.csv`` and TensorBoard in ``out_dir``; on resume, continuing at ``resume_steps``."""
    csv_path = out_dir / "progress.csv"
    if resume_steps is None:
        table = CSVOutputFormat(str(csv_path))
    else:
        keep_rows_up_to(csv_path, STEPS_COLUMN, resume_steps)
        keep_rows_up_to(out_dir / "eval.csv", "steps", resume_steps)
        table = AppendingCSV(str(csv_path))

    return Logger(str(out_dir), [HumanOutputFormat(sys.stdout), table, TensorBoardOutputFormat(str(out_dir))])
