"""The events of a session record (docs/contract.md) as lines of plain words.

Runs are told as one line from the lead to the stop; consecutive stakes as one
line per seat. ``reveal=False`` hides what the viewer may not know (another
player's discards), so a person at the table sees only public events.

>>> from newmarket_env.game.rules import make_rules
>>> rules = make_rules("newmarket")
>>> events = [{"type": "play", "seat": 1, "card": "3C", "lead": True},
...           {"type": "play", "seat": 0, "card": "4C", "lead": False},
...           {"type": "play", "seat": 0, "card": "5C", "lead": False},
...           {"type": "stop", "seat": 0, "card": "5C", "next": "6C", "cause": "dead"}]
>>> describe_events(events, rules, Names(4, viewer=0))
['player_1 leads 3C, you follow 4C 5C; stop: 6C is in the dead hand']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from typing_extensions import assert_never

from newmarket_env.describe.words import Names, stop_reason
from newmarket_env.engine.events import (
    AuctionEndEvent,
    BidEvent,
    BlockedEvent,
    BoodleEvent,
    DiscardEvent,
    Event,
    LeftoverEvent,
    OutEvent,
    PassEvent,
    PaymentEvent,
    PotEvent,
    StakeEvent,
    WidowEvent,
)
from newmarket_env.game.rules import Rules


def describe_events(
    events: Sequence[Event], rules: Rules, names: Names, reveal: bool = False, previous: Event | None = None
) -> list[str]:
    """Lines telling ``events`` in order (``previous``: the event just before them in the deal, if any)."""
    lines: list[str] = []
    i = 0
    while i < len(events):
        event = events[i]
        before = events[i - 1] if i else previous
        stopper = before["seat"] if before is not None and before["type"] == "stop" else None
        if event["type"] == "play" and stopper is not None and stopper != event["seat"]:
            lines.append(_lead_passes(stopper, event["seat"], rules.num_players, names))
        if event["type"] == "stake":
            end = _end_of(events, i, lambda e: e["type"] == "stake")
            lines.extend(_stakes_lines([e for e in events[i:end] if e["type"] == "stake"], rules, names))
        elif event["type"] == "discard":
            end = _end_of(events, i, _discard_by(event["seat"]))
            lines.append(_discards_line([e for e in events[i:end] if e["type"] == "discard"], names, reveal))
        elif event["type"] == "play":
            end = _end_of(events, i + 1, lambda e: e["type"] == "boodle" or (e["type"] == "play" and not e["lead"]))
            end += end < len(events) and events[end]["type"] == "stop"
            lines.append(_run_line(events[i:end], rules, names))
        else:
            end = i + 1
            lines.append(_single_line(event, rules, names, reveal))
        i = end
    return lines


def _end_of(events: Sequence[Event], start: int, belongs: Callable[[Event], bool]) -> int:
    end = start
    while end < len(events) and belongs(events[end]):
        end += 1
    return end


def _discard_by(seat: int) -> Callable[[Event], bool]:
    return lambda e: e["type"] == "discard" and e["seat"] == seat


# ---------------------------------------------------------------- stakes
def _stakes_lines(stakes: Sequence[StakeEvent], rules: Rules, names: Names) -> list[str]:
    """One line per staking seat, in the order they first staked."""
    by_seat: dict[int | None, dict[str, int]] = {}
    for event in stakes:
        where = "the pot" if event["target"] == "pot" else rules.boodles[event["boodle"]]
        spots = by_seat.setdefault(event["seat"], {})
        spots[where] = spots.get(where, 0) + event["amount"]
    lines = []
    for seat, spots in by_seat.items():
        if seat is None:
            lines.append(f"the house adds {_placed_text(spots, rules).replace(' in the', ' to the')}")
        else:
            lines.append(f"{names.says(seat, 'stakes')} {_placed_text(spots, rules)}")
    return lines


def _placed_text(spots: dict[str, int], rules: Rules) -> str:
    """``1 in the pot, 1 on each boodle`` or ``2 on AS, 1 on KH``."""
    parts = [f"{spots['the pot']} in the pot"] if "the pot" in spots else []
    on_boodles = [spots.get(card, 0) for card in rules.boodles]
    if len(set(on_boodles)) == 1 and on_boodles[0]:
        parts.append(f"{on_boodles[0]} on each boodle")
    else:
        parts.extend(f"{amount} on {card}" for card, amount in zip(rules.boodles, on_boodles, strict=True) if amount)
    return ", ".join(parts)


# ---------------------------------------------------------------- runs
def _run_line(run: Sequence[Event], rules: Rules, names: Names) -> str:
    """``player_1 leads 3C, you follow 4C 5C (take 4 chips from the QC boodle); stop: ...``."""
    parts: list[str] = []
    seat: int | None = None
    cards: list[str] = []
    for event in run:
        if event["type"] == "play" and event["seat"] == seat:
            cards.append(event["card"])
            continue
        if event["type"] in ("play", "boodle", "stop") and seat is not None:
            parts.append(_segment(seat, cards, lead=not parts, names=names))
            seat, cards = None, []
        if event["type"] == "play":
            seat, cards = event["seat"], [event["card"]]
        elif event["type"] == "boodle":
            taker = names.says(event["seat"], "takes")
            parts[-1] += f" ({taker} {_chips(event['amount'])} from the {event['card']} boodle)"
        elif event["type"] == "stop":
            parts[-1] += "; stop: " + stop_reason(event)
    if seat is not None:
        parts.append(_segment(seat, cards, lead=not parts, names=names))
    return ", ".join(parts).replace(", ;", ";")


def _lead_passes(stopper: int, leader: int, num_players: int, names: Names) -> str:
    """``player_1 and you hold no card of the other colour: the lead passes to player_3``."""
    passed = []
    seat = stopper
    while seat != leader:
        passed.append(seat)
        seat = (seat + 1) % num_players
    who = " and ".join(names(s) for s in passed)
    verb = "holds" if len(passed) == 1 and passed[0] != names.person else "hold"
    return f"{who} {verb} no card of the other colour: the lead passes to {names(leader)}"


def _segment(seat: int, cards: list[str], lead: bool, names: Names) -> str:
    return f"{names.says(seat, 'leads' if lead else 'follows')} {' '.join(cards)}"


# ---------------------------------------------------------------- one event, one line
def _single_line(event: Event, rules: Rules, names: Names, reveal: bool) -> str:
    """The line of one event of any declared type (engine/events.py); a type checker sees that none is missed."""
    if event["type"] == "stake":
        return "; ".join(_stakes_lines([event], rules, names))
    if event["type"] == "discard":
        return _discards_line([event], names, reveal)
    if event["type"] == "play":
        return _run_line([event], rules, names)
    # A boodle or stop outside a run cannot happen in a well-formed record; told plainly anyway.
    if event["type"] == "boodle":
        return _boodle(event, rules, names, reveal)
    if event["type"] == "stop":
        return "stop: " + stop_reason(event)
    if event["type"] == "widow":
        return _widow(event, rules, names, reveal)
    if event["type"] == "bid":
        return _bid(event, rules, names, reveal)
    if event["type"] == "pass":
        return _pass(event, rules, names, reveal)
    if event["type"] == "auction_end":
        return _auction_end(event, rules, names, reveal)
    if event["type"] == "payment":
        return _payment(event, rules, names, reveal)
    if event["type"] == "out":
        return _out(event, rules, names, reveal)
    if event["type"] == "pot":
        return _pot(event, rules, names, reveal)
    if event["type"] == "blocked":
        return _blocked(event, rules, names, reveal)
    if event["type"] == "leftover":
        return _leftover(event, rules, names, reveal)
    assert_never(event)


def _discards_line(discards: Sequence[DiscardEvent], names: Names, reveal: bool) -> str:
    """``player_1 discards 3 cards face down``; the cards are named only to their owner, or in a replay."""
    seat = discards[0]["seat"]
    if reveal or seat == names.viewer:
        what = " ".join(e["card"] for e in discards)
    else:
        what = "a card" if len(discards) == 1 else f"{len(discards)} cards"
    return f"{names.says(seat, 'discards')} {what} face down"


def _widow(event: WidowEvent, rules: Rules, names: Names, reveal: bool) -> str:
    said = {
        "keep": ("keeps", "the hand"),
        "exchange": ("takes", "the widow"),
        "buy": ("buys", "the dead hand"),
        "decline": ("declines", "the dead hand"),
    }
    verb, what = said[event["choice"]]
    return f"{names.says(event['seat'], verb)} {what}"


def _bid(event: BidEvent, rules: Rules, names: Names, reveal: bool) -> str:
    return f"{names.says(event['seat'], 'bids')} {event['amount']}"


def _pass(event: PassEvent, rules: Rules, names: Names, reveal: bool) -> str:
    return f"{names.says(event['seat'], 'passes')}"


def _auction_end(event: AuctionEndEvent, rules: Rules, names: Names, reveal: bool) -> str:
    return "nobody bids: the widow stays where it is"


def _payment(event: PaymentEvent, rules: Rules, names: Names, reveal: bool) -> str:
    payer, payee, amount = event["from"], event["to"], event["amount"]
    if isinstance(payee, str):  # "pot": only the widow fee (reason "widow_fee") is paid into the pot
        return f"{names.says(payer, 'pays')} {_chips(amount)} into the pot for the dead hand"
    if event["reason"] == "bid":
        return f"{names.says(payer, 'pays')} {names(payee)} {_chips(amount)} for the widow"
    cards = amount // rules.per_card_payment if rules.per_card_payment else amount
    return f"{names.says(payer, 'pays')} {names(payee)} {_chips(amount)} ({cards} card{'s' * (cards != 1)} left)"


def _out(event: OutEvent, rules: Rules, names: Names, reveal: bool) -> str:
    verb = "win" if event["seat"] == names.person else "wins"
    return f"{names.says(event['seat'], 'plays')} the last card and {verb} the deal"


def _pot(event: PotEvent, rules: Rules, names: Names, reveal: bool) -> str:
    return f"{names.says(event['seat'], 'takes')} the pot: {_chips(event['amount'])}"


def _blocked(event: BlockedEvent, rules: Rules, names: Names, reveal: bool) -> str:
    return "nobody can lead a card of the other colour: the deal ends with no winner"


def _leftover(event: LeftoverEvent, rules: Rules, names: Names, reveal: bool) -> str:
    stack = "the pot" if event["stack"] == "pot" else f"the {rules.boodles[event['boodle']]} boodle"
    verb = "vanish" if event["amount"] != 1 else "vanishes"
    if event["seat"] is None:
        return f"the {_chips(event['amount'])} left in {stack} {verb}"
    verb = "go" if event["amount"] != 1 else "goes"
    return f"the {_chips(event['amount'])} left in {stack} {verb} by lot to {names(event['seat'])}"


def _boodle(event: BoodleEvent, rules: Rules, names: Names, reveal: bool) -> str:
    return f"{names.says(event['seat'], 'takes')} {_chips(event['amount'])} from the {event['card']} boodle"


def _chips(amount: int) -> str:
    return f"{amount} chip{'s' * (amount != 1)}"


def chips_line(chips: Sequence[int], before: Sequence[int], names: Names) -> str:
    """``you 43 (+3), player_1 38 (-2), ...``."""
    return ", ".join(f"{names(s)} {c} ({c - b:+d})" for s, (c, b) in enumerate(zip(chips, before, strict=True)))
