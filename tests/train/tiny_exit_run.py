"""The tiny expert-iteration run the expert tests start from: the config and the options that keep it short."""

from pathlib import Path

TINY_EXIT = Path(__file__).resolve().parents[2] / "configs" / "tiny_exit.yaml"
#: No progress bar, no evaluation during the run, the fewest final sessions.
QUIET = ["--no-progress", "--set", "eval.every=0", "--set", "eval.final_sessions=1"]
#: The guided_prior teacher (the network's candidates and bonus over control's rollouts) at toy size.
PRIOR = ["--set", "expert.teacher=guided_prior", "--set", "expert.racing_worlds=2", "--set", "expert.budget=4"]
