"""Where an iteration of RLlib's PPO goes: sampling against the learner's update.

Builds the algorithm of a training config (default ``configs/newmarket_rllib_ppo.yaml``) in a local Ray of one
CPU (``num_env_runners: 0``: the env runner in this process), runs ``algo.train()`` a few times and prints,
per iteration, the learner decisions sampled, the iteration's seconds and the seconds spent in the env
runner's ``sample`` and in the learner group's ``update`` (each timed around the call; RLlib's own
``timers`` are smoothed over iterations, so the first, with its warm-up, weighs on them for long).
``--set`` takes the training command's settings, e.g.:

    python scripts/rllib_timers.py --set rllib.sampler=batch
    python scripts/rllib_timers.py --set rllib.sampler=aec
    python scripts/rllib_timers.py --set rllib.sampler=batch --set rllib.num_envs=512

docs/benchmark.md ("Training on every core and past one machine") quotes what it gave.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path


class Stopwatch:
    """Seconds spent in calls of one method of one object, since the last ``take``."""

    def __init__(self, owner: object, name: str) -> None:
        self.seconds = 0.0
        method = getattr(owner, name)

        def timed(*args, **kwargs):
            began = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - began

        setattr(owner, name, timed)

    def take(self) -> float:
        seconds, self.seconds = self.seconds, 0.0
        return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("config", nargs="?", default="configs/newmarket_rllib_ppo.yaml")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a config setting")
    parser.add_argument("--iterations", type=int, default=5)
    args = parser.parse_args()

    import ray

    from newmarket_env.train.cli import apply_settings
    from newmarket_env.train.config import config_from_dict, read_yaml
    from newmarket_env.train.rllib_ppo.learner import algorithm_config, learner_module

    data = read_yaml(Path(args.config))
    apply_settings(data, ["run.threads=1", *args.set])  # one core: the figures are per core
    config = config_from_dict(data)
    module = learner_module(config)
    ray.init(address="local", num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        algo = algorithm_config(config).build_algo()
        sampling = Stopwatch(algo.env_runner_group.local_env_runner, "sample")
        updating = Stopwatch(algo.learner_group, "update")
        for iteration in range(1, args.iterations + 1):
            began = time.perf_counter()
            result = algo.train()
            seconds = time.perf_counter() - began
            decisions = int(result["env_runners"].get("num_module_steps_sampled", {}).get(module, 0))
            print(
                f"iteration {iteration}: {decisions} learner decisions in {seconds:.2f} s: sampling "
                f"{sampling.take():.2f} s, update {updating.take():.2f} s",
                flush=True,
            )
        algo.stop()
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
