"""Tutorial 4: a heuristic agent in a few lines, ranked against the baselines.

python examples/tutorials/heuristic_agent.py --blocks 200
"""

from __future__ import annotations

import argparse

import numpy as np

from newmarket_env.agents import Agent, register_agent
from newmarket_env.eval.tournament import TournamentConfig, run_tournament

CARDS = 52  # action ids 0-51 are cards (suit * 13 + rank); the rest are keep/take, pass, bids, stakes


def cards_that_follow(hand: np.ndarray, card: int) -> int:
    """How many cards of ``card``'s suit just above it ``hand`` holds (a run it can play on its own)."""
    suit, rank = divmod(card, 13)
    count = 0
    while rank + count + 1 < 13 and hand[suit * 13 + rank + count + 1]:
        count += 1
    return count


class RunAgent(Agent):
    """Leads the card it can follow longest itself, then from its longest suit, then the lowest card.

    The flat observation starts with the agent's own hand as 52 zeros and ones (docs/observation.md).
    A card whose successors the agent holds keeps the run in its hand: it plays them at no risk, and
    the longer the run, the likelier it ends on a stop and the agent leads again. Any decision that is
    not a card (keep the hand, pass in the auction, ...) takes the first legal action.
    """

    name = "run"

    def act(self, observation: dict) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        cards = legal[legal < CARDS]
        if len(cards) == 0:
            return int(legal[0])
        hand = observation["observation"][:CARDS]
        suit_length = hand.reshape(4, 13).sum(axis=1)
        return int(min(cards, key=lambda card: (-cards_that_follow(hand, card), -suit_length[card // 13], card)))


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=200, help="deal blocks (seeded sessions) to play")
    parser.add_argument("--variant", default="newmarket")
    args = parser.parse_args(argv)

    # Registered under a name, the agent plays wherever a name is accepted (tournaments, training pools).
    register_agent("run", lambda rules, seed=None, **options: RunAgent(rules, seed))
    config = TournamentConfig(
        agents=("run", "greedy", "random", "lowest"), variant=args.variant, blocks=args.blocks, seed=1
    )
    result = run_tournament(config)
    print(f"{'agent':<10} {'chips/deal':>10}  95% interval")
    for row in result.standings:
        chips = row["chips_per_deal"]  # mean, and the 95% bootstrap interval over blocks (None for one block)
        interval = "" if chips["low"] is None else f"[{chips['low']:+.2f}, {chips['high']:+.2f}]"
        print(f"{row['agent']:<10} {chips['mean']:>+10.2f}  {interval}")
    return result.standings


if __name__ == "__main__":
    main()
