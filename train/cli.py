"""Command line: ``python -m newmarket_env.train CONFIG.yaml [--resume] [overrides]``.

``add_arguments(parser)`` and ``run(args)`` are the command (``newmarket train`` calls them);
``main(argv)`` runs it on its own. Bad input (a config, an override, a run folder that is not this
run's) ends with one line on stderr and exit code 2, before anything is written.
"""

from __future__ import annotations

import argparse
import json
import shlex
from collections.abc import Sequence
from pathlib import Path

from newmarket_env.train.config import config_from_dict, describe, load_config, parse_yaml
from newmarket_env.train.memory import check_memory
from newmarket_env.train.methods import available_methods, get_method
from newmarket_env.train.run import prepare_run, train
from newmarket_env.train.stamped import CheckpointError
from newmarket_env.util.cli_common import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, command_parser, fail

PROG = "python -m newmarket_env.train"
DESCRIPTION = (
    "Train an agent from a YAML config with its method: ppo (MaskablePPO, the default), expert_iteration, dmc, "
    "rllib_ppo, or an installed package's (keys: --describe; rules: docs/rules.md)."
)


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Give ``parser`` the train command's description and options."""
    parser.description = DESCRIPTION
    parser.add_argument("config", nargs="?", help="YAML config, e.g. configs/newmarket_ppo.yaml")
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue this run from its newest intact checkpoint in run.out_dir (the config may "
        "change only its budget: run.total_steps, run.max_minutes, ...)",
    )
    parser.add_argument(
        "--overwrite",
        action="store_true",
        help="replace a previous run in run.out_dir (without it, a folder holding a run is an error)",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        dest="settings",
        help="override a config key, e.g. --set ppo.learning_rate=1e-4 --set ppo.net_arch=[64,64] "
        "(values read as YAML; repeat for several)",
    )
    parser.add_argument("--total-steps", type=int, help="override run.total_steps")
    parser.add_argument("--max-minutes", type=float, help="override run.max_minutes (e.g. for --resume)")
    parser.add_argument("--out-dir", help="override run.out_dir")
    parser.add_argument("--seed", type=int, help="override run.seed")
    parser.add_argument(
        "--no-progress", action="store_true", help="no progress lines: print only the run's start and end"
    )
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="also print each iteration's figures, SB3's tables (ppo) and a progress bar (run.verbose)",
    )
    parser.add_argument("--describe", action="store_true", help="print every config key with its doc and exit")
    return parser


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The train command's parser, on its own."""
    return command_parser(add_arguments, prog)


def apply_settings(data: dict, settings: list[str]) -> None:
    """``--set section.key=value`` into the config dict ``data`` (values as YAML: 1e-4, [64, 64], true; a quoted
    value is text: ``--set "env.reward_scale='0.1'"`` is refused as a number would be in the file)."""
    for text in settings:
        key, sep, raw = text.partition("=")
        path = [part.strip() for part in key.split(".")]
        if not sep or not all(path):
            raise ValueError(f"--set {text!r} is not KEY=VALUE, e.g. --set ppo.learning_rate=1e-4")
        try:
            value = parse_yaml(raw, "") if raw.strip() else ""
        except ValueError:
            raise ValueError(f"--set {text!r}: the value is not valid YAML") from None
        where = data
        for part in path[:-1]:
            where = where.setdefault(part, {})
            if not isinstance(where, dict):
                raise ValueError(f"--set {text!r}: {part!r} is not a config section")
        where[path[-1]] = value


def _apply_overrides(config, args: argparse.Namespace):
    data = config.to_dict()
    apply_settings(data, args.settings)
    if args.total_steps is not None:
        data["run"]["total_steps"] = args.total_steps
    if args.max_minutes is not None:
        data["run"]["max_minutes"] = args.max_minutes
    if args.out_dir is not None:
        data["run"]["out_dir"] = args.out_dir
    if args.seed is not None:
        data["run"]["seed"] = args.seed
    if args.no_progress:
        data["run"]["progress_bar"] = False
    if args.verbose:
        data["run"]["verbose"] = True
    return config_from_dict(data)  # overrides are validated like the file


def command_line(args: argparse.Namespace) -> str:
    """The ``python -m newmarket_env.train`` command that repeats this run (kept in the run's summary)."""
    words = [args.config, *(["--resume"] if args.resume else []), *(["--overwrite"] if args.overwrite else [])]
    words += [word for setting in args.settings for word in ("--set", setting)]
    for option, value in (
        ("--total-steps", args.total_steps),
        ("--max-minutes", args.max_minutes),
        ("--out-dir", args.out_dir),
        ("--seed", args.seed),
    ):
        words += [] if value is None else [option, str(value)]
    words += ["--no-progress"] if args.no_progress else []
    words += ["--verbose"] if args.verbose else []
    return f"{PROG} {shlex.join(words)}"


def main(argv: Sequence[str] | None = None, prog: str = PROG) -> int:
    """Run the train command on its own; return the exit status (2 for bad input, printed as one line)."""
    return run(build_parser(prog).parse_args(argv))


def run(args: argparse.Namespace) -> int:
    """Train as the parsed options say; return the exit status (2 for bad input, printed as one line)."""
    if args.describe:
        print("\n".join(describe()))
        return EXIT_OK
    if not args.config:
        return fail(args.prog, "give a config file, e.g. configs/newmarket_ppo.yaml (or --describe)")
    out_dir = None
    try:
        config = _apply_overrides(load_config(args.config), args)
        check_memory(config)  # a run the machine cannot hold is refused before its folder is made
        out_dir = config.run.out_dir
        start = prepare_run(config, resume=args.resume, overwrite=args.overwrite)  # nothing written unless it passes
    except ValueError as err:
        return fail(args.prog, str(err), EXIT_BAD_INPUT)
    except OSError as err:  # a full disk as the run folder is claimed: one line, as during the run
        if out_dir is None:
            raise
        return fail(args.prog, cannot_write(out_dir, err), EXIT_FAILED)
    try:
        path = train(config, resume=args.resume, command=command_line(args), start=start)
    except CheckpointError as err:
        return fail(args.prog, str(err), EXIT_BAD_INPUT)
    except OSError as err:  # a full disk, a folder gone: the run stops, its checkpoints are as they were
        return fail(args.prog, cannot_write(start.out_dir, err), EXIT_FAILED)
    print(f"saved agent: {path}")
    return EXIT_OK


def cannot_write(out_dir, err: OSError) -> str:
    """The line a run stopped by a failed write ends with: what failed, and where it may continue from."""
    where = f" ({err.filename})" if err.filename else ""
    newest = newest_intact(out_dir)
    then = (
        f"the newest intact checkpoint is {newest}; make room, then --resume"
        if newest
        else "no checkpoint was written yet; make room, then start again"
    )
    return f"stopped: cannot write in run.out_dir {str(out_dir)!r}{where}: {err.strerror or err}; {then}"


def newest_intact(out_dir) -> str | None:
    """The newest checkpoint in ``out_dir`` that ``--resume`` would use (of any method), or None."""
    try:
        run_id = json.loads((Path(out_dir) / "run.json").read_text())["run_id"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    folder = Path(out_dir) / "checkpoints"
    for name in available_methods():
        try:
            found = get_method(name).find_checkpoint(folder, run_id)
        except ValueError:  # a plugin that no longer loads has no checkpoint to offer
            continue
        if found.path is not None:
            return str(found.path)
    return None
