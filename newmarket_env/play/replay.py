"""Stepping through a saved session record, deal by deal (``newmarket replay FILE``).

A record (docs/contract.md) holds every hand as dealt and every event, so the
replay shows everything: all hands, the dead hand, every discard.
"""

from __future__ import annotations

import io
import json
import zlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from newmarket_env.describe.events import chips_line, describe_events
from newmarket_env.describe.feed import deal_footer, deal_header
from newmarket_env.describe.summary import deal_summary, summary_lines
from newmarket_env.describe.thoughts import decisions_so_far, thought_lines
from newmarket_env.describe.words import Names, hand_text, seat_labels
from newmarket_env.engine.record import replay as rebuild_game
from newmarket_env.engine.record import session_record
from newmarket_env.engine.types import IllegalActionError
from newmarket_env.game.rules import VARIANTS, Rules, rules_from_dict

_DEAL_KEYS = ("dealer", "hands", "dead", "events", "chips")
#: A record's optional keys for the views, which the engine does not make (docs/contract.md): who sat where,
#: and what the agents thought at their decisions.
VIEW_KEYS = ("agents", "thoughts")


# What reading a record file may cost, whatever the file holds (a gzip of zeros, /dev/zero):
MAX_RECORD_TEXT = 16 * 2**20  # one record's JSON (a line, or a whole file); 160 deals at 8 players is about 1 MB
MAX_RECORDS_TEXT = 2**30  # a file's text once unpacked; read a line at a time, never held whole
MAX_RECORDS = 100_000  # records in one file (a tournament's records file holds a few thousand)
_CHUNK = 2**20


class RecordTooLarge(ValueError):
    """A record file past one of the limits above."""


_GZIP_MAGIC = b"\x1f\x8b"


def load_session(path: str, game: int | None = None) -> tuple[dict[str, Any], Rules]:
    """The record in ``path`` and its rules; ``ValueError`` saying what is wrong with the file.

    ``path`` may be gzipped, and may hold many records (a tournament's ``records.jsonl.gz``):
    ``game`` (from 1) picks one; without it a file of one record is required. The file is
    read a chunk at a time within the limits above, and only the record picked is kept.
    """
    try:
        with open(path, "rb") as fh:
            _title, record, count = pick_record(fh.read, path, game or 1)
    except OSError as err:
        raise ValueError(f"cannot read {path}: {err.strerror}") from None
    if game is None and count > 1:
        raise ValueError(f"{path} holds {count} records; pick one with --game K (1..{count})")
    if game is not None and not 1 <= game <= count:
        raise ValueError(f"--game {game}: {path} holds records 1..{count}")
    return record, check_record(record, path)


def read_records(data: bytes, source: str) -> list[tuple[str, dict[str, Any]]]:
    """The records in ``data`` with a title each: one JSON record, or JSON lines of them (gzipped or not).

    A line may be a record or a tournament entry ``{"title": ..., "record": {...}}``
    (:mod:`newmarket_env.eval.tournament` with ``save_records``).
    """
    items = list(_items(io.BytesIO(data).read, source))
    return [_titled(item, number, len(items), source) for number, item in enumerate(items, start=1)]


def pick_record(read: Callable[[int], bytes], source: str, game: int) -> tuple[str, Any, int]:
    """Record number ``game`` (from 1) of what ``read`` gives, its title and how many records there are.

    Only that record is kept (``None`` when there are fewer); the others are read and checked as JSON.
    """
    kept, count = None, 0
    for count, item in enumerate(_items(read, source), start=1):
        if count == game:
            kept = item
    if kept is None:
        return "", None, count
    return (*_titled(kept, game, count, source), count)


def _titled(item: Any, number: int, count: int, source: str) -> tuple[str, Any]:
    if isinstance(item, dict) and isinstance(item.get("record"), dict):
        record = item["record"]
        if "agents" not in record and isinstance(item.get("seats"), list):  # written before records named them
            record = {**record, "agents": [str(name) for name in item["seats"]]}
        return str(item.get("title") or f"record {number}"), record
    return f"record {number}" if count > 1 else source, item


def _items(read: Callable[[int], bytes], source: str) -> Iterator[Any]:
    """The JSON values of a file: one document (a saved record, indented), or one per line."""
    lines = (line for line in _lines(_unpacked(read, source), source) if line.strip())
    first = next(lines, None)
    if first is None:
        raise ValueError(f"{source} is not a JSON session record: it is empty")
    try:
        item = json.loads(_text(first, source))
    except json.JSONDecodeError:  # not a line of its own: the file is one document over many lines
        yield _whole(first, lines, source)
        return
    yield item
    for number, line in enumerate(lines, start=2):
        if number > MAX_RECORDS:
            raise RecordTooLarge(f"{source} holds more than {MAX_RECORDS} records; the limit is {MAX_RECORDS}")
        try:
            yield json.loads(_text(line, source))
        except json.JSONDecodeError as err:
            raise ValueError(f"{source} is not a JSON session record: line {number}: {err}") from None


def _whole(first: bytes, rest: Iterator[bytes], source: str) -> Any:
    parts, size = [first], len(first)
    for line in rest:
        size += len(line) + 1
        if size > MAX_RECORD_TEXT:
            raise RecordTooLarge(f"{source} holds a record longer than {MAX_RECORD_TEXT} bytes, the limit")
        parts.append(line)
    try:
        return json.loads(_text(b"\n".join(parts), source))
    except json.JSONDecodeError as err:
        raise ValueError(f"{source} is not a JSON session record: {err}") from None


def _text(line: bytes, source: str) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ValueError(f"{source} is neither a JSON session record nor a gzipped one: {err}") from None


def _lines(chunks: Iterator[bytes], source: str) -> Iterator[bytes]:
    """The lines of the text ``chunks`` give, none longer than :data:`MAX_RECORD_TEXT`."""
    pending = bytearray()
    for chunk in chunks:
        pending += chunk
        start, end = 0, pending.find(b"\n")
        while end >= 0:
            yield bytes(pending[start:end])
            start, end = end + 1, pending.find(b"\n", end + 1)
        del pending[:start]
        if len(pending) > MAX_RECORD_TEXT:
            raise RecordTooLarge(f"{source} holds a line longer than {MAX_RECORD_TEXT} bytes, the limit")
    if pending:
        yield bytes(pending)


def _unpacked(read: Callable[[int], bytes], source: str) -> Iterator[bytes]:
    """The text of a file, a chunk at a time, gunzipped if it is gzip (every member), at most
    :data:`MAX_RECORDS_TEXT` bytes."""
    chunk, total = read(_CHUNK), 0
    packed = chunk[:2] == _GZIP_MAGIC
    pieces = _gunzipped(chunk, read, source) if packed else _chunks(chunk, read)
    for piece in pieces:
        total += len(piece)
        if total > MAX_RECORDS_TEXT:
            what = "unpacks to" if packed else "holds"
            raise RecordTooLarge(f"{source} {what} more than {MAX_RECORDS_TEXT} bytes; the limit is {MAX_RECORDS_TEXT}")
        yield piece


def _chunks(chunk: bytes, read: Callable[[int], bytes]) -> Iterator[bytes]:
    while chunk:
        yield chunk
        chunk = read(_CHUNK)


def _gunzipped(data: bytes, read: Callable[[int], bytes], source: str) -> Iterator[bytes]:
    unpack, in_member = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS), True
    try:
        while True:
            if not data:
                data = read(_CHUNK)
            if not data:  # the end of the file: what zlib still holds is a window's worth at most
                if in_member:
                    yield unpack.flush()
                    in_member = not unpack.eof
                break
            if not in_member:
                unpack, in_member = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS), True
            piece = unpack.decompress(data, _CHUNK)  # never more than a chunk out per call
            data = unpack.unconsumed_tail
            if piece:
                yield piece
            if unpack.eof:
                data, in_member = unpack.unused_data + data, False
                if not data.strip(b"\0"):  # what gzip itself allows after the last member
                    data = b""
    except zlib.error as err:
        raise ValueError(f"{source} is neither a JSON session record nor a gzipped one: {err}") from None
    if in_member:
        raise ValueError(f"{source} is neither a JSON session record nor a gzipped one: the gzip data is cut short")


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
