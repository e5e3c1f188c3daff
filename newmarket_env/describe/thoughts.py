"""What an agent thinks at a decision: its optional ``explain(observation)`` (docs/contract.md, "Agents"),
asked just before ``act`` and kept as a record's ``thoughts``, in words for the terminal and the web page.

An entry is JSON-ready: ``{"decision": K, "seat": S, "agent": NAME, "action": A, "summary": ...,
"actions": [{"action": a, "text": ..., figures...}], "value": ...}``; ``decision`` counts the record's
decisions (the events with an ``action``) from 0, so a replay finds the thoughts behind its step K + 1.

>>> from newmarket_env.engine.types import Decision
>>> from newmarket_env.game.rules import make_rules
>>> said = {"summary": "the best lead score", "actions": [{"action": 3, "score": 4.25}, {"action": 16, "score": 1.0}]}
>>> entry = thought_entry(4, 1, "greedy", 3, said, Decision.LEAD, make_rules("newmarket"))
>>> thought_lines(entry, lambda seat: f"player_{seat}")
['  player_1 (greedy) thinks: the best lead score', '    > lead 4C: score 4.25', '      lead 4D: score 1']
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from newmarket_env.describe.words import choice_text
from newmarket_env.engine.types import Decision
from newmarket_env.game import actions as A
from newmarket_env.game.rules import Rules

_RESERVED = ("action", "text")  # an action row's keys that are not figures


def explain_and_act(agent: Any, observation: dict[str, Any]) -> tuple[int, dict[str, Any] | None]:
    """The agent's action and, when it has ``explain``, what it thought (asked first: ``act`` then decides as
    it would have without the question)."""
    explain = getattr(agent, "explain", None)
    thoughts = explain(observation) if callable(explain) else None
    return int(agent.act(observation)), thoughts


def decisions_so_far(deals: Sequence[Mapping[str, Any]]) -> int:
    """How many decisions a record's deals hold (the events that carry an ``action``)."""
    return sum(1 for deal in deals for event in deal["events"] if "action" in event)


def thought_entry(
    decision: int, seat: int, agent: str, action: int, thoughts: Mapping[str, Any], kind: Decision, rules: Rules
) -> dict[str, Any]:
    """One record entry: the agent's thoughts, made JSON-ready, each action named in words."""
    entry: dict[str, Any] = {"decision": decision, "seat": seat, "agent": agent, "action": int(action)}
    entry["summary"] = str(thoughts.get("summary", ""))
    if "value" in thoughts and thoughts["value"] is not None:
        entry["value"] = _plain(thoughts["value"])
    rows = []
    for row in thoughts.get("actions", []):
        figures = {str(k): _plain(v) for k, v in row.items() if k not in _RESERVED}
        rows.append({"action": int(row["action"]), "text": _short_text(int(row["action"]), kind, rules), **figures})
    entry["actions"] = rows
    return entry


def _short_text(action: int, kind: Decision, rules: Rules) -> str:
    """``lead 4C``, ``stake AS``, ``bid 3``, ``keep your hand``."""
    if A.is_card(action) or A.is_bid(action) or action == A.PASS:
        verb = "discard " if A.is_card(action) and kind is Decision.DISCARD else ("lead " if A.is_card(action) else "")
        return verb + A.action_text(action)
    if A.is_stake(action):
        return f"stake {rules.boodles[action - A.STAKE_BASE]}"
    return choice_text(action, kind, rules)


def _plain(value: Any) -> Any:
    """Numbers as plain JSON numbers (4 significant decimals), ``None``, strings and lists as they are."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        number = float(value)
        return round(number, 4) if math.isfinite(number) else None
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return str(value)


def thought_lines(entry: Mapping[str, Any], name: Callable[[int], str]) -> list[str]:
    """The entry in words: who thought what, then one line per action weighed (``>`` marks the one taken)."""
    who = name(entry["seat"])
    if f"({entry['agent']})" not in who:
        who += f" ({entry['agent']})"
    head = f"  {who} thinks: {entry['summary']}"
    if "value" in entry:
        head += f"; value {_number(entry['value'])} chips"
    lines = [head]
    for row in entry["actions"]:
        mark = ">" if row["action"] == entry["action"] else " "
        figures = ", ".join(f"{key.replace('_', ' ')} {_number(v)}" for key, v in row.items() if key not in _RESERVED)
        lines.append(f"    {mark} {row['text']}" + (f": {figures}" if figures else ""))
    return lines


def _number(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 1000 else f"{value:.0f}"
    return "-" if value is None else str(value)
