"""A person plays one session in the terminal against agents, through the env.

The env (``newmarket_env.env``) runs the rules; this module only shows the
table, tells the record's events as they happen and asks for decisions.
The opponents come from an agent factory (:mod:`newmarket_env.agent_factory`;
default ``newmarket_env.load_agent``), so this module does not import the agents.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from newmarket_env.agent_factory import AgentFactory, check_agent_factory
from newmarket_env.describe.choices import Choices
from newmarket_env.describe.events import chips_line
from newmarket_env.describe.feed import RecordFeed
from newmarket_env.describe.questions import question_text
from newmarket_env.describe.table import table_lines
from newmarket_env.describe.thoughts import decisions_so_far, explain_and_act, thought_entry
from newmarket_env.describe.words import Names, count_text, seat_labels
from newmarket_env.envs import env as make_env
from newmarket_env.game.cards import iter_cards
from newmarket_env.play.prompt import QUIT_WORDS, QuitSession, ask
from newmarket_env.records import PERSON, save_record
from newmarket_env.util.cli_common import check_output_file

Write = Callable[[str], None]
Read = Callable[[str], str]


@dataclass
class PlayOptions:
    """What ``newmarket play`` was asked for."""

    variant: str = "newmarket"
    num_players: int | None = None
    seat: int = 0  # the person's seat
    seed: int | None = None  # None: a fresh seed, printed so the table can be replayed
    agents: list[str] = field(default_factory=lambda: ["random"])  # one name for all, or one per other seat
    overrides: dict[str, Any] = field(default_factory=dict)  # rules parameters (docs/rules.md names)
    save: str | None = None  # where to write the session record


class Table:
    """The env, the opponents and the person's seat, ready to play.

    ``agent_factory`` builds the opponents from the names in ``options.agents``
    (``factory(name, env=..., seed=...)``; default ``newmarket_env.load_agent``).
    """

    def __init__(self, options: PlayOptions, agent_factory: AgentFactory | None = None) -> None:
        self.options = options
        make_agent = check_agent_factory(agent_factory)
        # The reference engine: its record grows in place, and the table reads it after every move
        # (speed does not matter at human pace).
        self.env = make_env(
            variant=options.variant, num_players=options.num_players, engine="python", **options.overrides
        )
        self.rules = self.env.unwrapped.rules
        n = self.rules.num_players
        if not 0 <= options.seat < n:
            raise ValueError(f"--seat {options.seat} is not a seat of this {n}-player table; allowed: 0..{n - 1}")
        self.seat = options.seat
        self.seed = random.randrange(10**6) if options.seed is None else options.seed
        others = [s for s in range(n) if s != self.seat]
        names = _agent_names(options.agents, len(others))
        self.opponents = {
            s: make_agent(name, env=self.env, seed=self.seed + 1 + s) for s, name in zip(others, names, strict=True)
        }
        #: who sits where: the agents' names, and PERSON at the person's seat (a saved record's ``agents``)
        self.agent_names = [PERSON if s == self.seat else names[others.index(s)] for s in range(n)]
        self.labels = {s: label for s, label in seat_labels(self.agent_names).items() if s != self.seat}
        self.thoughts: list[dict[str, Any]] = []  # what the agents said at their decisions (a saved record's)

    def start(self) -> None:
        for agent in self.opponents.values():
            agent.reset()
        self.env.reset(seed=self.seed)


def _agent_names(agents: list[str], others: int) -> list[str]:
    if len(agents) == 1:
        return agents * others
    if len(agents) != others:
        raise ValueError(
            f"--agents names {len(agents)} agents; give 1 (for every other seat) or {others} "
            f"(one per other seat, in seat order)"
        )
    return list(agents)


def check_save_path(path: str | None) -> None:
    """Fail before the game, not after it, when the record could not be written."""
    if path is None:
        return
    if os.path.isdir(path):
        raise ValueError(f"--save {path}: it is a folder; give a file name, e.g. {os.path.join(path, 'game.json')}")
    check_output_file("--save", path)


def prepare(options: PlayOptions, agent_factory: AgentFactory | None = None) -> Table:
    """The table for ``options``; ``ValueError`` names what is wrong with them, before anything is played."""
    check_save_path(options.save)
    return Table(options, agent_factory)


def play(table: Table, read: Read = input, write: Write = print) -> int:
    """Play one session at ``table``; returns the exit code (0 when finished or stopped on purpose)."""
    options = table.options
    table.start()
    game = table.env.unwrapped.game
    names = Names(table.rules.num_players, viewer=table.seat)
    _intro(table, names, options, write)
    feed = RecordFeed(game.deals, table.rules, names)
    try:
        _play_loop(table, feed, names, read, write)
    except (QuitSession, EOFError) as stop:
        write("" if isinstance(stop, QuitSession) else "\n(input ended)")
        write(f"session stopped in deal {min(game.deal_index + 1, table.rules.num_deals)} of {table.rules.num_deals}")
    else:
        _write_all(feed.new_lines(), write)
        write_final(game.balances, table.rules.starting_chips, Names(table.rules.num_players, table.seat), write)
    if options.save:
        record = {**table.env.unwrapped.record(), "agents": table.agent_names, "thoughts": table.thoughts}
        save_record(record, options.save)
        write(f"record saved to {options.save} (watch it with: newmarket replay {options.save})")
    return 0


#: The question between two deals; it ends as the decision prompt does (tools that drive the game wait for it).
NEXT_DEAL_PROMPT = "-- the deal is over: Enter for the next deal (q to quit)> "


def _play_loop(table: Table, feed: RecordFeed, names: Names, read: Read, write: Write) -> None:
    env, game = table.env, table.env.unwrapped.game
    while not game.over:
        agent = env.agent_selection
        seat = int(agent.split("_")[1])
        if seat == table.seat:
            # Told only now, so a run of agents' moves reads as whole lines (e.g. "discards 3 cards").
            _write_all(feed.new_lines(), write)
            action = _human_turn(game, table.seat, names, read, write)
        elif table.options.save is not None:  # the saved record keeps what the agents thought (shown in replays)
            kind, decision = game.decision, decisions_so_far(game.deals)
            action, thoughts = explain_and_act(table.opponents[seat], env.observe(agent))
            if thoughts is not None:
                name = table.agent_names[seat]
                table.thoughts.append(thought_entry(decision, seat, name, action, thoughts, kind, table.rules))
        else:
            action = table.opponents[seat].act(env.observe(agent))
        finished = _finished_deals(game)
        env.step(int(action))
        if _finished_deals(game) > finished and not game.over:
            # The deal's result (every hand left, the boodles, the pot, the chips), then the person's pace.
            _write_all(feed.new_lines(to_deal_end=True), write)
            if read(NEXT_DEAL_PROMPT).strip().lower() in QUIT_WORDS:
                raise QuitSession


def _finished_deals(game) -> int:
    return sum(1 for deal in game.deals if deal["chips"])


def _human_turn(game, seat: int, names: Names, read: Read, write: Write) -> int:
    choices = Choices(game.legal, game.decision, game.rules, hand=iter_cards(game.hands[seat]))

    def show_table() -> None:
        write("")
        _write_all(table_lines(game, seat, names), write)

    show_table()
    write(question_text(game, seat))
    _write_all(choices.lines(), write)
    return ask(choices, show_table, read, write)


def _intro(table: Table, names: Names, options: PlayOptions, write: Write) -> None:
    rules = table.rules
    write(
        f"newmarket play -- variant {options.variant}, {rules.num_players} players, {rules.num_deals} deal(s), "
        f"seed {table.seed}"
    )
    write("you are player_{}; the others: {}".format(table.seat, ", ".join(table.labels.values())))
    write(
        "cards are rank + suit: TH is the ten of hearts, AS the ace of spades; "
        f"aces are {'high' if rules.ace_high else 'low'}"
    )
    write(
        f"boodles (pay cards): {' '.join(rules.boodles)}; every player starts with "
        f"{count_text(rules.starting_chips, 'chip')}"
    )
    write("")


def write_final(balances: list[int], start: int, names: Names, write: Write) -> None:
    """The closing lines of a session: every final balance, then who holds the most chips."""
    write(f"final balances (each started with {start}): {chips_line(balances, [start] * len(balances), names)}")
    best = max(balances)
    winners = [names(s) for s, chips in enumerate(balances) if chips == best]
    write(f"most chips: {' and '.join(winners)} with {best}")


def _write_all(lines: list[str], write: Write) -> None:
    for line in lines:
        write(line)
