"""Command line: ``python -m newmarket_env.train CONFIG.yaml [--resume] [overrides]``.

``build_parser()`` and ``main(argv)`` also serve the ``newmarket train`` command.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from typing import Sequence


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """Arguments of the train command (added to ``parser`` when given, e.g. a subcommand parser)."""
    parser = parser or argparse.ArgumentParser(
        prog="python -m newmarket_env.train", description="Train a MaskablePPO agent from a YAML config.")
    parser.add_argument("config", nargs="?", help="YAML config, e.g. configs/newmarket_ppo.yaml")
    parser.add_argument("--resume", action="store_true", help="continue from the latest checkpoint in run.out_dir")
    parser.add_argument("--total-steps", type=int, help="override run.total_steps")
    parser.add_argument("--max-minutes", type=float, help="override run.max_minutes (e.g. for --resume)")
    parser.add_argument("--out-dir", help="override run.out_dir")
    parser.add_argument("--seed", type=int, help="override run.seed")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument("--describe", action="store_true", help="print every config key with its doc and exit")
    return parser


def _apply_overrides(config, args: argparse.Namespace):
    from newmarket_env.train.config import config_from_dict

    data = config.to_dict()
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
    return config_from_dict(data)  # overrides are validated like the file


def main(argv: Sequence[str] | None = None) -> int:
    """Run the train command; return the exit status (2 for a bad config, printed as one line)."""
    from newmarket_env.train.config import describe, load_config

    args = build_parser().parse_args(argv)
    if args.describe:
        print("\n".join(describe()))
        return 0
    if not args.config:
        print("error: give a config file, e.g. configs/newmarket_ppo.yaml (or --describe)", file=sys.stderr)
        return 2
    try:
        config = _apply_overrides(load_config(args.config), args)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    from newmarket_env.train.run import train

    command = "python -m newmarket_env.train " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    path = train(config, resume=args.resume, command=command)
    print(f"saved agent: {path}")
    return 0
