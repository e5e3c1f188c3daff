"""What every ``newmarket`` command shares: its exit codes, its parser class and its one error line.

A command is anything with two callables (a module, or a :class:`Subcommand`):

- ``add_arguments(parser)`` gives ``parser`` the command's description and options;
- ``run(args) -> int`` runs it with the parsed options and returns the exit code.

``newmarket COMMAND ...`` (``newmarket_env.cli``) and a module's own ``python -m ...`` entry point
both build one parser from ``add_arguments`` and parse the command line once. ``run`` finds the
name it was called by in ``args.prog`` (``newmarket tournament`` or
``python -m newmarket_env.eval.tournament``), so its error lines read like its parser's.

This module imports nothing but the standard library: ``newmarket play`` must start without the
training or evaluation extras.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from typing import NamedTuple

# Exit codes of every newmarket command.
EXIT_OK = 0
EXIT_FAILED = 1  # failed while running (e.g. an agent broke mid-tournament, a port is taken)
EXIT_NOT_AVAILABLE = 1  # a Python module the command needs (its extra) is not installed
EXIT_BAD_INPUT = 2  # bad input: nothing was done
EXIT_INTERRUPTED = 130  # Ctrl-C, as a shell reports a process ended by SIGINT
EXIT_TERMINATED = 143  # SIGTERM, as a shell reports a process ended by it


class Subcommand(NamedTuple):
    """A command that is not a module of its own (``play``, ``replay`` and ``watch`` share one)."""

    add_arguments: Callable[[argparse.ArgumentParser], object]
    run: Callable[[argparse.Namespace], int]


def print_error(prog: str, message: str) -> None:
    """The one error line every newmarket command prints: ``PROG: error: MESSAGE``."""
    print(f"{prog}: error: {message}", file=sys.stderr)


def fail(prog: str, message: str, code: int = EXIT_BAD_INPUT) -> int:
    """Print the error line and return ``code`` (bad input unless told otherwise)."""
    print_error(prog, message)
    return code


def bad_option(prog: str, message: str) -> int:
    """The line a bad option gets from the parser (it points to --help); returns exit code 2."""
    return fail(prog, _option_message(prog, message))


def _option_message(prog: str, message: str) -> str:
    return f"{message} (see {prog} --help)"


class OneLineParser(argparse.ArgumentParser):
    """An argparse parser whose errors are one line (``newmarket play: error: ...``, no usage block), exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {_option_message(self.prog, message)}\n")


def prepare(parser: argparse.ArgumentParser, add_arguments: Callable[[argparse.ArgumentParser], object]) -> None:
    """Give ``parser`` a command's options, and record the parser's name for the command's error lines."""
    add_arguments(parser)
    parser.set_defaults(prog=parser.prog)


def command_parser(add_arguments: Callable[[argparse.ArgumentParser], object], prog: str) -> OneLineParser:
    """The parser of a command run on its own (``python -m MODULE``), named ``prog``."""
    parser = OneLineParser(prog=prog)
    prepare(parser, add_arguments)
    return parser


class Terminated(Exception):
    """SIGTERM arrived while :func:`sigterm_raises` was in force (an ``Exception``, so a half-built
    worker pool still cleans up after it)."""


@contextlib.contextmanager
def sigterm_raises() -> Iterator[None]:
    """Within the block, SIGTERM raises :class:`Terminated` in the main thread instead of ending the
    process on the spot: the command stops its workers and says so in one line."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def raise_terminated(signum: int, frame: object) -> None:
        raise Terminated

    previous = signal.signal(signal.SIGTERM, raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def check_output_file(option: str, path: str) -> None:
    """``ValueError`` naming ``option`` unless ``path`` can be written: said before the work, not after it."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise ValueError(f"{option} {path}: the folder {folder} does not exist")
    if os.path.isdir(path):
        raise ValueError(f"{option} {path}: it is a folder; give a file name")
    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise ValueError(f"{option} {path}: the file is not writable")
    try:  # the surest test that the folder takes a new file: make one, and remove it
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".newmarket-write-check-"):
            pass
    except OSError as err:
        raise ValueError(f"{option} {path}: cannot write in {folder} ({err.strerror})") from None
