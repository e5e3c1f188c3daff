"""Running a command on a disk that fills: a small tmpfs mounted for it alone, in a mount namespace of its
own (``unshare``, no root needed where user namespaces are allowed); where that cannot be done, a limit
on the size of every file it writes (``RLIMIT_FSIZE``: a write past it fails with ``EFBIG`` as a write to
a full disk fails with ``ENOSPC``). Either way the write that fails is a real one, refused by the kernel.
"""

from __future__ import annotations

import functools
import resource
import shutil
import subprocess
from pathlib import Path

#: What the one error line says about the failed write, on a full tmpfs or past the file-size limit.
FULL = ("No space left on device", "File too large")


@functools.cache
def small_disks() -> bool:
    """Whether a tmpfs can be mounted in a mount namespace of its own here."""
    if shutil.which("unshare") is None:
        return False
    probe = ["unshare", "--mount", "--map-root-user", "sh", "-c", 'mount -t tmpfs -o size=4k tmpfs "$1"', "sh", "/mnt"]
    try:
        return subprocess.run(probe, capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def run_on_full_disk(
    command: list[str], disk: Path, size: int, timeout: float, **options
) -> subprocess.CompletedProcess:
    """Run ``command`` with the folder ``disk`` on a disk of ``size`` bytes (a tmpfs: pages of 4 KiB), then
    copy what the command left on it back into ``disk`` (the tmpfs goes with its namespace). Without
    tmpfs, ``size`` is the largest file the command may write (``RLIMIT_FSIZE``)."""
    disk.mkdir(parents=True, exist_ok=True)
    if not small_disks():

        def limit_files() -> None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

        return subprocess.run(
            command, preexec_fn=limit_files, capture_output=True, text=True, timeout=timeout, **options
        )
    kept = disk.parent / f"{disk.name}.kept"
    kept.mkdir()
    script = (
        'disk=$1; kept=$2; size=$3; shift 3; mount -t tmpfs -o "size=$size" tmpfs "$disk" || exit 97; '
        '"$@"; code=$?; cp -a "$disk/." "$kept/"; exit $code'
    )
    wrapped = ["unshare", "--mount", "--map-root-user", "sh", "-c", script, "sh", str(disk), str(kept), str(size)]
    done = subprocess.run([*wrapped, *command], capture_output=True, text=True, timeout=timeout, **options)
    assert done.returncode != 97, done.stderr
    for path in kept.iterdir():
        path.rename(disk / path.name)
    kept.rmdir()
    return done
