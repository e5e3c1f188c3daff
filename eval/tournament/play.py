"""Playing one scheduled session with freshly seeded agents and summing up what happened."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from newmarket_env import raw_env
from newmarket_env.eval.tournament.accounting import check_parts, chip_parts
from newmarket_env.eval.tournament.entrants import Entrant
from newmarket_env.eval.tournament.schedule import GameSpec
from newmarket_env.execution.seeds import block_deals


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
    """Plays sessions of one setup, keeping the env and the deals of the last block."""

    def __init__(self, setup: TableSetup) -> None:
        self.setup = setup
        self.env = setup.make_env()
        self._deals_seed: int | None = None
        self._deals: list[dict[str, Any]] = []

    def deals_for(self, seed: int) -> list[dict[str, Any]]:
        if seed != self._deals_seed:
            self._deals_seed, self._deals = seed, block_deals(self.env.rules, seed)
        return self._deals

    def play(self, spec: GameSpec) -> GameResult:
        """Play ``spec``'s session: block deals, lots from the block seed, agents seeded per seat."""
        env = self.env
        agents = [self.setup.entrants[e].load(env, seed) for e, seed in zip(spec.seats, spec.agent_seeds, strict=True)]
        for agent in agents:
            agent.reset()
        env.reset(seed=spec.game_seed, options={"deals": self.deals_for(spec.game_seed)})
        decisions, think = self._run(env, agents, spec)
        return self._result(spec, decisions, think)

    def _run(self, env, agents, spec: GameSpec) -> tuple[list[int], list[float]]:
        game = env.game
        decisions, think = [0] * game.n, [0.0] * game.n
        while not game.over:
            seat = game.to_act
            try:
                observation = env.observe(env.agent_selection)
                start = time.perf_counter()
                action = agents[seat].act(observation)
                think[seat] += time.perf_counter() - start
                env.step(int(action))
            except Exception as err:  # name the agent and the session, so the failure can be replayed
                label = self.setup.entrants[spec.seats[seat]].label
                raise RuntimeError(
                    f"agent {label!r} failed at seat {seat} (block {spec.block}, line-up "
                    f"{spec.lineup}, seating {spec.seating}): {type(err).__name__}: {err}"
                ) from err
            decisions[seat] += 1
        return decisions, think

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
