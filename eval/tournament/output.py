"""Where a tournament's files go: checked before any game is played, published all at once.

A run writes its files into a staging folder next to the results folder (made when the run is
planned, so an unwritable ``--out`` fails before the first session), then renames it into place:
a results folder is either the old one or the new one, never half of each. An existing results
folder is replaced only when asked (``--overwrite``).

>>> default_folder("newmarket", 4, 0, ["greedy", "random", "random", "random"])
'results/tournament-newmarket-4p-greedy-random-random-random-seed0'
>>> default_folder("michigan", 5, 3, [])
'results/tournament-michigan-5p-all-seed3'
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import tempfile
from collections.abc import Sequence

from newmarket_env.util.file_modes import new_folder_mode

RESULTS_ROOT = "results"
#: Longest agent part of a default folder name; longer lists are cut and get a short hash.
MAX_AGENTS_PART = 60


def default_folder(variant: str, players: int, seed: int, agents: Sequence[str]) -> str:
    """``results/tournament-VARIANT-Np-AGENTS-seedS``; ``all`` stands for the default field of agents.

    The agent list is part of the name, so tournaments of other agents do not land in the same folder.
    """
    if not agents:
        part = "all"
    else:
        names = [re.sub(r"[^A-Za-z0-9_.+#]+", "_", os.path.splitext(os.path.basename(a))[0]) for a in agents]
        part = "-".join(names)
        if len(part) > MAX_AGENTS_PART:
            digest = hashlib.sha1(",".join(agents).encode()).hexdigest()[:8]
            part = f"{part[:MAX_AGENTS_PART].rstrip('-_')}-{digest}"
    return os.path.join(RESULTS_ROOT, f"tournament-{variant}-{players}p-{part}-seed{seed}")


class OutputFolder:
    """A results folder being written: files go to :attr:`staging`, :meth:`publish` puts them in place."""

    def __init__(self, folder: str, overwrite: bool = False) -> None:
        self.folder = os.path.normpath(folder)
        self.overwrite = overwrite
        if os.path.exists(self.folder) and not os.path.isdir(self.folder):
            raise ValueError(f"--out {folder}: it is a file, not a folder")
        if os.path.isdir(self.folder) and os.listdir(self.folder) and not overwrite:
            raise ValueError(
                f"--out {folder} already holds results; give another --out, or --overwrite to replace them"
            )
        parent = os.path.dirname(os.path.abspath(self.folder))
        try:
            os.makedirs(parent, exist_ok=True)
            self.staging = tempfile.mkdtemp(prefix=f".{os.path.basename(self.folder)}.partial-", dir=parent)
            # mkdtemp makes a private folder (0700); the results folder gets the modes os.makedirs gives.
            os.chmod(self.staging, new_folder_mode())
        except OSError as err:
            raise ValueError(f"--out {folder}: cannot write in {parent} ({err.strerror or err})") from None

    def path(self, name: str) -> str:
        """Where file ``name`` ends up once published."""
        return os.path.join(self.folder, name)

    def publish(self) -> None:
        """Swap the staging folder in: the old results (if any) are removed only once the new ones are in place."""
        old = None
        if os.path.isdir(self.folder):
            if not self.overwrite and os.listdir(self.folder):  # appeared while the tournament ran
                raise FileExistsError(
                    f"{self.folder} was made by someone else while the tournament ran; "
                    f"the results are in {self.staging}"
                )
            old = tempfile.mkdtemp(
                prefix=f".{os.path.basename(self.folder)}.old-", dir=os.path.dirname(os.path.abspath(self.folder))
            )
            os.replace(self.folder, os.path.join(old, "results"))
        os.replace(self.staging, self.folder)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)

    def keep(self) -> str:
        """Put what a stopped run wrote in place, if the results folder is free; returns where it now is.

        Results already in the folder (``--overwrite``) are not replaced by a run that did not finish: the
        staging folder then stays where it is, under its own name.
        """
        try:
            if os.path.isdir(self.folder):
                if os.listdir(self.folder):
                    return self.staging
                os.rmdir(self.folder)
            os.replace(self.staging, self.folder)
        except OSError:  # the staging folder is whole where it is
            return self.staging
        return self.folder

    def discard(self) -> None:
        """Remove the staging folder (the run failed or was interrupted); an existing results folder is kept."""
        shutil.rmtree(self.staging, ignore_errors=True)
