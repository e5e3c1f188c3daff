"""The learner seat and the options the learner's envs share, defined and checked in one place.

:class:`LearnerSeat` says who plays around one learner seat: the opponent pool (baseline names
and snapshot paths, and how often a seat is a snapshot), which seat the learner takes each
session, how its chips are scaled into rewards, and the factory that builds opponents.
``SingleAgentEnv``, ``VectorEnv`` and the training config build one and read it; each
accepts it whole as ``learner_seat=`` or as the separate keywords of docs/contract.md.

>>> LearnerSeat(opponents=["control"], seat=2, players=4).opponents
('control',)
"""

from __future__ import annotations

import dataclasses
import math
import numbers
import os
from collections.abc import Sequence
from dataclasses import InitVar, dataclass
from typing import Any

import numpy as np

from newmarket_env.agent_factory import AgentFactory, check_agent_factory
from newmarket_env.engine.limits import MAX_EMPTY_SESSIONS
from newmarket_env.envs.learner_reward import LearnerReward
from newmarket_env.game.actions import NUM_ACTIONS

#: How the learner's seat is chosen each session (or a seat number, fixed).
SEAT_MODES = ("random", "rotate")


@dataclass(frozen=True)
class LearnerSeat:
    """One learner seat against an opponent pool, validated when built (one-line ``ValueError``).

    ``players`` (not stored) bounds a fixed ``seat`` number; without it any seat >= 0 passes.
    Lists are kept as tuples, path-like opponents as strings, ``agent_factory=None`` as the
    default factory (``newmarket_env.load_agent``).
    """

    opponents: Sequence[str] = ("random",)
    snapshots: Sequence[str] = ()
    snapshot_fraction: float = 0.0
    seat: str | int = "random"
    reward_scale: float = 1.0
    agent_factory: AgentFactory | None = None
    players: InitVar[int | None] = None

    def __post_init__(self, players: int | None) -> None:
        opponents, snapshots, fraction, seat = self.opponents, self.snapshots, self.snapshot_fraction, self.seat
        pool = () if _one_text(opponents) else _paths(opponents)  # read once: a generator is read only once
        if not pool:
            raise ValueError(f"opponents={opponents!r} must be a non-empty list of agent names, e.g. ['random']")
        if _one_text(snapshots):
            raise ValueError(f"snapshots={snapshots!r} must be a list of saved-agent paths, not one string")
        saved = _paths(snapshots)
        for spec in (*pool, *saved):
            if not isinstance(spec, str) or not spec:
                raise ValueError(f"opponent {spec!r} is not an agent name or a saved-agent path")
        if isinstance(fraction, bool) or not isinstance(fraction, numbers.Real) or not 0.0 <= float(fraction) <= 1.0:
            raise ValueError(f"snapshot_fraction={fraction!r} is out of range; allowed: 0.0..1.0")
        fixed = isinstance(seat, numbers.Integral) and not isinstance(seat, bool)
        if seat not in SEAT_MODES and not (fixed and 0 <= int(seat) < (players or 2**31)):
            seats = "a seat number >= 0" if players is None else f"a seat 0..{players - 1}"
            raise ValueError(f"seat={seat!r} is unknown; allowed: {', '.join(SEAT_MODES)} or {seats}")
        normal = {
            "opponents": pool,
            "snapshots": saved,
            "snapshot_fraction": float(fraction),
            "seat": int(seat) if fixed else seat,
            "reward_scale": check_reward_scale(self.reward_scale),
            "agent_factory": check_agent_factory(self.agent_factory),
        }
        for name, value in normal.items():
            object.__setattr__(self, name, value)  # frozen: the checked values replace the given ones once

    @property
    def factory(self) -> AgentFactory:
        """The agent factory (the default one where ``agent_factory=None`` was given)."""
        assert self.agent_factory is not None  # __post_init__ put the default in its place
        return self.agent_factory

    def checked_for(self, players: int) -> LearnerSeat:
        """This seat, checked against a table of ``players`` (a fixed seat number must exist there)."""
        return dataclasses.replace(self, players=players)

    def next_seats(self, rng: np.random.Generator, started: Any, players: int) -> Any:
        """The learner's seat in the next session of each table, given the sessions each has started
        (``started``: an int for one table, an int array for several; the seats come alike): ``random``
        draws a seat from ``rng`` (one draw a table), ``rotate`` takes ``started % players``, a seat
        number is that seat.

        >>> LearnerSeat(seat="rotate").next_seats(np.random.default_rng(0), np.array([0, 5]), 4).tolist()
        [0, 1]
        """
        one = np.ndim(started) == 0
        if self.seat == "random":
            return rng.integers(players, size=None if one else len(started))
        if self.seat == "rotate":
            return started % players
        return self.seat if one else np.full(len(started), self.seat)


class LearnerSeatSettings:
    """``reward_scale`` and ``seat_mode`` of a learner env (``SingleAgentEnv``, ``VectorEnv``): read from
    its ``learner_seat``; set (e.g. by SB3's ``set_attr``), checked as ``LearnerSeat`` checks them (a
    one-line ``ValueError`` that changes nothing) and put into a new ``learner_seat`` that the env plays
    from then on (its next reward, its next session's seat)."""

    learner_seat: LearnerSeat
    n: int
    _reward: LearnerReward

    @property
    def reward_scale(self) -> float:
        return self.learner_seat.reward_scale

    @reward_scale.setter
    def reward_scale(self, value: float) -> None:
        self._replace_seat(reward_scale=value)

    @property
    def seat_mode(self) -> str | int:
        return self.learner_seat.seat

    @seat_mode.setter
    def seat_mode(self, value: str | int) -> None:
        self._replace_seat(seat=value)

    def _replace_seat(self, **changes: Any) -> None:
        self.learner_seat = dataclasses.replace(self.learner_seat, players=self.n, **changes)
        self._reward.reward_scale = self.learner_seat.reward_scale


def check_empty_sessions(in_a_row: int | np.ndarray) -> None:
    """A learner env gives up (``RuntimeError``) once its learner had no decision (forced moves only,
    or given deals) in ``MAX_EMPTY_SESSIONS`` sessions in a row at a table; ``in_a_row``: the count of
    one table or of several."""
    if np.asarray(in_a_row).max() >= MAX_EMPTY_SESSIONS:
        raise RuntimeError(f"the learner had no decision in {MAX_EMPTY_SESSIONS} sessions in a row")


def resolve_learner_seat(given: LearnerSeat | None, players: int, **keywords: Any) -> LearnerSeat:
    """The learner seat of an env: ``given`` (checked against ``players``), or one built from ``keywords``.

    An env takes the seat whole (``learner_seat=``) or as its keywords; a keyword that differs from
    its default next to a whole seat is refused in one line, as neither could win silently.
    """
    if given is None:
        return LearnerSeat(**keywords, players=players)
    if not isinstance(given, LearnerSeat):
        raise ValueError(f"learner_seat={given!r} is not allowed; allowed: None or a LearnerSeat")
    defaults = LearnerSeat()
    clashing = [name for name, value in keywords.items() if not _same(value, getattr(defaults, name))]
    if clashing:
        raise ValueError(
            f"{', '.join(clashing)} given next to learner_seat=; allowed: the LearnerSeat alone, or its keywords alone"
        )
    return given.checked_for(players)


def _one_text(value: Any) -> bool:
    """A single name or path where a list of them is wanted (or no collection at all)."""
    return isinstance(value, (str, bytes, os.PathLike)) or not hasattr(value, "__iter__")


def _paths(values: Any) -> tuple[Any, ...]:
    """The entries of a list of names or paths, path-like ones as strings."""
    return tuple(os.fspath(v) if isinstance(v, os.PathLike) else v for v in values)


def _same(value: Any, default: Any) -> bool:
    if isinstance(default, tuple) and isinstance(value, (list, tuple)):
        return tuple(value) == default
    if default is None or callable(default):
        return value is None or value is default
    return type(value) is type(default) and value == default


def check_reward_scale(scale: Any) -> float:
    """``scale`` as a float if it is a finite number > 0; ``ValueError`` in one line if not.

    >>> check_reward_scale(0.1)
    0.1
    """
    value = float(scale) if isinstance(scale, numbers.Real) and not isinstance(scale, bool) else math.nan
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"reward_scale={scale!r} is out of range; allowed: a finite number > 0")
    return value


def check_action_id(action: Any) -> int:
    """``action`` as an int if it is an integer (a Python or numpy int, or a one-element int array);
    ``ValueError`` in one line if not: a float is never truncated into another action.

    >>> check_action_id(np.int64(20))
    20
    """
    value = np.asarray(action)
    if value.size != 1 or value.dtype == np.bool_ or not np.issubdtype(value.dtype, np.integer):
        raise ValueError(f"action {action!r} is not an action id; allowed: an int 0..{NUM_ACTIONS - 1}")
    return int(value.reshape(()))
