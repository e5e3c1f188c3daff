"""Whether a record is what it says: its decisions replayed through the engine give back the same record.

The engine is deterministic given the cards as dealt and the decisions, so a record's events, payments and
chips after every deal can be recomputed from its deals' ``hands``, ``dead`` and the events that carry an
``action``; :func:`first_difference` names the first place where the record and its recomputation part.
Every replay (``newmarket replay``, the web app's) shows only a record that passes :func:`check_genuine`:
a record whose stated results, events or rules were edited is refused in one line, never shown as played.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from newmarket_env.engine.record import replay as rebuild_game
from newmarket_env.engine.record import session_record
from newmarket_env.engine.types import IllegalActionError
from newmarket_env.records.reading import VIEW_KEYS


def verify(record: Mapping[str, Any]) -> bool:
    """True if replaying the record's decisions through the engine gives back the same record."""
    return first_difference(record) is None


def first_difference(record: Mapping[str, Any]) -> str | None:
    """Where the record and its replay through the engine first differ (``None``: they are the same).

    >>> _first_difference({"deals": [{"chips": [1, 2]}]}, {"deals": [{"chips": [1, 3]}]})
    'deals[0].chips[1]: the record has 2, the replay gives 3'
    """
    try:
        game = rebuild_game(record)
    except IllegalActionError as err:  # the decisions no longer fit the deal (edited cards, dealer, actions)
        return f"{_first_illegal_decision(record)}: {err}"
    engine_part = {key: value for key, value in record.items() if key not in VIEW_KEYS}
    return _first_difference(engine_part, session_record(game, record["variant"]))


def _first_illegal_decision(record: Mapping[str, Any]) -> str:
    """Where the first recorded decision that cannot be taken sits; a bisection over replayed prefixes."""
    places = [
        (d, k) for d, deal in enumerate(record["deals"]) for k, event in enumerate(deal["events"]) if "action" in event
    ]
    low, high = 0, len(places) - 1  # the decisions before ``low`` replay; the one at ``high`` does not
    while low < high:
        middle = (low + high) // 2
        if _replays_up_to(record, places[middle]):
            low = middle + 1
        else:
            high = middle
    deal, event = places[low]
    return f"deals[{deal}].events[{event}].action (decision {low + 1} of {len(places)})"


def _replays_up_to(record: Mapping[str, Any], place: tuple[int, int]) -> bool:
    """Whether the record's decisions up to the one at ``place`` (deal, event) can all be taken."""
    deals = [
        {**deal, "events": [e for k, e in enumerate(deal["events"]) if "action" not in e or (d, k) <= place]}
        for d, deal in enumerate(record["deals"][: place[0] + 1])
    ]
    try:
        rebuild_game({**record, "deals": deals})
    except IllegalActionError:
        return False
    return True


def _first_difference(given: Any, replayed: Any, where: str = "") -> str | None:
    if isinstance(given, Mapping) and isinstance(replayed, Mapping):
        for key in list(given) + [k for k in replayed if k not in given]:
            if key not in given or key not in replayed:
                side = "the record" if key not in given else "the replay"
                return f"{where}.{key}".lstrip(".") + f": missing from {side}"
            found = _first_difference(given[key], replayed[key], f"{where}.{key}")
            if found:
                return found
        return None
    if isinstance(given, list) and isinstance(replayed, list):
        for i, (a, b) in enumerate(zip(given, replayed, strict=False)):
            found = _first_difference(a, b, f"{where}[{i}]")
            if found:
                return found
        if len(given) != len(replayed):
            return f"{where.lstrip('.')}: the record has {len(given)} entries, the replay gives {len(replayed)}"
        return None
    if given != replayed:
        return f"{where.lstrip('.')}: the record has {given!r}, the replay gives {replayed!r}"
    return None


class NotGenuine(ValueError):
    """A record whose stated results, events, rules or seats are not what its cards and decisions give."""


def check_genuine(record: Mapping[str, Any], source: str) -> None:
    """Refuse ``record`` (``NotGenuine``, one line naming ``source`` and the first difference) unless replaying
    its cards and decisions gives back everything it states.

    ``record`` must have passed :func:`~newmarket_env.records.reading.check_record`.
    """
    difference = first_difference(record)
    if difference:
        raise NotGenuine(
            f"{source}: the record does not match what its cards and decisions give, so it is not shown; "
            f"first difference at {difference}"
        )
