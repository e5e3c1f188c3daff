"""``newmarket export MODEL.zip OUT.npz [--variant V]``: a stable-baselines3 model as a safe saved-agent file.

The model is read as :mod:`newmarket_env.agents.sb3_zip` reads it (JSON and weights only, no unpickling);
the activation comes from the model. The rules: a model this package trained has a record of them beside
it (``MODEL.rules.json``, :mod:`newmarket_env.agents.sb3_rules`): they are taken from there, and
``--variant``, ``--players`` and ``--set`` naming other rules are refused in one line. A model without a
record (``model.save`` in your own script) says nothing about its rules: ``--variant`` is then required,
and a warning says that the file will claim the rules given. The ``.npz`` written is the package's own
format (:mod:`newmarket_env.agents.saved`), which loads with numpy only and runs no code.
"""

from __future__ import annotations

import argparse
import os
import sys

from newmarket_env.agents.saved import rules_mismatch, save_policy
from newmarket_env.agents.sb3_rules import RulesRecord, model_rules_path, rules_record
from newmarket_env.agents.sb3_zip import read_sb3_zip
from newmarket_env.game.rules import VARIANTS, Rules, make_rules, parse_settings
from newmarket_env.util.cli_common import EXIT_OK, command_parser, fail

PROG = "python -m newmarket_env.train.export_command"
DESCRIPTION = (
    "Write a stable-baselines3 MaskablePPO or PPO model (model.save() .zip, MlpPolicy on this package's "
    "observation) as a saved-agent .npz: weights and plain metadata, loadable by load_agent and --agents "
    "without torch. The .zip is read without unpickling anything."
)


def add_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    parser.description = DESCRIPTION
    parser.add_argument("model", metavar="MODEL.zip", help="the stable-baselines3 model file")
    parser.add_argument("out", metavar="OUT.npz", help="the saved-agent file to write")
    parser.add_argument(
        "--variant",
        default=None,
        choices=list(VARIANTS),
        metavar="NAME",
        help=f"the rules preset it was trained for: {', '.join(VARIANTS)} (default: the rules recorded "
        "beside MODEL, MODEL.rules.json; required without that record)",
    )
    parser.add_argument(
        "--players", type=int, default=None, metavar="N", help="number of players (default: the variant's)"
    )
    parser.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="a rules override it was trained with"
    )
    parser.add_argument("--name", default=None, help="the agent's name when loaded (default: OUT's file name)")
    parser.add_argument("--overwrite", action="store_true", help="replace OUT if it exists")
    return parser


def run(args: argparse.Namespace) -> int:
    if not args.out.endswith(".npz"):
        return fail(args.prog, f"OUT {args.out!r} must end with .npz (the saved-agent format)")
    if os.path.exists(args.out) and not args.overwrite:
        return fail(args.prog, f"OUT {args.out!r} exists; pass --overwrite to replace it")
    if not os.path.isfile(args.model):
        return fail(args.prog, f"MODEL {args.model!r} is not a file")
    try:
        info, layers = read_sb3_zip(args.model)
        record = rules_record(args.model)
        variant, rules = chosen_rules(args, record)
    except ValueError as err:
        return fail(args.prog, " ".join(str(err).split()))
    if record is None:
        print(
            f"{args.prog}: warning: {args.model} has no rules record ({model_rules_path(args.model).name}, which "
            f"the models this package trains have): {args.out} will say it plays {variant} with the rules given; "
            "make sure the model learned those",
            file=sys.stderr,
        )
    training = {"source": "stable-baselines3", "model": os.path.basename(args.model), **info}
    metadata = save_policy(args.out, layers, rules, variant, info["activation"], training, name=args.name)
    sizes = " -> ".join(str(n) for n in metadata["layers"])
    print(f"wrote {args.out}: {info['algorithm']} policy {sizes}, activation {info['activation']}, {variant}")
    return EXIT_OK


def chosen_rules(args: argparse.Namespace, record: RulesRecord | None) -> tuple[str, Rules]:
    """The variant and rules to write: the record's, or those of ``--variant``/``--players``/``--set``, which must
    then be the record's where there is one (a one-line ``ValueError`` otherwise)."""
    if args.variant is None and record is None:
        raise ValueError(
            f"{args.model} has no rules record ({model_rules_path(args.model).name}): give the rules it was "
            "trained for, --variant NAME [--players N] [--set KEY=VALUE]"
        )
    if record is None:
        return args.variant, make_rules(args.variant, args.players, **parse_settings(args.set))
    if args.variant is None and args.players is None and not args.set:
        return record.variant, record.rules
    variant = args.variant or record.variant
    rules = make_rules(variant, args.players, **parse_settings(args.set))
    diff = rules_mismatch(record.rules.to_dict(), rules)
    if diff:
        beside = model_rules_path(args.model).name
        raise ValueError(
            f"{args.model} was trained for {record.variant!r} with other rules (its {beside} says so); "
            f"differing parameters: {'; '.join(diff)}. Leave out --variant, --players and --set to "
            "export it for the rules it learned"
        )
    return variant, rules


def main(argv: list[str] | None = None) -> int:
    parser = command_parser(add_arguments, PROG)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
