"""Tutorial 5: self-play on many tables with the batch API (REINFORCE, one network in every seat).

    python examples/tutorials/self_play_batch.py --tables 256 --iterations 100

``TableBatch`` holds every session in C and steps all tables with one call; every seat is ours, so one
network plays all four seats of 256 tables at once. Each decision is credited with the chips its seat
won from then to the end of the session (REINFORCE with return-to-go and a mean baseline). Before and
after training the network plays seat 0 of whole sessions against three compiled ``random`` or
``greedy`` seats, played inside the batch's own step.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np
import torch

from newmarket_env import make_rules
from newmarket_env.agents.compiled import POLICY_CODES
from newmarket_env.engine.choice import table_batch
from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.observation.layout import FLAT_SIZE

YOURS = -1  # a negative seat policy: the caller plays that seat


def make_policy(hidden: int = 128) -> torch.nn.Module:
    return torch.nn.Sequential(
        torch.nn.Linear(FLAT_SIZE, hidden), torch.nn.Tanh(), torch.nn.Linear(hidden, NUM_ACTIONS)
    )


def masked_distribution(policy: torch.nn.Module, observations: np.ndarray, masks: np.ndarray):
    logits = policy(torch.as_tensor(observations))
    logits = logits.masked_fill(torch.as_tensor(masks) == 0, -1e9)  # illegal actions get no probability
    return torch.distributions.Categorical(logits=logits)


def self_play_iteration(policy, optimizer, batch, decisions: int) -> int:
    """Play ``decisions`` steps of every table, then one REINFORCE update; returns the decisions credited."""
    n = batch.num_tables
    won = np.zeros((n, batch.n))  # chips each seat has won so far in the table's current session
    pending: list[list[tuple[int, float, torch.Tensor]]] = [[] for _ in range(n)]  # (seat, won then, log p)
    log_probs, returns = [], []
    for _ in range(decisions):
        dist = masked_distribution(policy, batch.observations, batch.action_masks)
        actions = dist.sample()
        chosen = dist.log_prob(actions)
        for table, seat in enumerate(batch.to_act.tolist()):
            pending[table].append((seat, float(won[table, seat]), chosen[table]))
        batch.step(actions.numpy().astype(np.int32))
        won += batch.rewards
        for table in np.flatnonzero(batch.done).tolist():
            for seat, before, log_p in pending[table]:
                log_probs.append(log_p)
                returns.append(won[table, seat] - before)  # chips won from this decision to the end
            pending[table] = []
            won[table] = 0
    if not returns:
        return 0
    target = torch.as_tensor(returns, dtype=torch.float32)
    advantage = (target - target.mean()) / (target.std() + 1e-6)
    loss = -(torch.stack(log_probs) * advantage).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return len(returns)


@torch.no_grad()
def chips_per_deal(policy, rules, opponent: str, sessions: int, seed: int) -> tuple[float, float]:
    """Seat 0 played by ``policy`` (its most likely action), the others by the compiled ``opponent``.

    One session per table, each played to its end: counting sessions as they finish on fewer tables
    would count the short ones more often. Returns seat 0's mean chips per deal and the half-width of
    its 95% interval over sessions.
    """
    policies = np.full((sessions, rules.num_players), POLICY_CODES[opponent], dtype=np.int8)
    policies[:, 0] = YOURS
    batch = table_batch(rules, sessions, seed=seed, seat_policies=policies)
    batch.auto_restart = False  # a finished table waits: each table plays exactly one session
    chips = np.zeros(sessions)
    live = np.arange(sessions)
    while len(live):
        logits = masked_distribution(policy, batch.observations[live], batch.action_masks[live]).logits
        batch.step(logits.argmax(dim=1).numpy().astype(np.int32), tables=live)
        ended = live[batch.done[live]]
        chips[ended] = batch.results[ended, 0]
        live = live[~batch.done[live]]
    per_deal = chips / rules.num_deals
    return float(per_deal.mean()), float(1.96 * per_deal.std(ddof=1) / np.sqrt(sessions))


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=256, help="tables stepped together")
    parser.add_argument("--iterations", type=int, default=100, help="REINFORCE updates")
    parser.add_argument("--decisions", type=int, default=48, help="steps of every table per update")
    parser.add_argument("--eval-sessions", type=int, default=2000, help="sessions per evaluation")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # small matrices: one thread is fastest, and leaves the other core to the batch
    rules = make_rules("newmarket", num_players=4, num_deals=1)  # one-deal sessions: quicker credit
    # Evaluated on whole sessions (one deal per player), where every seat deals once: no seat is favoured.
    full_rules = make_rules("newmarket", num_players=4)
    policy = make_policy()
    optimizer = torch.optim.Adam(policy.parameters(), lr=3e-3)
    figures: dict[str, Any] = {}
    for opponent in ("random", "greedy"):
        figures[f"before vs {opponent}"] = chips_per_deal(policy, full_rules, opponent, args.eval_sessions, 99)
    batch = table_batch(rules, args.tables, seed=args.seed)  # every seat ours: self-play
    start = time.perf_counter()
    for iteration in range(1, args.iterations + 1):
        credited = self_play_iteration(policy, optimizer, batch, args.decisions)
        if iteration % 20 == 0 or iteration == args.iterations:
            print(f"update {iteration:3d}: {credited:,} decisions of finished sessions credited")
    seconds = time.perf_counter() - start
    figures["decisions per second"] = args.tables * args.decisions * args.iterations / seconds
    for opponent in ("random", "greedy"):
        figures[f"after vs {opponent}"] = chips_per_deal(policy, full_rules, opponent, args.eval_sessions, 99)
    print(f"self-play: {figures['decisions per second']:,.0f} decisions/s (all seats) in {seconds:.0f} s")
    for opponent in ("random", "greedy"):
        (before, b), (after, a) = figures[f"before vs {opponent}"], figures[f"after vs {opponent}"]
        print(f"seat 0 against 3 {opponent}: {before:+.2f} ± {b:.2f} chips/deal before, {after:+.2f} ± {a:.2f} after")
    return figures


if __name__ == "__main__":
    main()
