"""PPO's logs through SB3's logger: ``progress.csv`` and TensorBoard files, and SB3's tables on stdout
with ``run.verbose``.

SB3's CSV writer opens ``progress.csv`` with ``"w+"``: a resumed run would lose every row logged before
it. A resumed run keeps the rows up to its checkpoint (:func:`newmarket_env.train.logs.keep_rows_up_to`)
and :class:`AppendingCSV` appends after them.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from stable_baselines3.common.logger import CSVOutputFormat, HumanOutputFormat, Logger, TensorBoardOutputFormat

STEPS_COLUMN = "time/total_timesteps"  # progress.csv: the step count of a row


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


def configure_logger(out_dir: Path, resumed: bool, verbose: bool = False) -> Logger:
    """``progress.csv`` and TensorBoard in ``out_dir`` (continuing the CSV when ``resumed``), and SB3's
    tables on stdout when ``verbose``."""
    csv_path = out_dir / "progress.csv"
    table = AppendingCSV(str(csv_path)) if resumed else CSVOutputFormat(str(csv_path))
    outputs = [table, TensorBoardOutputFormat(str(out_dir))]
    return Logger(str(out_dir), [HumanOutputFormat(sys.stdout), *outputs] if verbose else outputs)
