"""Self-play PPO on Ray RLlib for a few iterations: the masked module against a frozen copy of itself.

    pip install -e ".[ray]"
    python examples/rllib_self_play.py --iterations 5                   # a private local Ray
    python examples/rllib_self_play.py --iterations 50 --address auto \\
        --num-env-runners 8 --batch-size 8192                           # on a running cluster

Prints one line per iteration: env steps, episodes, the learner's mean return (chips x reward_scale),
and the mask audit (actions checked against their masks, illegal ones: must stay 0).
The config is ``newmarket_env.integrations.rllib.self_play_config``; its docstring lists every knob.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from newmarket_env.integrations.rllib import CHECKED_METRIC, ILLEGAL_METRIC, LEARNER, self_play_config


def train(iterations: int, **config_kwargs: Any) -> list[dict[str, Any]]:
    """Build the self-play PPO, train ``iterations`` times, stop it; one summary row per iteration."""
    algo = self_play_config(**config_kwargs).build_algo()
    rows = []
    try:
        for _ in range(iterations):
            result = algo.train()
            runners = result["env_runners"]
            rows.append(
                {
                    "iteration": result["training_iteration"],
                    "env_steps": int(runners["num_env_steps_sampled"]),
                    "episodes": int(runners["num_episodes"]),
                    "learner_return": float(runners.get("module_episode_returns_mean", {}).get(LEARNER, float("nan"))),
                    "actions_checked": int(runners.get(CHECKED_METRIC, 0)),
                    "illegal_actions": int(runners.get(ILLEGAL_METRIC, 0)),
                    "opponent_frozen_at": result.get("opponent_frozen_at"),
                }
            )
    finally:
        algo.stop()
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=5)
    parser.add_argument("--variant", default="newmarket")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument(
        "--address", default=None, help="'auto' or HOST:PORT of a running cluster; default: start a local Ray"
    )
    parser.add_argument("--num-env-runners", type=int, default=0, help="remote samplers (0: sample in this process)")
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--refresh-every", type=int, default=5, help="iterations between opponent refreshes")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    import ray

    ray.init(address=args.address)
    try:
        for row in train(
            args.iterations,
            variant=args.variant,
            num_players=args.players,
            num_env_runners=args.num_env_runners,
            batch_size=args.batch_size,
            minibatch_size=min(256, args.batch_size),
            refresh_every=args.refresh_every,
            seed=args.seed,
        ):
            print(row, flush=True)
            if row["illegal_actions"]:
                print("error: an illegal action was recorded", file=sys.stderr)
                return 1
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
