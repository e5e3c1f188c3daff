"""A pseudo-terminal driver (stdlib ``pty`` only) for the ``newmarket`` command."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import signal
import subprocess
import sys
import termios

import pytest

PROMPT = "q to quit)> "
HANG_GUARD_S = 120  # only so a broken build fails instead of hanging CI; never an assertion on speed


def _take_terminal() -> None:
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    # As a shell gives a program it starts in the foreground: a suite started in the background (`cmd &`
    # without job control) ignores SIGINT, the child would inherit that, and Ctrl-C would do nothing.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Terminal:
    """Runs ``python -m newmarket_env.cli ARGS`` on a pty; reads its screen and types answers."""

    PROMPT = PROMPT

    def __init__(self, args: list[str]) -> None:
        master, slave = pty.openpty()
        # A new session with the pty as its controlling terminal, so Ctrl-C there is a real SIGINT.
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "newmarket_env.cli", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            close_fds=True,
            start_new_session=True,
            preexec_fn=_take_terminal,
        )
        os.close(slave)
        self.master = master
        self.screen = ""

    def read_until(self, *endings: str) -> str:
        """Read until the new output ends with one of ``endings`` (or the program ends); returns it."""
        start = len(self.screen)
        while not self.screen[start:].rstrip(" ").endswith(tuple(e.rstrip(" ") for e in endings)):
            ready, _, _ = select.select([self.master], [], [], HANG_GUARD_S)
            if not ready:
                raise AssertionError(f"no output for {HANG_GUARD_S}s; screen so far:\n{self.screen[-2000:]}")
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # EIO: the program closed the terminal
                chunk = b""
            if not chunk:
                break
            self.screen += chunk.decode("utf-8", "replace").replace("\r\n", "\n")
        return self.screen[start:]

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def finish(self) -> int:
        """Read to the end; the exit code."""
        self.read_until("\0never\0")
        os.close(self.master)
        return self.proc.wait(timeout=HANG_GUARD_S)


@pytest.fixture
def terminal():
    opened: list[Terminal] = []

    def start(*args: str) -> Terminal:
        opened.append(Terminal(list(args)))
        return opened[-1]

    yield start
    for term in opened:
        if term.proc.poll() is None:
            term.proc.kill()
            term.proc.wait()
