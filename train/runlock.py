"""One process per run folder: ``run.lock``, held with ``flock`` for as long as the run trains.

The lock file names its owner (pid, host, start time) so a refusal can say who holds the folder.
The lock itself is the kernel's ``flock`` on that file, which ends with the process however it
ends (a crash, ``kill -9``): a lock file left by a process that is gone is stale, and is taken over
with a message naming the old owner. The file is never deleted (deleting it would let two
processes lock two different files of one name); a released lock is an empty file.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import time
from pathlib import Path
from typing import Any

LOCK_FILE = "run.lock"


class RunLock:
    """The lock of ``out_dir``; :meth:`acquire` takes it or raises a one-line ``ValueError`` naming the owner."""

    def __init__(self, out_dir: Path) -> None:
        self.path = Path(out_dir) / LOCK_FILE
        self._fd: int | None = None
        self.stale: dict[str, Any] | None = None  # the owner of a stale lock taken over, if any

    def acquire(self) -> RunLock:
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as err:
            folder = str(self.path.parent)
            raise ValueError(f"run.out_dir {folder!r} is not writable ({err.strerror or err})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            owner = _owner(fd)
            os.close(fd)
            raise ValueError(
                f"run.out_dir {str(self.path.parent)!r} is in use by {_describe(owner)}; wait for it to end "
                f"or stop it, or train into another folder (--out-dir)"
            ) from None
        previous = _owner(fd)
        self.stale = previous or None
        os.ftruncate(fd, 0)
        me = {"pid": os.getpid(), "host": socket.gethostname(), "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        try:
            os.pwrite(fd, (json.dumps(me) + "\n").encode(), 0)
            os.fsync(fd)
        except OSError:  # a full disk: the lock is not held (closing ends the flock); the caller says so
            os.close(fd)
            raise
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is None:
            return
        with contextlib.suppress(OSError):  # a full or read-only disk: the flock still ends with the close
            os.ftruncate(self._fd, 0)
        os.close(self._fd)  # closing ends the flock
        self._fd = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def __enter__(self) -> RunLock:
        return self if self.held else self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def _owner(fd: int) -> dict[str, Any]:
    try:
        data = json.loads(os.pread(fd, 4096, 0) or b"{}")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _describe(owner: dict[str, Any]) -> str:
    if not owner.get("pid"):
        return "another process"
    where = f" on {owner['host']}" if owner.get("host") and owner["host"] != socket.gethostname() else ""
    since = f", running since {owner['started']}" if owner.get("started") else ""
    return f"process {owner['pid']}{where}{since}"
