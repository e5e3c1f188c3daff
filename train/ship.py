"""Ship a finished run as a registered agent: ``agents/trained/<name>.npz`` + ``.json``, curve PNG in docs.

``python -m newmarket_env.train.ship runs/newmarket_ppo ppo-newmarket`` writes the
run's final policy in float16 (half the size; computed in float32 when loaded),
a JSON sidecar with the same metadata plus the run's final evaluation, and
copies ``learning_curve.png`` to ``docs/training/<name>_curve.png``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from newmarket_env.agents.saved import TRAINED_DIR, read_saved, save_policy
from newmarket_env.game.rules import rules_from_dict


def ship(run_dir: Path, name: str, docs_dir: Path, trained_dir: Path = TRAINED_DIR) -> Path:
    """Write the shipped files of ``run_dir`` under ``name``; return the .npz path."""
    metadata, layers = read_saved(run_dir / "final.npz")
    rules = rules_from_dict(metadata["rules"])
    target = Path(trained_dir) / f"{name}.npz"
    training = dict(metadata["training"])
    shipped = save_policy(target, layers, rules, metadata["variant"], metadata["activation"], training, "float16")
    final_eval = run_dir / "final_eval.json"
    if final_eval.exists():
        shipped["final_eval"] = json.loads(final_eval.read_text())
    target.with_suffix(".json").write_text(json.dumps(shipped, indent=2, sort_keys=True) + "\n")
    docs_dir.mkdir(parents=True, exist_ok=True)
    if (run_dir / "learning_curve.png").exists():
        shutil.copyfile(run_dir / "learning_curve.png", docs_dir / f"{name}_curve.png")
    return target


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m newmarket_env.train.ship", description=__doc__.split("\n")[0])
    parser.add_argument("run_dir", type=Path)
    parser.add_argument("name", help="registered name, e.g. ppo-newmarket")
    parser.add_argument("--docs", type=Path, default=Path("docs/training"))
    args = parser.parse_args(argv)
    try:
        print(ship(args.run_dir, args.name, args.docs))
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
