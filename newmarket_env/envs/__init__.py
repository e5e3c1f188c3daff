"""The environments: the PettingZoo AEC env, ``env()`` (wrapped) and ``raw_env()`` (bare), and its
Gymnasium views for one learner seat against an opponent pool: ``SingleAgentEnv`` (one table, any
engine; ``gymnasium.make("stops/Newmarket-v0")``) and ``VectorEnv`` (many compiled tables,
Gymnasium's vector API, :mod:`newmarket_env.envs.vector`).

No parallel (``ParallelEnv``) API: the game is strictly turn-based, one seat decides at a time and
what it may do depends on the move before it, so a parallel step would be one live action and
``n - 1`` no-ops. The ids of the registries: :mod:`newmarket_env.envs.registration`.
"""

from __future__ import annotations

from typing import Any

from newmarket_env.envs.aec import ENV_NAME, raw_env
from newmarket_env.envs.learner_options import SEAT_MODES, LearnerSeat
from newmarket_env.envs.registration import GYMNASIUM_ID, PETTINGZOO_ID
from newmarket_env.envs.single_agent import SingleAgentEnv
from newmarket_env.envs.vector import VectorEnv
from newmarket_env.envs.wrapper import OrderEnforcing


def env(
    variant: str = "newmarket",
    num_players: int | None = None,
    render_mode: str | None = None,
    observation: str = "flat",
    present_forced: bool = False,
    engine: str = "auto",
    render_all_hands: bool = False,
    illegal_action: str = "raise",
    **overrides: Any,
) -> OrderEnforcing:
    """The AEC env (:class:`raw_env`) in PettingZoo's order enforcing wrapper, as ``pettingzoo.classic`` gives
    its envs.

    Args:
        variant: the preset of docs/rules.md: ``newmarket``, ``michigan``, ``newbury``, ``hoyle1885`` or
            ``arnold2011``.
        num_players: seats at the table (``player_0`` ...); default the variant's (4).
        render_mode: ``None``, ``"human"`` (print the table), ``"ansi"`` (the table as text) or
            ``"rgb_array"`` (an ``H x W x 3`` uint8 picture).
        observation: ``"flat"`` (a float32 vector of 936) or ``"planes"`` (``(120, 4, 13)``, for
            convolutional networks); docs/observation.md.
        present_forced: also ask the agents for decisions with a single legal action (default: taken
            for them, and recorded).
        engine: ``"auto"`` (the compiled engine when it is built, else the Python reference),
            ``"compiled"`` or ``"python"``: both play identical sessions.
        render_all_hands: ``rgb_array`` draws every hand and the dead hand, not the acting seat's view.
        illegal_action: ``"raise"`` (an :class:`~newmarket_env.engine.types.IllegalActionError` naming the
            legal actions; nothing changes) or ``"replace"`` (the lowest legal action is played, and the
            agent's info says ``illegal_action``); docs/guide/environment.md.
        **overrides: any rules parameter of docs/rules.md by its name (``num_deals=1``,
            ``widow="dealer_buy"``, ``boodles=("AS", "KS", "QS", "JS")``, ...).

    A bad value, or a name that is neither a keyword above nor a rules parameter, raises a one-line
    ``ValueError`` naming the allowed values.
    """
    return OrderEnforcing(
        raw_env(
            variant=variant,
            num_players=num_players,
            render_mode=render_mode,
            observation=observation,
            present_forced=present_forced,
            engine=engine,
            render_all_hands=render_all_hands,
            illegal_action=illegal_action,
            **overrides,
        )
    )


__all__ = [
    "env",
    "raw_env",
    "ENV_NAME",
    "LearnerSeat",
    "SEAT_MODES",
    "SingleAgentEnv",
    "VectorEnv",
    "GYMNASIUM_ID",
    "PETTINGZOO_ID",
]
