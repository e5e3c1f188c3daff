"""Records for the web tests: sessions of random legal actions."""

from __future__ import annotations

import random

from newmarket_env import env


def random_record(variant: str, seed: int = 4, **rules) -> dict:
    """A session of random legal actions, straight from the env (not through the app)."""
    e = env(variant=variant, **rules)
    e.reset(seed=seed)
    game, rng = e.unwrapped.game, random.Random(seed)
    while not game.over:
        e.step(rng.choice(game.legal))
    return e.unwrapped.record()
