"""Seeds: one stable seed from a tuple of ints, and the deals a seed gives.

Below both :mod:`newmarket_env.eval` (tournaments) and :mod:`newmarket_env.train` (evaluations during
training, expert iteration), so both derive the same seeds and deal the same deals without importing
each other.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from newmarket_env.engine.dealing import shuffled_deal
from newmarket_env.game.cards import cards_to_text
from newmarket_env.game.rules import Rules


def derive_seed(*parts: int) -> int:
    """A 32-bit seed from a tuple of non-negative ints (stable across runs and machines).

    >>> derive_seed(0, 1, 2) == derive_seed(0, 1, 2) != derive_seed(0, 2, 1)
    True
    """
    return int(np.random.SeedSequence([int(p) for p in parts]).generate_state(1)[0])


def block_deals(rules: Rules, seed: int) -> list[dict[str, Any]]:
    """The deals of a block as docs/contract.md ``DEAL`` dicts: shuffled from ``seed``, dealer rotating from seat 0."""
    rng = random.Random(seed)
    deals = []
    for index in range(rules.num_deals):
        dealt = shuffled_deal(rules, index % rules.num_players, rng)
        deals.append(
            {
                "dealer": dealt.dealer,
                "hands": [cards_to_text(h) for h in dealt.hands],
                "dead": cards_to_text(dealt.dead),
            }
        )
    return deals


__all__ = ["block_deals", "derive_seed"]
