"""Regret of search agents against a much longer search, next to their think time: how settings were chosen.

A tournament needs thousands of deal blocks to tell two search settings apart; this asks a cheaper
question first. Decisions are collected from sessions of four ``search`` seats (budget 16): every
decision with two or more legal actions except stakes and bids. A *truth* search evaluates every legal
action of each on ``--truth`` shared worlds (2,048 by default; the same rollouts as ``search``, so
"truth" means what ``search`` would find with unlimited time, not the game's value). An agent's regret
at a decision is the truth's best mean minus the truth's mean of the action the agent chose; the table
gives its mean over the decisions and the share of decisions with any regret, and each agent's time
over the same decisions as a ratio to ``search`` at its default budget (the median over ``--rounds``
rounds, each with fresh agent seeds).

``python -m newmarket_env.eval.bench.regret --variant newmarket --agent exit-newmarket-search
--decisions 1500 --rounds 3`` (``--agent-option NAME:KEY=VALUE`` as for tournaments).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import numpy as np

from newmarket_env.agents import available_agents, load_agent
from newmarket_env.agents.search import SearchAgent
from newmarket_env.engine.types import Decision
from newmarket_env.envs.aec import raw_env
from newmarket_env.eval.bench.search import SEARCH_VARIANTS
from newmarket_env.eval.tournament.config import parse_agent_options
from newmarket_env.observation.view import decode

REFERENCE = "search"  # at its default budget: the bar the time ratios are measured against


@dataclass(frozen=True)
class Decisions:
    """Observations of real choices and the truth search's mean for each legal action."""

    observations: list[dict[str, np.ndarray]]
    legal: list[list[int]]
    truth: list[np.ndarray]


def collect(aec: Any, count: int, seed: int = 0) -> list[dict[str, np.ndarray]]:
    """``count`` observations of choices (two or more legal actions, no stake, no bid) from sessions of
    ``search`` seats at budget 16 at the AEC env ``aec``, sessions seeded ``seed``, ``seed + 1``, ..."""
    rules = aec.rules
    found: list[dict[str, np.ndarray]] = []
    session = seed
    while len(found) < count:
        aec.reset(seed=session)
        seats = [SearchAgent(rules, seed=session * 8 + s, budget=16) for s in range(rules.num_players)]
        while not aec.game.over and len(found) < count:
            seat = aec.game.to_act
            observation = aec.observe(f"player_{seat}")
            view = decode(observation)
            if len(view.legal) > 1 and view.decision not in (Decision.STAKE, Decision.BID):
                found.append({k: np.copy(v) for k, v in observation.items()})
            aec.step(seats[seat].act(observation))
        session += 1
    return found


def with_truth(rules: Any, observations: list[dict[str, np.ndarray]], budget: int, seed: int = 12345) -> Decisions:
    """The truth search's mean chips of every legal action of each decision, on ``budget`` shared worlds."""
    truth = SearchAgent(rules, seed=seed, budget=budget)  # evaluate() takes every legal action given
    legal, means = [], []
    for observation in observations:
        view = decode(observation)
        legal.append(list(view.legal))
        means.append(truth.evaluate(view, legal[-1]))
    return Decisions(observations, legal, means)


def regrets(agent: Any, decisions: Decisions) -> tuple[np.ndarray, float]:
    """The agent's regret at each decision and the seconds its ``act`` calls took."""
    chosen = []
    began = time.perf_counter()
    for observation in decisions.observations:
        chosen.append(agent.act(observation))
    seconds = time.perf_counter() - began
    regret = [
        float(means.max() - means[legal.index(action)])
        for action, legal, means in zip(chosen, decisions.legal, decisions.truth, strict=True)
    ]
    return np.array(regret), seconds


def compare(
    rules: Any, decisions: Decisions, agents: Sequence[str], options: Mapping[str, Mapping[str, Any]], rounds: int
) -> dict[str, dict[str, float]]:
    """Regret (mean, standard error, share wrong) and time ratio to ``search`` of each agent, ``search`` first."""
    names = [REFERENCE, *[a for a in agents if a != REFERENCE]]
    found: dict[str, list[np.ndarray]] = {name: [] for name in names}
    seconds: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        for name in names:  # every agent within a round: a slow spell of the machine slows one round
            agent = load_agent(name, env=SimpleNamespace(rules=rules), seed=1000 + r, **dict(options.get(name, {})))
            regret, spent = regrets(agent, decisions)
            found[name].append(regret)
            seconds[name].append(spent)
    table = {}
    for name in names:
        regret = np.concatenate(found[name])
        ratio = np.median([a / b for a, b in zip(seconds[name], seconds[REFERENCE], strict=True)])
        table[name] = {
            "regret": float(regret.mean()),
            "stderr": float(regret.std() / np.sqrt(regret.size)),
            "wrong": float(np.mean(regret > 0)),
            "time_ratio": float(ratio),
        }
    return table


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m newmarket_env.eval.bench.regret", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--variant", choices=SEARCH_VARIANTS, default="newmarket", help="the preset (4 players)")
    parser.add_argument(
        "--agent", action="append", default=[], help="a registered agent or a saved-agent file to measure; repeatable"
    )
    parser.add_argument("--agent-option", action="append", default=[], help="NAME:KEY=VALUE, as for tournaments")
    parser.add_argument("--decisions", type=int, default=1500, help="decisions (default 1500)")
    parser.add_argument("--truth", type=int, default=2048, help="worlds of the truth search (default 2048)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of fresh agent seeds (default 3)")
    args = parser.parse_args(argv)
    for flag, value, low in (
        ("--decisions", args.decisions, 1),
        ("--truth", args.truth, 1),
        ("--rounds", args.rounds, 1),
    ):
        if value < low:
            parser.error(f"{flag} {value} is not allowed; allowed: {low} or more")
    for name in args.agent:
        if name not in available_agents() and not os.path.isfile(name):
            parser.error(
                f"--agent {name!r} is not a saved-agent file nor a known agent: {', '.join(available_agents())}"
            )
    try:
        options = parse_agent_options(args.agent_option)
    except ValueError as err:
        parser.error(str(err))
    aec = raw_env(variant=args.variant, num_players=4)
    decisions = with_truth(aec.rules, collect(aec, args.decisions), args.truth)
    print(f"{args.variant}: {args.decisions} decisions, truth {args.truth} worlds, {args.rounds} round(s)")
    print("| agent | regret (chips) | share with regret | time / search's |")
    print("|---|---|---|---|")
    for name, row in compare(aec.rules, decisions, args.agent, options, args.rounds).items():
        print(f"| {name} | {row['regret']:.4f} ± {row['stderr']:.4f} | {row['wrong']:.3f} | {row['time_ratio']:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
