"""Reading session records from files: one JSON record, or JSON lines of them, gzipped or not, within limits.

A record (docs/contract.md, "The record of a session") is what ``env.record()`` returns, with the views'
optional keys (``agents``, ``thoughts``); a tournament's ``records.jsonl.gz`` holds one entry per line
(``{"title", ..., "record"}``). Whatever a file holds (a gzip of zeros, ``/dev/zero``), reading it costs at
most the limits below, and anything wrong with it is a one-line ``ValueError``.
"""

from __future__ import annotations

import io
import json
import zlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from newmarket_env.game.rules import VARIANTS, Rules, rules_from_dict

_DEAL_KEYS = ("dealer", "hands", "dead", "events", "chips")
#: A record's optional keys, which the engine does not make (docs/contract.md): who sat where, what the
#: agents thought at their decisions, and how to load each seat's agent again (to check its decisions).
VIEW_KEYS = ("agents", "thoughts", "seat_agents")


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
        record, seats = item["record"], item.get("seats")
        if "agents" not in record and isinstance(seats, list):  # written before records named them
            record = {**record, "agents": [str(name) for name in seats]}
        elif isinstance(seats, list) and record.get("agents") != seats:
            raise ValueError(
                f"{source}: record {number} names its seats {record.get('agents')!r} but its entry says {seats!r}; "
                "one of them was changed"
            )
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
    _check_seat_agents(record.get("seat_agents"), agents, rules.num_players, path)
    deals = record["deals"]
    if not isinstance(deals, list) or not all(isinstance(d, dict) and set(_DEAL_KEYS) <= set(d) for d in deals):
        raise ValueError(f"{path}: every deal needs {', '.join(_DEAL_KEYS)}")
    return rules


def count_decisions(record: Mapping[str, Any]) -> int:
    """Decisions taken in the record (the events that carry an ``action``)."""
    return sum(1 for deal in record["deals"] for event in deal["events"] if "action" in event)


def _check_seat_agents(seat_agents: Any, agents: Any, players: int, path: str) -> None:
    """``seat_agents``: for each seat, ``None`` (a person, or an agent not to be loaded again) or
    ``{"label": its name in agents, "spec": name or path, "options": {...}, "seed": int}``."""
    if seat_agents is None:
        return
    shape = f"{path}: 'seat_agents' must give each of the {players} seats null or {{label, spec, options, seed}}"
    if not isinstance(seat_agents, list) or len(seat_agents) != players:
        raise ValueError(shape)
    for seat, entry in enumerate(seat_agents):
        if entry is None:
            continue
        if (
            not isinstance(entry, dict)
            or set(entry) != {"label", "spec", "options", "seed"}
            or not all(isinstance(entry[key], str) for key in ("label", "spec"))
            or not isinstance(entry["options"], dict)
            or type(entry["seed"]) is not int
        ):
            raise ValueError(shape)
        if agents is not None and entry["label"] != agents[seat]:
            raise ValueError(
                f"{path}: seat {seat} is named {agents[seat]!r} but its agent was made as {entry['label']!r}; "
                "one of them was changed"
            )
