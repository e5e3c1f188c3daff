"""The ``newmarket`` command: play, replay, watch, tournament, train, bench, serve.

One parser with a subcommand per command, parsed once. Each command lives in its own module as
``add_arguments(parser)`` and ``run(args)`` (see ``newmarket_env.util.cli_common``); its module is
imported only when that command is parsed, so ``newmarket play`` starts fast and needs no
training extras, and a missing extra is named in one line. Bad input gives one line on stderr
and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from collections.abc import Sequence
from typing import Any

from newmarket_env import __version__
from newmarket_env.util.cli_common import (  # noqa: F401 - EXIT_* and OneLineParser are also read as cli.X
    EXIT_BAD_INPUT,
    EXIT_FAILED,
    EXIT_INTERRUPTED,
    EXIT_NOT_AVAILABLE,
    EXIT_OK,
    OneLineParser,
    fail,
    prepare,
    print_error,
)

# Every subcommand, in the order of the help: name -> (where its add_arguments and run are, summary, extra).
# The place is a module, or "module:NAME" for a Subcommand in a module; extra: the pip extra its
# dependencies come with (None: the env's own dependencies are enough).
COMMANDS: dict[str, tuple[str, str, str | None]] = {
    "play": ("newmarket_env.play.arguments:PLAY", "play a session in the terminal against agents", None),
    "replay": ("newmarket_env.play.arguments:REPLAY", "step through a saved session record, deal by deal", None),
    "watch": (
        "newmarket_env.play.arguments:WATCH",
        "watch agents play a session against each other in the terminal",
        None,
    ),
    "tournament": (
        "newmarket_env.eval.tournament.cli",
        "play agents against each other and print the leaderboard",
        "eval",
    ),
    "train": (
        "newmarket_env.train.cli",
        "train an agent from a config file (e.g. configs/newmarket_ppo.yaml)",
        "train",
    ),
    "export": (
        "newmarket_env.train.export_command",
        "write a stable-baselines3 .zip model as a saved-agent .npz (read without unpickling)",
        "train",
    ),
    "bench": ("newmarket_env.eval.bench.cli", "measure the speed of the engine and the env", "eval"),
    "serve": ("newmarket_env.web.cli", "the web app: play, watch and replay in a browser (127.0.0.1)", "web"),
}
DELEGATED = COMMANDS  # the table's name from when play and replay were not in it
# Python modules each command needs beyond the env's own dependencies (checked after the options and
# before it runs, so a missing one is named with its extra at once, not after an hour of training).
NEEDS = {
    "tournament": ("rich", "openskill", "matplotlib"),
    "train": ("torch", "stable_baselines3", "sb3_contrib", "yaml", "matplotlib", "tensorboard", "tqdm", "rich"),
    "bench": ("openskill",),
    "export": ("torch",),
}


def _needs_line(extra: str | None, names: Sequence[str]) -> str:
    modules = ", ".join(names) if len(names) > 1 else repr(names[0])
    return f"needs the Python module{'s' * (len(names) > 1)} {modules}: pip install 'newmarket-env[{extra}]'"


def load_command(place: str, extra: str | None) -> Any:
    """The object with ``add_arguments`` and ``run`` at ``place`` ("module" or "module:NAME").

    Raises ``LookupError`` with the one-line reason when it cannot be imported.
    """
    module_name, _, attribute = place.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name and module_name.startswith(err.name):  # the command's own module is not there
            raise LookupError(f"not available in this installation ({module_name} is missing)") from None
        if extra is None:
            raise
        raise LookupError(_needs_line(extra, [err.name or "?"])) from None
    return getattr(module, attribute) if attribute else module


class CommandParser(OneLineParser):
    """The parser of one subcommand: its module is imported, and its options added, when it is parsed.

    So ``newmarket play`` never imports the tournament (or torch), and ``newmarket tournament --help``
    imports only the tournament.
    """

    def __init__(self, *args: Any, place: str = "", extra: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.place, self.extra, self.loaded = place, extra, False

    def load(self) -> None:
        if self.loaded:
            return
        try:
            command = load_command(self.place, self.extra)
        except LookupError as err:
            self.exit(EXIT_NOT_AVAILABLE, f"{self.prog}: error: {err}\n")
        prepare(self, command.add_arguments)
        self.set_defaults(run=command.run)
        self.loaded = True

    def parse_known_args(self, args=None, namespace=None):
        self.load()
        namespace, extras = super().parse_known_args(args, namespace)
        if extras:  # said here, so the line names the command: "newmarket play: error: unrecognized ..."
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras

    def format_help(self) -> str:
        self.load()
        return super().format_help()


def build_parser() -> OneLineParser:
    """The parser of ``newmarket``; each subcommand's options are added when that subcommand is parsed."""
    parser = OneLineParser(
        prog="newmarket",
        description="Newmarket, Michigan, Newbury and other stops card games: play, watch, train and compare agents.",
        epilog="Run 'newmarket COMMAND --help' for the options of a command.",
    )
    parser.add_argument("--version", action="version", version=f"newmarket {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=CommandParser)
    for name, (place, summary, extra) in COMMANDS.items():
        commands.add_parser(name, help=summary, place=place, extra=extra)
    return parser


def _missing_modules(names: Sequence[str]) -> list[str]:
    missing = []
    for name in names:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):  # a broken or blocked module counts as missing
            found = False
        if not found:
            missing.append(name)
    return missing


def run(args: argparse.Namespace) -> int:
    """Run the parsed subcommand, after checking the modules it needs."""
    extra = COMMANDS[args.command][2]
    missing = _missing_modules(NEEDS.get(args.command, ()))
    if missing:
        return fail(
            args.prog,
            f"needs the Python module{'s' * (len(missing) > 1)} {', '.join(missing)}, not "
            f"installed: pip install 'newmarket-env[{extra}]'",
            EXIT_NOT_AVAILABLE,
        )
    try:
        return int(args.run(args) or EXIT_OK)
    except ModuleNotFoundError as err:  # an optional module imported late that NEEDS does not list
        if extra is None:
            raise
        return fail(args.prog, _needs_line(extra, [err.name or "?"]), EXIT_NOT_AVAILABLE)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``newmarket`` console script; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return EXIT_BAD_INPUT
        return run(args)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (e.g. `newmarket replay F --all | head`); stop quietly.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except SystemExit as done:  # argparse: --help (0) or a bad option (2), already printed
        return done.code if isinstance(done.code, int) else EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
