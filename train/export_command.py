"""``newmarket export MODEL.zip OUT.npz --variant V``: a stable-baselines3 model as a safe saved-agent file.

The model is read as :mod:`newmarket_env.agents.sb3_zip` reads it (JSON and weights only, no unpickling);
the activation comes from the model, the rules from ``--variant``, ``--players`` and ``--set`` (the file
does not say which rules it was trained for: give the ones it was). The ``.npz`` written is the package's
own format (:mod:`newmarket_env.agents.saved`), which loads with numpy only and runs no code.
"""

from __future__ import annotations

import argparse
import os

from newmarket_env.agents.saved import save_policy
from newmarket_env.agents.sb3_zip import read_sb3_zip
from newmarket_env.game.rules import VARIANTS, make_rules, parse_settings
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
        required=True,
        choices=list(VARIANTS),
        metavar="NAME",
        help=f"the rules preset it was trained for: {', '.join(VARIANTS)}",
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
        rules = make_rules(args.variant, args.players, **parse_settings(args.set))
        info, layers = read_sb3_zip(args.model)
    except ValueError as err:
        return fail(args.prog, " ".join(str(err).split()))
    training = {"source": "stable-baselines3", "model": os.path.basename(args.model), **info}
    metadata = save_policy(args.out, layers, rules, args.variant, info["activation"], training, name=args.name)
    sizes = " -> ".join(str(n) for n in metadata["layers"])
    print(f"wrote {args.out}: {info['algorithm']} policy {sizes}, activation {info['activation']}, {args.variant}")
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    parser = command_parser(add_arguments, PROG)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
