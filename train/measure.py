"""Measure a saved or registered agent: duplicate evaluation against baselines, as a table.

``python -m newmarket_env.train.measure agents/trained/ppo-newmarket.npz --variant newmarket
--opponents random,control --boards 300`` prints one Markdown row per opponent:
chips per deal of the agent with its 95% interval (boards = deal sets, each
played with the agent in every seat).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence

from newmarket_env.agents import load_agent
from newmarket_env.agents.saved import read_saved
from newmarket_env.train.evaluate import duplicate_eval


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m newmarket_env.train.measure", description=__doc__.split("\n")[0])
    parser.add_argument("agent", help="a saved-agent path or a registered name")
    parser.add_argument("--variant", help="default: the saved agent's variant and rules (else newmarket)")
    parser.add_argument("--players", type=int, help="default: the saved agent's (else 4)")
    parser.add_argument("--opponents", default="random,control", help="comma-separated baseline names")
    parser.add_argument("--boards", type=int, default=300)
    parser.add_argument("--seed", type=int, default=2026, help="deal seed (training evals use 12345)")
    parser.add_argument(
        "--no-reference", action="store_true", help="skip the margin over the opponent playing the tested seat itself"
    )
    parser.add_argument("--json", help="also write the rows to this JSON file")
    return parser


def _table(args: argparse.Namespace) -> tuple[str, int, dict]:
    """Variant, players and rules overrides: the saved agent's own unless given."""
    if args.variant is not None or not os.path.isfile(args.agent):
        return args.variant or "newmarket", args.players or 4, {}

    metadata = read_saved(args.agent)[0]
    rules = dict(metadata["rules"])
    players = rules.pop("num_players", 4)
    return metadata["variant"], args.players or players, rules


def _margin(result) -> str:
    if result.margin is None:
        return "- | -"
    low, high = result.margin - result.margin_ci95, result.margin + result.margin_ci95
    return f"{result.margin:+.2f} | [{low:+.2f}, {high:+.2f}]"


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)

    try:
        variant, players, rules = _table(args)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2

    rows = []
    print(
        "| agent | variant | vs | chips/deal | 95% CI | margin over vs | 95% CI | boards | seconds |\n"
        "|---|---|---|---|---|---|---|---|---|"
    )
    for opponent in args.opponents.split(","):
        began = time.time()
        try:
            result = duplicate_eval(
                lambda e, s: load_agent(args.agent, env=e, seed=s),
                opponent,
                variant,
                players,
                boards=args.boards,
                seed=args.seed,
                rules=rules,
                reference=not args.no_reference,
            )
        except ValueError as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
        seconds = round(time.time() - began, 1)
        rows.append({"agent": args.agent, "variant": variant, **result.as_row(), "seconds": seconds})
        print(
            f"| {args.agent} | {variant} | {opponent} | {result.mean:+.2f} | "
            f"[{result.low:+.2f}, {result.high:+.2f}] | {_margin(result)} | {result.boards} | {seconds} |",
            flush=True,
        )
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(rows, handle, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
