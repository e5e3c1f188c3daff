"""Shared helpers for the agent tests: play sessions through the wrapped env, build fixed deals."""

from __future__ import annotations

from typing import Any

from newmarket_env import env, load_agent
from newmarket_env.game.cards import FULL_DECK, cards_to_text, mask_from_texts
from newmarket_env.observation.view import decode


def play(
    variant: str, players: int, names: list[str], seed: int, kwargs: dict[str, Any] | None = None, **overrides: Any
) -> tuple[list[int], set[str]]:
    """One session with the wrapped env (illegal actions raise); final balances and decision kinds seen."""
    e = env(variant=variant, num_players=players, **overrides)
    agents = [
        load_agent(name, env=e, seed=seed * 10 + s, **((kwargs or {}) if name == "search" else {}))
        for s, name in enumerate(names)
    ]
    e.reset(seed=seed)
    for agent in agents:
        agent.reset()
    kinds: set[str] = set()
    for agent_name in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        kinds.add(decode(obs).decision.value)
        e.step(agents[int(agent_name.split("_")[1])].act(obs))
    return list(e.unwrapped.game.balances), kinds


def deal(dealer: int, hands: list[list[str]], dead_rest: bool = True, removed: tuple[str, ...] = ()) -> dict:
    """A DEAL dict; the cards no hand names go to the dead hand when ``dead_rest``."""
    used = 0
    for hand in hands:
        used |= mask_from_texts(hand)
    rest = FULL_DECK & ~used & ~mask_from_texts(removed)
    return {"dealer": dealer, "hands": hands, "dead": cards_to_text(rest) if dead_rest else []}


def first_observation(e, deals: list[dict], seed: int = 0):
    """Reset with fixed deals; the acting agent's observation."""
    e.reset(seed=seed, options={"deals": deals})
    return e.observe(e.agent_selection)
