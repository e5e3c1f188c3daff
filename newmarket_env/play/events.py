"""The events of a session record (CONTRACT.md) as lines of plain words.

Runs are told as one line from the lead to the stop; consecutive stakes as one
line per seat. ``reveal=False`` hides what the viewer may not know (another
player's discards), so a person at the table sees only public events.

>>> from newmarket_env.rules import make_rules
>>> rules = make_rules("newmarket")
>>> events = [{"type": "play", "seat": 1, "card": "3C", "lead": True},
...           {"type": "play", "seat": 0, "card": "4C", "lead": False},
...           {"type": "play", "seat": 0, "card": "5C", "lead": False},
...           {"type": "stop", "seat": 0, "card": "5C", "next": "6C", "cause": "dead"}]
>>> describe_events(events, rules, Names(4, viewer=0))
['player_1 leads 3C, you follow 4C 5C; stop: 6C is in the dead hand']
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

from newmarket_env.play.words import Names, stop_reason
from newmarket_env.rules import Rules

Event = Mapping[str, Any]

def describe_events(events: Sequence[Event], rules: Rules, names: Names, reveal: bool = False) -> list[str]:
    """Lines telling ``events`` in order."""
    lines: list[str] = []
    i = 0
    while i < len(events):
        kind = events[i]["type"]
        if kind == "stake":
            end = _end_of(events, i, lambda e: e["type"] == "stake")
            lines.extend(_stakes_lines(events[i:end], rules, names))
        elif kind == "discard":
            seat = events[i]["seat"]
            end = _end_of(events, i, lambda e: e["type"] == "discard" and e["seat"] == seat)
            lines.append(_discards_line(events[i:end], names, reveal))
        elif kind == "play":
            end = _end_of(events, i + 1, lambda e: e["type"] in ("play", "boodle") and not e.get("lead"))
            end += end < len(events) and events[end]["type"] == "stop"
            lines.append(_run_line(events[i:end], rules, names))
        else:
            end = i + 1
            lines.append(_single_line(events[i], rules, names, reveal))
        i = end
    return lines


def _end_of(events: Sequence[Event], start: int, belongs: Callable[[Event], bool]) -> int:
    end = start
    while end < len(events) and belongs(events[end]):
        end += 1
    return end


# ---------------------------------------------------------------- stakes
def _stakes_lines(stakes: Sequence[Event], rules: Rules, names: Names) -> list[str]:
    """One line per staking seat, in the order they first staked."""
    by_seat: dict[Any, dict[str, int]] = {}
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
        parts.extend(f"{amount} on {card}" for card, amount in zip(rules.boodles, on_boodles) if amount)
    return ", ".join(parts)


# ---------------------------------------------------------------- runs
def _run_line(run: Sequence[Event], rules: Rules, names: Names) -> str:
    """``player_1 leads 3C, you follow 4C 5C (take 4 chips from the QC boodle); stop: ...``."""
    parts: list[str] = []
    seat, cards = None, []
    for event in run:
        if event["type"] == "play" and event["seat"] == seat:
            cards.append(event["card"])
            continue
        if event["type"] in ("play", "boodle", "stop") and cards:
            parts.append(_segment(seat, cards, lead=not parts, names=names))
            seat, cards = None, []
        if event["type"] == "play":
            seat, cards = event["seat"], [event["card"]]
        elif event["type"] == "boodle":
            parts[-1] += f" ({names.says(event['seat'], 'takes')} {_chips(event['amount'])} from the {event['card']} boodle)"
        elif event["type"] == "stop":
            parts[-1] += "; stop: " + stop_reason(event)
    if cards:
        parts.append(_segment(seat, cards, lead=not parts, names=names))
    return ", ".join(parts).replace(", ;", ";")


def _segment(seat: int, cards: list[str], lead: bool, names: Names) -> str:
    return f"{names.says(seat, 'leads' if lead else 'follows')} {' '.join(cards)}"


# ---------------------------------------------------------------- one event, one line
def _single_line(event: Event, rules: Rules, names: Names, reveal: bool) -> str:
    return _SINGLE[event["type"]](event, rules, names, reveal)


def _discards_line(discards: Sequence[Event], names: Names, reveal: bool) -> str:
    """``player_1 discards 3 cards face down``; the cards are named only to their owner, or in a replay."""
    seat = discards[0]["seat"]
    if reveal or seat == names.viewer:
        what = " ".join(e["card"] for e in discards)
    else:
        what = "a card" if len(discards) == 1 else f"{len(discards)} cards"
    return f"{names.says(seat, 'discards')} {what} face down"


def _widow(event: Event, rules: Rules, names: Names, reveal: bool) -> str:
    said = {"keep": ("keeps", "the hand"), "exchange": ("takes", "the widow"),
            "buy": ("buys", "the dead hand"), "decline": ("declines", "the dead hand")}
    verb, what = said[event["choice"]]
    return f"{names.says(event['seat'], verb)} {what}"


def _bid(event: Event, rules: Rules, names: Names, reveal: bool) -> str:
    return f"{names.says(event['seat'], 'bids')} {event['amount']}"


def _pass(event: Event, rules: Rules, names: Names, reveal: bool) -> str:
    return f"{names.says(event['seat'], 'passes')}"


def _auction_end(event: Event, rules: Rules, names: Names, reveal: bool) -> str:
    return "nobody bids: the widow stays where it is"


def _payment(event: Event, rules: Rules, names: Names, reveal: bool) -> str:
    payer, payee, amount = event["from"], event["to"], event["amount"]
    if event["reason"] == "widow_fee":
        return f"{names.says(payer, 'pays')} {_chips(amount)} into the pot for the dead hand"
    if event["reason"] == "bid":
        return f"{names.says(payer, 'pays')} {names(payee)} {_chips(amount)} for the widow"
    cards = amount // rules.per_card_payment if rules.per_card_payment else amount
    return f"{names.says(payer, 'pays')} {names(payee)} {_chips(amount)} ({cards} card{'s' * (cards != 1)} left)"


def _out(event: Event, rules: Rules, names: Names, reveal: bool) -> str:
    return f"{names.says(event['seat'], 'plays')} the last card and {'win' if event['seat'] == names.viewer else 'wins'} the deal"


def _pot(event: Event, rules: Rules, names: Names, reveal: bool) -> str:
    return f"{names.says(event['seat'], 'takes')} the pot: {_chips(event['amount'])}"


def _blocked(event: Event, rules: Rules, names: Names, reveal: bool) -> str:
    return "nobody can lead a card of the other colour: the deal ends with no winner"


def _leftover(event: Event, rules: Rules, names: Names, reveal: bool) -> str:
    stack = "the pot" if event["stack"] == "pot" else f"the {rules.boodles[event['boodle']]} boodle"
    verb = "vanish" if event["amount"] != 1 else "vanishes"
    if event["seat"] is None:
        return f"the {_chips(event['amount'])} left in {stack} {verb}"
    verb = "go" if event["amount"] != 1 else "goes"
    return f"the {_chips(event['amount'])} left in {stack} {verb} by lot to {names(event['seat'])}"


_SINGLE: dict[str, Callable[[Event, Rules, Names, bool], str]] = {
    "widow": _widow, "bid": _bid, "pass": _pass, "auction_end": _auction_end,
    "payment": _payment, "out": _out, "pot": _pot, "blocked": _blocked, "leftover": _leftover,
    # A boodle or stop outside a run cannot happen in a well-formed record; told plainly anyway.
    "boodle": lambda e, r, n, v: f"{n.says(e['seat'], 'takes')} {_chips(e['amount'])} from the {e['card']} boodle",
    "stop": lambda e, r, n, v: "stop: " + stop_reason(e),
}


def _chips(amount: int) -> str:
    return f"{amount} chip{'s' * (amount != 1)}"


def chips_line(chips: Sequence[int], before: Sequence[int], names: Names) -> str:
    """``you 43 (+3), player_1 38 (-2), ...``."""
    return ", ".join(f"{names(s)} {c} ({c - b:+d})" for s, (c, b) in enumerate(zip(chips, before)))
