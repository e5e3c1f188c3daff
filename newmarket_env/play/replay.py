"""Stepping through a saved session record, deal by deal (``newmarket replay FILE``).

A record (docs/contract.md) holds every hand as dealt and every event, so the
replay shows everything: all hands, the dead hand, every discard.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Mapping
from typing import Any

from newmarket_env.engine.record import replay as rebuild_game
from newmarket_env.engine.record import session_record
from newmarket_env.engine.types import IllegalActionError
from newmarket_env.play.events import chips_line, describe_events
from newmarket_env.play.feed import deal_footer, deal_header
from newmarket_env.play.summary import deal_summary, summary_lines
from newmarket_env.play.thoughts import decisions_so_far, thought_lines
from newmarket_env.play.words import Names, hand_text, seat_labels
from newmarket_env.rules import VARIANTS, Rules, rules_from_dict

_DEAL_KEYS = ("dealer", "hands", "dead", "events", "chips")
#: A record's optional keys for the views, which the engine does not make (docs/contract.md): who sat where,
#: and what the agents thought at their decisions.
VIEW_KEYS = ("agents", "thoughts")


def load_session(path: str, game: int | None = None) -> tuple[dict[str, Any], Rules]:
    """The record in ``path`` and its rules; ``ValueError`` saying what is wrong with the file.

    ``path`` may be gzipped, and may hold many records (a tournament's ``records.jsonl.gz``):
    ``game`` (from 1) picks one; without it a file of one record is required.
    """
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as err:
        raise ValueError(f"cannot read {path}: {err.strerror}") from None
    records = read_records(data, path)
    if game is None and len(records) > 1:
        raise ValueError(f"{path} holds {len(records)} records; pick one with --game K (1..{len(records)})")
    if game is not None and not 1 <= game <= len(records):
        raise ValueError(f"--game {game}: {path} holds records 1..{len(records)}")
    record = records[(game or 1) - 1][1]
    return record, check_record(record, path)


def read_records(data: bytes, source: str) -> list[tuple[str, dict[str, Any]]]:
    """The records in ``data`` with a title each: one JSON record, or JSON lines of them (gzipped or not).

    A line may be a record or a tournament entry ``{"title": ..., "record": {...}}``
    (:mod:`newmarket_env.eval.tournament` with ``save_records``).
    """
    try:
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        text = data.decode("utf-8")
    except (OSError, EOFError, UnicodeDecodeError) as err:
        raise ValueError(f"{source} is neither a JSON session record nor a gzipped one: {err}") from None
    try:
        items = [json.loads(text)]
    except json.JSONDecodeError as whole:
        lines = [line for line in text.splitlines() if line.strip()]
        try:
            items = [json.loads(line) for line in lines] if len(lines) > 1 else []
        except json.JSONDecodeError:
            items = []
        if not items:
            raise ValueError(f"{source} is not a JSON session record: {whole}") from None
    out = []
    for number, item in enumerate(items, start=1):
        if isinstance(item, dict) and isinstance(item.get("record"), dict):
            record = item["record"]
            if "agents" not in record and isinstance(item.get("seats"), list):  # written before records named them
                record = {**record, "agents": [str(name) for name in item["seats"]]}
            out.append((str(item.get("title") or f"record {number}"), record))
        else:
            out.append((f"record {number}" if len(items) > 1 else source, item))
    return out


def check_record(record: Any, path: str) -> Rules:
    """The rules of ``record``; ``ValueError`` naming what is wrong (``path`` names the source in it)."""
    if not isinstance(record, dict) or not {"variant", "rules", "deals"} <= set(record):
        raise ValueError(
            f"{path} is not a session record: it needs 'variant', 'rules' and 'deals' "
            "(save one with newmarket play --save FILE)"
        )
    if record["variant"] not in VARIANTS:
        raise ValueError(f"{path}: variant {record['variant']!r} is unknown; allowed: {', '.join(VARIANTS)}")
    if not isinstance(record["rules"], dict):
        raise ValueError(f"{path}: 'rules' must be a mapping of rules parameters")
    rules = rules_from_dict(record["rules"], VARIANTS[record["variant"]].players)
    agents = record.get("agents")
    if agents is not None and not (
        isinstance(agents, list) and len(agents) == rules.num_players and all(isinstance(a, str) for a in agents)
    ):
        raise ValueError(f"{path}: 'agents' must name the agent of each of the {rules.num_players} seats")
    deals = record["deals"]
    if not isinstance(deals, list) or not all(isinstance(d, dict) and set(_DEAL_KEYS) <= set(d) for d in deals):
        raise ValueError(f"{path}: every deal needs {', '.join(_DEAL_KEYS)}")
    return rules


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


def count_decisions(record: Mapping[str, Any]) -> int:
    """Decisions taken in the record (the events that carry an ``action``)."""
    return sum(1 for deal in record["deals"] for event in deal["events"] if "action" in event)


def record_names(record: Mapping[str, Any], rules: Rules) -> Names:
    """The seats of ``record`` named with their agents, when the record says who sat where."""
    return Names(rules.num_players, labels=seat_labels(record.get("agents")))


def _thoughts_of_deal(
    deals: list[Mapping[str, Any]], index: int, thoughts: list[Mapping[str, Any]]
) -> list[Mapping[str, Any]]:
    """The entries of a record's ``thoughts`` said during deal ``index`` (by their decision numbers)."""
    first = decisions_so_far(deals[:index])
    last = first + decisions_so_far(deals[index : index + 1])
    return [entry for entry in thoughts if first <= entry["decision"] < last]


def deal_lines(
    index: int,
    deals: list[Mapping[str, Any]],
    rules: Rules,
    before: list[int],
    names: Names | None = None,
    thoughts_said: list[Mapping[str, Any]] = (),  # type: ignore[assignment]
) -> list[str]:
    """Deal ``index`` of ``deals`` told in full: hands as dealt, events, what the agents thought (a record's
    ``thoughts``), the result, chips after it."""
    deal = deals[index]
    names = names or Names(rules.num_players)
    width = max(9, *(len(names(s)) for s in range(rules.num_players)))
    lines = [deal_header(index, deal, rules, names)]
    for seat, hand in enumerate(deal["hands"]):
        lines.append(f"  {names(seat):<{width}} {hand_text(hand, rules.ace_high)}")
    if deal["dead"]:
        lines.append(f"  {'dead hand':<{width}} {hand_text(deal['dead'], rules.ace_high)}")
    lines.extend("  " + line for line in describe_events(deal["events"], rules, names, reveal=True))
    thoughts = _thoughts_of_deal(deals, index, thoughts_said)
    if thoughts:
        lines.append("  what the agents thought (decisions counted from 1 in the session)")
        for entry in thoughts:
            said = thought_lines(entry, names)
            lines += [f"  decision {entry['decision'] + 1}:", *("  " + line for line in said)]
    if deal["chips"]:
        lines.extend(summary_lines(deal_summary(deals, index, rules), rules, names, reveal=True))
        lines.append(deal_footer(index, deal["chips"], before, names))
    else:
        lines.append(f"deal {index + 1} was not finished when the record was saved")
    return [*lines, ""]


class _Pager:
    """Waits for Enter between deals; ``q`` stops, the end of the input stops the waiting."""

    def __init__(self, step: bool, read: Callable[[str], str], write: Callable[[str], None]) -> None:
        self.step, self.read, self.write = step, read, write

    def go_on(self) -> bool:
        if not self.step:
            return True
        try:
            return self.read("-- Enter: next deal, q: quit -- ").strip().lower() not in ("q", "quit")
        except EOFError:  # no more input (a pipe, or Ctrl-D): show the rest without waiting
            self.write("")
            self.step = False
            return True


def show_record(
    record: Mapping[str, Any],
    rules: Rules,
    step: bool,
    read: Callable[[str], str],
    write: Callable[[str], None],
    only: int | None = None,
) -> None:
    """Write every deal (or deal number ``only``); with ``step``, wait for Enter between deals."""
    write(
        f"session record: variant {record['variant']}, {rules.num_players} players, "
        f"{len(record['deals'])} of {rules.num_deals} deal(s), aces {'high' if rules.ace_high else 'low'}, "
        f"boodles {' '.join(rules.boodles)}"
    )
    names = record_names(record, rules)
    if record.get("agents"):
        write("the players: " + ", ".join(names(s) for s in range(rules.num_players)))
    pager, shown = _Pager(step, read, write), 0
    before = [rules.starting_chips] * rules.num_players
    for index, deal in enumerate(record["deals"]):
        if only is None or index + 1 == only:
            if shown and not pager.go_on():
                return
            for line in deal_lines(index, record["deals"], rules, before, names, record.get("thoughts") or []):
                write(line)
            shown += 1
        before = list(deal["chips"]) or before
    final = record["deals"][-1]["chips"] if record["deals"] else []
    if final and only is None:
        start = [rules.starting_chips] * rules.num_players
        write(f"final balances (each started with {rules.starting_chips}): {chips_line(final, start, names)}")
