"""Where each seat's chips came from, read from the events of a session record."""

from __future__ import annotations

from typing import Any, Mapping

#: Chip sources, in table order; together they add up to a seat's net chips.
PARTS = ("stakes", "boodles", "pot", "cards", "widow", "leftover")
_PAYMENT_PART = {"cards": "cards", "bid": "widow", "widow_fee": "widow"}


def chip_parts(record: Mapping[str, Any]) -> tuple[list[dict[str, int]], list[int]]:
    """Per seat: chips by source (stakes paid are negative) and the number of deals it went out first."""
    n = record["num_players"]
    parts = [dict.fromkeys(PARTS, 0) for _ in range(n)]
    outs = [0] * n
    for deal in record["deals"]:
        for event in deal["events"]:
            _book(event, parts, outs)
    return parts, outs


def _book(event: Mapping[str, Any], parts: list[dict[str, int]], outs: list[int]) -> None:
    kind = event["type"]
    seat = event.get("seat")
    if kind == "stake" and seat is not None:
        parts[seat]["stakes"] -= event["amount"]
    elif kind in ("boodle", "pot"):
        parts[seat][kind + "s" if kind == "boodle" else kind] += event["amount"]
    elif kind == "leftover" and seat is not None:
        parts[seat]["leftover"] += event["amount"]
    elif kind == "payment":
        part = _PAYMENT_PART.get(event["reason"], "cards")
        if isinstance(event["from"], int):
            parts[event["from"]][part] -= event["amount"]
        if isinstance(event["to"], int):
            parts[event["to"]][part] += event["amount"]
    elif kind == "out":
        outs[seat] += 1


def check_parts(parts: list[dict[str, int]], chips: list[int]) -> None:
    """Raise if the sources do not add up to the net chips (an engine or record bug)."""
    for seat, (seat_parts, net) in enumerate(zip(parts, chips)):
        if sum(seat_parts.values()) != net:
            raise RuntimeError(f"seat {seat}: chip sources {seat_parts} add up to {sum(seat_parts.values())}, "
                               f"but its balance changed by {net}; the session record is inconsistent")
