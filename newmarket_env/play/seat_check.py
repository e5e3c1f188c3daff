"""Whether the agents a record names made its decisions: each seat's agent loaded again and asked again.

A record states who sat where (``agents``); a tournament's records also say how each seat's agent was
made (``seat_agents``: the name or saved-agent file, its options and its seed). The agents are
deterministic given their seed, so loading each one again and showing it the observations of its seat,
decision by decision, must give the actions the record holds. A record whose names were swapped between
seats, or whose decisions were edited into legal other ones, fails at the first decision that differs
(``newmarket replay FILE --verify``).

Only what a user already trusts is loaded: registered agents (baselines, shipped and installed plugins'
agents) and saved-agent files (read without running code). A ``MODULE:ATTR`` named in a record is never
imported: code is not run because a file says so.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from newmarket_env import available_agents, load_agent, raw_env
from newmarket_env.engine.game import Game
from newmarket_env.engine.record import replay_steps
from newmarket_env.game.actions import NUM_ACTIONS, action_text
from newmarket_env.observation.encode import encode_flat, static_part

Loader = Callable[..., Any]


@dataclass
class SeatCheck:
    """What checking the seats found: the first decision no agent would have taken, and the seats not checked."""

    difference: str | None
    checked: list[int]
    unchecked: dict[int, str]  # seat -> why it was not checked
    decisions: int  # decisions asked of the loaded agents


def check_seats(record: Mapping[str, Any], load: Loader = load_agent) -> SeatCheck:
    """Load every seat's agent of ``record`` again (``seat_agents``) and replay the record through them.

    ``record`` must have passed :func:`newmarket_env.records.check_genuine` (its decisions are the engine's).
    """
    seat_agents = record.get("seat_agents") or [None] * record["num_players"]
    names = record.get("agents") or [None] * len(seat_agents)
    rules_values = {k: v for k, v in record["rules"].items() if k != "num_players"}
    env = raw_env(variant=record["variant"], num_players=len(seat_agents), **rules_values)
    agents, unchecked = {}, {}
    for seat, made in enumerate(seat_agents):
        why = _not_loadable(made)
        if why:
            unchecked[seat] = why
            continue
        agents[seat] = load(made["spec"], env=env, seed=made["seed"], **made["options"])
        agents[seat].reset()
    static, asked = static_part(env.rules), 0
    for number, (game, action) in enumerate(_decisions(record)):
        seat = game.to_act
        if seat not in agents or len(game.legal) < 2:  # a forced move is never asked of an agent
            continue
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[game.legal] = 1
        chosen = int(agents[seat].act({"observation": encode_flat(game, seat, static), "action_mask": mask}))
        asked += 1
        if chosen != action:
            who = f"{names[seat]!r} " if names[seat] else ""
            return SeatCheck(
                f"decision {number + 1}: seat {seat}'s agent {who}({seat_agents[seat]['spec']}, seed "
                f"{seat_agents[seat]['seed']}) takes {action_text(chosen)} where the record has {action_text(action)}",
                sorted(agents),
                unchecked,
                asked,
            )
    return SeatCheck(None, sorted(agents), unchecked, asked)


def _not_loadable(made: Mapping[str, Any] | None) -> str:
    """Why a seat's agent is not loaded again ("" when it is)."""
    if made is None:
        return "the record does not say how its agent was made (a person, or a record without seat_agents)"
    spec = made["spec"]
    if spec in available_agents():
        return ""
    if ":" in spec and not spec.lower().endswith((".npz", ".json", ".zip")):
        return f"{spec!r} is a module reference: code named in a record is never imported"
    if not spec.lower().endswith((".npz", ".json", ".zip")):
        return f"{spec!r} is neither a known agent nor a saved-agent file"
    return ""


def _decisions(record: Mapping[str, Any]) -> Iterator[tuple[Game, int]]:
    """(the game before each recorded decision, the action the record has there), in order; the game is one
    object changed in place, so each is read before the next is asked for."""
    actions = [event["action"] for deal in record["deals"] for event in deal["events"] if "action" in event]
    yield from zip(replay_steps(record), actions, strict=False)


__all__ = ["SeatCheck", "check_seats"]
