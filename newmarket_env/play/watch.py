"""Agents against agents in the terminal (``newmarket watch``): the session told as it is played.

Every seat is an agent (built by an agent factory, :mod:`newmarket_env.agent_factory`;
default ``load_agent``); the env runs the rules on the
reference engine, whose record grows in place, and :class:`RecordFeed` tells
its new events after each decision, in the terminal game's words. With a
``seat`` the session is told from that seat (its hand, its own discards);
without one every hand and the dead hand are shown.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from newmarket_env.agent_factory import AgentFactory, check_agent_factory
from newmarket_env.describe.feed import RecordFeed
from newmarket_env.describe.table import table_lines
from newmarket_env.describe.thoughts import decisions_so_far, explain_and_act, thought_entry, thought_lines
from newmarket_env.describe.words import Names, seat_labels
from newmarket_env.envs import env as make_env
from newmarket_env.play.session import check_save_path, write_final
from newmarket_env.records import save_record

Write = Callable[[str], None]
MAX_DELAY = 60.0  # seconds after each decision: reading speed is a few; more is a typo (or inf)


@dataclass
class WatchOptions:
    """What ``newmarket watch`` was asked for."""

    variant: str = "newmarket"
    num_players: int | None = None
    agents: list[str] = field(default_factory=lambda: ["random"])  # one name for all, or one per seat
    seed: int | None = None
    overrides: dict[str, Any] = field(default_factory=dict)
    seat: int | None = None  # tell the session from this seat; None: every hand shown
    delay: float = 0.0  # seconds to wait after each decision that added lines
    table: bool = False  # also draw the table (from ``seat``, or all hands) before each decision
    save: str | None = None
    thoughts: bool = False  # tell what each agent thought (its explain), after its move


class WatchTable:
    """The env and one agent per seat, checked before anything is played."""

    def __init__(self, options: WatchOptions, agent_factory: AgentFactory | None = None) -> None:
        make_agent = check_agent_factory(agent_factory)  # factory(name, env=..., seed=...); None: load_agent
        check_save_path(options.save)
        self.options = options
        self.env = make_env(
            variant=options.variant, num_players=options.num_players, engine="python", **options.overrides
        )
        self.rules = self.env.unwrapped.rules
        n = self.rules.num_players
        if options.seat is not None and not 0 <= options.seat < n:
            raise ValueError(f"--seat {options.seat} is not a seat of this {n}-player table; allowed: 0..{n - 1}")
        if len(options.agents) not in (1, n):
            raise ValueError(
                f"--agents names {len(options.agents)} agents; give 1 (for every seat) or {n} "
                "(one per seat, in seat order)"
            )
        if not (math.isfinite(options.delay) and 0 <= options.delay <= MAX_DELAY):  # nan and inf too
            raise ValueError(f"--delay {options.delay} is out of range; allowed: 0..{MAX_DELAY:g} seconds")
        names = options.agents * n if len(options.agents) == 1 else list(options.agents)
        self.seed = random.randrange(10**6) if options.seed is None else options.seed
        self.agents = [make_agent(name, env=self.env, seed=self.seed + 1 + s) for s, name in enumerate(names)]
        self.agent_names = names
        self.labels = seat_labels(names)


def watch(table: WatchTable, write: Write = print, sleep: Callable[[float], None] = time.sleep) -> int:
    """Play the session with the agents, telling it as it goes; returns the exit code."""
    options, env, rules = table.options, table.env, table.rules
    for agent in table.agents:
        agent.reset()
    env.reset(seed=table.seed)
    game = env.unwrapped.game
    names = Names(rules.num_players, options.seat, table.labels, you=False)
    view = "every hand shown" if options.seat is None else f"told from {names(options.seat)}'s seat"
    write(
        f"newmarket watch -- variant {options.variant}, {rules.num_players} players, {rules.num_deals} deal(s), "
        f"seed {table.seed}, {view}"
    )
    write("the players: " + ", ".join(table.labels.values()))
    write("")
    feed = RecordFeed(game.deals, rules, names, reveal=options.seat is None)
    said: list[dict] = []  # the record's thoughts
    while not game.over:
        if options.table:
            for line in table_lines(game, game.to_act if options.seat is None else options.seat, names):
                write(line)
        seat, kind, decision = game.to_act, game.decision, decisions_so_far(game.deals)
        agent, observation = table.agents[seat], env.observe(env.agent_selection)
        if options.thoughts or options.save:  # asked only when told or kept: a search's account costs a little
            action, thoughts = explain_and_act(agent, observation)
        else:
            action, thoughts = int(agent.act(observation)), None
        env.step(action)
        lines = feed.new_lines()
        if thoughts is not None:
            said.append(thought_entry(decision, seat, table.agent_names[seat], action, thoughts, kind, rules))
            if options.thoughts and options.seat in (None, seat):  # a seat's view: that seat's thoughts only
                lines += thought_lines(said[-1], names)
        for line in lines:
            write(line)
        if lines and options.delay:
            sleep(options.delay)
    for line in feed.new_lines():
        write(line)
    write_final(game.balances, rules.starting_chips, names, write)
    if options.save:
        save_record({**env.unwrapped.record(), "agents": table.agent_names, "thoughts": said}, options.save)
        write(f"record saved to {options.save} (watch it again with: newmarket replay {options.save})")
    return 0
