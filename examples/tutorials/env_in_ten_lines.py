"""Tutorial 1: the environment in ten lines -- make, reset, step with the mask, render a picture.

python examples/tutorials/env_in_ten_lines.py --picture table.png
"""

from __future__ import annotations

import argparse

import numpy as np
from PIL import Image

from newmarket_env import env


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--picture", default="table.png", help="where to save the picture of the table")
    args = parser.parse_args(argv)

    # The ten lines: a session of four random players.
    e = env(variant="newmarket", num_players=4, render_mode="rgb_array")
    e.reset(seed=42)
    rng = np.random.default_rng(0)
    won = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        observation, reward, termination, truncation, _ = e.last()
        won[agent] += reward  # chips won (or lost, if negative) since this seat last acted
        if termination or truncation:
            e.step(None)  # a seat whose session is over steps with None, as in every PettingZoo AEC env
            continue
        legal = np.flatnonzero(observation["action_mask"])  # the mask: 1 where an action is legal
        e.step(int(rng.choice(legal)))

    print("chips won over the session:", won)

    # A picture of the table: a new session, drawn from the seat to act (only what that seat may see).
    e.reset(seed=42)
    frame = e.render()
    Image.fromarray(frame).save(args.picture)
    print(f"saved {args.picture}: {frame.shape[1]} x {frame.shape[0]} pixels, from {e.agent_selection}'s seat")
    return won


if __name__ == "__main__":
    main()
