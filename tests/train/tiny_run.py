"""The tiny training run the run-folder tests start: the config and the options that keep it short."""

from pathlib import Path

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
