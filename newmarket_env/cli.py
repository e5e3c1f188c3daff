"""The ``newmarket`` command: play, replay, tournament, train, bench.

``play`` and ``replay`` live here (``newmarket_env.play``); ``tournament``,
``bench`` and ``train`` belong to their own modules, imported only when asked
for so that ``newmarket play`` starts fast and needs no training extras.
Bad input gives one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import inspect
import os
import sys
import types
from typing import Sequence

# Subcommands run by other modules: name -> (module with build_parser() and main(argv) -> int, summary, extra).
DELEGATED = {
    "tournament": ("newmarket_env.eval.tournament.cli", "play agents against each other and print the leaderboard",
                   "eval"),
    "train": ("newmarket_env.train.cli", "train an agent from a config file (e.g. configs/newmarket_ppo.yaml)",
              "train"),
    "bench": ("newmarket_env.eval.bench.cli", "measure the speed of the engine and the env", "eval"),
    "serve": ("newmarket_env.web.cli", "the web app: play, watch and replay in a browser (127.0.0.1)", "web"),
}
# Python modules each delegated command needs beyond the env's own dependencies (checked before it runs,
# so a missing one is named with its extra at once, not after an hour of training).
NEEDS = {
    "tournament": ("rich", "openskill", "matplotlib"),
    "train": ("torch", "stable_baselines3", "sb3_contrib", "yaml", "matplotlib", "tensorboard", "tqdm", "rich"),
    "bench": ("openskill",),
}
# Exit codes of every newmarket command: 0 done, 1 failed while running (or a needed extra is not
# installed), 2 bad input (nothing was done), 130 interrupted.
EXIT_BAD_INPUT = 2
EXIT_NOT_AVAILABLE = 1
EXIT_INTERRUPTED = 130


class OneLineParser(argparse.ArgumentParser):
    """An argparse parser whose errors are one line (``newmarket play: error: ...``) and exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> OneLineParser:
    """The parser of ``newmarket`` and of its own subcommands (play, replay)."""
    from newmarket_env.play.arguments import add_play_parser, add_replay_parser, add_watch_parser

    from newmarket_env import __version__

    parser = OneLineParser(
        prog="newmarket",
        description="Newmarket, Michigan, Newbury and other stops card games: play, watch, train and compare agents.",
        epilog="Run 'newmarket COMMAND --help' for the options of a command.",
    )
    parser.add_argument("--version", action="version", version=f"newmarket {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_play_parser(commands)
    add_replay_parser(commands)
    add_watch_parser(commands)
    for name, (_, summary, _) in DELEGATED.items():
        commands.add_parser(name, help=summary, add_help=False)
    return parser


def print_error(prog: str, message: str) -> None:
    """The one error line every newmarket command prints: ``newmarket COMMAND: error: MESSAGE``."""
    print(f"{prog}: error: {message}", file=sys.stderr)


def _fail(command: str, message: str, code: int = EXIT_BAD_INPUT) -> int:
    print_error(f"newmarket {command}", message)
    return code


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


def _delegate(command: str, argv: list[str]) -> int:
    """Run a subcommand owned by another module, or say in one line why it cannot run."""
    module_name, _, extra = DELEGATED[command]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as err:
        if err.name and module_name.startswith(err.name):
            return _fail(command, f"not available in this installation ({module_name} is missing)",
                         EXIT_NOT_AVAILABLE)
        return _fail(command, f"needs the Python module {err.name!r}: pip install 'newmarket-env[{extra}]'",
                     EXIT_NOT_AVAILABLE)
    # Parse once with their parser, named and with one-line errors, so --help and bad options read like
    # every other newmarket command; their main() then parses the same argv again and runs.
    parser = module.build_parser()
    parser.prog = f"newmarket {command}"
    parser.error = types.MethodType(OneLineParser.error, parser)
    parser.parse_args(argv)  # exits 0 after --help, 2 after a bad option
    missing = _missing_modules(NEEDS.get(command, ()))
    if missing:
        return _fail(command, f"needs the Python module{'s' * (len(missing) > 1)} {', '.join(missing)}, not "
                     f"installed: pip install 'newmarket-env[{extra}]'", EXIT_NOT_AVAILABLE)
    # Their errors carry the same prefix as ours (``newmarket train: error: ...``).
    takes_prog = "prog" in inspect.signature(module.main).parameters
    try:
        return int((module.main(argv, prog=parser.prog) if takes_prog else module.main(argv)) or 0)
    except ModuleNotFoundError as err:  # an optional module imported late that NEEDS does not list
        return _fail(command, f"needs the Python module {err.name!r}: pip install 'newmarket-env[{extra}]'",
                     EXIT_NOT_AVAILABLE)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``newmarket`` console script; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    command = argv[0] if argv else ""
    try:
        if command in DELEGATED:
            return _delegate(command, argv[1:])
        args = build_parser().parse_args(argv)
        if args.command is None:
            build_parser().print_help()
            return EXIT_BAD_INPUT
        return args.run(args)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (e.g. `newmarket replay F --all | head`); stop quietly.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except SystemExit as done:  # argparse: --help (0) or a bad option (2), already printed
        return done.code if isinstance(done.code, int) else EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
