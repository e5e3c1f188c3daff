"""A Gymnasium view of the AEC env for one learner; the other seats are played by an opponent pool.

The learner holds one seat per session (drawn at random, rotated, or fixed).
Every other seat is filled, per session, by an opponent drawn from the pool:
registered baseline names (``load_agent`` names) and frozen snapshots of the
learner (paths of saved-agent files). Opponents move inside :meth:`step`, so
each Gymnasium step is one decision of the learner.

Each opponent is built by an agent factory (:mod:`newmarket_env.agent_factory`):
``agent_factory=None`` asks the package facade ``newmarket_env.load_agent`` when
the first opponent is built; any callable ``factory(spec, env=..., seed=...)``
replaces it, and then the agents package is never imported (the env itself
does not depend on it).

Registered with Gymnasium on ``import newmarket_env`` as
``gymnasium.make("stops/Newmarket-v0", variant=..., opponents=[...])``
(:mod:`newmarket_env.envs.registration`).

The reward of a step is the learner's chip change since its previous decision
(the first step also counts the stakes paid before it), so the return of an
episode is exactly the learner's session result, even when the session ends on
another seat's move. ``action_masks()`` serves sb3-contrib's MaskablePPO.

>>> from newmarket_env.envs.single_agent import SingleAgentEnv
>>> e = SingleAgentEnv(variant="newmarket", num_players=4, opponents=["random"])
>>> obs, info = e.reset(seed=1)
>>> obs.shape == e.observation_space.shape and bool(e.action_masks().any())
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from newmarket_env.agent_factory import AgentFactory, Opponent
from newmarket_env.envs.aec import raw_env
from newmarket_env.envs.learner_options import (
    SEAT_MODES,
    LearnerSeat,
    LearnerSeatSettings,
    check_action_id,
    check_empty_sessions,
    resolve_learner_seat,
)
from newmarket_env.envs.learner_reward import LearnerReward
from newmarket_env.envs.masks import (
    ILLEGAL_ACTION_KEY,
    check_illegal_action,
    legal_mask,
    replacement,
)
from newmarket_env.render.picture import table_picture
from newmarket_env.render.text import render_table

__all__ = ["SEAT_MODES", "LearnerSeat", "SingleAgentEnv"]


class SingleAgentEnv(LearnerSeatSettings, gym.Env):
    """One learner seat against an opponent pool; see the module docstring.

    Parameters: ``variant``, ``num_players`` and rules ``overrides`` as for
    :func:`newmarket_env.env`; ``opponents`` (baseline names, at least one);
    ``snapshots`` (saved-agent paths of earlier learners); ``snapshot_fraction``
    (chance that an opponent seat is a snapshot when there are any); ``seat``
    (``"random"``, ``"rotate"`` or a seat number); ``reward_scale`` (chips are
    multiplied by it); ``agent_factory`` (builds an opponent from its spec:
    ``factory(spec, env=..., seed=...)``; default ``newmarket_env.load_agent``).
    Those six may come whole as ``learner_seat`` (a
    :class:`~newmarket_env.envs.learner_options.LearnerSeat`) instead.
    ``observation``: ``"flat"`` (the default, ``(936,)``) or ``"planes"`` (``(120, 4, 13)``, for
    convolutional networks: :class:`newmarket_env.train.features.PlanesExtractor` reads either).
    ``illegal_action``: ``"replace"`` (the default: Gymnasium's and SB3's checkers send
    unmasked actions) plays the lowest legal action instead of one that is not legal and
    says so in ``info["illegal_action"]``; ``"raise"`` raises
    :class:`~newmarket_env.engine.types.IllegalActionError` and changes nothing
    (:mod:`newmarket_env.envs.masks`). An action that is not an integer (``20.7``,
    ``"4C"``) is a ``ValueError`` in both, not a rounded id. ``info["action_mask"]`` is int8,
    as ``action_space.sample(mask=...)`` takes it; ``action_masks()`` is boolean.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 2}  # noqa: RUF012 (gymnasium.Env declares it an instance attribute)

    def __init__(
        self,
        variant: str = "newmarket",
        num_players: int | None = None,
        opponents: Sequence[str] = ("random",),
        snapshots: Sequence[str] = (),
        snapshot_fraction: float = 0.0,
        seat: str | int = "random",
        reward_scale: float = 1.0,
        render_mode: str | None = None,
        agent_factory: AgentFactory | None = None,
        learner_seat: LearnerSeat | None = None,
        illegal_action: str = "replace",
        observation: str = "flat",
        **overrides: Any,
    ) -> None:
        super().__init__()
        self.illegal_action = check_illegal_action(illegal_action)
        self.aec = raw_env(variant=variant, num_players=num_players, observation=observation, **overrides)
        self.rules = self.aec.rules
        self.variant = variant
        self.n = self.rules.num_players
        keywords = dict(opponents=opponents, snapshots=snapshots, snapshot_fraction=snapshot_fraction, seat=seat)
        #: The learner seat in play: as built, or as ``reward_scale``/``seat_mode`` set it since (``set_snapshots``
        #: changes the snapshots in play, not this).
        self.learner_seat = resolve_learner_seat(
            learner_seat, self.n, **keywords, reward_scale=reward_scale, agent_factory=agent_factory
        )
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode={render_mode!r} is unknown; allowed: None, 'ansi', 'rgb_array'")
        spec = self.learner_seat
        self.agent_factory = spec.factory
        self.opponents = list(spec.opponents)
        self.snapshots = list(spec.snapshots)
        self.snapshot_fraction = spec.snapshot_fraction
        self.render_mode = render_mode
        agent_space = self.aec.observation_space("player_0")
        action_space = self.aec.action_space("player_0")
        assert isinstance(agent_space, gym.spaces.Dict) and isinstance(action_space, gym.spaces.Discrete)
        self.observation_space = agent_space["observation"]
        self.action_space = action_space
        self._num_actions = int(action_space.n)
        self._agents: dict[tuple[str, int], Opponent] = {}
        self._sessions = 0
        self._reward = LearnerReward(None, self.rules.starting_chips, spec.reward_scale)  # one table: 0
        self.learner = 0
        self.table: list[str | None] = []

    # ------------------------------------------------------------------ the pool
    def set_snapshots(self, paths: Sequence[str]) -> None:
        """Replace the self-play snapshots (saved-agent paths); used from training callbacks."""
        self.snapshots = list(paths)
        live = set(self.opponents) | set(self.snapshots)
        self._agents = {key: agent for key, agent in self._agents.items() if key[0] in live}

    def _draw_opponent(self) -> str:
        if self.snapshots and self.np_random.random() < self.snapshot_fraction:
            return self.snapshots[int(self.np_random.integers(len(self.snapshots)))]
        return self.opponents[int(self.np_random.integers(len(self.opponents)))]

    def _agent(self, spec: str, seat: int) -> Opponent:
        """One agent per (spec, seat), built once: agents may keep state within a session."""
        key = (spec, seat)
        if key not in self._agents:
            self._agents[key] = self.agent_factory(spec, env=self.aec, seed=int(self.np_random.integers(2**31)))
        return self._agents[key]

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._agents = {}  # rebuilt from the new seed, so a seeded reset replays exactly
        empty = 0
        while True:
            self._start_session(options)
            self._play_opponents()
            if not self.aec.game.over:
                return self._obs(), self._info()
            empty += 1
            check_empty_sessions(empty)
            options = None  # fixed deals gave the learner no decision: go on with shuffled ones

    def _start_session(self, options: dict | None) -> None:
        self.learner = int(self.learner_seat.next_seats(self.np_random, self._sessions, self.n))
        self._sessions += 1
        self.table = [None if s == self.learner else self._draw_opponent() for s in range(self.n)]
        for seat, spec in enumerate(self.table):
            if spec is not None:
                self._agent(spec, seat).reset()
        self.aec.reset(seed=int(self.np_random.integers(2**31)), options=options)
        self._reward.start(0)

    def step(self, action):
        game = self.aec.game
        if game.over:
            raise RuntimeError("step() called after the session ended; call reset()")
        action = check_action_id(action)
        illegal = action not in game.legal
        if illegal and self.illegal_action == "raise":
            self.aec.step(action)  # the engine's IllegalActionError, naming the legal actions; nothing changes
        self.aec.step(replacement(game.legal) if illegal else action)
        self._play_opponents()
        reward = self._reward.take(0, self.aec.game.balances[self.learner])
        info = self._info(illegal)
        return self._obs(), float(reward), bool(self.aec.game.over), False, info

    def _play_opponents(self) -> None:
        """Let the other seats move until the learner decides or the session ends."""
        aec, game = self.aec, self.aec.game
        while not game.over and game.to_act != self.learner:
            seat = game.to_act
            spec = self.table[seat]
            assert spec is not None  # only the learner's seat has no opponent
            agent = self._agent(spec, seat)
            aec.step(int(agent.act(aec.observe(f"player_{seat}"))))

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (sb3-contrib's MaskablePPO reads it)."""
        return self._legal_mask().astype(np.bool_)

    def _legal_mask(self) -> np.ndarray:
        game = self.aec.game
        return legal_mask(() if game.over else game.legal, self._num_actions)

    @property
    def state_space(self) -> gym.spaces.Box:
        """The space of :meth:`state` (the AEC env's ``state_space``)."""
        return self.aec.state_space

    def state(self) -> np.ndarray:
        """The privileged state, seats counted from the learner's (for training only: a critic's input;
        docs/observation.md): the AEC env's ``state_for`` the learner."""
        return self.aec.state_for(f"player_{self.learner}")

    def _obs(self) -> np.ndarray:
        return self.aec.observe(f"player_{self.learner}")["observation"]

    def _info(self, illegal: bool = False) -> dict[str, Any]:
        game = self.aec.game
        info: dict[str, Any] = {"seat": self.learner, "action_mask": self._legal_mask()}
        if self.illegal_action == "replace":
            info[ILLEGAL_ACTION_KEY] = illegal
        if game.over:
            info["chips"] = float(game.balances[self.learner] - self.rules.starting_chips)
            info["deals"] = self.rules.num_deals
            info["opponents"] = [spec for spec in self.table if spec is not None]
        return info

    def render(self) -> str | np.ndarray | None:  # type: ignore[override]  # gymnasium types it with its RenderFrame TypeVar
        """The table from the learner's seat: text (``"ansi"``) or a picture (``"rgb_array"``;
        every hand with ``render_all_hands=True``, passed on to the AEC env)."""
        if self.render_mode == "rgb_array":
            reveal = self.aec.render_all_hands
            return table_picture(self.aec.game, None if reveal else self.learner, reveal=reveal)
        if self.render_mode != "ansi":
            return None
        return render_table(self.aec.game, self.learner)
