"""A Gymnasium vector env over the compiled table batch: one learner seat per table.

``VectorEnv`` holds ``num_envs`` tables in one compiled ``TableBatch``. At
each table the learner holds one seat per session (``seat``: ``"random"``,
``"rotate"`` or a seat number) and every other seat is filled, per session, by
an opponent drawn from the pool exactly as :class:`SingleAgentEnv` draws it:
with probability ``snapshot_fraction`` (when there are snapshots) a snapshot,
else an entry of ``opponents``, uniformly.

Opponents move inside :meth:`VectorEnv.step`, so one step is one decision of
the learner at every table:

- the baselines ``random``, ``lowest``, ``greedy`` and ``control`` are played in
  compiled code inside the batch (no Python per decision), the tables shared out
  among ``threads`` threads (default: the machine's cores; the same sessions for
  any count, see :class:`~newmarket_env.engine._batch.TableBatch`);
- any other agent (a saved-agent file, e.g. a frozen snapshot of the learner,
  or another registered name) is built by ``agent_factory`` (default
  ``newmarket_env.load_agent``; see :mod:`newmarket_env.agent_factory`) and
  played here: all tables waiting on such a seat are answered by ONE batched
  forward pass per agent (``act_batch``), then stepped together, until every
  table waits on its learner.

Reward: the learner's chip change since its previous decision (the first step
of a session also counts the stakes paid before it), times ``reward_scale``,
as in :class:`SingleAgentEnv`, so the rewards of a session sum to the
learner's result in it, even when the session ends on another seat's move.

Stable-Baselines3 takes its own ``VecEnv`` type, not this one: hand it
``newmarket_env.train.sb3_vec_env(envs)`` (given this object directly, SB3 says it expected an
OpenAI Gym environment).

Autoreset: Gymnasium's ``SAME_STEP`` mode (``metadata["autoreset_mode"]``).
The step that ends a table's session returns ``terminated[i] = True``, the
last reward of that session, and already the first observation of the table's
next session; the end of the session is in ``infos``:

- ``infos["final_obs"][i]``: the learner's observation at the end of the session
  (an object array, ``None`` for tables that did not finish; ``infos["_final_obs"]``
  marks the finished ones), as Gymnasium's own vector envs give it;
- ``infos["final_info"]``: a dict of arrays with masks (Gymnasium's layout):
  ``chips`` (the learner's session result, unscaled), ``deals``, ``seat`` (the
  learner's), ``results`` (every seat's chips) and ``seat_specs`` (``(num_envs,
  players)``: who played each seat, ``None`` at the learner's, as :meth:`VectorEnv.seat_specs`).

Every ``infos`` (of ``reset`` and of each step) also holds ``seat`` (the learner's seat at each
table), ``action_mask`` (``(num_envs, 79)`` int8, the learner's legal actions, as
``Discrete.sample(mask=)`` takes them) and, with ``illegal_action="replace"`` (the default, as in
:class:`SingleAgentEnv`: Gymnasium's checkers send unmasked actions), ``illegal_action``: where an
action was not legal, the lowest legal one was played instead. ``illegal_action="raise"`` raises
:class:`~newmarket_env.engine.types.IllegalActionError` instead, before any table moves
(:mod:`newmarket_env.envs.masks`). Sessions in which the learner never decides are skipped.
``action_masks()`` gives the same mask as ``(num_envs, 79)`` bool (sb3-contrib's hook), and ``states()``
the privileged state at each table, seats counted from the learner's (``(num_envs, STATE_SIZE)``
float32, ``single_state_space`` each; for training only, e.g. a centralised critic: docs/observation.md).

With ``autoreset_mode=AutoresetMode.NEXT_STEP`` (or ``"NextStep"``; RLlib's env runners step this
way) a table whose session ended returns the learner's final observation itself, with
``terminated[i] = True`` and the session's ``chips``, ``deals``, ``results`` and ``seat_specs`` in
``infos`` (masked as above); its next step ignores the action given for it and starts its next
session: the first observation, reward 0, ``terminated[i] = False``. ``action_masks()`` of a table
waiting so is all zeros.

The compiled engine is required (``TableBatch`` lives in it). Without it (no C
compiler at install time) :func:`vector_env` raises a ``RuntimeError`` saying so;
:class:`SingleAgentEnv` (one table per object, any engine) is the fallback, and
training falls back to it by itself.

>>> from newmarket_env import vector_env
>>> envs = vector_env(variant="newmarket", num_players=4, num_envs=3, opponents=["control"], seed=1)
>>> obs, infos = envs.reset(seed=1)
>>> obs.shape, envs.action_masks().shape
((3, 936), (3, 79))
"""

from __future__ import annotations

import importlib
import numbers
import os
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode
from gymnasium.vector import VectorEnv as GymVectorEnv
from gymnasium.vector.utils import batch_space

from newmarket_env.agent_factory import AgentFactory
from newmarket_env.engine.types import IllegalActionError
from newmarket_env.envs.learner_options import (
    SEAT_MODES,
    LearnerSeat,
    LearnerSeatSettings,
    check_empty_sessions,
    resolve_learner_seat,
)
from newmarket_env.envs.learner_reward import LearnerReward
from newmarket_env.envs.masks import ILLEGAL_ACTION_KEY, MASK_DTYPE, check_illegal_action
from newmarket_env.game.actions import NUM_ACTIONS, action_text
from newmarket_env.game.rules import make_rules
from newmarket_env.observation.layout import CHIP_CLIP, FLAT_SIZE
from newmarket_env.observation.state_layout import STATE_SIZE

__all__ = ["EXTERNAL", "LEARNER", "SEAT_MODES", "LearnerSeat", "VectorEnv", "compiled_batch"]

LEARNER = -1  # seat_policies code: the caller decides (the learner)
EXTERNAL = -2  # seat_policies code: the caller decides (an opponent played here, e.g. a snapshot)


def compiled_batch():
    """The compiled ``TableBatch`` module, or a RuntimeError naming the fallback."""
    try:
        batch = importlib.import_module("newmarket_env.engine._batch")
    except ImportError:
        batch = None
    if batch is None:
        raise RuntimeError(
            "vector_env needs the compiled engine (newmarket_env.engine._batch), which is not built: "
            "reinstall with a C compiler present (pip install -e .), or use SingleAgentEnv "
            "(newmarket_env.envs.single_agent), which runs on any engine"
        )
    needed = ("restart", "seat_policies", "balances", "threads")
    if not all(hasattr(getattr(batch, "TableBatch", None), name) for name in needed):
        raise RuntimeError(
            "vector_env needs the compiled engine's TableBatch with seat_policies, restart, balances and threads; the "
            "built newmarket_env.engine._batch is older than its source: rebuild it (pip install -e .), "
            "or use SingleAgentEnv (newmarket_env.envs.single_agent)"
        )
    return batch


class VectorEnv(LearnerSeatSettings, GymVectorEnv):
    """``num_envs`` compiled tables, one learner seat each; see the module docstring.

    Parameters: ``variant``, ``num_players`` and rules ``overrides`` as for
    :func:`newmarket_env.env`; ``num_envs`` (tables); ``opponents`` (agent names
    or saved-agent paths, at least one); ``seat`` (``"random"``, ``"rotate"`` or a
    seat number); ``snapshots`` (saved-agent paths of earlier learners) and
    ``snapshot_fraction`` (chance that an opponent seat is a snapshot when there
    are any); ``reward_scale`` (chips are multiplied by it); ``seed`` (the env's
    streams until ``reset(seed=...)``); ``copy`` (return copies of the
    observations; ``False`` returns the batch's own array, overwritten in place
    by the next step); ``agent_factory`` (builds the opponents that are not
    compiled baselines: ``factory(spec, env=..., seed=...)``; default
    ``newmarket_env.load_agent``); ``illegal_action`` (``"replace"``, the default, or ``"raise"``;
    see the module docstring); ``threads`` (threads stepping the tables, compiled opponents included:
    default the machine's cores; the sessions are the same for any count); ``autoreset_mode`` (Gymnasium's
    ``SAME_STEP``, the default, or ``NEXT_STEP``: see the module docstring). The learner-seat keywords
    (``opponents``, ``seat``, ``snapshots``, ``snapshot_fraction``, ``reward_scale``, ``agent_factory``) may come whole
    as ``learner_seat`` (a :class:`~newmarket_env.envs.learner_options.LearnerSeat`) instead.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}  # noqa: RUF012 (gymnasium.VectorEnv declares it an instance attribute)

    def __init__(
        self,
        variant: str = "newmarket",
        num_players: int | None = None,
        num_envs: int = 64,
        opponents: Sequence[str] = ("random",),
        seat: str | int = "random",
        snapshots: Sequence[str] = (),
        snapshot_fraction: float = 0.0,
        reward_scale: float = 1.0,
        seed: int | None = None,
        copy: bool = True,
        agent_factory: AgentFactory | None = None,
        learner_seat: LearnerSeat | None = None,
        illegal_action: str = "replace",
        threads: int | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
        **overrides: Any,
    ) -> None:
        fast = compiled_batch()
        threads = fast.check_threads(threads)  # a bad value fails before anything is built
        self.metadata = {**self.metadata, "autoreset_mode": _autoreset_mode(autoreset_mode)}
        self._next_step = self.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
        self.rules = make_rules(variant, num_players, **overrides)
        self.illegal_action = check_illegal_action(illegal_action)
        self.variant = variant
        self.n = self.rules.num_players
        _check_options(num_envs, seed)
        keywords = dict(opponents=opponents, snapshots=snapshots, snapshot_fraction=snapshot_fraction, seat=seat)
        #: The learner seat in play: as built, or as ``reward_scale``/``seat_mode`` set it since (``set_snapshots``
        #: changes the snapshots in play, not this).
        self.learner_seat = resolve_learner_seat(
            learner_seat, self.n, **keywords, reward_scale=reward_scale, agent_factory=agent_factory
        )
        spec = self.learner_seat
        self.agent_factory = spec.factory
        self.num_envs = int(num_envs)
        self.snapshot_fraction = spec.snapshot_fraction
        self.copy = bool(copy)
        self.single_observation_space = spaces.Box(-CHIP_CLIP, CHIP_CLIP, (FLAT_SIZE,), np.float32)
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        #: The space of one row of :meth:`states` (the AEC env's ``state_space``).
        self.single_state_space = spaces.Box(-CHIP_CLIP, CHIP_CLIP, (STATE_SIZE,), np.float32)
        self._np_random, self._np_random_seed = seeding.np_random(seed)
        self._compiled_codes = dict(fast.POLICY_CODES)

        # The pool: every spec ever drawn gets an id (ids index _spec_names/_spec_codes), so the
        # seats of a running session keep their agent when the snapshots change under it.
        self._spec_names: list[str] = []
        self._spec_codes = np.zeros(0, dtype=np.int8)
        self._agents: dict[int, Any] = {}  # spec id -> agent with act_batch (one for all tables)
        self._seat_agents: dict[tuple[int, int, int], Any] = {}  # (spec id, table, seat) -> per-seat agent
        self._opponent_ids = np.array([self._register(name) for name in spec.opponents], dtype=np.int64)
        self.opponents = [self._spec_names[i] for i in self._opponent_ids]
        self.snapshots: list[str] = []
        self._snapshot_ids = np.zeros(0, dtype=np.int64)
        self.set_snapshots(spec.snapshots)

        n, tables = self.n, self.num_envs
        self.learner = np.zeros(tables, dtype=np.int64)  # the learner's seat at each table
        self.specs = np.full((tables, n), LEARNER, dtype=np.int64)  # spec id per seat (LEARNER at the learner's)
        self._sessions = np.zeros(tables, dtype=np.int64)  # sessions started per table ("rotate")
        self._reward = LearnerReward(tables, self.rules.starting_chips, spec.reward_scale)
        self._decided = np.zeros(tables, dtype=bool)  # the learner decided in this session
        self._skipped = np.zeros(tables, dtype=np.int64)  # sessions in a row without a learner decision
        self._rows = np.arange(tables)
        self._draw_tables(self._rows)
        self.batch = fast.TableBatch(
            self.rules, tables, seed=self._batch_seed(None), seat_policies=self._seat_codes(self._rows), threads=threads
        )
        self.batch.auto_restart = False
        self._started = False
        self._ended = np.zeros(tables, dtype=bool)  # NEXT_STEP: sessions ended, their next one starts at the next step

    # ------------------------------------------------------------------ the pool
    def _register(self, spec: str | os.PathLike) -> int:
        """The id of ``spec``, loading its agent when none is held (a ValueError if it cannot be loaded)."""
        if isinstance(spec, os.PathLike):
            spec = os.fspath(spec)
        if not isinstance(spec, str) or not spec:
            raise ValueError(f"opponent {spec!r} is not an agent name or a saved-agent path")
        known = spec in self._spec_names
        spec_id = self._spec_names.index(spec) if known else len(self._spec_names)
        code = self._compiled_codes.get(spec, EXTERNAL)
        if code == EXTERNAL and spec_id not in self._agents:  # new, or dropped when it left the pool
            agent = self._load(spec)  # a bad spec fails here, before anything changed
            if hasattr(agent, "act_batch"):  # one instance answers every table; others get one per seat
                self._agents[spec_id] = agent
        if not known:
            self._spec_names.append(spec)
            self._spec_codes = np.append(self._spec_codes, np.int8(code))
        return spec_id

    def _load(self, spec: str):
        """A fresh agent for ``spec``, seeded from the env's stream (as SingleAgentEnv seeds its agents)."""
        return self.agent_factory(spec, env=self, seed=int(self.np_random.integers(2**31)))

    def set_snapshots(self, paths: Sequence[str]) -> None:
        """Replace the self-play snapshots (saved-agent paths); used from training callbacks.

        Running sessions keep their opponents; sessions started from now on draw
        from the new list. Every path is loaded first: a bad one changes nothing.
        """
        if isinstance(paths, str):
            raise ValueError(f"snapshots={paths!r} must be a list of saved-agent paths, not one string")
        paths = list(paths)
        ids = np.array([self._register(path) for path in paths], dtype=np.int64)
        self.snapshots, self._snapshot_ids = [self._spec_names[i] for i in ids], ids
        self._forget_unused()

    def _forget_unused(self) -> None:
        """Drop agents that no pool entry and no running session uses any more."""
        if not hasattr(self, "specs"):
            return
        live = set(self._opponent_ids.tolist()) | set(self._snapshot_ids.tolist()) | set(np.unique(self.specs).tolist())
        self._agents = {i: a for i, a in self._agents.items() if i in live}
        self._seat_agents = {k: a for k, a in self._seat_agents.items() if k[0] in live}

    def _draw_tables(self, tables: np.ndarray) -> None:
        """Draw the learner seat and the opponents of the next session at ``tables`` (SingleAgentEnv's draw)."""
        k, n, rng = len(tables), self.n, self.np_random
        if k == 0:
            return
        learner = self.learner_seat.next_seats(rng, self._sessions[tables], n)
        self._sessions[tables] += 1
        specs = self._opponent_ids[rng.integers(len(self._opponent_ids), size=(k, n))]
        if len(self._snapshot_ids):
            use_snapshot = rng.random((k, n)) < self.snapshot_fraction
            drawn = self._snapshot_ids[rng.integers(len(self._snapshot_ids), size=(k, n))]
            specs = np.where(use_snapshot, drawn, specs)
        specs[np.arange(k), learner] = LEARNER
        self.learner[tables] = learner
        self.specs[tables] = specs
        external = (specs != LEARNER) & (self._spec_codes[np.maximum(specs, 0)] == EXTERNAL)
        for table, seat in zip(*np.nonzero(external), strict=True):  # rare: per-seat agents start a session
            spec_id = int(specs[table, seat])
            if spec_id not in self._agents:
                self._seat_agent(spec_id, int(tables[table]), int(seat)).reset()

    def _seat_agent(self, spec_id: int, table: int, seat: int):
        """An agent without ``act_batch`` gets one instance per (table, seat), as SingleAgentEnv keeps one per seat."""
        key = (spec_id, table, seat)
        if key not in self._seat_agents:
            self._seat_agents[key] = self._load(self._spec_names[spec_id])
        return self._seat_agents[key]

    def seat_specs(self, table: int) -> list[str | None]:
        """Who plays each seat of ``table``'s current session: an opponent spec, ``None`` at the learner's
        seat (``SingleAgentEnv.table``'s layout)."""
        if not 0 <= table < self.num_envs:
            raise ValueError(f"table={table!r} is out of range; allowed: 0..{self.num_envs - 1}")
        return [None if s == LEARNER else self._spec_names[s] for s in self.specs[table]]

    def _seat_codes(self, tables: np.ndarray) -> np.ndarray:
        """``seat_policies`` rows for ``tables``: compiled codes, EXTERNAL, or LEARNER."""
        specs = self.specs[tables]
        return np.where(specs == LEARNER, LEARNER, self._spec_codes[np.maximum(specs, 0)]).astype(np.int8)

    def _batch_seed(self, seed: int | None) -> int:
        return int(self.np_random.integers(2**32)) if seed is None else int(seed)

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start a fresh session at every table; ``seed`` seeds the draws and table ``i``'s cards
        (``table_seed(seed, i)``). Returns the learner observations and ``{"seat": ...}``."""
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or not 0 <= seed < 2**32:
                raise ValueError(
                    f"seed={seed!r} is out of range; allowed: an int 0..2**32-1 or None (one seed seeds every table)"
                )
            self._np_random, self._np_random_seed = seeding.np_random(int(seed))
            self._sessions[:] = 0
            self._seat_agents = {}
        if options:
            raise ValueError(f"options={options!r} is not supported; allowed: None")
        self._draw_tables(self._rows)
        self._forget_unused()
        self.batch.seat_policies[:] = self._seat_codes(self._rows)
        self.batch.reset(self._batch_seed(seed))
        self._after_start(self._rows)
        self._skipped[:] = 0
        self._ended[:] = False
        self._settle(np.zeros(0, dtype=np.int64), _Ends(self.num_envs))  # external seats move first
        self._started = True
        return self._observations(), self._infos(np.zeros(self.num_envs, dtype=bool))

    def step(self, actions):
        """One learner decision at every table (opponents move inside); see the module docstring."""
        if not self._started:
            raise RuntimeError("step() called before reset()")
        chosen = np.asarray(actions)
        if chosen.shape != (self.num_envs,) or not np.issubdtype(chosen.dtype, np.integer):
            raise ValueError(
                f"actions must be {self.num_envs} action ids (an int array of shape "
                f"({self.num_envs},)); got {chosen.dtype} of shape {chosen.shape}"
            )
        masks = self.batch.action_masks
        waiting = self._ended.copy()  # NEXT_STEP: tables whose session ended at the last step start their next
        illegal = (chosen < 0) | (chosen >= NUM_ACTIONS)
        illegal[~illegal] = masks[self._rows[~illegal], chosen[~illegal]] == 0
        illegal &= ~waiting  # their action is ignored, legal or not
        if illegal.any():
            if self.illegal_action == "raise":
                raise _illegal_error(chosen, masks, illegal)
            chosen = np.where(illegal, np.argmax(masks, axis=1), chosen)  # the lowest legal, as SingleAgentEnv
        self._decided[:] = True
        ends = _Ends(self.num_envs)
        playing = self._rows[~waiting]
        if len(playing) == self.num_envs:
            self.batch.step(chosen)
        elif len(playing):
            self.batch.step(chosen[playing], tables=playing)
        finished = self._finished(playing, ends)
        if self._next_step:  # the sessions that just ended wait for the next step; those waiting start
            self._ended[:] = False
            self._settle(np.union1d(self._rows[waiting], finished[~ends.ended[finished]]), ends)
        else:
            self._settle(finished, ends)
        # Finished tables return their session's last reward (taken as it ended); the others what their
        # learner won since its previous decision. A finished table's chips now are its next session's
        # (SAME_STEP; NEXT_STEP: it is still over). A table that started a session in this step: 0.
        rewards, going = ends.reward, ~ends.ended & ~waiting
        rewards[going] = self._reward.take(going, self.batch.balances[self._rows[going], self.learner[going]])
        infos = self._infos(illegal)
        if ends.ended.any():
            infos.update(self._final_infos(ends))
        return self._observations(ends), rewards, ends.ended, np.zeros(self.num_envs, dtype=bool), infos

    # ------------------------------------------------------------------ the hot path
    def _finished(self, touched: np.ndarray, ends: _Ends) -> np.ndarray:
        """After a batch step of ``touched``: record the sessions that ended there; return those tables."""
        done = touched[self.batch.done[touched]]
        if len(done):
            reported = done[self._decided[done]]  # a session without a learner decision is skipped, unreported
            if len(reported):
                ends.add(reported, self)
            self._skipped[done] = np.where(self._decided[done], 0, self._skipped[done] + 1)
            check_empty_sessions(self._skipped[done])
        return done

    def _settle(self, finished: np.ndarray, ends: _Ends) -> None:
        """Restart ``finished`` tables and play external opponents until every table waits on its learner
        (NEXT_STEP: the sessions that end meanwhile, as those in ``ends`` already, wait for the next step)."""
        while True:
            if len(finished):
                self._start(finished)
            to_act = self.batch.to_act
            waiting = np.flatnonzero((to_act >= 0) & (self.specs[self._rows, to_act] != LEARNER))
            if not len(waiting):
                if self._next_step:
                    self._ended[ends.ended] = True
                return
            self._play_external(waiting)
            finished = self._finished(waiting, ends)
            if self._next_step:  # a reported session waits for the next step; one the learner never saw starts now
                finished = finished[~ends.ended[finished]]

    def _start(self, tables: np.ndarray) -> None:
        """Draw the next session's seats at ``tables`` and start it (compiled seats play up to a caller's seat)."""
        self._draw_tables(tables)
        self.batch.seat_policies[tables] = self._seat_codes(tables)
        self.batch.restart(tables)
        self._after_start(tables)

    def _after_start(self, tables: np.ndarray) -> None:
        """A session just started at ``tables``: its learner has not decided; its first reward counts from
        the starting chips (so the stakes are in it)."""
        self._decided[tables] = False
        self._reward.start(tables)

    def _play_external(self, waiting: np.ndarray) -> None:
        """One decision at every table in ``waiting`` by its external opponent: one forward pass per agent."""
        batch = self.batch
        seats = batch.to_act[waiting]
        spec_ids = self.specs[waiting, seats]
        chosen = np.empty(len(waiting), dtype=np.int64)
        for spec_id in np.unique(spec_ids):
            rows = np.flatnonzero(spec_ids == spec_id)
            tables = waiting[rows]
            agent = self._agents.get(int(spec_id))
            if agent is not None:
                chosen[rows] = agent.act_batch(batch.observations[tables], batch.action_masks[tables])
            else:
                for row, table in zip(rows, tables, strict=True):
                    agent = self._seat_agent(int(spec_id), int(table), int(seats[row]))
                    chosen[row] = agent.act(
                        {
                            "observation": batch.observations[table].copy(),
                            "action_mask": batch.action_masks[table].copy(),
                        }
                    )
        batch.step(chosen, tables=waiting)

    def _observations(self, ends: _Ends | None = None) -> np.ndarray:
        observations = self.batch.observations.copy() if self.copy else self.batch.observations
        if self._next_step and ends is not None:  # an ended table shows its learner's final observation
            for tables, rows in ends.chunks:
                observations[tables] = rows
        return observations

    def action_masks(self) -> np.ndarray:
        """``(num_envs, 79)`` bool: the learner's legal actions at each table (sb3-contrib reads it)."""
        return self.batch.action_masks.astype(bool)

    def states(self) -> np.ndarray:
        """The privileged state at each table, seats counted from its learner's (relative seat 0 holds the
        learner's hand): ``(num_envs, STATE_SIZE)`` float32, a new array. For training only (a centralised
        critic, oracle inputs); the opponents never see it. Where a session just ended, it is the next
        session's, like the observation returned with it."""
        if not self._started:
            raise RuntimeError("states() called before reset()")
        return self.batch.states(seats=self.learner)

    def _infos(self, illegal: np.ndarray) -> dict[str, Any]:
        """The infos of every reset and step (Gymnasium's layout: each key with its ``_key`` mask)."""
        everywhere = np.ones(self.num_envs, dtype=bool)
        infos: dict[str, Any] = {
            "seat": self.learner.copy(),
            "_seat": everywhere,
            "action_mask": self.batch.action_masks.astype(MASK_DTYPE),  # a copy: the batch's is written in place
            "_action_mask": everywhere.copy(),
        }
        if self.illegal_action == "replace":
            infos[ILLEGAL_ACTION_KEY] = illegal
            infos[f"_{ILLEGAL_ACTION_KEY}"] = everywhere.copy()
        return infos

    def _final_infos(self, ends: _Ends) -> dict[str, Any]:
        """``final_obs`` and ``final_info`` in Gymnasium's SAME_STEP layout (arrays with ``_`` masks)."""
        ended = ends.ended
        final_obs = np.full(self.num_envs, None, dtype=object)
        for tables, rows in ends.chunks:  # each row an array of its own (an object array, not a 2-d one)
            final_obs[tables] = np.fromiter(rows, dtype=object, count=len(tables))
        chips = np.where(ended, ends.results[self._rows, ends.seat], 0).astype(np.float64)
        names = np.array([*self._spec_names, None], dtype=object)  # LEARNER (-1) picks the final None
        info = {
            "chips": chips,
            "deals": np.where(ended, self.rules.num_deals, 0),
            "seat": ends.seat,
            "results": ends.results,
            "seat_specs": names[ends.specs],
        }
        for key in list(info):
            info[f"_{key}"] = ended
        if self._next_step:  # the final observation is the step's own; the session's end is in infos itself
            del info["seat"], info["_seat"]  # the step's own "seat" says it (the learner keeps it until the restart)
            return info
        return {"final_obs": final_obs, "_final_obs": ended, "final_info": info, "_final_info": ended}

    def close_extras(self, **kwargs: Any) -> None:
        self._agents, self._seat_agents = {}, {}


class _Ends:
    """The sessions that ended during one step: which tables, their last reward and final state.

    Final observations are kept as the few rows that ended (not a full ``(N, 936)``
    array per step): a step ends a session at only a few tables.
    """

    def __init__(self, tables: int) -> None:
        self.ended = np.zeros(tables, dtype=bool)
        self.reward = np.zeros(tables, dtype=np.float64)  # scaled, as the step returns it
        self.chunks: list[tuple[np.ndarray, np.ndarray]] = []  # (tables, their learner's final observations)

    def add(self, tables: np.ndarray, env: VectorEnv) -> None:
        if not self.chunks:
            self.results = np.zeros((len(self.ended), env.n), dtype=np.int64)
            self.seat = np.zeros(len(self.ended), dtype=np.int64)
            self.specs = np.full((len(self.ended), env.n), LEARNER, dtype=np.int64)
        seats = env.learner[tables]
        self.ended[tables] = True
        self.reward[tables] = env._reward.take(tables, env.batch.balances[tables, seats])
        self.chunks.append((tables, env.batch.final_observations[tables, seats]))  # fancy indexing: a copy
        self.results[tables] = env.batch.results[tables]
        self.seat[tables] = seats
        self.specs[tables] = env.specs[tables]


def _illegal_error(chosen: np.ndarray, masks: np.ndarray, illegal: np.ndarray) -> IllegalActionError:
    """The error of ``illegal_action="raise"``: the first table with an illegal action, its action, its legal ones."""
    table = int(np.flatnonzero(illegal)[0])
    legal = ", ".join(f"{a} ({action_text(int(a))})" for a in np.flatnonzero(masks[table]))
    return IllegalActionError(
        f"action {int(chosen[table])} at table {table} ({int(illegal.sum())} table(s) with an illegal action) "
        f"is not legal; legal actions there: {legal}"
    )


def _autoreset_mode(mode: AutoresetMode | str) -> AutoresetMode:
    """``mode`` as Gymnasium's enum (its value, e.g. ``"NextStep"``, also works); a one-line ValueError else."""
    allowed = (AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP)
    for known in allowed:
        if mode is known or mode == known.value:
            return known
    raise ValueError(f"autoreset_mode={mode!r} is not supported; allowed: {', '.join(m.value for m in allowed)}")


def _check_options(num_envs, seed) -> None:
    """One-line ValueErrors naming the allowed values (the rules are checked by make_rules, the learner seat
    by LearnerSeat)."""
    if isinstance(num_envs, bool) or not isinstance(num_envs, numbers.Integral) or int(num_envs) < 1:
        raise ValueError(f"num_envs={num_envs!r} is out of range; allowed: an int >= 1")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0):
        raise ValueError(f"seed={seed!r} is not allowed; allowed: None or an int >= 0")
