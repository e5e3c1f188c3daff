"""Workloads of newmarket-env: the engine alone, the AEC env, the single-agent view, a tournament."""

from __future__ import annotations

import random

from newmarket_env import env
from newmarket_env.engine.choice import compiled_available, engine_class
from newmarket_env.eval.bench.drivers import aec_random_player
from newmarket_env.eval.bench.timing import SessionPlayer
from newmarket_env.game.rules import make_rules

PLAYERS = 4  # every preset is measured with 4 players (Newbury allows only 4)


def engine_player(
    variant: str, num_players: int = PLAYERS, record_events: bool = True, engine: str = "auto"
) -> SessionPlayer:
    """Random legal play straight on the engine (no observations): one session per call.

    ``engine`` as for the env: ``"auto"`` (the compiled engine when built), ``"compiled"``, ``"python"``.
    """
    rules = make_rules(variant, num_players)
    Game = engine_class(engine)

    def play(seed: int) -> int:
        rng = random.Random(seed)
        game = Game(rules, seed=seed, record_events=record_events)
        decisions = 0
        while not game.over:
            game.apply(rng.choice(game.legal))
            decisions += 1
        return decisions

    return play


def aec_player(
    variant: str, observation: str = "flat", num_players: int = PLAYERS, engine: str = "auto", seeded: bool = True
) -> SessionPlayer:
    """Random legal play through the PettingZoo API of the wrapped env; ``seeded=False``: ``reset()`` without a seed."""
    return aec_random_player(
        lambda: env(variant=variant, num_players=num_players, observation=observation, engine=engine), seeded
    )


def engine_note() -> str:
    """Which engine the "auto" rows ran on."""
    return "compiled engine" if compiled_available() else "python engine (the compiled one is not built)"
