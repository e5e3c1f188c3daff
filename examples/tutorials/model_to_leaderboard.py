"""Tutorial 3: from your model to the leaderboard -- export it, measure it, enter it in a tournament.

    python examples/tutorials/model_to_leaderboard.py mine.zip --boards 300 --blocks 200

Each step is the ``newmarket`` command a user types; this script runs them one after another and
prints each command before its output, so the page's commands and the tested ones are the same.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent  # the newmarket command of the environment running this script


def run(command: list[str]) -> str:
    """Run one command as a user would type it; stop on failure with its own message."""
    print(f"$ {shlex.join(command)}", flush=True)
    done = subprocess.run(command, capture_output=True, text=True)
    print(done.stdout, end="", flush=True)
    if done.returncode != 0:
        raise SystemExit(f"{shlex.join(command)} failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model", help="a MaskablePPO or PPO model saved by SB3 (model.save('mine.zip'))")
    parser.add_argument("--variant", default="newmarket")
    parser.add_argument("--boards", type=int, default=300, help="duplicate boards for the measurement")
    parser.add_argument("--blocks", type=int, default=200, help="deal blocks for the tournament")
    parser.add_argument("--out", default="results/mine", help="the tournament's folder")
    args = parser.parse_args(argv)
    newmarket = str(BIN / "newmarket")
    agent = str(Path(args.model).with_suffix(".npz"))

    # 1. The safe file to share: weights and metadata, loaded with numpy alone (no pickle).
    run([newmarket, "export", args.model, agent, "--variant", args.variant])
    # 2. Measured against each baseline on duplicate boards (the same deals with the seats swapped).
    measure = [sys.executable, "-m", "newmarket_env.train.measure", agent, "--variant", args.variant]
    run([*measure, "--opponents", "random,greedy,control", "--boards", str(args.boards), "--seed", "2026"])
    # 3. Entered in a tournament with the shipped agents; --save-records keeps every session.
    field = ",".join([agent, f"ppo-{args.variant}", "greedy", "control"])
    tournament = [newmarket, "tournament", "--variant", args.variant, "--agents", field, "--blocks", str(args.blocks)]
    run([*tournament, "--seed", "2026", "--save-records", "--out", args.out, "--overwrite", "--quiet"])
    print((Path(args.out) / "leaderboard.md").read_text(encoding="utf-8"))
    # 4. Its games, in the browser.
    records = Path(args.out) / "records.jsonl.gz"
    print(f"now run `newmarket serve`, open http://127.0.0.1:8000/, choose Replay and the file {records}")
    return records


if __name__ == "__main__":
    main()
