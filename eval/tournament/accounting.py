"""Where each seat's chips came from, read from the events of a session record.

The events and their fields are those declared in ``newmarket_env.engine.events``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from newmarket_env.engine.events import Event, PaymentReason

#: Chip sources, in table order; together they add up to a seat's net chips.
PARTS = ("stakes", "boodles", "pot", "cards", "widow", "leftover")
_PAYMENT_PART: dict[PaymentReason, str] = {"cards": "cards", "bid": "widow", "widow_fee": "widow"}


def chip_parts(record: Mapping[str, Any]) -> tuple[list[dict[str, int]], list[int]]:
    """Per seat: chips by source (stakes paid are negative) and the number of deals it went out first."""
    n = record["num_players"]
    parts = [dict.fromkeys(PARTS, 0) for _ in range(n)]
    outs = [0] * n
    for deal in record["deals"]:
        for event in deal["events"]:
            _book(event, parts, outs)
    return parts, outs


def _book(event: Event, parts: list[dict[str, int]], outs: list[int]) -> None:
    if event["type"] == "stake":
        if event["seat"] is not None:  # None: the house stakes
            parts[event["seat"]]["stakes"] -= event["amount"]
    elif event["type"] == "leftover":
        if event["seat"] is not None:  # None: the chips vanish
            parts[event["seat"]]["leftover"] += event["amount"]
    elif event["type"] == "boodle":
        parts[event["seat"]]["boodles"] += event["amount"]
    elif event["type"] == "pot":
        parts[event["seat"]]["pot"] += event["amount"]
    elif event["type"] == "payment":
        part = _PAYMENT_PART[event["reason"]]
        parts[event["from"]][part] -= event["amount"]
        if isinstance(event["to"], int):  # not "pot"
            parts[event["to"]][part] += event["amount"]
    elif event["type"] == "out":
        outs[event["seat"]] += 1


def check_parts(parts: list[dict[str, int]], chips: list[int]) -> None:
    """Raise if the sources do not add up to the net chips (an engine or record bug)."""
    for seat, (seat_parts, net) in enumerate(zip(parts, chips, strict=True)):
        if sum(seat_parts.values()) != net:
            raise RuntimeError(
                f"seat {seat}: chip sources {seat_parts} add up to {sum(seat_parts.values())}, "
                f"but its balance changed by {net}; the session record is inconsistent"
            )
