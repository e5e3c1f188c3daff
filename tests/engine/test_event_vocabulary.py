"""The events the reference engine logs are exactly those declared in ``engine/events.py``.

Sessions of every preset (smallest and largest table) and of every rules option
that changes which events appear or what they hold are played with random legal
actions. Every event must have its declared type, exactly its declared fields
(no missing, no extra), in the declared order, with values of the declared kind;
and the other way round every declared type, optional field and literal value
must turn up, so a declaration cannot drift away from what the engine logs in
either direction. The saved golden records hold exactly the declared events too.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from functools import lru_cache
from pathlib import Path
from typing import Literal, get_args, get_origin

import pytest

from eval.tournament.accounting import check_parts, chip_parts
from newmarket_env.describe.events import describe_events
from newmarket_env.describe.words import Names
from newmarket_env.engine.events import (
    EVENT_TYPES,
    EVENTS,
    DealRecord,
    PaymentReason,
    StopCauseText,
    check_event,
    event_problems,
)
from newmarket_env.engine.game import Game
from newmarket_env.engine.record import session_record
from newmarket_env.engine.types import StopCause
from newmarket_env.game.rules import VARIANTS, make_rules

from .audit import Auditor

# Options that change the events: who stakes and how (house stakes have no seat, chosen ones an action),
# discards, the widow (keep / exchange / buy / decline, bids, passes, an auction nobody wins), automatic
# first leads (no action), blocked deals, removed cards (stop cause "removed"), leftovers by lot or vanishing.
OPTIONS = [
    {},
    {"stake_mode": "spread"},
    {"stake_mode": "choose"},
    {"stake_mode": "each", "dealer_stake_multiplier": 2},
    {"stake_mode": "house", "house_pot": 0},
    {"pot_ante": 0, "boodle_stake": 0},
    {"dead_hand": "dealt"},
    {"dead_hand": "discard"},
    {"dead_hand": "none"},
    {"dead_hand": "dealt", "widow": "dealer_buy", "widow_fee": 0},
    {"dead_hand": "dealt", "widow": "dealer_or_auction"},
    {"first_lead": "lowest_club"},
    {"first_lead": "eldest"},
    {"lead_after_stop": "lowest_any_suit"},
    {"lead_after_stop": "lowest_opposite_colour"},
    {"lead_after_stop": "any_opposite_colour"},
    {"removed_cards": ("8D", "2S")},
    {"per_card_payment": 0},
    {"leftover": "vanish", "num_deals": 1},
    {"leftover": "lot", "num_deals": 1},
]
SEEDS = range(2)


def _table_sizes(variant: str) -> list[int]:
    low, high = VARIANTS[variant].players
    return sorted({low, high})


def _play(rules, seed: int) -> Game:
    """A session with random legal actions; the first legal action (keep, pass) half of the time,
    so that auctions nobody wins and widows kept happen often enough to be seen."""
    game = Game(rules, seed=seed)
    rng = random.Random(seed)
    while not game.over:
        game.apply(game.legal[0] if rng.random() < 0.5 else rng.choice(game.legal))
    return game


@lru_cache(maxsize=1)
def sessions() -> tuple[tuple[str, object, dict], ...]:
    """(variant, rules, record) of every session played here (made once, read by several tests)."""
    out = []
    for variant in VARIANTS:
        for players in _table_sizes(variant):
            for option in OPTIONS:
                try:
                    rules = make_rules(variant, players, **option)
                except ValueError:  # an option this preset cannot take (the widow without a dealt dead hand)
                    continue
                for seed in SEEDS:
                    out.append((variant, rules, session_record(_play(rules, seed), variant)))
    return tuple(out)


def _literal_values(hint) -> set:
    """The literal values a declared field may take (inside unions and ``Annotated`` too)."""
    if get_origin(hint) is Literal:
        return set(get_args(hint))
    return set().union(*(_literal_values(arg) for arg in get_args(hint)))


def test_every_event_the_engine_logs_is_exactly_as_declared():
    seen_types, seen_fields, seen_values = set(), defaultdict(set), defaultdict(set)
    checked = 0
    for variant, rules, record in sessions():
        for deal in record["deals"]:
            assert list(deal) == list(DealRecord.__annotations__), f"{variant}: deal keys {list(deal)}"
            for event in deal["events"]:
                problems = event_problems(event, rules.num_players)
                assert not problems, f"{variant} {rules}: {event}: {problems}"
                seen_types.add(event["type"])
                for name, value in event.items():
                    seen_fields[event["type"]].add(name)
                    if isinstance(value, (str, int)) and not isinstance(value, bool):
                        seen_values[event["type"], name].add(value)
                checked += 1
    assert checked > 10_000
    # The other way round: nothing is declared that the engine never logs.
    assert seen_types == set(EVENT_TYPES)
    for spec in EVENTS.values():
        assert seen_fields[spec.type] == {"type"} | {f.name for f in spec.fields}, spec.type
        for field in spec.fields:
            allowed = _literal_values(field.hint)
            assert allowed <= seen_values[spec.type, field.name], (
                f"{spec.type}.{field.name}: declared {allowed}, logged {seen_values[spec.type, field.name]}"
            )


def test_the_readers_of_records_take_every_logged_event():
    """The auditor, the chip accounting and the plain-words feed read every session without a gap."""
    for _variant, rules, record in sessions():
        Auditor(rules).session(record)
        parts, _outs = chip_parts(record)
        net = [chips - rules.starting_chips for chips in record["deals"][-1]["chips"]]
        check_parts(parts, net)
        for deal in record["deals"]:
            lines = describe_events(deal["events"], rules, Names(rules.num_players, viewer=0), reveal=True)
            assert lines and all(isinstance(line, str) and line for line in lines)


def test_the_auditor_has_one_handler_per_declared_type():
    handlers = {name[len("on_") :] for name in vars(Auditor) if name.startswith("on_")}
    assert handlers == set(EVENT_TYPES)


def test_literals_match_the_engine_vocabulary():
    assert set(get_args(StopCauseText)) == {cause.value for cause in StopCause}
    assert set(get_args(PaymentReason)) == {"widow_fee", "bid", "cards"}


# Each wrong event and the problem it must be reported with, worked out by hand from docs/contract.md.
WRONG = [
    ({"type": "deal", "seat": 0}, "unknown event type 'deal'"),
    ({"type": "out"}, "out: required field 'seat' is missing"),
    ({"type": "out", "seat": 1, "amount": 3}, "out: field 'amount' is not declared"),
    ({"type": "out", "seat": True}, "out: field 'seat' is True, not seat"),
    ({"type": "out", "seat": 4}, "out: field 'seat' is 4, not seat"),  # 4 players: seats 0-3
    ({"type": "pot", "seat": 1, "amount": -2}, "pot: field 'amount' is -2, not chips"),
    ({"type": "pot", "seat": 1, "amount": 2.0}, "pot: field 'amount' is 2.0, not chips"),
    ({"type": "play", "seat": 1, "card": "1C", "lead": True}, "play: field 'card' is '1C', not card"),
    ({"type": "play", "seat": 1, "card": "5C", "lead": 1}, "play: field 'lead' is 1, not bool"),
    (
        {"type": "play", "seat": 1, "card": "5C", "lead": False, "action": 79},
        "play: field 'action' is 79, not action id",
    ),
    ({"type": "stop", "seat": 1, "card": "KC", "next": None, "cause": "gone"}, "stop: field 'cause' is 'gone'"),
    ({"type": "stop", "seat": 1, "card": "KC", "cause": "top"}, "stop: required field 'next' is missing"),
    ({"type": "payment", "from": 0, "to": "dealer", "amount": 1, "reason": "bid"}, "payment: field 'to' is 'dealer'"),
    ({"type": "auction_end", "seat": None, "amount": 1}, "auction_end: field 'amount' is 1, not `0`"),
    ({"type": "stake", "seat": 0, "target": "boodle", "boodle": 4, "amount": 1}, "stake: field 'boodle' is 4"),
    ({"type": "stake", "seat": 0, "amount": 1, "target": "pot"}, "stake: fields in the order"),
]


@pytest.mark.parametrize("event, problem", WRONG, ids=[p for _, p in WRONG])
def test_a_wrong_event_is_reported(event, problem):
    problems = event_problems(event, num_players=4)
    assert len(problems) == 1 and problems[0].startswith(problem), problems
    with pytest.raises(ValueError, match=r"does not match docs/contract\.md"):
        check_event(event, num_players=4)


def test_right_events_pass():
    for event in [
        {"type": "stake", "seat": None, "target": "boodle", "boodle": 3, "amount": 0},
        {"type": "stake", "seat": 2, "target": "boodle", "boodle": 0, "amount": 1, "action": 75},
        {"type": "widow", "seat": 0, "choice": "exchange"},
        {"type": "payment", "from": 1, "to": "pot", "amount": 4, "reason": "widow_fee"},
        {"type": "stop", "seat": 3, "card": "KC", "next": None, "cause": "top"},
        {"type": "leftover", "stack": "boodle", "seat": None, "amount": 2, "boodle": 1},
    ]:
        assert event_problems(event, num_players=4) == [], event
        check_event(event)


def test_the_contract_page_lists_every_event_and_field():
    from newmarket_env.docs.generate import REPO_ROOT

    text = (REPO_ROOT / "docs" / "contract.md").read_text(encoding="utf-8")
    block = text.split("<!-- BEGIN events -->")[1].split("<!-- END events -->")[0]
    for spec in EVENTS.values():
        rows = block.partition(f"\n| `{spec.type}` |")[2].split("\n| `")[0]  # the event's row and its field rows
        listed = [line.split("`")[1] for line in rows.splitlines()[1:] if line.startswith("|  | `")]
        assert listed == [f.name for f in spec.fields], spec.type


GOLDEN = sorted((Path(__file__).resolve().parent.parent / "golden").glob("*.json"))


@pytest.mark.parametrize("path", GOLDEN, ids=[p.stem for p in GOLDEN])
def test_saved_golden_records_match_the_declaration(path):
    """The records saved before the vocabulary was declared hold exactly the declared events."""
    record = json.loads(path.read_text(encoding="utf-8"))
    for deal in record["deals"]:
        for event in deal["events"]:
            assert event_problems(event, record["num_players"]) == [], (path.name, event)
