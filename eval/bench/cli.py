"""``python -m newmarket_env.eval.bench`` (also ``newmarket bench``): run the benchmark, print the tables.

``add_arguments(parser)`` and ``run(args)`` are the command (``newmarket bench`` calls them); ``main(argv)``
runs it on its own.
"""

from __future__ import annotations

import argparse
import json
import math
import sys

from newmarket_env.eval.bench.peers import PEER_NAMES
from newmarket_env.eval.bench.report import markdown, print_report
from newmarket_env.eval.bench.suite import BenchConfig, run_benchmark
from newmarket_env.game.rules import VARIANTS
from newmarket_env.util.cli_common import EXIT_OK, bad_option, check_output_file, command_parser

PROG = "python -m newmarket_env.eval.bench"
DESCRIPTION = (
    "Measure decisions and sessions per second of the engine, the PettingZoo env, the single-agent view "
    "and a tournament, next to PettingZoo classic and OpenSpiel peers, plus memory per env."
)


def _number(kind, low: float, strict: bool):
    """An argparse type: ``kind`` (int or float) above ``low`` (or at least ``low`` when not ``strict``)."""

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not math.isfinite(value):  # nan passes every comparison; --seconds nan would never end
            raise argparse.ArgumentTypeError(f"{text} is not a finite number")
        if value < low or (strict and value == low):
            raise argparse.ArgumentTypeError(f"{text} is out of range; allowed: {'>' if strict else '>='} {low}")
        return value

    return parse


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Give ``parser`` the benchmark's description and options."""
    parser.description = DESCRIPTION
    parser.add_argument(
        "--repeats",
        type=_number(int, 1, False),
        default=5,
        help="timed rounds per workload; the median is shown (default 5)",
    )
    parser.add_argument(
        "--seconds",
        type=_number(float, 0, True),
        default=2.0,
        help="seconds of play per workload and round (default 2)",
    )
    parser.add_argument(
        "--presets",
        nargs="+",
        default=list(VARIANTS),
        choices=list(VARIANTS),
        metavar="PRESET",
        help=f"presets to measure (default all: {', '.join(VARIANTS)})",
    )
    parser.add_argument(
        "--peers",
        nargs="*",
        default=list(PEER_NAMES),
        choices=list(PEER_NAMES),
        metavar="PEER",
        help=f"peers to measure (default all: {', '.join(PEER_NAMES)})",
    )
    parser.add_argument("--no-planes", action="store_true", help="skip the observation='planes' rows")
    parser.add_argument(
        "--no-reference", action="store_true", help="skip the rows of newmarket on the pure-Python reference engine"
    )
    parser.add_argument("--no-extras", action="store_true", help="skip the single-agent and tournament rows")
    parser.add_argument(
        "--memory-envs", type=_number(int, 0, False), default=50, help="envs built for the memory figure (0: skip)"
    )
    parser.add_argument(
        "--clock",
        choices=("cpu", "wall"),
        default="cpu",
        help="cpu: CPU time of this process (default; steadier on a shared machine); wall: elapsed",
    )
    parser.add_argument(
        "--rows",
        nargs="+",
        default=[],
        metavar="NAME",
        help='measure only the rows of these names, quoted (e.g. "ppo newmarket batch"); default every row '
        'but "ppo newmarket sb3 defaults", which is measured only when named',
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the first session")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--markdown", metavar="PATH", help="also write the tables as markdown")
    return parser


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The benchmark's parser, on its own."""
    return command_parser(add_arguments, prog)


def config_from_args(args: argparse.Namespace) -> BenchConfig:
    return BenchConfig(
        seconds=args.seconds,
        repeats=args.repeats,
        presets=tuple(args.presets),
        planes=not args.no_planes,
        reference=not args.no_reference,
        extras=not args.no_extras,
        peers=tuple(args.peers),
        memory_envs=args.memory_envs,
        seed=args.seed,
        clock=args.clock,
        rows=tuple(args.rows),
    )


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark on its own; 0 on success, 2 on bad options (a bad option exits with status 2)."""
    return run(build_parser().parse_args(argv))


def run(args: argparse.Namespace) -> int:
    """Run the benchmark as the parsed options say; 0 on success, 2 on bad options."""
    try:
        config = config_from_args(args)
        for option, path in (("--json", args.json), ("--markdown", args.markdown)):
            if path:  # the measuring takes minutes: a path that cannot be written is said first
                check_output_file(option, path)
    except ValueError as err:
        return bad_option(args.prog, str(err))
    result = run_benchmark(config, progress=lambda name: print(f"measuring {name} ...", file=sys.stderr))
    print_report(result)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(result.to_dict(), fh, indent=1)
    if args.markdown:
        with open(args.markdown, "w", encoding="utf-8") as fh:
            fh.write(markdown(result))
    return EXIT_OK
