"""Train your own MaskablePPO on the fast path, then beat ``greedy`` in a duplicate tournament.

    python examples/tutorials/train_maskable_ppo.py               # full size: about 10 minutes on 2 cores
    python examples/tutorials/train_maskable_ppo.py --quick       # a few seconds: the same code, small sizes

The script uses the plain Stable-Baselines3 / sb3-contrib API. What makes it fast:

1. one vector env of many tables (``gymnasium.make_vec``), whose opponents play in compiled code;
2. ``newmarket_env.train.sb3_vec_env``: the one call that hands that vector env to SB3;
3. one torch thread (the tables step in the same thread between torch's calls);
4. a rollout of many decisions (tables x n_steps) and large minibatches, so the updates do
   few, large matrix products instead of many small ones.

It writes ``OUT/model.zip`` (SB3's own file) with ``OUT/model.rules.json`` beside it (the rules it learned,
which ``newmarket export`` and ``load_agent`` check), ``OUT/agent.npz`` (the policy as a newmarket agent,
playable by ``newmarket tournament``, ``newmarket play`` and ``newmarket serve --agent mine=OUT/agent.npz``)
and ``OUT/results.json``.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import dataclass
from pathlib import Path

import gymnasium as gym
import torch
from sb3_contrib import MaskablePPO

import newmarket_env  # registers the Gymnasium id stops/Newmarket-v0
from newmarket_env.eval.tournament import TournamentConfig, run_tournament
from newmarket_env.train import export_agent, save_model, sb3_vec_env

VARIANT, PLAYERS = "newmarket", 4
OPPONENTS = ["greedy", "control"]  # compiled baselines, one drawn per opponent seat and session
TORCH_THREADS = 1  # the tables step in this thread between torch's calls: a second torch thread only competes


@dataclass(frozen=True)
class Size:
    tables: int  # tables stepped together (the vector env's num_envs)
    n_steps: int  # decisions per table in a rollout
    batch_size: int  # minibatch of the updates
    steps: int  # learner decisions to train for, at most
    minutes: float  # wall-clock budget of the training, at most
    blocks: int  # deal blocks of the evaluation tournament (4 sessions each)


FULL = Size(tables=256, n_steps=32, batch_size=1024, steps=10_000_000, minutes=9.0, blocks=200)
QUICK = Size(tables=16, n_steps=16, batch_size=128, steps=512, minutes=1.0, blocks=2)  # the test suite's size


def make_env(tables: int, seed: int):
    """``tables`` tables of Newmarket, the learner in a random seat, as an SB3 VecEnv."""
    vector = gym.make_vec(
        "stops/Newmarket-v0",
        num_envs=tables,
        variant=VARIANT,
        num_players=PLAYERS,
        opponents=OPPONENTS,
        reward_scale=0.1,  # chips / 10: rewards of a few units
        seed=seed,
    )
    return sb3_vec_env(vector)


def make_model(env, n_steps: int, batch_size: int, seed: int) -> MaskablePPO:
    """MaskablePPO with SB3's default network ([64, 64], tanh) and a large rollout and minibatch."""
    return MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=n_steps,  # per table: a rollout is tables x n_steps decisions
        batch_size=batch_size,
        n_epochs=6,  # passes over each rollout; full size: 6 x 8 minibatches = 48 gradient steps per 8,192 decisions
        learning_rate=3e-4,
        gamma=1.0,  # no discount: the rewards of a session sum to the chips it won or lost
        ent_coef=0.01,
        seed=seed,
        device="cpu",
        verbose=0,
    )


def train(model: MaskablePPO, steps: int, minutes: float) -> dict:
    """Learn for ``steps`` decisions or ``minutes``, whichever comes first, one rollout at a time."""
    rollout = model.n_steps * model.n_envs
    began = time.perf_counter()
    done = 0
    while done < steps and time.perf_counter() - began < 60 * minutes:
        model.learn(total_timesteps=rollout, reset_num_timesteps=done == 0)
        done += rollout
        if done % (20 * rollout) == 0:
            print(f"{done:,} decisions, {done / (time.perf_counter() - began):,.0f}/s", flush=True)
    seconds = time.perf_counter() - began
    return {"decisions": done, "seconds": round(seconds, 1), "decisions_per_s": round(done / seconds)}


def evaluate(agent_path: Path, blocks: int, seed: int) -> dict:
    """A duplicate tournament: the agent and three ``greedy`` seats play the same deals in every seat."""
    agents = (str(agent_path), "greedy", "greedy", "greedy")
    config = TournamentConfig(agents=agents, variant=VARIANT, players=PLAYERS, blocks=blocks, seed=seed)
    result = run_tournament(config)
    mine = result.entrants[0].label
    learner = next(row for row in result.standings if row["agent"] == mine)
    return {
        "sessions": len(result.games),
        "deals": learner["deals"],
        "chips_per_deal": learner["chips_per_deal"],  # mean and 95% bootstrap interval over deal blocks
        "minus_each_greedy": [row["difference"] for row in result.pairwise if row["agent"] == mine],
    }


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes: a few seconds (the test suite's run)")
    parser.add_argument("--out", type=Path, default=Path("runs/tutorial_maskable_ppo"), help="output folder")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    size = QUICK if args.quick else FULL

    torch.set_num_threads(TORCH_THREADS)  # before anything runs on torch
    env = make_env(size.tables, args.seed)
    model = make_model(env, size.n_steps, size.batch_size, args.seed)
    training = train(model, size.steps, size.minutes)

    args.out.mkdir(parents=True, exist_ok=True)
    save_model(model, args.out / "model.zip")  # SB3's model.save, and the record of its rules beside it
    agent_path = args.out / "agent.npz"
    rules = newmarket_env.make_rules(VARIANT, PLAYERS)
    export_agent(model, str(agent_path), rules, VARIANT, training=training, name="my-maskable-ppo")
    results = {"training": training, "vs_greedy": evaluate(agent_path, size.blocks, seed=2026)}
    (args.out / "results.json").write_text(json.dumps(results, indent=1))
    print(json.dumps(results, indent=1))
    return results


if __name__ == "__main__":
    main()
