"""Playing one scheduled session with freshly seeded agents and summing up what happened.

Every answer of an agent is checked before it is played: an action id is an ``int`` (or a numpy
integer) of a legal action, as ``env.step`` takes it; a float, a string or a bool is never turned
into one. An agent that returns anything else, or raises anything at all (``SystemExit`` and a
``KeyboardInterrupt`` it raises itself included), stops the session with :class:`AgentFailed`,
whose one-line message names the agent, its seat, the session and its decision.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from newmarket_env import raw_env
from newmarket_env.eval.tournament.accounting import check_parts, chip_parts
from newmarket_env.eval.tournament.entrants import Entrant
from newmarket_env.eval.tournament.schedule import GameSpec
from newmarket_env.execution.seeds import block_deals
from newmarket_env.game.actions import NUM_ACTIONS
from newmarket_env.util.cli_common import Terminated

#: Longest text of an agent's answer quoted in a message.
MAX_ANSWER_TEXT = 60


class AgentFailed(RuntimeError):
    """An agent raised, or answered something that is not a legal action id; the message names it."""


class DecisionClock:
    """Told when each decision starts and ends (a worker process shows it to the main process, which
    stops an agent that thinks past the decision timeout)."""

    def start(self, seat: int, decision: int) -> None:
        """Seat ``seat`` starts its ``decision``-th decision of the session (from 0)."""

    def stop(self) -> None:
        """The decision started last is answered."""


@dataclass(frozen=True)
class TableSetup:
    """What every session of a tournament shares: the rules and the entrants."""

    variant: str
    players: int
    overrides: Mapping[str, Any]
    entrants: tuple[Entrant, ...]
    keep_records: bool = False  # keep every session's record (TournamentConfig.save_records)

    def make_env(self):
        return raw_env(variant=self.variant, num_players=self.players, **dict(self.overrides))


@dataclass
class GameResult:
    """The outcome of one session, per seat."""

    spec: GameSpec
    deals: int
    chips: list[int]  # final minus starting balance
    parts: list[dict[str, int]]  # chips by source (accounting.PARTS)
    outs: list[int]  # deals this seat went out first
    decisions: list[int]
    think_seconds: list[float]  # time spent in act(); the only figure that varies between runs
    record: dict[str, Any] | None = None  # the session record (docs/contract.md), when the setup keeps records

    @property
    def key(self) -> tuple[int, int, int]:
        return self.spec.block, self.spec.lineup, self.spec.seating


class TablePlayer:
    """Plays sessions of one setup, keeping the env and the deals of the last block.

    ``clock`` hears of every decision (a worker's, for the decision timeout). ``ctrl_c`` says whether
    the person pressed Ctrl-C: a ``KeyboardInterrupt`` out of ``act`` is then theirs (the run stops as
    interrupted), else the agent raised it (the agent failed).
    """

    def __init__(
        self, setup: TableSetup, clock: DecisionClock | None = None, ctrl_c: Callable[[], bool] | None = None
    ) -> None:
        self.setup = setup
        self.env = setup.make_env()
        self.clock = clock or DecisionClock()
        self.ctrl_c = ctrl_c or (lambda: True)
        self._deals_seed: int | None = None
        self._deals: list[dict[str, Any]] = []

    def deals_for(self, seed: int) -> list[dict[str, Any]]:
        if seed != self._deals_seed:
            self._deals_seed, self._deals = seed, block_deals(self.env.rules, seed)
        return self._deals

    def play(self, spec: GameSpec) -> GameResult:
        """Play ``spec``'s session: block deals, lots from the block seed, agents seeded per seat."""
        env = self.env
        agents = []
        for seat, (e, seed) in enumerate(zip(spec.seats, spec.agent_seeds, strict=True)):
            with self._agent_code(spec, seat, " while it was made ready for the session"):
                agents.append(self.setup.entrants[e].load(env, seed))
                agents[-1].reset()
        env.reset(seed=spec.game_seed, options={"deals": self.deals_for(spec.game_seed)})
        decisions, think = self._run(env, agents, spec)
        return self._result(spec, decisions, think)

    def _run(self, env, agents, spec: GameSpec) -> tuple[list[int], list[float]]:
        game = env.game
        decisions, think = [0] * game.n, [0.0] * game.n
        while not game.over:
            seat = game.to_act
            observation = env.observe(env.agent_selection)
            with self._agent_code(spec, seat, "", decisions[seat]):
                self.clock.start(seat, decisions[seat])
                start = time.perf_counter()
                action = agents[seat].act(observation)
                think[seat] += time.perf_counter() - start
                self.clock.stop()
            problem = answer_problem(action, observation["action_mask"])
            if problem:
                raise AgentFailed(
                    f"{self.who(spec, seat, decisions[seat])} returned {_quoted(action)} "
                    f"({type(action).__name__}): {problem}"
                )
            env.step(action)
            decisions[seat] += 1
        return decisions, think

    def who(self, spec: GameSpec, seat: int, decision: int | None = None) -> str:
        return agent_at(self.setup, spec, seat, decision)

    def _agent_code(self, spec: GameSpec, seat: int, what: str, decision: int | None = None) -> _AgentCode:
        return _AgentCode(self, spec, seat, what, decision)

    def _result(self, spec: GameSpec, decisions: list[int], think: list[float]) -> GameResult:
        game = self.env.game
        start = self.env.rules.starting_chips
        chips = [balance - start for balance in game.balances]
        record = self.env.record()
        # who sat where, for every view of the record, and how to load each seat's agent again, so that
        # `newmarket replay --verify` can check its decisions (docs/contract.md, "The record of a session")
        entrants = [self.setup.entrants[e] for e in spec.seats]
        record["agents"] = [entrant.label for entrant in entrants]
        record["seat_agents"] = [
            {"label": entrant.label, "spec": entrant.spec, "options": dict(entrant.options), "seed": seed}
            for entrant, seed in zip(entrants, spec.agent_seeds, strict=True)
        ]
        parts, outs = chip_parts(record)
        check_parts(parts, chips)
        return GameResult(
            spec, len(game.deals), chips, parts, outs, decisions, think, record if self.setup.keep_records else None
        )


def agent_at(setup: TableSetup, spec: GameSpec, seat: int, decision: int | None = None) -> str:
    """``agent 'x' (seat 1; block 0, line-up 2, seating 1; its decision 5 of the session)``: the agent, and
    enough to replay what it did there."""
    label = setup.entrants[spec.seats[seat]].label
    at = "" if decision is None else f"; its decision {decision + 1} of the session"
    return f"agent {label!r} (seat {seat}; block {spec.block}, line-up {spec.lineup}, seating {spec.seating}{at})"


class _AgentCode:
    """Around a call into an agent's code: whatever it raises becomes :class:`AgentFailed` naming the agent,
    but a stop asked by the person (Ctrl-C pressed, SIGTERM) goes through as it is."""

    def __init__(self, player: TablePlayer, spec: GameSpec, seat: int, what: str, decision: int | None) -> None:
        # what: said after the exception (where the agent was), e.g. " while it was made ready for the session"
        self.player, self.spec, self.seat, self.what, self.decision = player, spec, seat, what, decision

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None, traceback: object) -> None:
        if err is None or isinstance(err, (Terminated, AgentFailed)):
            return
        if isinstance(err, KeyboardInterrupt) and self.player.ctrl_c():
            return
        who = self.player.who(self.spec, self.seat, self.decision)
        text = " ".join(str(err).split())
        raise AgentFailed(f"{who} raised {type(err).__name__}{': ' + text if text else ''}{self.what}") from err


def answer_problem(action: Any, mask: Any) -> str | None:
    """What is wrong with ``action`` as an answer to a decision whose legal actions ``mask`` marks, or None.

    The rule of ``env.step``: a Python or numpy integer (never a bool, a float or a string), of a legal action.

    >>> mask = np.zeros(79, dtype=np.int8); mask[[3, 12]] = 1
    >>> answer_problem(12, mask), answer_problem(np.int64(3), mask)
    (None, None)
    >>> answer_problem(3.9, mask)
    'not an action id; allowed: a legal action id, an int (here 3, 12)'
    >>> answer_problem(40, mask)
    'not a legal action here; allowed: 3, 12'
    """
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        return f"not an action id; allowed: a legal action id, an int (here {_legal_text(mask)})"
    if not (0 <= action < NUM_ACTIONS and mask[action]):
        return f"not a legal action here; allowed: {_legal_text(mask)}"
    return None


def _legal_text(mask: Any) -> str:
    return ", ".join(str(a) for a in np.flatnonzero(np.asarray(mask)))


def _quoted(value: Any) -> str:
    try:
        text = repr(value)
    except Exception as err:  # an object whose repr fails is still named
        text = f"<an object whose repr raised {type(err).__name__}>"
    text = " ".join(text.split())
    return text if len(text) <= MAX_ANSWER_TEXT else text[: MAX_ANSWER_TEXT - 3] + "..."
