"""The tiny training run the run-folder tests start: the config, the options that keep it short, and helpers."""

from pathlib import Path

from newmarket_env.train.cli import main

TINY = Path(__file__).resolve().parents[2] / "configs" / "tiny_test.yaml"
#: No progress bar, a dummy vec env, no warm start, and the fewest evaluation sessions.
FAST = [
    "--no-progress",
    "--set",
    "run.vec_env=dummy",
    "--set",
    "pretrain.teacher=",
    "--set",
    "eval.sessions=1",
    "--set",
    "eval.final_sessions=2",
]
HANG_GUARD_S = 600  # only so a broken build fails instead of hanging CI; never an assertion on speed


def train_tiny(out, *extra: str) -> int:
    """``python -m newmarket_env.train`` of the tiny config into ``out``; its exit code."""
    return main([str(TINY), "--out-dir", str(out), *FAST, *extra])


def folder_files(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` by its relative path, with its bytes."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
