"""Tutorial 6: scale out on Ray -- a tournament, expert-iteration labels, and RLlib self-play.

    pip install -e ".[ray]"
    python examples/tutorials/scale_out.py                    # a private local Ray on this machine
    python examples/tutorials/scale_out.py --address auto     # a running cluster (ray start --head ...)

Each part gives the same figures as its local run: Ray only decides where the work is done.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import numpy as np
import ray

from newmarket_env import make_rules
from newmarket_env.eval.tournament import TournamentConfig, run_tournament
from newmarket_env.train.collect import collect_states
from newmarket_env.train.expert.label import Teacher, label_states

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # examples/: the RLlib example's train()
from rllib_self_play import train as rllib_train


def tournament_on_ray(blocks: int, address: str | None) -> dict:
    """A duplicate tournament whose deal blocks are Ray tasks; the standings equal a local run's."""
    config = TournamentConfig(agents=("control", "greedy", "random", "random"), blocks=blocks, seed=3)
    start = time.perf_counter()
    on_ray = run_tournament(dataclasses.replace(config, backend="ray", address=address))
    print(f"tournament on Ray: {len(on_ray.games)} sessions in {time.perf_counter() - start:.1f} s")
    for row in on_ray.standings:
        chips = row["chips_per_deal"]
        print(f"  {row['agent']:<9} {chips['mean']:+.2f} chips/deal")
    local = run_tournament(config)
    assert on_ray.standings == local.standings, "Ray and local runs must give the same figures"
    return {row["agent"]: row["chips_per_deal"]["mean"] for row in on_ray.standings}


def labels_on_ray(states: int, address: str | None) -> np.ndarray:
    """Expert-iteration labels: ``search`` picks the best action at each recorded decision, as Ray tasks."""
    rules = make_rules("newmarket", 4)
    recorded = collect_states(rules, None, "control", [], 0.0, tables=8, count=states, seed=5, reward_scale=0.1)
    teacher = Teacher(rules, "search", budget=8, max_candidates=4)
    seeds = list(range(len(recorded.returns)))
    start = time.perf_counter()
    actions, _ = label_states(teacher, recorded.obs, recorded.masks, seeds, workers=2, backend="ray", address=address)
    print(f"labels on Ray: {len(actions)} decisions searched in {time.perf_counter() - start:.1f} s")
    local_actions, _ = label_states(teacher, recorded.obs, recorded.masks, seeds)
    assert np.array_equal(actions, local_actions), "Ray and local labels must be equal"
    return actions


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", default=None, help="'auto' or HOST:PORT of a cluster; default: a local Ray")
    parser.add_argument("--blocks", type=int, default=40, help="tournament deal blocks")
    parser.add_argument("--states", type=int, default=512, help="decisions to label")
    parser.add_argument("--iterations", type=int, default=3, help="RLlib PPO iterations")
    parser.add_argument("--batch-size", type=int, default=1024, help="RLlib train batch")
    args = parser.parse_args(argv)

    connected_here = not ray.is_initialized()
    if connected_here:  # one connection for the three parts (each would otherwise start its own)
        where = {"address": args.address} if args.address else {"address": "local", "num_cpus": 2}
        ray.init(**where, include_dashboard=False, log_to_driver=False)
    try:
        standings = tournament_on_ray(args.blocks, args.address)
        labels = labels_on_ray(args.states, args.address)
        rows = rllib_train(
            args.iterations, batch_size=args.batch_size, minibatch_size=min(256, args.batch_size), seed=0
        )
        for row in rows:
            print(
                f"RLlib iteration {row['iteration']}: {row['env_steps']} env steps, learner return "
                f"{row['learner_return']:+.2f}, illegal actions {row['illegal_actions']}"
            )
    finally:
        if connected_here:
            ray.shutdown()
    return {"standings": standings, "labels": labels, "rllib": rows}


if __name__ == "__main__":
    main()
