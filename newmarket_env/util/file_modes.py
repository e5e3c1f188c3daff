"""The permissions a new file or folder gets, for files written under a temporary name first.

``tempfile.mkstemp`` and ``mkdtemp`` create ``0600`` files and ``0700`` folders whatever the umask, so a
file written atomically (a temporary, then ``os.replace``) would keep those modes: a saved agent meant
to be shared would be unreadable to others. These give what ``open()`` and ``os.makedirs`` would have.
"""

from __future__ import annotations

import os


def umask() -> int:
    """This process's umask (reading it means setting it: it is set back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def new_file_mode() -> int:
    """The mode ``open(path, "w")`` gives a new file: ``0o666`` less the umask."""
    return 0o666 & ~umask()


def new_folder_mode() -> int:
    """The mode ``os.makedirs`` gives a new folder: ``0o777`` less the umask."""
    return 0o777 & ~umask()
